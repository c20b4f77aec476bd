package pkindex

import (
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
)

func TestShouldWrite(t *testing.T) {
	tests := []struct {
		source meta.FileSource
		level  int32
		want   bool
	}{
		{meta.FileSourceCompact, 1, true},
		{meta.FileSourceCompact, 5, true},
		{meta.FileSourceCompact, 0, false},
		{meta.FileSourceCompact, -1, false},
		{meta.FileSourceAppend, 0, false},
		{meta.FileSourceAppend, 3, false}, // a metadata-only upgrade of an append file
	}
	for _, tt := range tests {
		if got := ShouldWrite(tt.source, tt.level); got != tt.want {
			t.Errorf("ShouldWrite(%v, %d) = %v, want %v", tt.source, tt.level, got, tt.want)
		}
		f := &meta.DataFileMeta{Level: tt.level, FileSource: &tt.source}
		if got := ShouldReadDataFile(f); got != tt.want {
			t.Errorf("ShouldReadDataFile(%v, %d) = %v, want %v", tt.source, tt.level, got, tt.want)
		}
		f.FileSource = nil
		if ShouldReadDataFile(f) {
			t.Errorf("ShouldReadDataFile(level %d) = true for a file without a source", tt.level)
		}
	}
}
