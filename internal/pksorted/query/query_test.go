package query

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
	"github.com/paimon-pkft/pkft/internal/pksorted/indexfile"
	"github.com/paimon-pkft/pkft/internal/predicate"
	"github.com/paimon-pkft/pkft/internal/testing/pksortedtest"
	"github.com/paimon-pkft/pkft/internal/types"
)

// The test table: price (INT, pk-btree, field 7), tag (STRING, pk-bitmap, field 8), qty (INT,
// not indexed, field 9).
var fields = []types.DataField{
	{ID: 7, Name: "price", Type: types.Int()},
	{ID: 8, Name: "tag", Type: types.String()},
	{ID: 9, Name: "qty", Type: types.Int()},
}

var defs = []definition.Definition{
	{Column: "price", FieldID: 7, IndexType: indexfile.TypeBTree},
	{Column: "tag", FieldID: 8, IndexType: indexfile.TypeBitmap},
}

// level is one data level: its files (in name order) and each file's rows.
type level struct {
	files []*meta.DataFileMeta
	rows  [][][]any // rows[file][position] = {price, tag, qty}
}

func newLevel(lvl int32, files map[string][][]any) level {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	var l level
	for _, n := range names {
		l.files = append(l.files, pksortedtest.DataFile(n, int64(len(files[n])), lvl))
		l.rows = append(l.rows, files[n])
	}
	return l
}

// env writes payloads with Go's IndexFile and opens them for Evaluate, counting opens.
type env struct {
	t     testing.TB
	dir   string
	ix    *indexfile.IndexFile
	opens int
}

func newEnv(t testing.TB) *env {
	dir := t.TempDir()
	return &env{t: t, dir: dir, ix: &indexfile.IndexFile{FileIO: fileio.NewLocal(), Paths: paths.NewDirIndexPathFactory(dir)}}
}

// payload builds l's payload of the column at fields[col] (values sorted nulls first, as the
// builder's input must be).
func (e *env) payload(l level, col int, indexType string) *meta.IndexFileMeta {
	e.t.Helper()
	var sources []pkindex.SourceFile
	var entries []indexfile.Entry
	var offset int64
	for i, f := range l.files {
		sf, err := pkindex.NewSourceFile(f.FileName, f.RowCount)
		if err != nil {
			e.t.Fatal(err)
		}
		sources = append(sources, sf)
		for pos, r := range l.rows[i] {
			entries = append(entries, indexfile.Entry{Value: r[col], RowID: offset + int64(pos)})
		}
		offset += f.RowCount
	}
	slices.SortStableFunc(entries, func(a, b indexfile.Entry) int {
		switch {
		case a.Value == nil && b.Value == nil:
			return 0
		case a.Value == nil:
			return -1
		case b.Value == nil:
			return 1
		}
		return binrow.CompareValues(a.Value, b.Value)
	})
	p, err := e.ix.Build(context.Background(), l.files[0].Level, sources, fields[col], indexType, nil,
		func(yield func(indexfile.Entry, error) bool) {
			for _, en := range entries {
				if !yield(en, nil) {
					return
				}
			}
		})
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) open(ctx context.Context, p *meta.IndexFileMeta) (io.ReaderAt, io.Closer, error) {
	e.opens++
	f, err := fileio.NewLocal().OpenReaderAt(ctx, filepath.Join(e.dir, p.FileName))
	if err != nil {
		return nil, nil, err
	}
	return f, f, nil
}

func parse(t testing.TB, expr string) *predicate.Predicate {
	t.Helper()
	p, err := predicate.Parse(expr, fields)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (e *env) evaluate(expr string, b Bucket) []FileResult {
	e.t.Helper()
	p := parse(e.t, expr)
	ip, ok := IndexFilter(p, fields, defs)
	if !ok {
		e.t.Fatalf("%s: no indexed part", expr)
	}
	res, err := Evaluate(context.Background(), ip, fields, defs, nil, b, e.open)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

func positions(r FileResult) []uint64 {
	if r.Positions == nil {
		return nil
	}
	return r.Positions.ToArray()
}

// twoFileLevel is level 1 of two files; data-1 is listed after data-2 in the bucket's read
// order to check that files are localized by name, not by read order.
func twoFileLevel() level {
	return newLevel(1, map[string][][]any{
		"data-1": {{int32(10), "x", int32(1)}, {nil, "y", int32(2)}, {int32(3), nil, int32(3)}},
		"data-2": {{int32(10), "z", int32(4)}, {int32(5), "x", int32(5)}},
	})
}

// TestFileLocalPositions is PrimaryKeySortedIndexScanTest#testReadMergedSourceGroupInFileLocalPositions
// on real payloads: one payload of a two-file level answers in each file's local positions, the
// reader is opened once for the level, and every leaf kind and AND/OR combination gives the
// positions of the rows that satisfy it.
func TestFileLocalPositions(t *testing.T) {
	e := newEnv(t)
	l := twoFileLevel()
	b := Bucket{DataFiles: []*meta.DataFileMeta{l.files[1], l.files[0]},
		Payloads: []*meta.IndexFileMeta{e.payload(l, 0, indexfile.TypeBTree), e.payload(l, 1, indexfile.TypeBitmap)}}
	for _, c := range []struct {
		expr         string
		data2, data1 []uint64 // positions in data-2 and data-1; nil: no rows
	}{
		{"price = 10", []uint64{0}, []uint64{0}},
		{"price <> 10", []uint64{1}, []uint64{2}},
		{"price < 10", []uint64{1}, []uint64{2}},
		{"price <= 5", []uint64{1}, []uint64{2}},
		{"price > 3", []uint64{0, 1}, []uint64{0}},
		{"price >= 11", nil, nil},
		{"price IN (3, 5)", []uint64{1}, []uint64{2}},
		{"price NOT IN (3, 5)", []uint64{0}, []uint64{0}},
		{"price IS NULL", nil, []uint64{1}},
		{"price IS NOT NULL", []uint64{0, 1}, []uint64{0, 2}},
		{"tag = 'x'", []uint64{1}, []uint64{0}},
		{"tag IS NULL", nil, []uint64{2}},
		{"tag IN ('y', 'z')", []uint64{0}, []uint64{1}},
		{"price = 10 AND tag = 'x'", nil, []uint64{0}},
		{"price = 10 OR tag IS NULL", []uint64{0}, []uint64{0, 2}},
		{"price IS NOT NULL AND price > 3", []uint64{0, 1}, []uint64{0}},
		{"price IS NULL AND price IS NOT NULL", nil, nil},
		{"price IS NULL AND tag IS NOT NULL", nil, []uint64{1}},
		{"(price = 5 OR price = 3) AND (tag = 'x' OR tag IS NULL)", []uint64{1}, []uint64{2}},
		{"price = 10 AND qty = 99", []uint64{0}, []uint64{0}},
	} {
		e.opens = 0
		res := e.evaluate(c.expr, b)
		if len(res) != 2 || res[0].File != l.files[1] || res[1].File != l.files[0] {
			t.Fatalf("%s: results %+v, want data-2 then data-1", c.expr, res)
		}
		for i, want := range [][]uint64{c.data2, c.data1} {
			r := res[i]
			wantOutcome := Narrowed
			if want == nil {
				wantOutcome = NoRows
			}
			if r.Outcome != wantOutcome || !slices.Equal(positions(r), want) && want != nil {
				t.Errorf("%s: %s: %s %v, want %s %v (%s)", c.expr, r.File.FileName, r.Outcome, positions(r), wantOutcome, want, r.Reason)
			}
		}
		if indexed := strings.Count(c.expr, "price") > 0; indexed && e.opens > 2 {
			t.Errorf("%s: %d payload opens for two groups", c.expr, e.opens)
		}
	}
}

// TestPerFileBooleanFallback is PrimaryKeySortedIndexScanTest#testPerFileBooleanFallbackSemantics:
// AND narrows with its indexed child, OR with an unindexed branch does not narrow; a predicate
// with no indexed part has no index filter at all.
func TestPerFileBooleanFallback(t *testing.T) {
	e := newEnv(t)
	l := twoFileLevel()
	b := Bucket{DataFiles: l.files, Payloads: []*meta.IndexFileMeta{e.payload(l, 0, indexfile.TypeBTree)}}
	for _, r := range e.evaluate("price = 10 AND qty = 1", b) {
		if r.Outcome != Narrowed || !slices.Equal(positions(r), []uint64{0}) {
			t.Errorf("AND: %s %s %v", r.File.FileName, r.Outcome, positions(r))
		}
	}
	p := parse(t, "price = 10 OR qty = 1")
	if ip, ok := IndexFilter(p, fields, defs); ok {
		t.Errorf("OR with an unindexed branch projects to %s", ip)
	}
	// tag has a definition but no payload here: an OR over it cannot narrow.
	for _, r := range e.evaluate("price = 10 OR tag = 'x'", b) {
		if r.Outcome != NotNarrowed || r.Reason == "" {
			t.Errorf("OR over an uncovered field: %s %s", r.File.FileName, r.Outcome)
		}
	}
	if _, ok := IndexFilter(parse(t, "qty = 1"), fields, defs); ok {
		t.Error("a predicate on an unindexed column has an index filter")
	}
}

// TestGroupPlanning is PrimaryKeySortedIndexScanTest#testSnapshotScopedGroupPlanning and
// #testDuplicateLevelPayloadsFallBackWithoutCreatingReader: payloads of another field or type,
// or listing other files, cover nothing; two payloads of one level make the level uncovered
// without opening either; a level the scan reads only part of is not covered; level-0 files are
// never narrowed.
func TestGroupPlanning(t *testing.T) {
	e := newEnv(t)
	l := twoFileLevel()
	good := e.payload(l, 0, indexfile.TypeBTree)
	wrongType := *good
	wrongType.IndexType = indexfile.TypeBitmap
	wrongField := *good
	wrongField.GlobalIndex = &meta.GlobalIndexMeta{}
	*wrongField.GlobalIndex = *good.GlobalIndex
	wrongField.GlobalIndex.IndexFieldID = 9
	other := newLevel(1, map[string][][]any{"data-3": {{int32(10), "x", int32(1)}}})
	wrongSource := e.payload(other, 0, indexfile.TypeBTree)

	res := e.evaluate("price = 10", Bucket{DataFiles: l.files, Payloads: []*meta.IndexFileMeta{&wrongType, &wrongField, wrongSource, good}})
	for _, r := range res {
		if r.Outcome != Narrowed {
			t.Errorf("only the good payload: %s %s (%s)", r.File.FileName, r.Outcome, r.Reason)
		}
	}
	e.opens = 0
	dup := e.payload(l, 0, indexfile.TypeBTree)
	for _, r := range e.evaluate("price = 10", Bucket{DataFiles: l.files, Payloads: []*meta.IndexFileMeta{good, dup}}) {
		if r.Outcome != NotNarrowed {
			t.Errorf("two payloads of a level: %s %s", r.File.FileName, r.Outcome)
		}
	}
	if e.opens != 0 {
		t.Errorf("two payloads of a level: %d payload opens, want none", e.opens)
	}
	for _, r := range e.evaluate("price = 10", Bucket{DataFiles: l.files[:1], Payloads: []*meta.IndexFileMeta{good}}) {
		if r.Outcome != NotNarrowed {
			t.Errorf("a level read in part: %s %s", r.File.FileName, r.Outcome)
		}
	}
	l0 := pksortedtest.DataFile("data-0", 3, 0)
	res = e.evaluate("price = 10", Bucket{DataFiles: append([]*meta.DataFileMeta{l0}, l.files...), Payloads: []*meta.IndexFileMeta{good}})
	if res[0].Outcome != NotNarrowed || res[1].Outcome != Narrowed || res[2].Outcome != Narrowed {
		t.Errorf("level 0 next to a covered level: %s %s %s", res[0].Outcome, res[1].Outcome, res[2].Outcome)
	}
}

// TestReaderFailureFallsBackForLevel is PrimaryKeySortedIndexScanTest#testReaderFailureFallsBackForCompleteLevel
// on real bytes: a corrupt or truncated payload, or one that cannot be opened, makes every file
// of its level read whole, with the reason, and opens the payload once.
func TestReaderFailureFallsBackForLevel(t *testing.T) {
	for _, corrupt := range []struct {
		name string
		do   func(path string) error
	}{
		{"truncated", func(p string) error { return os.Truncate(p, 10) }},
		{"bad magic", func(p string) error {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b[len(b)-1] ^= 0xff
			return os.WriteFile(p, b, 0o644)
		}},
		{"zeroed", func(p string) error {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			clear(b)
			return os.WriteFile(p, b, 0o644)
		}},
		{"missing", os.Remove},
	} {
		for col, typ := range []string{indexfile.TypeBTree, indexfile.TypeBitmap} {
			e := newEnv(t)
			l := twoFileLevel()
			p := e.payload(l, col, typ)
			if err := corrupt.do(filepath.Join(e.dir, p.FileName)); err != nil {
				t.Fatal(err)
			}
			expr := map[int]string{0: "price = 10", 1: "tag = 'x'"}[col]
			res := e.evaluate(expr+" AND price IS NOT NULL", Bucket{DataFiles: l.files, Payloads: []*meta.IndexFileMeta{p}})
			for _, r := range res {
				if r.Outcome != NotNarrowed || !strings.Contains(r.Reason, p.FileName) {
					t.Errorf("%s %s: %s %s (%q)", corrupt.name, typ, r.File.FileName, r.Outcome, r.Reason)
				}
			}
			if e.opens != 1 {
				t.Errorf("%s %s: %d opens, want 1 for the level", corrupt.name, typ, e.opens)
			}
		}
	}
}

// TestPositionsChecked is PrimaryKeySortedIndexResultTest#testIndexedEmptyRawAndInvalidFiles and
// #testFragmentedIndexResultFallsBackToRawSplit: a file's positions must lie within it and form
// at most MaxRanges ranges, otherwise the file is read whole.
func TestPositionsChecked(t *testing.T) {
	e := newEnv(t)
	rows := make([][]any, 2*MaxRanges+2)
	for i := range rows {
		rows[i] = []any{int32(i % 2), "x", int32(i)}
	}
	l := newLevel(1, map[string][][]any{"data-1": rows})
	b := Bucket{DataFiles: l.files, Payloads: []*meta.IndexFileMeta{e.payload(l, 0, indexfile.TypeBTree)}}
	if r := e.evaluate("price = 0", b)[0]; r.Outcome != NotNarrowed || !strings.Contains(r.Reason, "row ranges") {
		t.Errorf("%d ranges: %s %q", MaxRanges+1, r.Outcome, r.Reason)
	}
	rows = rows[:2*MaxRanges]
	l = newLevel(1, map[string][][]any{"data-1": rows})
	b = Bucket{DataFiles: l.files, Payloads: []*meta.IndexFileMeta{e.payload(l, 0, indexfile.TypeBTree)}}
	r := e.evaluate("price = 0", b)[0]
	if r.Outcome != Narrowed || len(r.Ranges()) != MaxRanges {
		t.Errorf("%d ranges: %s, %d ranges", MaxRanges, r.Outcome, len(r.Ranges()))
	}
	if got := checkPositions(mustBitmap(7), 5); !strings.Contains(got, "outside") {
		t.Errorf("position 7 of 5 rows: %q", got)
	}
	if got := checkPositions(mustBitmap(4), 5); got != "" {
		t.Errorf("position 4 of 5 rows: %q", got)
	}
}

func mustBitmap(positions ...uint64) *roaring64.Bitmap { return roaring64.BitmapOf(positions...) }

// TestCancelled: a cancelled context is the one error Evaluate returns.
func TestCancelled(t *testing.T) {
	e := newEnv(t)
	l := twoFileLevel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ip, _ := IndexFilter(parse(t, "price = 10"), fields, defs)
	if _, err := Evaluate(ctx, ip, fields, defs, nil, Bucket{DataFiles: l.files, Payloads: []*meta.IndexFileMeta{e.payload(l, 0, indexfile.TypeBTree)}}, e.open); err == nil {
		t.Error("no error with a cancelled context")
	}
}
