package kvfile_test

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
)

// TestOpenKeys reads a file of every type through OpenKeys, in normal and thin mode: every
// record has its key, sequence number and row kind, only the asked value field (and in thin mode
// the key fields) of its value; ReadValue returns the whole value row of the records asked for
// (runs of neighbours, rows far apart, rows at batch boundaries, the same row twice), as Open
// reads it. A value field outside the row is refused.
func TestOpenKeys(t *testing.T) {
	ctx := context.Background()
	const n = 3000 // several read batches
	asked := func(i int) bool {
		return i%97 == 0 || (i >= 1020 && i <= 1030) || i == 2047 || i == 2048 || i == n-1
	}
	for _, thin := range []string{"false", "true"} {
		s := allTypes(map[string]string{kvfile.ThinModeOption: thin})
		dp, files, want := writeFiles(t, s, n)
		layout, err := kvfile.NewLayout(s)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 {
			t.Fatalf("thin=%s: %d files", thin, len(files))
		}
		f := files[0]
		path := dp.ToPath(f.FileName, "")
		if _, err := kvfile.OpenKeys(ctx, fileio.NewLocal(), path, f.FileName, layout, len(s.Fields)); err == nil {
			t.Errorf("thin=%s: OpenKeys accepted value field %d of a %d-field row", thin, len(s.Fields), len(s.Fields))
		}
		const eager = 5 // bi
		r, err := kvfile.OpenKeys(ctx, fileio.NewLocal(), path, f.FileName, layout, eager)
		if err != nil {
			t.Fatal(err)
		}
		values := 0
		for i := 0; ; i++ {
			kv, pos, err := r.Next(ctx)
			if err == io.EOF {
				if i != n {
					t.Fatalf("thin=%s: %d records, want %d", thin, i, n)
				}
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			w := want[i]
			if pos != int64(i) || fmt.Sprint(kv.Key) != fmt.Sprint(w.Key) || kv.Seq != w.Seq || kv.Kind != w.Kind {
				t.Fatalf("thin=%s: record %d at %d: %v %d %v, want %v %d %v", thin, i, pos, kv.Key, kv.Seq, kv.Kind, w.Key, w.Seq, w.Kind)
			}
			for j, v := range kv.Value {
				read := j == eager || (thin == "true" && (j == 0 || j == 1))
				if read && fmt.Sprint(v) != fmt.Sprint(w.Value[j]) {
					t.Fatalf("thin=%s: record %d field %d = %v, want %v", thin, i, j, v, w.Value[j])
				}
				if !read && v != nil {
					t.Fatalf("thin=%s: record %d field %d = %v, want it not read", thin, i, j, v)
				}
			}
			if !asked(i) {
				continue
			}
			for range 1 + i%2 { // odd rows asked twice
				got, err := r.ReadValue()
				if err != nil {
					t.Fatalf("thin=%s: record %d: %v", thin, i, err)
				}
				if fmt.Sprint(got) != fmt.Sprint(w.Value) {
					t.Fatalf("thin=%s: record %d value\n got %v\nwant %v", thin, i, got, w.Value)
				}
			}
			values++
		}
		r.Close()
		if values < 20 {
			t.Fatalf("thin=%s: only %d values asked", thin, values)
		}
	}
}
