package indexfile

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/testing/sortkeytest"
	"github.com/paimon-pkft/pkft/internal/types"
)

// spillOptions is the Java test's forced spill: four pages of 32 kb.
var spillOptions = map[string]string{"write-buffer-size": "128 kb", "page-size": "32 kb"}

// TestForcedSpillSortsRowsAndRemovesSpillFiles is the spill half of
// PkSortedIndexBuilderTest#testForcedSpillSortsRowsAndClosesTaskOwnedIoManager: 20,000 INT rows
// in reverse order through a 128 kb buffer of 32 kb pages spill sorted runs and come out sorted;
// the payload is byte-identical to the one built without a spill (all values distinct), and
// the builder's temporary directory is gone afterwards (Java: its task-owned I/O manager closed).
func TestForcedSpillSortsRowsAndRemovesSpillFiles(t *testing.T) {
	const n = 20_000
	values := make([]any, n)
	for i := range values {
		values[i] = int32(n - i - 1)
	}
	tmp := t.TempDir()
	var spilled []string
	readers := &observingReaders{inner: arrayReaders{"a-large-data-file": values[:n/2], "b-large-data-file": values[n/2:]}, onOpen: func(name string) {
		if name == "b-large-data-file" {
			spilled = spillFiles(t, tmp)
		}
	}}
	files := []*meta.DataFileMeta{levelFile("a-large-data-file", n/2), levelFile("b-large-data-file", n/2)}
	spillDir, plainDir := filepath.Join(t.TempDir(), "spill"), filepath.Join(t.TempDir(), "plain")
	b := &Builder{IndexFile: newIndexFile(spillDir), Readers: readers, Field: field(), IndexType: TypeBTree, Options: spillOptions, TempDir: tmp}
	p, err := b.Build(context.Background(), files)
	if err != nil {
		t.Fatal(err)
	}
	if len(spilled) == 0 {
		t.Fatal("no run was spilled while the first file's 10,000 rows were buffered")
	}
	if left := spillFiles(t, tmp); len(left) > 0 {
		t.Fatalf("spill files left: %v", left)
	}
	plain := &Builder{IndexFile: newIndexFile(plainDir), Readers: readers.inner, Field: field(), IndexType: TypeBTree}
	q, err := plain.Build(context.Background(), files)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(spillDir, p.FileName))
	want, _ := os.ReadFile(filepath.Join(plainDir, q.FileName))
	if !bytes.Equal(got, want) || !bytes.Equal(p.GlobalIndex.IndexMeta, q.GlobalIndex.IndexMeta) {
		t.Fatalf("spilled payload (%d bytes) differs from the in-memory one (%d bytes)", len(got), len(want))
	}

	// The sorted order itself, with Java's run count for this buffer: an INT row's index entry
	// is 13 bytes (5 normalized key bytes and a pointer), 2,520 to a 32 kb page, and its record
	// 32 bytes (a length and a 28-byte binary row), 1,024 to a page: of the four pages one holds
	// the index and three records, so a run ends when a second index page is needed, at 2,520
	// rows: 7 runs spilled, 1,880 rows left in memory.
	ser, _ := sortkey.New(types.Int())
	s, err := newSorter(ser, field(), spillOptions, tmp)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	for i, v := range values {
		if err := s.add(context.Background(), Entry{Value: v, RowID: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if s.spilledRuns() != 7 || len(s.rows) != n-7*2520 {
		t.Fatalf("%d runs spilled, %d rows in memory; Java's buffer spills 7 and keeps 1,880", s.spilledRuns(), len(s.rows))
	}
	i := 0
	for e, err := range s.sorted(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Value != int32(i) || e.RowID != int64(n-1-i) {
			t.Fatalf("row %d: %+v", i, e)
		}
		i++
	}
	if i != n {
		t.Fatalf("%d rows", i)
	}
}

// TestSpillFilesRemovedAfterFailure: a build that fails after spilling (a source read error, a
// cancelled context, a stopped merge) leaves no spill file and no payload.
func TestSpillFilesRemovedAfterFailure(t *testing.T) {
	values := make([]any, 6000)
	for i := range values {
		values[i] = int32(i % 97)
	}
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		fail func(cancel context.CancelFunc) error
	}{
		{"read error", func(context.CancelFunc) error { return boom }},
		{"cancelled", func(cancel context.CancelFunc) error { cancel(); return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tmp, out := t.TempDir(), t.TempDir()
			var sawSpill bool
			readers := &observingReaders{inner: arrayReaders{"a": values, "b": values}, failSecond: func() error {
				sawSpill = len(spillFiles(t, tmp)) > 0
				return tc.fail(cancel)
			}}
			b := &Builder{IndexFile: newIndexFile(out), Readers: readers, Field: field(), IndexType: TypeBitmap, Options: spillOptions, TempDir: tmp}
			_, err := b.Build(ctx, []*meta.DataFileMeta{levelFile("a", 6000), levelFile("b", 6000)})
			if err == nil {
				t.Fatal("build succeeded")
			}
			if !sawSpill {
				t.Fatal("nothing was spilled before the failure")
			}
			if left := spillFiles(t, tmp); len(left) > 0 {
				t.Fatalf("spill files left: %v", left)
			}
			if es, _ := os.ReadDir(out); len(es) > 0 {
				t.Fatalf("payload files left: %v", es)
			}
		})
	}
	t.Run("consumer stops", func(t *testing.T) {
		tmp := t.TempDir()
		ser, _ := sortkey.New(types.Int())
		s, err := newSorter(ser, field(), spillOptions, tmp)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range values {
			if err := s.add(context.Background(), Entry{Value: v, RowID: int64(i)}); err != nil {
				t.Fatal(err)
			}
		}
		for range s.sorted(context.Background()) {
			break
		}
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
		if left := spillFiles(t, tmp); len(left) > 0 {
			t.Fatalf("spill files left: %v", left)
		}
	})
}

// TestSortBufferOptionsRefused: sort buffer options Java cannot use fail the build by name.
func TestSortBufferOptionsRefused(t *testing.T) {
	for opts, want := range map[[2]string]string{
		{"page-size", "48 kb"}:                   "page-size",
		{"page-size", "16 b"}:                    "page-size",
		{"write-buffer-size", "64 kb"}:           "write-buffer-size",
		{"spill-compression", "lz4"}:             "spill-compression",
		{"local-sort.max-num-file-handles", "1"}: "local-sort.max-num-file-handles",
	} {
		b := &Builder{IndexFile: newIndexFile(t.TempDir()), Readers: arrayReaders{"a": {int32(1)}}, Field: field(), IndexType: TypeBTree,
			Options: map[string]string{opts[0]: opts[1]}}
		if _, err := b.Build(context.Background(), []*meta.DataFileMeta{levelFile("a", 1)}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v", opts, err)
		}
	}
}

// TestSortRowSizeIsBinaryRowSize: the row size the buffer accounts is the length of the
// (value, row id) binary row Java serializes, for every indexable type, null included.
func TestSortRowSizeIsBinaryRowSize(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, typ := range append(sortkeytest.Types(), types.VarChar(100)) {
		size := sortRowSize(typ)
		rowType := types.Row(types.DataField{ID: 0, Name: "v", Type: typ}, types.DataField{ID: 1, Name: "id", Type: types.BigInt()})
		for i := range 200 {
			var v any
			if i > 0 {
				v = sortkeytest.Key(typ, r)
			}
			enc, err := binrow.Encode(rowType, []any{v, int64(i)})
			if err != nil {
				t.Fatal(err)
			}
			if n, err := size(v); err != nil || n != len(enc) {
				t.Fatalf("%s %v: size %d (%v), binary row %d bytes", typ.SQLString(), v, n, err, len(enc))
			}
		}
	}
}

// observingReaders wraps arrayReaders: onOpen sees each file opened; failSecond, when set, is
// called as the second file opens and its error fails the open.
type observingReaders struct {
	inner      arrayReaders
	onOpen     func(string)
	failSecond func() error
	opened     int
}

func (o *observingReaders) Open(ctx context.Context, f *meta.DataFileMeta) (EntryReader, error) {
	o.opened++
	if o.onOpen != nil {
		o.onOpen(f.FileName)
	}
	if o.failSecond != nil && o.opened == 2 {
		if err := o.failSecond(); err != nil {
			return nil, err
		}
	}
	return o.inner.Open(ctx, f)
}

// spillFiles lists every file under dir.
func spillFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
