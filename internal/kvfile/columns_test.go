package kvfile_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/types"
)

// countingFS counts the bytes read through the files it opens.
type countingFS struct {
	fileio.FileIO
	read atomic.Int64
}

type countingFile struct {
	fileio.ReadAtFile
	fs *countingFS
}

func (c *countingFS) OpenReaderAt(ctx context.Context, path string) (fileio.ReadAtFile, error) {
	f, err := c.FileIO.OpenReaderAt(ctx, path)
	if err != nil {
		return nil, err
	}
	return &countingFile{f, c}, nil
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.ReadAtFile.ReadAt(p, off)
	f.fs.read.Add(int64(n))
	return n, err
}

// TestColumnReaderReadsOnlyTheProjectedColumns: OpenColumns returns, for every row in file order
// with its position, exactly the values Reader decodes for the fields asked for (in the order
// asked, every type, nulls included), while reading a fraction of the bytes Reader reads; a
// field the table lacks is an error, and one the file predates reads as null.
func TestColumnReaderReadsOnlyTheProjectedColumns(t *testing.T) {
	ctx := context.Background()
	s := allTypes(nil)
	dp, files, _ := writeFiles(t, s, 3000)
	layout, err := kvfile.NewLayout(s)
	if err != nil {
		t.Fatal(err)
	}
	full := readAll(t, s, dp, files)
	index := map[int]int{}
	for i, f := range s.Fields {
		index[f.ID] = i
	}
	for _, ids := range [][]int{{18}, {5, 10, 14}, {17, 3, 0}} {
		fs := &countingFS{FileIO: fileio.NewLocal()}
		var all, whole int64
		row := 0
		for _, f := range files {
			r, err := kvfile.OpenColumns(ctx, fs, dp.ToPath(f.FileName, ""), f.FileName, layout, ids...)
			if err != nil {
				t.Fatal(err)
			}
			if r.NumRows() != f.RowCount {
				t.Fatalf("%d rows, file meta %d", r.NumRows(), f.RowCount)
			}
			for pos := int64(0); ; pos++ {
				values, p, err := r.Next(ctx)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if p != pos {
					t.Fatalf("position %d, want %d", p, pos)
				}
				for j, id := range ids {
					if want := full[row].Value[index[id]]; !reflect.DeepEqual(values[j], want) {
						t.Fatalf("fields %v row %d field %d: %#v, Reader %#v", ids, row, id, values[j], want)
					}
				}
				row++
			}
			r.Close()
			all += f.FileSize
		}
		if row != len(full) {
			t.Fatalf("%d rows, Reader %d", row, len(full))
		}
		fsAll := &countingFS{FileIO: fileio.NewLocal()}
		for _, f := range files {
			r, err := kvfile.Open(ctx, fsAll, dp.ToPath(f.FileName, ""), f.FileName, layout)
			if err != nil {
				t.Fatal(err)
			}
			for {
				if _, _, err := r.Next(ctx); err != nil {
					break
				}
			}
			r.Close()
		}
		whole = fsAll.read.Load()
		t.Logf("fields %v: %d of %d bytes", ids, fs.read.Load(), whole)
		if got := fs.read.Load(); got*2 > whole {
			t.Errorf("fields %v: read %d bytes, Reader reads %d (files %d bytes)", ids, got, whole, all)
		}
	}

	f := files[0]
	if _, err := kvfile.OpenColumns(ctx, fileio.NewLocal(), dp.ToPath(f.FileName, ""), f.FileName, layout, 99); err == nil {
		t.Error("a field the table lacks was accepted")
	}
	// A field added after the file was written reads as null.
	evolved := allTypes(nil)
	evolved.Fields = append(evolved.Fields, types.Field(19, "added", types.Int()))
	el, err := kvfile.NewLayout(evolved)
	if err != nil {
		t.Fatal(err)
	}
	r, err := kvfile.OpenColumns(ctx, fileio.NewLocal(), dp.ToPath(f.FileName, ""), f.FileName, el, 19, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	values, _, err := r.Next(ctx)
	if err != nil || values[0] != nil || fmt.Sprint(values[1]) != fmt.Sprint(full[0].Value[0]) {
		t.Fatalf("evolved: %v (%v)", values, err)
	}
}
