package sortedfile

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/types"
)

// ErrClosed is returned by a Reader used after Close.
var ErrClosed = errors.New("sorted index reader is closed")

// visitor answers a predicate on one opened file.
type visitor func(fileReader) (*roaring64.Bitmap, error)

// Evaluate returns the rows p selects over every file. present is false when the index leaves p
// unanswered (Java's empty Optional): a prefix or pattern predicate on a column that is no
// string, a null literal of a predicate that must be looked up, or a fallback predicate with
// the fallback disabled or over budget. Selecting no file is an empty answer. A file that fails
// to open or to answer fails the whole call.
func (r *Reader) Evaluate(ctx context.Context, p pred.Predicate) (_ *roaring64.Bitmap, present bool, err error) {
	if r.isClosed() {
		return nil, false, ErrClosed
	}
	pl, err := r.plan(p)
	if err != nil || !pl.answered {
		return nil, false, err
	}
	if pl.fallback {
		if len(pl.files) > 0 && !withinBudget(pl.files, r.cfg.FallbackScanMaxSize) {
			return nil, false, nil
		}
	}
	return r.visit(ctx, pl.files, pl.visit)
}

// plan is how a predicate is answered: not at all, or by visiting files (none: an empty answer),
// within the fallback budget when fallback is set.
type plan struct {
	answered bool
	files    []*indexFile
	fallback bool
	visit    visitor
}

// plan selects the files p visits by their metas (Java's SortedFileMetaSelector, behind the
// reader's checks of the literal, the column type and the budget).
func (r *Reader) plan(p pred.Predicate) (plan, error) {
	if err := p.Arity(); err != nil {
		return plan{}, fmt.Errorf("%s index: %w", r.cfg.IndexType, err)
	}
	lit := func(i int) any { return p.Literals[i] }
	direct := func(files []*indexFile) plan { return plan{answered: true, files: files, visit: evaluate(p)} }
	fallback := func(files []*indexFile) plan {
		return plan{answered: true, files: files, fallback: true, visit: evaluate(p)}
	}
	none := plan{answered: true}
	switch p.Op {
	case pred.IsNull:
		return direct(r.filter(func(f *indexFile) bool { return f.meta.HasNulls })), nil
	case pred.IsNotNull:
		return direct(r.nonNullFiles()), nil
	case pred.Equal:
		if lit(0) == nil {
			return none, nil
		}
		return direct(r.filter(func(f *indexFile) bool { return r.overlaps(f, lit(0), lit(0)) })), nil
	case pred.NotEqual:
		if lit(0) == nil {
			return none, nil
		}
		return direct(r.nonNullFiles()), nil
	case pred.In:
		return direct(r.filter(func(f *indexFile) bool {
			for _, l := range p.Literals {
				if l != nil && r.overlaps(f, l, l) {
					return true
				}
			}
			return false
		})), nil
	case pred.NotIn:
		for _, l := range p.Literals {
			if l == nil {
				return none, nil
			}
		}
		return direct(r.nonNullFiles()), nil
	case pred.StartsWith:
		if !isString(r.cfg.Type) || lit(0) == nil {
			return plan{}, nil
		}
		files, err := r.prefixFiles(lit(0))
		if err != nil {
			return plan{}, err
		}
		return direct(files), nil
	case pred.EndsWith, pred.Contains:
		if !r.canFallbackStringScan(lit(0)) {
			return plan{}, nil
		}
		return fallback(r.nonNullFiles()), nil
	case pred.Like:
		return r.likePlan(lit(0))
	case pred.LessThan, pred.LessOrEqual, pred.GreaterThan, pred.GreaterOrEqual:
		if !r.canFallbackScan(lit(0)) {
			return plan{}, nil
		}
		l := lit(0)
		return fallback(r.filter(func(f *indexFile) bool {
			if f.meta.OnlyNulls() {
				return false
			}
			switch p.Op {
			case pred.LessThan:
				return r.compareFirst(f, l) < 0
			case pred.LessOrEqual:
				return r.compareFirst(f, l) <= 0
			case pred.GreaterThan:
				return r.compareLast(f, l) > 0
			}
			return r.compareLast(f, l) >= 0
		})), nil
	case pred.Between:
		from, to := lit(0), lit(1)
		if !r.canFallbackScan(from) || to == nil {
			return plan{}, nil
		}
		if r.ser.Compare(from, to) > 0 {
			return none, nil
		}
		return fallback(r.filter(func(f *indexFile) bool { return r.overlaps(f, from, to) })), nil
	}
	return plan{}, fmt.Errorf("%s index: predicate %s is not supported", r.cfg.IndexType, p.Op)
}

// likePlan answers a LIKE pattern: a pattern Paimon's LikeOptimization rewrites is answered as
// its rewrite; any other is a fallback scan matching every key (bitmap), or every non-null row
// (btree, whose rows Paimon filters afterwards).
func (r *Reader) likePlan(literal any) (plan, error) {
	pattern, ok := literal.(string)
	if !isString(r.cfg.Type) || !ok {
		return plan{}, nil
	}
	if op, lit, ok := pred.OptimizeLike(pattern); ok {
		return r.plan(pred.Predicate{Op: op, Literals: []any{lit}})
	}
	if !r.canFallbackStringScan(pattern) {
		return plan{}, nil
	}
	match, err := pred.CompileLike(pattern)
	if err != nil {
		return plan{}, fmt.Errorf("%s index: %w", r.cfg.IndexType, err)
	}
	return plan{answered: true, files: r.nonNullFiles(), fallback: true, visit: func(rd fileReader) (*roaring64.Bitmap, error) {
		if b, ok := rd.(*bitmap.Reader); ok {
			return b.MatchKeys(func(k any) bool {
				s, ok := k.(string)
				return ok && match(s)
			})
		}
		return rd.Evaluate(pred.Predicate{Op: pred.Like, Literals: []any{pattern}})
	}}, nil
}

func evaluate(p pred.Predicate) visitor {
	return func(rd fileReader) (*roaring64.Bitmap, error) { return rd.Evaluate(p) }
}

func isString(t types.DataType) bool {
	return t.Root == types.RootChar || t.Root == types.RootVarChar
}

func (r *Reader) canFallbackStringScan(literal any) bool {
	return r.cfg.FallbackScanMaxSize > 0 && isString(r.cfg.Type) && literal != nil
}

func (r *Reader) canFallbackScan(literal any) bool {
	return r.cfg.FallbackScanMaxSize > 0 && literal != nil
}

// withinBudget reports whether the files' sizes total at most maxSize (never when maxSize <= 0
// or the total overflows).
func withinBudget(files []*indexFile, maxSize int64) bool {
	if maxSize <= 0 {
		return false
	}
	var total int64
	for _, f := range files {
		if f.Size > math.MaxInt64-total {
			return false
		}
		total += f.Size
		if total > maxSize {
			return false
		}
	}
	return true
}

// visit answers v on every file and unions the answers; no file is an empty answer.
func (r *Reader) visit(ctx context.Context, files []*indexFile, v visitor) (*roaring64.Bitmap, bool, error) {
	out := roaring64.New()
	if len(files) == 0 {
		return out, true, nil
	}
	results := make([]*roaring64.Bitmap, len(files))
	errs := make([]error, len(files))
	one := func(i int) {
		if err := ctx.Err(); err != nil {
			errs[i] = err
			return
		}
		results[i], errs[i] = r.visitFile(ctx, files[i], v)
	}
	if r.cfg.Parallelism <= 1 || len(files) == 1 {
		for i := range files {
			if one(i); errs[i] != nil {
				break
			}
		}
	} else {
		sem := make(chan struct{}, r.cfg.Parallelism)
		var wg sync.WaitGroup
		for i := range files {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				one(i)
			}()
		}
		wg.Wait()
	}
	if err := errors.Join(errs...); err != nil {
		return nil, false, err
	}
	for _, b := range results {
		out.Or(b)
	}
	return out, true, nil
}

func (r *Reader) visitFile(ctx context.Context, f *indexFile, v visitor) (*roaring64.Bitmap, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.isClosed() {
		return nil, ErrClosed
	}
	rd, err := r.reader(ctx, f)
	if err != nil {
		return nil, err
	}
	b, err := v(rd)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, fmt.Errorf("%s index file %s returned no result", r.cfg.IndexType, f.Name)
	}
	return b, nil
}

// filter returns the files keep accepts, in file order.
func (r *Reader) filter(keep func(*indexFile) bool) []*indexFile {
	var out []*indexFile
	for _, f := range r.files {
		if keep(f) {
			out = append(out, f)
		}
	}
	return out
}

func (r *Reader) nonNullFiles() []*indexFile {
	return r.filter(func(f *indexFile) bool { return !f.meta.OnlyNulls() })
}

// prefixFiles selects the files whose key range can hold a key starting with prefix: the
// serialized prefix up to its byte upper bound (every non-null file for an empty prefix).
func (r *Reader) prefixFiles(prefix any) ([]*indexFile, error) {
	enc, err := r.ser.Encode(prefix)
	if err != nil {
		return nil, fmt.Errorf("%s index: %w", r.cfg.IndexType, err)
	}
	if len(enc) == 0 {
		return r.nonNullFiles(), nil
	}
	key, err := r.ser.Decode(enc)
	if err != nil {
		return nil, fmt.Errorf("%s index: prefix: %w", r.cfg.IndexType, err)
	}
	var upper any
	if up := pred.PrefixUpperBound(enc); up != nil {
		if upper, err = r.ser.Decode(up); err != nil {
			return nil, fmt.Errorf("%s index: prefix upper bound: %w", r.cfg.IndexType, err)
		}
	}
	return r.filter(func(f *indexFile) bool {
		return !f.meta.OnlyNulls() && r.compareLast(f, key) >= 0 && (upper == nil || r.compareFirst(f, upper) < 0)
	}), nil
}

// overlaps reports whether the file holds a non-null key and [from, to] may meet its key range
// (a missing bound does not exclude).
func (r *Reader) overlaps(f *indexFile, from, to any) bool {
	if f.meta.OnlyNulls() {
		return false
	}
	if f.first != nil && r.ser.Compare(to, f.first) < 0 {
		return false
	}
	if f.last != nil && r.ser.Compare(from, f.last) > 0 {
		return false
	}
	return true
}

// compareFirst compares the file's first key with l (-1 when it has none).
func (r *Reader) compareFirst(f *indexFile, l any) int {
	if f.first == nil {
		return -1
	}
	return r.ser.Compare(f.first, l)
}

// compareLast compares the file's last key with l (1 when it has none).
func (r *Reader) compareLast(f *indexFile, l any) int {
	if f.last == nil {
		return 1
	}
	return r.ser.Compare(f.last, l)
}
