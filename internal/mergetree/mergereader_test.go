package mergetree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/dv"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// readerTable is a table of data files in a temporary directory, for the merge reader's tests.
type readerTable struct {
	s      *schema.TableSchema
	layout *kvfile.Layout
	dp     *paths.DataFilePathFactory
}

func newReaderTable(t *testing.T) *readerTable {
	t.Helper()
	s := &schema.TableSchema{PrimaryKeys: []string{"id"}, Options: map[string]string{},
		Fields: []types.DataField{types.Field(0, "id", types.Int().AsNotNull()), types.Field(1, "v", types.String())}}
	pf, err := paths.NewTableFactory(t.TempDir(), s.Options)
	if err != nil {
		t.Fatal(err)
	}
	dp, err := pf.DataFilePathFactory(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := kvfile.NewLayout(s)
	if err != nil {
		t.Fatal(err)
	}
	return &readerTable{s: s, layout: layout, dp: dp}
}

// write writes one data file of the given level holding, for each key, the value "<v><seq>".
func (rt *readerTable) write(t *testing.T, level int32, v string, seqByKey ...[2]int) KeyedFile {
	t.Helper()
	ctx := context.Background()
	w, err := kvfile.NewRollingWriter(fileio.NewLocal(), rt.layout, rt.dp, kvfile.WriterOptions{Level: level, Source: meta.FileSourceCompact})
	if err != nil {
		t.Fatal(err)
	}
	for _, ks := range seqByKey {
		kv := &kvfile.KeyValue{Key: []any{int32(ks[0])}, Seq: int64(ks[1]), Kind: types.Insert,
			Value: []any{int32(ks[0]), fmt.Sprintf("%s%d", v, ks[1])}}
		if err := w.Write(ctx, kv); err != nil {
			t.Fatal(err)
		}
	}
	files, err := w.Close(ctx)
	if err != nil || len(files) != 1 {
		t.Fatalf("%d files (%v)", len(files), err)
	}
	return KeyedFile{File: files[0], Min: []any{int32(seqByKey[0][0])}, Max: []any{int32(seqByKey[len(seqByKey)-1][0])}}
}

func (rt *readerTable) open(ctx context.Context, f *meta.DataFileMeta) (*kvfile.Reader, error) {
	return kvfile.Open(ctx, fileio.NewLocal(), rt.dp.ToPath(f.FileName, ""), f.FileName, rt.layout)
}

// TestMergeReader merges a level-0 run with a level-1 run: each key's records come together in
// sequence order with their levels, rows a deletion vector deletes or keep refuses are skipped,
// and RowsRead counts every row read.
func TestMergeReader(t *testing.T) {
	ctx := context.Background()
	rt := newReaderTable(t)
	l0 := rt.write(t, 0, "a", [2]int{1, 5}, [2]int{3, 6})
	l1 := rt.write(t, 1, "b", [2]int{1, 1}, [2]int{2, 2}, [2]int{3, 3}, [2]int{4, 4})
	vec := dv.New(false)
	if err := vec.Delete(1); err != nil { // key 2
		t.Fatal(err)
	}
	merge, err := ParseMerge(rt.s, false)
	if err != nil {
		t.Fatal(err)
	}
	keep := func(kv *kvfile.KeyValue) bool { return kv.Value[1] != "b4" }
	m, err := NewMergeReader(ctx, [][]KeyedFile{{l0}, {l1}}, rt.open, map[string]dv.DeletionVector{l1.File.FileName: vec}, keep, merge)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var got []string
	for {
		recs, err := m.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var key []string
		for _, r := range recs {
			key = append(key, fmt.Sprintf("%v@%d", r.KV.Value[1], r.Level))
		}
		got = append(got, fmt.Sprintf("%v:%s", recs[0].KV.Key[0], strings.Join(key, ",")))
	}
	if want := "1:b1@1,a5@0 3:b3@1,a6@0"; strings.Join(got, " ") != want {
		t.Errorf("merged %q, want %q", strings.Join(got, " "), want)
	}
	if m.RowsRead() != 6 {
		t.Errorf("rows read %d, want 6", m.RowsRead())
	}
}

// TestMergeReaderRowCount refuses a data file whose row count is not its metadata's.
func TestMergeReaderRowCount(t *testing.T) {
	ctx := context.Background()
	rt := newReaderTable(t)
	f := rt.write(t, 0, "a", [2]int{1, 1}, [2]int{2, 2})
	wrong := *f.File
	wrong.RowCount = 3
	f.File = &wrong
	merge, err := ParseMerge(rt.s, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewMergeReader(ctx, [][]KeyedFile{{f}}, rt.open, nil, nil, merge)
	if err == nil || !strings.Contains(err.Error(), "has 2 rows, its metadata says 3") {
		t.Errorf("error %v", err)
	}
	openErr := errors.New("cannot open")
	failing := func(context.Context, *meta.DataFileMeta) (*kvfile.Reader, error) { return nil, openErr }
	if _, err := NewMergeReader(ctx, [][]KeyedFile{{f}}, failing, nil, nil, merge); !errors.Is(err, openErr) {
		t.Errorf("open error %v", err)
	}
}
