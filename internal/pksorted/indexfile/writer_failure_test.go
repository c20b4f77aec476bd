package indexfile

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// TestClosesWriterAfterWriteFailure is LazyFilteredBitmapIndexReaderTest#testClosesWriterAfterWriteFailure
// in Go's terms: Go's bitmap writer writes to an output its caller owns, so "closing the writer"
// is the build aborting that output. After two keys the bitmap writer has already written the
// first key's bitmap; a third key below the last fails the write as Java's does, and the build
// abandons the output and deletes the file, leaving nothing behind.
func TestClosesWriterAfterWriteFailure(t *testing.T) {
	dir := t.TempDir()
	_, err := newIndexFile(dir).Build(context.Background(), 1, []pkindex.SourceFile{source(t, "data-file", 3)}, field(), TypeBitmap, nil,
		entries(Entry{int32(10), 0}, Entry{int32(20), 1}, Entry{int32(10), 2}))
	if err == nil || !strings.Contains(err.Error(), "monotonically increasing") {
		t.Fatalf("error %v, want the writer's order failure", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("files left behind: %v", left)
	}
}
