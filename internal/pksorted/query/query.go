// Package query narrows the batch read of one bucket with the sorted-family indexes (pk-btree and
// pk-bitmap payloads), as Paimon 2.0.0's PrimaryKeySortedIndexScan and
// PrimaryKeySortedIndexResult do: the part of a scan predicate that touches indexed columns is
// evaluated against the current payload of each level (a level counts only when exactly one
// payload covers exactly the files the scan reads there), and every data file gets its selected
// file-local row positions, no row at all, or no narrowing (the file is read whole). A file of a
// level without a current payload, a file the evaluation fails on, and a file whose positions
// are out of range or need more than MaxRanges ranges are not narrowed; level-0 files never
// have a payload. Narrowing only drops rows the predicate rejects: the reader still applies the
// deletion vectors and the whole predicate.
package query

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortedfile"
	"github.com/paimon-pkft/pkft/internal/pksorted/state"
	"github.com/paimon-pkft/pkft/internal/predicate"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/types"
)

// MaxRanges is the most row ranges a narrowed file may have (Java
// PrimaryKeySortedIndexResult.MAX_INDEXED_RANGES_PER_FILE); a file needing more is read whole.
const MaxRanges = 4096

// Outcome is what the index decided for one data file.
type Outcome uint8

// The outcomes.
const (
	// NotNarrowed: the file is read whole (no current payload covers it, the evaluation failed,
	// or its positions were unusable).
	NotNarrowed Outcome = iota
	// Narrowed: only Positions are read.
	Narrowed
	// NoRows: the index selects no row of the file, which is not read.
	NoRows
)

// String names the outcome.
func (o Outcome) String() string {
	switch o {
	case Narrowed:
		return "narrowed"
	case NoRows:
		return "no-rows"
	}
	return "not-narrowed"
}

// FileResult is the decision for one data file.
type FileResult struct {
	File    *meta.DataFileMeta
	Outcome Outcome
	// Positions are the file-local row positions to read (Narrowed only), in [0, RowCount).
	Positions *roaring64.Bitmap
	// Reason says why a file is NotNarrowed: no payload, or the failure that made the file fall
	// back.
	Reason string
}

// Ranges returns the positions as inclusive [from, to] ranges.
func (r FileResult) Ranges() [][2]int64 {
	if r.Positions == nil {
		return nil
	}
	var out [][2]int64
	it := r.Positions.Iterator()
	for it.HasNext() {
		p := int64(it.Next())
		if n := len(out); n > 0 && out[n-1][1]+1 == p {
			out[n-1][1] = p
			continue
		}
		out = append(out, [2]int64{p, p})
	}
	return out
}

// OpenFunc opens a payload file for random access.
type OpenFunc func(ctx context.Context, payload *meta.IndexFileMeta) (io.ReaderAt, io.Closer, error)

// Bucket is what one bucket's scan reads.
type Bucket struct {
	// DataFiles are the files the scan reads, in read order (after its level and statistics
	// filters: a level's payload covers the level only when it lists exactly these files).
	DataFiles []*meta.DataFileMeta
	// Payloads are the bucket's index files that carry source meta.
	Payloads []*meta.IndexFileMeta
}

// IndexFilter returns the part of p the indexes defs can evaluate (Java's PrimaryKeyBatchScan
// projection onto the indexed fields: AND keeps the indexed children, OR needs all of them);
// fields are the columns of the rows p tests. ok is false when no part of p is indexed.
func IndexFilter(p *predicate.Predicate, fields []types.DataField, defs []definition.Definition) (*predicate.Predicate, bool) {
	if p == nil {
		return nil, false
	}
	mapping := map[int]int{}
	for i, f := range fields {
		if slices.ContainsFunc(defs, func(d definition.Definition) bool { return int(d.FieldID) == f.ID }) {
			mapping[i] = i
		}
	}
	return p.Project(mapping)
}

// Evaluate decides every data file of b for the indexed predicate p (from IndexFilter) with the
// sorted definitions defs over fields, the table's columns; tableOptions are the table's options,
// from which each index's reader options resolve (definition.IndexOptions: the fallback scan
// budget, Java's default when unset). Each level's payload is read through a
// sortedfile.Reader, as Java's PrimaryKeySortedIndexScan reads it through the indexer's
// LazyFilteredBTreeReader or LazyFilteredBitmapReader: a predicate that reader leaves
// unanswered (a range over budget) does not narrow. Only a cancelled ctx is an error: whatever
// fails inside the evaluation of a file makes that file NotNarrowed.
func Evaluate(ctx context.Context, p *predicate.Predicate, fields []types.DataField, defs []definition.Definition, tableOptions map[string]string, b Bucket, open OpenFunc) ([]FileResult, error) {
	byField := map[int32]definition.Definition{}
	for _, d := range defs {
		byField[d.FieldID] = d
	}
	active := map[pkindex.SourceFile]bool{}
	for _, f := range b.DataFiles {
		if sf, err := pkindex.NewSourceFile(f.FileName, f.RowCount); err == nil {
			active[sf] = true
		}
	}
	// groups[file][field] is the group covering the file for the field's index.
	groups := map[string]map[int32]*groupReader{}
	var readers []*groupReader
	defer func() {
		for _, r := range readers {
			r.close()
		}
	}()
	for _, d := range defs {
		var payloads []*meta.IndexFileMeta
		for _, pl := range b.Payloads {
			if pl.GlobalIndex != nil && pl.IndexType == d.IndexType && pl.GlobalIndex.IndexFieldID == d.FieldID {
				payloads = append(payloads, pl)
			}
		}
		st := state.FromActiveDataFiles(d.FieldID, d.IndexType, b.DataFiles, payloads)
		for _, g := range st.Groups {
			fi := slices.IndexFunc(fields, func(f types.DataField) bool { return f.ID == int(d.FieldID) })
			if fi < 0 {
				continue
			}
			gr := newGroupReader(g, d, fields[fi], tableOptions, open)
			readers = append(readers, gr)
			for _, sf := range g.SourceFiles {
				if !active[sf] {
					continue
				}
				if groups[sf.FileName()] == nil {
					groups[sf.FileName()] = map[int32]*groupReader{}
				}
				groups[sf.FileName()][d.FieldID] = gr
			}
		}
	}
	out := make([]FileResult, 0, len(b.DataFiles))
	for _, f := range b.DataFiles {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e := &fileEval{ctx: ctx, file: f, fields: fields, byField: byField, groups: groups[f.FileName]}
		res, present, err := e.eval(p)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			out = append(out, FileResult{File: f, Outcome: NotNarrowed, Reason: err.Error()})
		case !present:
			out = append(out, FileResult{File: f, Outcome: NotNarrowed, Reason: "no current sorted-index payload answers the predicate for this file"})
		case res.IsEmpty():
			out = append(out, FileResult{File: f, Outcome: NoRows, Positions: res})
		default:
			if reason := checkPositions(res, f.RowCount); reason != "" {
				out = append(out, FileResult{File: f, Outcome: NotNarrowed, Reason: reason})
				continue
			}
			out = append(out, FileResult{File: f, Outcome: Narrowed, Positions: res})
		}
	}
	return out, nil
}

// checkPositions is PrimaryKeySortedIndexResult#ranges: every position within the file and at
// most MaxRanges ranges, or the reason the file is read whole.
func checkPositions(b *roaring64.Bitmap, rowCount int64) string {
	if b.Maximum() >= uint64(rowCount) || b.Maximum() > math.MaxInt32 {
		return fmt.Sprintf("the index returned row position %d, outside the file's %d rows", b.Maximum(), rowCount)
	}
	ranges := 0
	prev := int64(-2)
	it := b.Iterator()
	for it.HasNext() {
		p := int64(it.Next())
		if p != prev+1 {
			ranges++
		}
		prev = p
	}
	if ranges > MaxRanges {
		return fmt.Sprintf("the index selects %d row ranges, more than %d", ranges, MaxRanges)
	}
	return ""
}

// fileEval evaluates a predicate for one data file (Java GlobalIndexEvaluator with the
// file-local readers of PrimaryKeySortedIndexScan).
type fileEval struct {
	ctx     context.Context
	file    *meta.DataFileMeta
	fields  []types.DataField
	byField map[int32]definition.Definition
	groups  map[int32]*groupReader
}

// eval returns the file-local positions p selects; present is false when the index cannot
// answer p for this file.
func (e *fileEval) eval(p *predicate.Predicate) (_ *roaring64.Bitmap, present bool, err error) {
	if p.Kind == predicate.Leaf {
		return e.leaf(p)
	}
	children := pruneRedundantIsNotNull(flatten(p), p.Kind)
	type result struct {
		b       *roaring64.Bitmap
		present bool
	}
	// Every child is evaluated before combining, so that a failure anywhere fails the file, as
	// Java's CompletableFuture.allOf does.
	results := make([]result, len(children))
	for i, c := range children {
		b, ok, err := e.eval(c)
		if err != nil {
			return nil, false, err
		}
		results[i] = result{b, ok}
	}
	if p.Kind == predicate.Or {
		out := roaring64.New()
		for _, r := range results {
			if !r.present {
				return nil, false, nil
			}
			out.Or(r.b)
		}
		return out, true, nil
	}
	var out *roaring64.Bitmap
	for _, r := range results {
		if r.present {
			if out == nil {
				out = r.b.Clone()
			} else {
				out.And(r.b)
			}
		}
		if out != nil && out.IsEmpty() {
			return out, true, nil
		}
	}
	return out, out != nil, nil
}

func (e *fileEval) leaf(p *predicate.Predicate) (*roaring64.Bitmap, bool, error) {
	if p.Field < 0 || p.Field >= len(e.fields) {
		return nil, false, nil
	}
	id := int32(e.fields[p.Field].ID)
	if _, ok := e.byField[id]; !ok {
		return nil, false, nil
	}
	g := e.groups[id]
	if g == nil {
		return nil, false, nil
	}
	idx := slices.IndexFunc(g.group.SourceFiles, func(sf pkindex.SourceFile) bool {
		return sf.FileName() == e.file.FileName && sf.RowCount() == e.file.RowCount
	})
	if idx < 0 {
		return nil, false, fmt.Errorf("data file %s is not covered by its sorted-index source group", e.file.FileName)
	}
	parts, err := g.query(e.ctx, p)
	if err != nil || parts == nil {
		return nil, false, err
	}
	return parts[idx], true, nil
}

// flatten lists the children of p, inlining nested nodes of the same kind.
func flatten(p *predicate.Predicate) []*predicate.Predicate {
	var out []*predicate.Predicate
	for _, c := range p.Children {
		if c.Kind == p.Kind {
			out = append(out, flatten(c)...)
			continue
		}
		out = append(out, c)
	}
	return out
}

// pruneRedundantIsNotNull drops "f IS NOT NULL" from an AND that also has a null-rejecting leaf
// (a comparison or IN / NOT IN) on f, as Java's GlobalIndexEvaluator does.
func pruneRedundantIsNotNull(children []*predicate.Predicate, kind predicate.Kind) []*predicate.Predicate {
	if kind != predicate.And {
		return children
	}
	constrained := map[string]bool{}
	for _, c := range children {
		if c.Kind == predicate.Leaf && c.Op != pred.IsNull && c.Op != pred.IsNotNull {
			constrained[c.Name] = true
		}
	}
	if len(constrained) == 0 {
		return children
	}
	out := make([]*predicate.Predicate, 0, len(children))
	for _, c := range children {
		if c.Kind == predicate.Leaf && c.Op == pred.IsNotNull && constrained[c.Name] {
			continue
		}
		out = append(out, c)
	}
	return out
}

// groupReader is one group's payload reader, opened on first use and shared by the group's
// files, with each leaf's answer split by source file (Java SharedGlobalIndexReader).
type groupReader struct {
	group     state.Group
	def       definition.Definition
	field     types.DataField
	tableOpts map[string]string
	open      OpenFunc
	offsets   []int64 // offsets[i] is the first group row of source i; the last is the total

	opened  bool
	reader  *sortedfile.Reader
	openErr error
	// answers caches each leaf's answer split by source; a nil slice is a leaf the payload
	// leaves unanswered.
	answers map[*predicate.Predicate][]*roaring64.Bitmap
	// failures caches each leaf whose evaluation failed: the group's other files fail on it
	// without reading the payload again (Java caches the failed future per query).
	failures map[*predicate.Predicate]error
}

func newGroupReader(g state.Group, d definition.Definition, field types.DataField, tableOpts map[string]string, open OpenFunc) *groupReader {
	offsets := make([]int64, len(g.SourceFiles)+1)
	for i, sf := range g.SourceFiles {
		offsets[i+1] = offsets[i] + sf.RowCount()
	}
	return &groupReader{group: g, def: d, field: field, tableOpts: tableOpts, open: open, offsets: offsets,
		answers: map[*predicate.Predicate][]*roaring64.Bitmap{}, failures: map[*predicate.Predicate]error{}}
}

func (g *groupReader) close() {
	if g.reader != nil {
		_ = g.reader.Close()
		g.reader = nil
	}
}

// ensureOpen creates the group's payload reader once; a failure is remembered and returned
// again (Java SharedGlobalIndexReader#reader). The payload file itself is opened by the reader
// on the first leaf that selects it.
func (g *groupReader) ensureOpen() error {
	if g.opened {
		return g.openErr
	}
	g.opened = true
	g.reader, g.openErr = g.newReader()
	return g.openErr
}

func (g *groupReader) newReader() (*sortedfile.Reader, error) {
	if len(g.group.Payloads) != 1 {
		return nil, fmt.Errorf("sorted index group of level %d has %d payloads", g.group.DataLevel, len(g.group.Payloads))
	}
	opts, err := definition.IndexOptions(g.tableOpts, g.def.Column, g.def.IndexType)
	if err != nil {
		return nil, fmt.Errorf("sorted index on %s: %w", g.field.Name, err)
	}
	budget, err := sortedfile.Budget(g.def.IndexType, opts)
	if err != nil {
		return nil, fmt.Errorf("sorted index on %s: %w", g.field.Name, err)
	}
	byName := map[string]*meta.IndexFileMeta{}
	files := make([]sortedfile.File, 0, len(g.group.Payloads))
	for _, pl := range g.group.Payloads {
		byName[pl.FileName] = pl
		files = append(files, sortedfile.File{Name: pl.FileName, Size: pl.FileSize, Meta: pl.GlobalIndex.IndexMeta})
	}
	open := func(ctx context.Context, f sortedfile.File) (io.ReaderAt, io.Closer, error) {
		r, c, err := g.open(ctx, byName[f.Name])
		if err != nil {
			return nil, nil, fmt.Errorf("open sorted index payload %s: %w", f.Name, err)
		}
		return r, c, nil
	}
	rd, err := sortedfile.New(sortedfile.Config{IndexType: g.def.IndexType, Type: g.field.Type, FallbackScanMaxSize: budget, Parallelism: 1}, files, open)
	if err != nil {
		return nil, fmt.Errorf("sorted index on %s: %w", g.field.Name, err)
	}
	return rd, nil
}

// query answers leaf p for the whole group and splits the answer by source file; nil parts
// mean the payload leaves p unanswered. A position
// outside the group makes every file's part hold that file's row count, an out-of-range position
// that sends the file to a whole read unless another child removes it (Java
// SharedGlobalIndexReader#partitionBySource).
func (g *groupReader) query(ctx context.Context, p *predicate.Predicate) (_ []*roaring64.Bitmap, err error) {
	if err, ok := g.failures[p]; ok {
		return nil, err
	}
	if parts, ok := g.answers[p]; ok {
		if parts == nil {
			return nil, nil
		}
		return cloneAll(parts), nil
	}
	// The readers check what they decode; should one still trip over a corrupt payload, the
	// file falls back to a whole read as Java's does on any RuntimeException of the evaluation.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("sorted index payload %s: evaluating %s: %v", g.group.Payloads[0].FileName, p, r)
		}
		if err != nil && ctx.Err() == nil {
			g.failures[p] = err
		}
	}()
	if err := g.ensureOpen(); err != nil {
		return nil, err
	}
	res, present, err := g.reader.Evaluate(ctx, pred.Predicate{Op: p.Op, Literals: p.Literals})
	if err != nil {
		return nil, fmt.Errorf("sorted index payload %s: %w", g.group.Payloads[0].FileName, err)
	}
	if !present {
		g.answers[p] = nil
		return nil, nil
	}
	if res == nil {
		return nil, errors.New("sorted index reader returned no result")
	}
	n := len(g.group.SourceFiles)
	parts := make([]*roaring64.Bitmap, n)
	if n == 1 {
		parts[0] = res
	} else {
		for i := range parts {
			parts[i] = roaring64.New()
		}
		total := uint64(g.offsets[n])
		src := 0
		it := res.Iterator()
		for it.HasNext() {
			pos := it.Next()
			if pos >= total {
				for i := range parts {
					parts[i].Add(uint64(g.offsets[i+1] - g.offsets[i]))
				}
				continue
			}
			for pos >= uint64(g.offsets[src+1]) {
				src++
			}
			parts[src].Add(pos - uint64(g.offsets[src]))
		}
	}
	g.answers[p] = parts
	return cloneAll(parts), nil
}

func cloneAll(bs []*roaring64.Bitmap) []*roaring64.Bitmap {
	out := make([]*roaring64.Bitmap, len(bs))
	for i, b := range bs {
		out[i] = b.Clone()
	}
	return out
}
