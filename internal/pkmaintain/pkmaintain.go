// Package pkmaintain coordinates every primary-key index maintainer of one bucket, as Java's
// BucketedPrimaryKeyIndexMaintainer does: the full-text maintainer (at most one) and the sorted
// family's maintainers (one per pk-btree or pk-bitmap column, ordered by field id) receive the
// same writer increments, their index changes are merged into one append and one compact
// increment in that order, and a failure of any family aborts what the others prepared in the
// same call.
package pkmaintain

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	sorted "github.com/paimon-pkft/pkft/internal/pksorted/maintainer"
)

// Bucket is the coordinator of one bucket's primary-key index maintainers. It is safe for
// concurrent use: calls are serialized, as Java's synchronized prepareCommit is.
type Bucket struct {
	fullText *pkfulltext.Maintainer
	sorted   []*sorted.Maintainer
	next     int // the sorted maintainer a non-blocking call tries first

	mu chan struct{}
}

// New coordinates fullText (nil when the table has no full-text index) and the sorted
// maintainers (in any order; they are ordered by field id as Java orders them). At least one
// maintainer is required.
func New(fullText *pkfulltext.Maintainer, sortedMaintainers []*sorted.Maintainer) (*Bucket, error) {
	if fullText == nil && len(sortedMaintainers) == 0 {
		return nil, errors.New("No primary-key index definition is configured.")
	}
	if slices.Contains(sortedMaintainers, nil) {
		return nil, errors.New("primary-key index maintainers: a sorted maintainer is nil")
	}
	s := slices.Clone(sortedMaintainers)
	slices.SortStableFunc(s, func(a, b *sorted.Maintainer) int { return cmp.Compare(a.FieldID(), b.FieldID()) })
	return &Bucket{fullText: fullText, sorted: s, mu: make(chan struct{}, 1)}, nil
}

// Commit is what one PrepareCommit prepared for the writer's append and compact snapshots: the
// merged index changes of every family. An increment is nil when no family routed a change there.
type Commit struct {
	// AppendIncrement holds the changes for the append snapshot, or nil.
	AppendIncrement *pkindex.IndexIncrement
	// CompactIncrement holds the changes for the compact snapshot, or nil.
	CompactIncrement *pkindex.IndexIncrement

	aborts []func(context.Context) error
}

// Abort undoes the call that returned c, family by family in the reverse order of preparation
// (the sorted maintainers last to first, then full-text): each restores its state from before
// the call and deletes the index files it published. Errors of every family are joined.
func (c *Commit) Abort(ctx context.Context) error {
	if c == nil {
		return nil
	}
	var errs []error
	for i := len(c.aborts) - 1; i >= 0; i-- {
		errs = append(errs, c.aborts[i](ctx))
	}
	return errors.Join(errs...)
}

// merge appends one family's increments to the merged ones.
func (c *Commit) merge(app, compact *pkindex.IndexIncrement) {
	add := func(target **pkindex.IndexIncrement, inc *pkindex.IndexIncrement) {
		if inc == nil {
			return
		}
		if *target == nil {
			*target = &pkindex.IndexIncrement{}
		}
		(*target).NewIndexFiles = append((*target).NewIndexFiles, inc.NewIndexFiles...)
		(*target).DeletedIndexFiles = append((*target).DeletedIndexFiles, inc.DeletedIndexFiles...)
	}
	add(&c.AppendIncrement, app)
	add(&c.CompactIncrement, compact)
}

func (b *Bucket) lock(ctx context.Context) error {
	select {
	case b.mu <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *Bucket) unlock() { <-b.mu }

// PrepareCommit brings every family's index up to date with a writer's increments (Java
// prepareCommit): the full-text maintainer first, then the sorted ones. With wait, the sorted
// maintainer whose build is still running (if any) finishes first, then every other one runs to
// completion; without it, each sorted maintainer takes in the increments without starting a
// build, and when none is building, the next one in turn that has pending maintenance may start
// one. On failure every family's changes of this call are aborted and the error returned.
func (b *Bucket) PrepareCommit(ctx context.Context, app pkindex.DataIncrement, compact pkindex.CompactIncrement, wait bool) (_ *Commit, err error) {
	if err := b.lock(ctx); err != nil {
		return nil, err
	}
	defer b.unlock()
	c := &Commit{}
	var incs [][2]*pkindex.IndexIncrement
	defer func() {
		if err != nil {
			err = errors.Join(err, c.Abort(context.WithoutCancel(ctx)))
		}
	}()
	if b.fullText != nil {
		fc, err := b.fullText.PrepareCommit(ctx, app, compact, wait)
		if err != nil {
			return nil, err
		}
		c.aborts = append(c.aborts, fc.Abort)
		incs = append(incs, [2]*pkindex.IndexIncrement{fc.AppendIncrement, fc.CompactIncrement})
	}
	run := func(m *sorted.Maintainer, wait, allowBuildStart bool) error {
		sc, err := m.PrepareCommit(ctx, app, compact, wait, allowBuildStart)
		if err != nil {
			return err
		}
		c.aborts = append(c.aborts, sc.Abort)
		incs = append(incs, [2]*pkindex.IndexIncrement{sc.AppendIncrement, sc.CompactIncrement})
		return nil
	}
	active := b.activeSorted()
	if wait {
		for _, m := range b.sorted {
			if err := run(m, true, m == active); err != nil {
				return nil, err
			}
		}
		for _, m := range b.sorted {
			if m != active {
				if err := run(m, true, true); err != nil {
					return nil, err
				}
			}
		}
	} else {
		for _, m := range b.sorted {
			if err := run(m, false, false); err != nil {
				return nil, err
			}
		}
		if b.activeSorted() == nil {
			for offset := range b.sorted {
				i := (b.next + offset) % len(b.sorted)
				pending, err := b.sorted[i].HasPendingMaintenance()
				if err != nil {
					return nil, err
				}
				if pending {
					if err := run(b.sorted[i], false, true); err != nil {
						return nil, err
					}
					b.next = (i + 1) % len(b.sorted)
					break
				}
			}
		}
	}
	for _, inc := range incs {
		c.merge(inc[0], inc[1])
	}
	return c, nil
}

// activeSorted is the first sorted maintainer with a build still running, or nil.
func (b *Bucket) activeSorted() *sorted.Maintainer {
	for _, m := range b.sorted {
		if m.BuildNotCompleted() {
			return m
		}
	}
	return nil
}

// BuildNotCompleted reports whether any family has a background build running.
func (b *Bucket) BuildNotCompleted() bool {
	if b.fullText != nil && b.fullText.BuildNotCompleted() {
		return true
	}
	return b.activeSorted() != nil
}

// Payloads returns the current index files of every family: the full-text archives, then each
// sorted maintainer's payloads by level.
func (b *Bucket) Payloads() []*meta.IndexFileMeta {
	var out []*meta.IndexFileMeta
	if b.fullText != nil {
		out = append(out, b.fullText.Payloads()...)
	}
	for _, m := range b.sorted {
		for _, g := range m.Groups() {
			out = append(out, g.Payloads...)
		}
	}
	return out
}

// Close cancels every family's pending build and makes sure its output is deleted; errors are
// joined. The maintainers stay usable.
func (b *Bucket) Close(ctx context.Context) error {
	var errs []error
	if b.fullText != nil {
		errs = append(errs, b.fullText.Close(ctx))
	}
	for _, m := range b.sorted {
		errs = append(errs, m.Close(ctx))
	}
	return errors.Join(errs...)
}
