package tableops

import (
	"cmp"
	"context"
	"io"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/pkfulltext/textreader"
)

// TestMaintainRowProgress: a build's reader reports its rows every rowProgressStep rows and the
// rest when it closes; a report of no rows (a reader closing right after a step) calls no
// progress callback, so every row report shows more rows indexed than the one before.
func TestMaintainRowProgress(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		rows int64
		want []int64 // the counts add is called with
	}{
		{"short file", 5, []int64{5}},
		{"one step", rowProgressStep, []int64{rowProgressStep, 0}},
		{"two steps and a rest", 2*rowProgressStep + 5, []int64{rowProgressStep, rowProgressStep, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var reports []Progress
			m := &maintenance{cfg: maintainConfig{progress: func(p Progress) { reports = append(reports, p) }}}
			var adds []int64
			r := &countingReader{TextReader: &rowsReader{rows: tc.rows}, add: func(n int64) {
				adds = append(adds, n)
				m.addRows(n)
			}}
			var read int64
			for {
				if _, err := r.Next(ctx); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				read++
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if read != tc.rows {
				t.Fatalf("read %d rows, want %d", read, tc.rows)
			}
			if !slices.Equal(adds, tc.want) {
				t.Errorf("rows reported in %d steps %v, want %v", len(adds), adds[:min(len(adds), 4)], tc.want)
			}
			var last int64
			for i, p := range reports {
				if p.Bucket != nil || p.RowsIndexed <= last {
					t.Errorf("report %d: bucket %v, %d rows indexed after %d", i, p.Bucket, p.RowsIndexed, last)
				}
				last = p.RowsIndexed
			}
			if last != tc.rows {
				t.Errorf("last report: %d rows indexed, want %d", last, tc.rows)
			}
		})
	}
}

// rowsReader is a TextReader of rows empty texts.
type rowsReader struct {
	rows, pos int64
}

func (r *rowsReader) RowCount() int64 { return r.rows }

func (r *rowsReader) Next(context.Context) (textreader.Row, error) {
	if r.pos == r.rows {
		return textreader.Row{}, io.EOF
	}
	r.pos++
	return textreader.Row{Pos: r.pos - 1, Text: []byte{}}, nil
}

func (r *rowsReader) Close() error { return nil }

// TestCompareBytes: buckets are ordered by their partition bytes compared lexicographically, a
// prefix before what extends it.
func TestCompareBytes(t *testing.T) {
	for _, tc := range []struct {
		a, b []byte
		sign int
	}{
		{nil, nil, 0},
		{[]byte{1, 2}, []byte{1, 2}, 0},
		{[]byte{1, 2}, []byte{1, 3}, -1},
		{[]byte{2}, []byte{1, 9}, 1},
		{[]byte{1}, []byte{1, 2}, -1},
		{[]byte{1, 2}, []byte{1}, 1},
		{nil, []byte{0}, -1},
	} {
		a, b := slices.Clone(tc.a), slices.Clone(tc.b)
		var got int
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("compareBytes(%v, %v) panicked: %v", tc.a, tc.b, r)
				}
			}()
			got = compareBytes(a, b)
		}()
		if cmp.Compare(got, 0) != tc.sign {
			t.Errorf("compareBytes(%v, %v) = %d, want sign %d", tc.a, tc.b, got, tc.sign)
		}
	}
}
