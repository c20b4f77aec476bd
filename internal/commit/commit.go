// Package commit is the one commit protocol of every Go operation that changes a Paimon table
// (Maintain, Write, Compact, RewriteMetadata), ported from Paimon 2.0.0's FileStoreCommitImpl:
//
//  1. read the latest snapshot and let the operation plan its changes on it, bucket by bucket;
//  2. before each publication attempt, ask the operation to plan again every bucket whose inputs
//     a concurrent commit changed (the operation's Fingerprint of the bucket differs from the one
//     its plan was made on), then run Java's conflict checks (ConflictDetection: deleted data and
//     index files still live, no file deleted twice, one total bucket count per partition,
//     non-overlapping key ranges above level 0);
//  3. write the delta manifest, the merged base manifest list, the delta manifest list and the
//     index manifest under fresh names;
//  4. publish snapshot N without overwriting; when another writer took N, delete the metadata of
//     the attempt, wait, re-read the latest snapshot and go back to 2 (up to commit.max-retries);
//  5. read snapshot N back and check it is this commit's (uuid, commit user, commit identifier):
//     Java's LocalFileIO rename checks the target is absent under a lock of one JVM, then moves
//     with a replacing move, so a racing Java commit can replace a snapshot Go published. A
//     replaced commit is not reported: it is retried on the new latest snapshot (its data and
//     index files are still there), or fails with ErrSnapshotReplaced;
//  6. on failure, delete every metadata file the attempt wrote; the operation deletes the data
//     and index files it generated (it owns them). An UncertainCommitError means the outcome of
//     a publication could not be established: then nothing is deleted.
//
// An operation hands Run a Planner (its changes and how to plan a bucket again) or, for a
// metadata rewrite, a Metadata function; it keeps no commit loop of its own.
package commit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// ErrCommitConflict is matched (errors.Is) by every conflict error of every operation: a commit
// that kept losing the race for the next snapshot id, whose published snapshot was replaced, or
// whose rebase found the table changed in a way it cannot follow. Nothing was committed.
var ErrCommitConflict = errors.New("commit conflict")

// Per-operation conflict errors; each matches ErrCommitConflict.
var (
	ErrMaintainConflict = fmt.Errorf("maintenance %w", ErrCommitConflict)
	ErrWriteConflict    = fmt.Errorf("write %w", ErrCommitConflict)
	ErrCompactConflict  = fmt.Errorf("compaction %w", ErrCommitConflict)
	ErrRewriteConflict  = fmt.Errorf("metadata rewrite %w", ErrCommitConflict)
)

// ErrSnapshotReplaced reports that a snapshot this commit published was replaced by another
// writer's before it could be verified (the rename race of Java's LocalFileIO), and the commit
// could not be retried. It is joined with the operation's conflict error.
var ErrSnapshotReplaced = errors.New("published snapshot replaced by another writer")

// BatchCommitIdentifier is the commit identifier of Paimon's batch writes
// (BatchWriteBuilder.COMMIT_IDENTIFIER, Long.MAX_VALUE).
const BatchCommitIdentifier int64 = 1<<63 - 1

// BucketKey names one (partition, bucket); Partition is the serialized partition row (the
// empty row for an unpartitioned table).
type BucketKey struct {
	Partition string
	Bucket    int32
}

// KeyOf returns the key of a bucket.
func KeyOf(partition []byte, bucket int32) BucketKey {
	return BucketKey{string(partitionOrEmpty(partition)), bucket}
}

// Change is one bucket's part of a commit (Java's CommitMessageImpl): the files an append adds,
// the data transition of a compaction, and index files added and removed.
type Change struct {
	Partition    []byte
	Bucket       int32
	TotalBuckets int32
	// NewFiles are appended data files.
	NewFiles []*meta.DataFileMeta
	// CompactBefore and CompactAfter are a compaction's data transition.
	CompactBefore, CompactAfter []*meta.DataFileMeta
	// NewIndexFiles and DeletedIndexFiles are the index manifest changes.
	NewIndexFiles, DeletedIndexFiles []*meta.IndexFileMeta
	// Basis is the Planner's Fingerprint of the bucket the change was planned on.
	Basis string
}

// Key is the change's bucket.
func (c *Change) Key() BucketKey { return KeyOf(c.Partition, c.Bucket) }

// Empty reports whether the change changes nothing (a bucket planned with nothing to do).
func (c *Change) Empty() bool {
	return len(c.NewFiles)+len(c.CompactBefore)+len(c.CompactAfter)+len(c.NewIndexFiles)+len(c.DeletedIndexFiles) == 0
}

// Planner is an operation's side of the protocol.
type Planner interface {
	// Fingerprint identifies what a plan of the bucket depends on; b is nil for a bucket the
	// snapshot does not have. An empty fingerprint means the operation leaves the bucket alone.
	Fingerprint(key BucketKey, b *table.Bucket) string
	// Plan plans the given buckets on base (every bucket it works on when keys is nil: the first
	// plan) and returns one change per bucket planned, an empty one for a bucket with nothing to
	// do, each with its Basis. Planning a bucket again discards what its earlier plan generated.
	// An error that wraps ErrCommitConflict reports a bucket the operation cannot follow.
	Plan(ctx context.Context, base *table.Contents, keys []BucketKey) ([]*Change, error)
}

// Request describes one commit.
type Request struct {
	// Conflict is the operation's conflict error (ErrWriteConflict, ...); default
	// ErrCommitConflict.
	Conflict error
	Kind     snapshot.CommitKind
	// User and Identifier are the snapshot's commitUser (default: a random UUID) and
	// commitIdentifier.
	User       string
	Identifier int64
	// MaxRetries bounds the publications retried after a lost race or a replaced snapshot.
	MaxRetries int
	// RetryWait is the pause before retry n (default: exponential from 10ms up to 10s).
	RetryWait func(retry int) time.Duration
	// BeforePublish is called with the prepared snapshot just before each publication; an
	// error aborts the commit. AfterPublish is called after a publication landed, before it is
	// verified. Both are test hooks.
	BeforePublish, AfterPublish func(ctx context.Context, next *snapshot.Snapshot) error
	// Schema is the schema the changes were written with; Paths the table's path factory.
	Schema *schema.TableSchema
	Paths  *paths.FileStorePathFactory
	// Planner plans the bucket changes. Metadata, when set instead, writes the whole metadata
	// of the next snapshot itself (a manifest rewrite) and returns it; Run sets its id, uuid,
	// user, identifier, kind and time.
	Planner  Planner
	Metadata func(ctx context.Context, base *table.Contents, w *MetadataWriter) (*snapshot.Snapshot, error)
}

// Result is the outcome of Run.
type Result struct {
	// Snapshot is the committed snapshot; nil when there was nothing to commit.
	Snapshot *snapshot.Snapshot
	// Base is the contents the committed changes were planned on (after any rebase).
	Base *table.Contents
	// Changes are the committed changes (empty ones included), by partition then bucket.
	Changes []*Change
	Stats
}

// Stats counts what a commit went through.
type Stats struct {
	// Attempts is the number of publications tried.
	Attempts int
	// Conflicts counts lost races and replaced snapshots; Replaced the latter alone.
	Conflicts, Replaced int
	// Replans counts buckets planned again on a new base.
	Replans int
}

// maxReplanRounds bounds the re-planning rounds on one base (a bucket that keeps failing the
// conflict checks after being planned again is a conflict).
const maxReplanRounds = 3

// Run commits the request's changes to t (see the package documentation). On an error nothing
// is committed and every metadata file Run wrote is deleted, unless the error is an
// UncertainCommitError.
func Run(ctx context.Context, t *table.Table, req Request) (*Result, error) {
	if req.Conflict == nil {
		req.Conflict = ErrCommitConflict
	}
	if req.User == "" {
		req.User = uuid.NewString()
	}
	if req.RetryWait == nil {
		req.RetryWait = func(retry int) time.Duration { return min(10*time.Millisecond<<min(retry, 10), 10*time.Second) }
	}
	c := &committer{t: t, req: req, planned: map[BucketKey]*Change{}}
	return c.run(ctx)
}

type committer struct {
	t       *table.Table
	req     Request
	planned map[BucketKey]*Change
	stats   Stats
}

func (c *committer) conflict(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), c.req.Conflict)
}

func (c *committer) run(ctx context.Context) (*Result, error) {
	contents, err := LatestContents(ctx, c.t)
	if err != nil {
		return nil, err
	}
	if c.req.Planner != nil {
		changes, err := c.req.Planner.Plan(ctx, contents, nil)
		if err != nil {
			return nil, err
		}
		c.record(changes)
	}
	var lastReplaced bool
	for attempt := 0; ; attempt++ {
		if c.req.Planner != nil {
			if err := c.settle(ctx, contents); err != nil {
				return nil, err
			}
			if !c.hasChanges() {
				// Nothing (left) to commit; nothing generated is referenced by anything.
				return &Result{Base: contents, Changes: c.sorted(), Stats: c.stats}, nil
			}
		}
		next, written, err := c.prepare(ctx, contents)
		if err != nil {
			return nil, err
		}
		c.stats.Attempts++
		committed, err := c.publish(ctx, next)
		var uncertain *UncertainCommitError
		if errors.As(err, &uncertain) {
			return nil, err // the snapshot may reference every written file: keep them
		}
		if err == nil && committed {
			var own bool
			own, err = c.verify(ctx, next, written)
			if errors.As(err, &uncertain) {
				return nil, err
			}
			if err == nil && own {
				return &Result{Snapshot: next, Base: contents, Changes: c.sorted(), Stats: c.stats}, nil
			}
			if err == nil {
				c.stats.Replaced++
			}
		}
		deleteQuietly(ctx, c.t, written)
		if err != nil {
			return nil, err
		}
		lastReplaced = committed
		c.stats.Conflicts++
		if attempt >= c.req.MaxRetries {
			if lastReplaced {
				return nil, errors.Join(c.conflict("commit snapshot %d after %d attempts", next.ID, attempt+1), ErrSnapshotReplaced)
			}
			return nil, c.conflict("commit snapshot %d after %d attempts", next.ID, attempt+1)
		}
		select {
		case <-time.After(c.req.RetryWait(attempt)):
		case <-ctx.Done():
			return nil, fmt.Errorf("retry commit: %w", ctx.Err())
		}
		if contents, err = LatestContents(ctx, c.t); err != nil {
			return nil, err
		}
	}
}

// record stores planned changes by bucket.
func (c *committer) record(changes []*Change) {
	for _, ch := range changes {
		c.planned[ch.Key()] = ch
	}
}

func (c *committer) hasChanges() bool {
	for _, ch := range c.planned {
		if !ch.Empty() {
			return true
		}
	}
	return false
}

// settle plans again the buckets a concurrent commit changed, then runs the conflict checks,
// planning again a bucket that fails them (once per base).
func (c *committer) settle(ctx context.Context, contents *table.Contents) error {
	buckets := map[BucketKey]*table.Bucket{}
	for _, b := range contents.Buckets {
		buckets[KeyOf(b.Partition, b.Bucket)] = b
	}
	for round := 0; ; round++ {
		var stale []BucketKey
		for key, ch := range c.planned {
			if c.req.Planner.Fingerprint(key, buckets[key]) != ch.Basis {
				stale = append(stale, key)
			}
		}
		if round == 0 {
			// Buckets that appeared since the first plan and that the operation works on.
			for key, b := range buckets {
				if _, ok := c.planned[key]; !ok && c.req.Planner.Fingerprint(key, b) != "" {
					stale = append(stale, key)
				}
			}
		}
		if len(stale) == 0 {
			var bad *bucketConflict
			err := c.check(contents)
			if !errors.As(err, &bad) || round >= maxReplanRounds {
				return err
			}
			stale = append(stale, bad.key)
		} else if round >= maxReplanRounds {
			return c.conflict("buckets still change after %d plans", round)
		}
		slices.SortFunc(stale, compareKeys)
		stale = slices.Compact(stale)
		changes, err := c.req.Planner.Plan(ctx, contents, stale)
		if err != nil {
			return err
		}
		for _, key := range stale {
			delete(c.planned, key)
		}
		c.record(changes)
		c.stats.Replans += len(stale)
	}
}

func compareKeys(a, b BucketKey) int {
	if a.Partition != b.Partition {
		if a.Partition < b.Partition {
			return -1
		}
		return 1
	}
	return int(a.Bucket) - int(b.Bucket)
}

// sorted returns the planned changes ordered by partition bytes then bucket.
func (c *committer) sorted() []*Change {
	out := make([]*Change, 0, len(c.planned))
	for _, ch := range c.planned {
		out = append(out, ch)
	}
	slices.SortFunc(out, func(a, b *Change) int { return compareKeys(a.Key(), b.Key()) })
	return out
}

// publish runs the hook, then publishes next without overwriting (see publishSnapshot).
func (c *committer) publish(ctx context.Context, next *snapshot.Snapshot) (bool, error) {
	if c.req.BeforePublish != nil {
		if err := c.req.BeforePublish(ctx, next); err != nil {
			return false, fmt.Errorf("before publishing snapshot %d: %w", next.ID, err)
		}
	}
	return publishSnapshot(ctx, c.t, next)
}

// verify reads snapshot next.ID back after its publication and reports whether it is this
// commit's. When it was replaced, it looks for later snapshots that took this commit's
// manifests over (another writer that read the snapshot before it was replaced): then the
// changes are committed through them, and verify fails with an UncertainCommitError rather than
// commit them twice or delete what those snapshots reference.
func (c *committer) verify(ctx context.Context, next *snapshot.Snapshot, written []string) (bool, error) {
	if c.req.AfterPublish != nil {
		if err := c.req.AfterPublish(ctx, next); err != nil {
			return false, &UncertainCommitError{ID: next.ID, Err: fmt.Errorf("after publishing: %w", err)}
		}
	}
	got, err := c.t.Snapshots.Snapshot(context.WithoutCancel(ctx), next.ID)
	if err != nil {
		return false, &UncertainCommitError{ID: next.ID, Err: fmt.Errorf("read back: %w", err)}
	}
	if sameCommit(got, next) {
		return true, nil
	}
	ours := map[string]bool{}
	for _, p := range written {
		ours[paths.Name(p)] = true
	}
	ids, err := c.t.Snapshots.IDs(context.WithoutCancel(ctx))
	if err != nil {
		return false, &UncertainCommitError{ID: next.ID, Err: fmt.Errorf("snapshot %d was replaced; list snapshots: %w", next.ID, err)}
	}
	for _, id := range ids {
		if id <= next.ID {
			continue
		}
		s, err := c.t.Snapshots.Snapshot(context.WithoutCancel(ctx), id)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return false, &UncertainCommitError{ID: next.ID, Err: err}
		}
		if refs, err := c.referencesAny(ctx, s, ours); err != nil || refs {
			return false, &UncertainCommitError{ID: next.ID, Err: errors.Join(
				fmt.Errorf("snapshot %d was replaced and snapshot %d may carry its manifests", next.ID, id), err)}
		}
	}
	return false, nil
}

// referencesAny reports whether snapshot s lists one of the named manifests or manifest lists.
func (c *committer) referencesAny(ctx context.Context, s *snapshot.Snapshot, names map[string]bool) (bool, error) {
	if names[s.BaseManifestList] || names[s.DeltaManifestList] || (s.IndexManifest != nil && names[*s.IndexManifest]) {
		return true, nil
	}
	contents, err := c.t.Read(context.WithoutCancel(ctx), s)
	if err != nil {
		return false, err
	}
	for _, m := range slices.Concat(contents.BaseManifests, contents.DeltaManifests) {
		if names[m.FileName] {
			return true, nil
		}
	}
	return false, nil
}

// sameCommit reports whether got is the snapshot next published: same uuid when both have one,
// same commit user and commit identifier.
func sameCommit(got, next *snapshot.Snapshot) bool {
	if got.UUID != nil && next.UUID != nil && *got.UUID != *next.UUID {
		return false
	}
	return got.CommitUser == next.CommitUser && got.CommitIdentifier == next.CommitIdentifier &&
		got.BaseManifestList == next.BaseManifestList
}

// LatestContents reads the latest snapshot's contents; an empty Contents (nil Snapshot) when
// the table has none yet.
func LatestContents(ctx context.Context, t *table.Table) (*table.Contents, error) {
	base, err := t.Latest(ctx)
	if errors.Is(err, table.ErrNoSnapshot) {
		return &table.Contents{}, nil
	}
	if err != nil {
		return nil, err
	}
	return t.Read(ctx, base)
}

func deleteQuietly(ctx context.Context, t *table.Table, files []string) {
	for _, p := range files {
		t.FileIO.DeleteQuietly(context.WithoutCancel(ctx), p)
	}
}

// UncertainCommitError reports a publication whose outcome could not be established. The files
// it would reference are left in place, because the snapshot may have been published.
type UncertainCommitError struct {
	ID  int64
	Err error
}

func (e *UncertainCommitError) Error() string {
	return fmt.Sprintf("commit snapshot %d: outcome unknown, generated files kept: %v", e.ID, e.Err)
}

func (e *UncertainCommitError) Unwrap() error { return e.Err }
