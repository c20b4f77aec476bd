package maintainer

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/datafile"
	"github.com/paimon-pkft/pkft/internal/pksorted/indexfile"
	"github.com/paimon-pkft/pkft/internal/types"
)

var _ Builder = (*indexfile.Builder)(nil)

// valueReaders serves each data file's indexed values in physical order (the data file reader's
// part; the payload build and its file are the real ones).
type valueReaders map[string][]any

func (v valueReaders) Open(_ context.Context, f *meta.DataFileMeta) (indexfile.EntryReader, error) {
	return &valueReader{values: v[f.FileName]}, nil
}

type valueReader struct {
	values []any
	pos    int
}

func (r *valueReader) RowCount() int64 { return int64(len(r.values)) }
func (r *valueReader) Close() error    { return nil }
func (r *valueReader) Next(context.Context) (datafile.Entry, bool, error) {
	if r.pos == len(r.values) {
		return datafile.Entry{}, false, nil
	}
	r.pos++
	return datafile.Entry{Value: r.values[r.pos-1], Position: int64(r.pos - 1)}, true, nil
}

// TestBuildsRealPayloadsAndDeletesThemOnAbort runs the maintainer with the family's own builder
// (indexfile.Builder, writing btree and bitmap files) and deleter (indexfile.IndexFile): a level's
// payload is written, published and covers the level after a restore; an aborted commit's payload
// is removed from disk.
func TestBuildsRealPayloadsAndDeletesThemOnAbort(t *testing.T) {
	ctx := context.Background()
	for _, typ := range []string{indexfile.TypeBTree, indexfile.TypeBitmap} {
		dir := filepath.Join(t.TempDir(), typ)
		files := &indexfile.IndexFile{FileIO: fileio.NewLocal(), Paths: paths.NewDirIndexPathFactory(dir)}
		a, b := dataFile("data-a", 3), dataFile("data-b", 2)
		builder := &indexfile.Builder{IndexFile: files, IndexType: typ,
			Field:   types.DataField{ID: 7, Name: "price", Type: types.Int()},
			Readers: valueReaders{"data-a": {int32(5), nil, int32(1)}, "data-b": {int32(5), int32(9)}}}
		m, err := NewMaintainer(7, typ, builder, files, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		exists := func(p *meta.IndexFileMeta) bool {
			_, err := os.Stat(filepath.Join(dir, p.FileName))
			return err == nil
		}

		aborted, err := m.PrepareCommit(ctx, pkindex.DataIncrement{}, compact(nil, []*meta.DataFileMeta{a, b}), true, true)
		if err != nil {
			t.Fatal(err)
		}
		first := aborted.CompactIncrement.NewIndexFiles[0]
		if !exists(first) || first.IndexType != typ || first.RowCount != 5 {
			t.Fatalf("%s: built %+v (on disk: %v)", typ, first, exists(first))
		}
		if err := aborted.Abort(ctx); err != nil {
			t.Fatal(err)
		}
		if exists(first) {
			t.Fatalf("%s: the aborted commit's payload is still on disk", typ)
		}

		c, err := m.PrepareCommit(ctx, pkindex.DataIncrement{}, compact(nil, []*meta.DataFileMeta{a, b}), true, true)
		if err != nil {
			t.Fatal(err)
		}
		built := c.CompactIncrement.NewIndexFiles[0]
		if !exists(built) || built.FileName == first.FileName {
			t.Fatalf("%s: rebuilt %+v", typ, built)
		}
		restored, err := NewMaintainer(7, typ, builder, files, []*meta.DataFileMeta{a, b}, []*meta.IndexFileMeta{built})
		if err != nil {
			t.Fatal(err)
		}
		if pending, err := restored.HasPendingMaintenance(); err != nil || pending {
			t.Fatalf("%s: restored from its own payload, pending maintenance %v (%v)", typ, pending, err)
		}
		wantSources(t, restored.State().Covered, "data-a:3", "data-b:2")
	}
}
