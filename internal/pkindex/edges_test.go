package pkindex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
)

// The rules of this file's tests are those the automatic mutation run (make mutations-auto) found
// no unit test on.

// TestSameDVRangesEachField: ranges of one data file equal only when offset, length and
// cardinality all are (a null cardinality equals only null).
func TestSameDVRangesEachField(t *testing.T) {
	one, two := int64(1), int64(2)
	base := meta.DeletionVectorMeta{DataFileName: "x", Offset: 4, Length: 8, Cardinality: &one}
	for name, tc := range map[string]struct {
		other meta.DeletionVectorMeta
		same  bool
	}{
		"equal":                  {base, true},
		"offset":                 {meta.DeletionVectorMeta{DataFileName: "x", Offset: 5, Length: 8, Cardinality: &one}, false},
		"length":                 {meta.DeletionVectorMeta{DataFileName: "x", Offset: 4, Length: 9, Cardinality: &one}, false},
		"cardinality":            {meta.DeletionVectorMeta{DataFileName: "x", Offset: 4, Length: 8, Cardinality: &two}, false},
		"null cardinality":       {meta.DeletionVectorMeta{DataFileName: "x", Offset: 4, Length: 8}, false},
		"another data file name": {meta.DeletionVectorMeta{DataFileName: "y", Offset: 4, Length: 8, Cardinality: &one}, false},
	} {
		a := []meta.DeletionVectorMeta{base}
		b := []meta.DeletionVectorMeta{tc.other}
		if got := sameDVRanges(a, b); got != tc.same {
			t.Errorf("%s: sameDVRanges = %v, want %v", name, got, tc.same)
		}
		if got := sameDVRanges(b, a); got != tc.same {
			t.Errorf("%s (the other way): sameDVRanges = %v, want %v", name, got, tc.same)
		}
	}
	nulls := []meta.DeletionVectorMeta{{DataFileName: "x", Offset: 4, Length: 8}}
	if !sameDVRanges(nulls, nulls) {
		t.Error("two null cardinalities differ")
	}
}

type failingDeleter struct{ calls int }

func (d *failingDeleter) DeleteIndexFile(context.Context, *meta.IndexFileMeta) error {
	d.calls++
	return errors.New("disk gone")
}

// TestBackgroundBuildDeleteErrors: a failed build's file deleted without error leaves the build's
// error alone; a deletion that fails is joined to it, naming the file.
func TestBackgroundBuildDeleteErrors(t *testing.T) {
	ctx := context.Background()
	build := func(context.Context) (*meta.IndexFileMeta, error) { return incPayload("half"), errors.New("boom") }

	b := StartBackgroundBuild(ctx, "test payload", &buildDeleter{}, build)
	awaitBuild(t, b)
	if _, _, err := b.Take(ctx, false, "test"); err == nil || strings.Contains(err.Error(), "delete failed") {
		t.Errorf("deleted without error: %v, want the build's error alone", err)
	}

	d := &failingDeleter{}
	b = StartBackgroundBuild(ctx, "test payload", d, build)
	awaitBuild(t, b)
	_, _, err := b.Take(ctx, false, "test")
	if err == nil || !strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), "delete failed test payload half: disk gone") {
		t.Errorf("deletion failed: %v, want the build's error and the deletion's", err)
	}
	if d.calls != 1 {
		t.Errorf("%d deletions, want 1", d.calls)
	}
}

// TestDeleteIndexFileQuietlyExternal: an index file recorded with an external path is deleted
// there, not under the index directory.
func TestDeleteIndexFileQuietlyExternal(t *testing.T) {
	root, ext := t.TempDir(), t.TempDir()
	opts, err := paths.OptionsFromTable(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := paths.NewFileStorePathFactory(opts)
	if err != nil {
		t.Fatal(err)
	}
	p := f.GlobalIndexPathFactory()
	local, external := p.ToPath("index-a-0"), filepath.Join(ext, "index-a-0")
	for _, path := range []string{local, external} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	DeleteIndexFileQuietly(context.Background(), fileio.NewLocal(), p, &meta.IndexFileMeta{FileName: "index-a-0", ExternalPath: &external})
	if _, err := os.Stat(external); !os.IsNotExist(err) {
		t.Errorf("the external file is still there: %v", err)
	}
	if _, err := os.Stat(local); err != nil {
		t.Errorf("the file under the index directory was deleted instead: %v", err)
	}
	DeleteIndexFileQuietly(context.Background(), fileio.NewLocal(), p, &meta.IndexFileMeta{FileName: "index-a-0"})
	if _, err := os.Stat(local); !os.IsNotExist(err) {
		t.Errorf("the file without external path is still there: %v", err)
	}
}

// TestPeekSourceMeta: the header of encoded source meta, and false for another version or a
// header cut short at each of its fields.
func TestPeekSourceMeta(t *testing.T) {
	a, _ := NewSourceFile("data-a.parquet", 3)
	b, _ := NewSourceFile("data-b.parquet", 4)
	m, err := NewSourceMeta(2, []SourceFile{a, b})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if level, count, ok := PeekSourceMeta(enc); !ok || level != 2 || count != 2 {
		t.Errorf("PeekSourceMeta = %d, %d, %v; want 2, 2, true", level, count, ok)
	}
	for _, n := range []int{0, 3, 4, 7, 8, 11} {
		if level, count, ok := PeekSourceMeta(enc[:n]); ok || level != 0 || count != 0 {
			t.Errorf("PeekSourceMeta of %d bytes = %d, %d, %v; want nothing", n, level, count, ok)
		}
	}
	other := append([]byte{0, 0, 0, 2}, enc[4:]...)
	if _, _, ok := PeekSourceMeta(other); ok {
		t.Error("PeekSourceMeta of version 2: ok")
	}
}

// TestSourceMetaEqual: the same level and the same files in the same order, both.
func TestSourceMetaEqual(t *testing.T) {
	a, _ := NewSourceFile("data-a.parquet", 3)
	b, _ := NewSourceFile("data-b.parquet", 4)
	mk := func(level int32, files ...SourceFile) SourceMeta {
		m, err := NewSourceMeta(level, files)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if !mk(1, a, b).Equal(mk(1, a, b)) {
		t.Error("equal metas differ")
	}
	for name, o := range map[string]SourceMeta{"level": mk(2, a, b), "files": mk(1, a), "order": mk(1, b, a)} {
		if mk(1, a, b).Equal(o) {
			t.Errorf("metas of another %s are equal", name)
		}
	}
}

// TestSameGlobalIndexNulls: a null global index meta equals only null.
func TestSameGlobalIndexNulls(t *testing.T) {
	m := incPayload("p").GlobalIndex
	if !SameGlobalIndex(nil, nil) {
		t.Error("null and null differ")
	}
	if SameGlobalIndex(m, nil) || SameGlobalIndex(nil, m) {
		t.Error("a meta equals null")
	}
	if !SameGlobalIndex(m, incPayload("q").GlobalIndex) {
		t.Error("equal metas differ")
	}
}
