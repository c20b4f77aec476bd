package sortedfile

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/impl/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/impl/pksorted/pred"
	"github.com/paimon-pkft/pkft/impl/types"
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
	if err := p.Arity(); err != nil {
		return nil, false, fmt.Errorf("%s index: %w", r.cfg.IndexType, err)
	}
	if r.isClosed() {
		return nil, false, ErrClosed
	}
	lit := func(i int) any { return p.Literals[i] }
	direct := func() visitor { return evaluate(p) }
	switch p.Op {
	case pred.IsNull:
		return r.visit(ctx, r.filter(func(f *indexFile) bool { return f.meta.HasNulls }), direct())
	case pred.IsNotNull:
		return r.visit(ctx, r.nonNullFiles(), direct())
	case pred.Equal:
		if lit(0) == nil {
			return roaring64.New(), true, nil
		}
		return r.visit(ctx, r.filter(func(f *indexFile) bool { return r.overlaps(f, lit(0), lit(0)) }), direct())
	case pred.NotEqual:
		if lit(0) == nil {
			return roaring64.New(), true, nil
		}
		return r.visit(ctx, r.nonNullFiles(), direct())
	case pred.In:
		return r.visit(ctx, r.filter(func(f *indexFile) bool {
			for _, l := range p.Literals {
				if l != nil && r.overlaps(f, l, l) {
					return true
				}
			}
			return false
		}), direct())
	case pred.NotIn:
		for _, l := range p.Literals {
			if l == nil {
				return roaring64.New(), true, nil
			}
		}
		return r.visit(ctx, r.nonNullFiles(), direct())
	case pred.StartsWith:
		if !isString(r.cfg.Type) || lit(0) == nil {
			return nil, false, nil
		}
		files, err := r.prefixFiles(lit(0))
		if err != nil {
			return nil, false, err
		}
		return r.visit(ctx, files, direct())
	case pred.EndsWith, pred.Contains:
		if !r.canFallbackStringScan(lit(0)) {
			return nil, false, nil
		}
		return r.fallback(ctx, r.nonNullFiles(), direct())
	case pred.Like:
		return r.like(ctx, lit(0))
	case pred.LessThan, pred.LessOrEqual, pred.GreaterThan, pred.GreaterOrEqual:
		if !r.canFallbackScan(lit(0)) {
			return nil, false, nil
		}
		l := lit(0)
		return r.fallback(ctx, r.filter(func(f *indexFile) bool {
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
		}), direct())
	case pred.Between:
		from, to := lit(0), lit(1)
		if !r.canFallbackScan(from) || to == nil {
			return nil, false, nil
		}
		if r.ser.Compare(from, to) > 0 {
			return roaring64.New(), true, nil
		}
		return r.fallback(ctx, r.filter(func(f *indexFile) bool { return r.overlaps(f, from, to) }), direct())
	}
	return nil, false, fmt.Errorf("%s index: predicate %s is not supported", r.cfg.IndexType, p.Op)
}

// like answers a LIKE pattern: a pattern Paimon's LikeOptimization rewrites is answered as
// its rewrite; any other is a fallback scan matching every key (bitmap), or every non-null row
// (btree, whose rows Paimon filters afterwards).
func (r *Reader) like(ctx context.Context, literal any) (*roaring64.Bitmap, bool, error) {
	pattern, ok := literal.(string)
	if !isString(r.cfg.Type) || !ok {
		return nil, false, nil
	}
	if op, lit, ok := pred.OptimizeLike(pattern); ok {
		return r.Evaluate(ctx, pred.Predicate{Op: op, Literals: []any{lit}})
	}
	if !r.canFallbackStringScan(pattern) {
		return nil, false, nil
	}
	match, err := pred.CompileLike(pattern)
	if err != nil {
		return nil, false, fmt.Errorf("%s index: %w", r.cfg.IndexType, err)
	}
	return r.fallback(ctx, r.nonNullFiles(), func(rd fileReader) (*roaring64.Bitmap, error) {
		if b, ok := rd.(*bitmap.Reader); ok {
			return b.MatchKeys(func(k any) bool {
				s, ok := k.(string)
				return ok && match(s)
			})
		}
		return rd.Evaluate(pred.Predicate{Op: pred.Like, Literals: []any{pattern}})
	})
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

// fallback visits files only when they total at most the budget; otherwise the predicate is
// left unanswered. No file selected is an empty answer whatever the budget.
func (r *Reader) fallback(ctx context.Context, files []*indexFile, v visitor) (*roaring64.Bitmap, bool, error) {
	if len(files) == 0 {
		return roaring64.New(), true, nil
	}
	if !withinBudget(files, r.cfg.FallbackScanMaxSize) {
		return nil, false, nil
	}
	return r.visit(ctx, files, v)
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
