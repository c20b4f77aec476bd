package tableops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/paimon-pkft/pkft/internal/commit"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/mutation"
	"github.com/paimon-pkft/pkft/internal/options"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkfulltext/textreader"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pkmaintain"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// BatchCommitIdentifier is the commit identifier of Paimon's batch writes
// (BatchWriteBuilder.COMMIT_IDENTIFIER, Long.MAX_VALUE); every operation uses it by default.
const BatchCommitIdentifier = commit.BatchCommitIdentifier

// CommitMaxRetriesOption is the table option bounding commit retries; DefaultCommitMaxRetries is
// its default in Paimon 2.0.0.
const (
	CommitMaxRetriesOption  = commit.CommitMaxRetriesOption
	DefaultCommitMaxRetries = commit.DefaultCommitMaxRetries
)

// ErrCommitConflict is matched by the conflict error of every operation (ErrMaintainConflict,
// ErrWriteConflict, ErrCompactConflict, ErrRewriteConflict): a commit that kept losing the race
// for the next snapshot id, whose published snapshot was replaced, or whose rebase found the
// table changed in a way it cannot follow (for example a new schema). Nothing was committed and
// every file the operation generated was deleted.
var ErrCommitConflict = commit.ErrCommitConflict

// The conflict errors of each operation; each matches ErrCommitConflict.
var (
	ErrMaintainConflict = commit.ErrMaintainConflict
	ErrWriteConflict    = commit.ErrWriteConflict
	ErrCompactConflict  = commit.ErrCompactConflict
	ErrRewriteConflict  = commit.ErrRewriteConflict
)

// ErrSnapshotReplaced reports a published snapshot another writer replaced before it was
// verified (see package commit); it is joined with the operation's conflict error.
var ErrSnapshotReplaced = commit.ErrSnapshotReplaced

// CommitStats counts what an operation's commit went through: publication attempts, conflicts
// (lost races and replaced snapshots), replaced snapshots, and buckets planned again.
type CommitStats = commit.Stats

// BucketResult is what maintenance did to one (partition, bucket).
type BucketResult struct {
	// Partition is the serialized partition row; PartitionSpec its directory form.
	Partition     []byte
	PartitionSpec []paths.PartitionKV
	Bucket        int32
	// Built are the archives created (committed when the maintenance committed).
	Built []*meta.IndexFileMeta
	// Retired are the archives removed from the index manifest.
	Retired []*meta.IndexFileMeta
	// Unchanged are the current archives kept as they were.
	Unchanged []*meta.IndexFileMeta
	// Duration is the time the bucket's maintainer took (restore, builds, bookkeeping).
	Duration time.Duration
}

// Changed reports whether the bucket has archives to add or remove.
func (b *BucketResult) Changed() bool { return len(b.Built) > 0 || len(b.Retired) > 0 }

// MaintainResult is the outcome of Maintain.
type MaintainResult struct {
	// Base is the snapshot the committed changes were planned on (after any rebase).
	Base *snapshot.Snapshot
	// Snapshot is the committed snapshot, nil when there was nothing to do.
	Snapshot *snapshot.Snapshot
	// ExpiredSnapshots is the number of snapshots the expiry after the commit expired.
	ExpiredSnapshots int
	// Buckets has one result per maintained bucket, ordered by partition bytes then bucket.
	Buckets []BucketResult
	// Attempts is the number of publication attempts (0 when nothing was committed).
	Attempts int
	// Commit counts conflicts, re-plans and retries.
	Commit CommitStats
}

// The phases of a Writer's commit reported to a WithProgress callback (Progress.Phase; Maintain
// and Compact report no phase).
const (
	// PhaseFlush: the buffered rows are written into level-0 data files, Done buckets of Total.
	PhaseFlush = "flush"
	// PhaseCompact: each written bucket's compaction at commit and index builds, Done buckets of
	// Total, with RowsIndexed the rows full-text builds have read so far (RowsPlanned stays 0).
	PhaseCompact = "compact"
	// PhaseCommit: the snapshots are published, Done of Total (the APPEND snapshot, and the
	// COMPACT one when a compaction ran at commit).
	PhaseCommit = "commit"
)

// Progress reports one finished bucket to a WithProgress callback.
type Progress struct {
	// Phase is the phase of a Writer's commit the report is about (PhaseFlush, PhaseCompact,
	// PhaseCommit); "" for Maintain and Compact.
	Phase string
	// Done buckets out of Total in the current planning round (a rebase starts a new round over
	// the affected buckets).
	Done, Total int
	// Bucket is the bucket that just finished; nil when the report is about rows.
	Bucket *BucketResult
	// RowsIndexed source rows have been read into archives so far, out of RowsPlanned, the rows
	// of every build planned (a rebase adds the rows of the builds it plans again). Rows are
	// reported while builds run, every few thousand rows.
	RowsIndexed, RowsPlanned int64
}

// rowProgressStep is how many rows a build reads between two row progress reports.
const rowProgressStep = 1 << 14

// MaintainOption configures Maintain, Compact and OpenWriter; each reads the options that apply
// to it.
type MaintainOption func(*maintainConfig)

type maintainConfig struct {
	commitUser    string
	identifier    int64
	parallelism   int
	filter        func(partition []paths.PartitionKV, bucket int32) bool
	progress      func(Progress)
	beforePublish func(ctx context.Context, next *snapshot.Snapshot) error
	afterPublish  func(ctx context.Context, next *snapshot.Snapshot) error
	maxRetries    int
	retryWait     func(retry int) time.Duration
	// minor makes Compact let the table's strategy pick (Java's compaction without full).
	minor bool
	// writeOnly makes a Writer skip its compaction at commit (write-only as a dynamic option).
	writeOnly bool
	// uncovered makes Compact rewrite only the files above level 0 no index can cover.
	uncovered bool
	// indexNewRows makes a Writer's compaction at commit rewrite the level-0 files it would
	// move up, so that they feed the primary-key indexes.
	indexNewRows bool
	// now is the clock of the snapshot expiry after the commit (default time.Now).
	now func() time.Time
}

// WithUncoveredCompaction makes Compact an index backfill: in each bucket exactly the files above
// level 0 that no primary-key index can cover (file source APPEND: level-0 files a compaction
// moved up without rewriting them) are rewritten, each on its own, into COMPACT files of the
// same level (deletion vectors applied, as Java's FileRewriteCompactTask rewrites a file), and
// the indexes of the levels they are on are built in the same COMPACT snapshot. No other data
// file is read or written. A table without a primary-key index is refused.
func WithUncoveredCompaction() MaintainOption {
	return func(c *maintainConfig) { c.uncovered = true }
}

// WithIndexNewRows makes a Writer's compaction at commit rewrite each level-0 file it would move
// up a level unchanged (Java's upgrade, which keeps the file's APPEND source, so no index ever
// covers it) into COMPACT files of that level, so that the rows written feed the primary-key
// indexes, whose archives are built in the write's COMPACT snapshot. It is refused with
// WithWriteOnly, for a write-only table, and for a table without a primary-key index.
func WithIndexNewRows() MaintainOption {
	return func(c *maintainConfig) { c.indexNewRows = true }
}

// WithWriteOnly makes a Writer commit its level-0 files without the compaction Java's writer
// runs at commit, as the table option write-only = true does (Paimon users set it per job, as a
// dynamic option, when a dedicated compaction job compacts the table).
func WithWriteOnly() MaintainOption {
	return func(c *maintainConfig) { c.writeOnly = true }
}

// WithMinorCompaction makes Compact a dedicated compaction without full (what Paimon's compact
// action does without full compaction): in each bucket the table's compaction strategy
// (MergeTreeCompactManager#triggerCompaction(false)) picks what to compact, which may be
// nothing.
func WithMinorCompaction() MaintainOption {
	return func(c *maintainConfig) { c.minor = true }
}

// WithCommitUser sets the snapshot's commitUser (default: a random UUID, as a Java writer
// without a configured user does).
func WithCommitUser(user string) MaintainOption {
	return func(c *maintainConfig) { c.commitUser = user }
}

// WithCommitIdentifier sets the snapshot's commitIdentifier (default BatchCommitIdentifier).
func WithCommitIdentifier(id int64) MaintainOption {
	return func(c *maintainConfig) { c.identifier = id }
}

// WithParallelism bounds how many buckets are maintained at once (default runtime.NumCPU()).
func WithParallelism(n int) MaintainOption {
	return func(c *maintainConfig) { c.parallelism = n }
}

// WithBuckets restricts maintenance to the buckets for which keep returns true; partition is the
// bucket's partition as its directory names it.
func WithBuckets(keep func(partition []paths.PartitionKV, bucket int32) bool) MaintainOption {
	return func(c *maintainConfig) { c.filter = keep }
}

// WithProgress calls report after each bucket finishes and, while archives build, every few
// thousand source rows read (see Progress). Calls are serialized; report must not block long.
func WithProgress(report func(Progress)) MaintainOption {
	return func(c *maintainConfig) { c.progress = report }
}

// WithBeforePublish calls hook after every generated file is written and the next snapshot is
// prepared, just before it is published. It is a test hook: a harness can hold the commit there
// (or commit another snapshot) to exercise the conflict path. An error aborts the maintenance
// like any other failure.
func WithBeforePublish(hook func(ctx context.Context, next *snapshot.Snapshot) error) MaintainOption {
	return func(c *maintainConfig) { c.beforePublish = hook }
}

// WithAfterPublish calls hook after a publication landed, before the commit reads the snapshot
// back to verify it is its own. It is a test hook: a harness can replace the snapshot there, as a
// racing Java commit on a local file system can. An error makes the outcome uncertain.
func WithAfterPublish(hook func(ctx context.Context, next *snapshot.Snapshot) error) MaintainOption {
	return func(c *maintainConfig) { c.afterPublish = hook }
}

// WithMaxRetries sets how many times a lost publication is retried on a new base (default, and
// for a negative n: the table's commit.max-retries, DefaultCommitMaxRetries when unset).
func WithMaxRetries(n int) MaintainOption {
	return func(c *maintainConfig) { c.maxRetries = n }
}

// pendingBucket is one bucket's maintainer call that is not committed yet.
type pendingBucket struct {
	result BucketResult
	commit *pkmaintain.Commit
	// sources fingerprints what the plan depended on, to tell whether a rebase affects it.
	sources string
}

// Maintain brings the primary-key full-text archives of the table's latest snapshot up to date
// and commits the created and retired archives as one new snapshot, as a Java writer whose
// full-text maintainer runs with wait and empty increments would: the changes travel in the
// append increment, so the snapshot is an APPEND commit carrying only index changes (no data
// file changes, an empty delta manifest list, a new index manifest).
//
// A table setting an option the registry (internal/options) refuses for the index-only commit
// (options.Maintain), or a Paimon-namespaced key it does not know, is not maintained: the error
// wraps ErrUnsupportedTable and names each such key and value. The maintenance accepts what
// cannot change what it writes, such as a changelog producer, full-compaction triggers and user
// keys outside Paimon's namespaces (owner), which a write or a compaction refuses.
//
// Every selected (partition, bucket) is restored and its maintainer run in a pool of bounded
// size. When nothing changes, no snapshot is written and MaintainResult.Snapshot is nil.
//
// When another writer publishes the next snapshot first, the latest snapshot is re-read and the
// commit rebased on it: buckets whose eligible source files or full-text archives changed are
// planned again (their generated archives deleted), the others keep their archives, and
// publication is retried, up to WithMaxRetries times. Java's FileStoreCommitImpl rebases such a
// commit without planning again (its conflict check looks at data files only, and the index
// manifest combiner drops deletions of files that are gone), so it may commit an archive that
// is stale on the new base; Go never does. On any failure or abort every file the call generated
// (archives, merged manifests, manifest lists, index manifest) is deleted and nothing committed
// metadata references is touched. The LATEST hint is updated best effort.
func Maintain(ctx context.Context, t *table.Table, engine fulltext.Engine, opts ...MaintainOption) (*MaintainResult, error) {
	cfg := maintainConfig{
		identifier:  BatchCommitIdentifier,
		parallelism: runtime.NumCPU(),
		maxRetries:  -1,
		retryWait: func(retry int) time.Duration {
			return min(10*time.Millisecond<<min(retry, 10), 10*time.Second)
		},
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.commitUser == "" {
		cfg.commitUser = uuid.NewString()
	}
	if cfg.parallelism <= 0 {
		cfg.parallelism = 1
	}
	r, err := restore.NewRestorer(ctx, t)
	if err != nil {
		return nil, err
	}
	if r.FullText != nil && engine == nil {
		return nil, errors.New("maintain full-text archives: no engine")
	}
	if !r.HasIndexes() {
		return nil, fmt.Errorf("maintain %s: %w", t.Root, pkfulltext.ErrNoIndex)
	}
	if err := checkTableOptionsFor(options.Maintain, r.Schema); err != nil {
		return nil, err
	}
	if cfg.maxRetries < 0 {
		if cfg.maxRetries, err = commit.MaxRetriesOf(r.Schema.Options); err != nil {
			return nil, err
		}
	}
	if _, err := t.Latest(ctx); err != nil {
		return nil, err
	}
	expiry, err := newAtCommitExpiry(r.Schema, cfg)
	if err != nil {
		return nil, err
	}
	m := &maintenance{t: t, r: r, engine: engine, cfg: cfg, done: map[bucketKey]*pendingBucket{}}
	cres, err := commit.Run(ctx, t, m.request())
	if err != nil {
		var uncertain *UncertainCommitError
		if errors.As(err, &uncertain) {
			return nil, err // the snapshot may reference every archive: keep them
		}
		err = errors.Join(err, m.abortAll(ctx))
		// A build cancelled by the failure deletes its archive from its own goroutine; wait for
		// that, so that nothing generated outlives this call.
		return nil, errors.Join(err, m.archives.waitGone(archiveCleanupTimeout))
	}
	res := m.result(cres.Base.Snapshot)
	res.Snapshot, res.Attempts, res.Commit = cres.Snapshot, cres.Attempts, cres.Stats
	if res.Snapshot == nil {
		res.Attempts = 0
	}
	if res.ExpiredSnapshots, err = expiry.run(ctx, t); err != nil {
		return res, err
	}
	return res, nil
}

type bucketKey struct {
	partition string
	bucket    int32
}

type maintenance struct {
	t      *table.Table
	r      *restore.Restorer
	engine fulltext.Engine
	cfg    maintainConfig
	// done holds the planned, uncommitted buckets of the current base.
	done map[bucketKey]*pendingBucket

	// Progress state: rows read by builds, rows planned, and the current round's finished and
	// total bucket counts packed as done<<32 | total.
	rowsIndexed, rowsPlanned, round atomic.Int64
	progressMu                      sync.Mutex

	archives archiveTracker
}

// archiveCleanupTimeout bounds how long a failed maintenance waits for cancelled builds to
// delete their archives.
const archiveCleanupTimeout = time.Minute

// archiveTracker follows the archives builds produced that were not deleted yet, and the builds
// still running, so that a failed maintenance can wait until every generated archive is gone.
type archiveTracker struct {
	mu       sync.Mutex
	building int
	live     map[string]bool
}

func (t *archiveTracker) begin() {
	t.mu.Lock()
	t.building++
	t.mu.Unlock()
}

func (t *archiveTracker) end(produced *meta.IndexFileMeta) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.building--
	if produced != nil {
		if t.live == nil {
			t.live = map[string]bool{}
		}
		t.live[produced.FileName] = true
	}
}

func (t *archiveTracker) deleted(name string) {
	t.mu.Lock()
	delete(t.live, name)
	t.mu.Unlock()
}

// committed forgets archives a published snapshot references: they are the table's now.
func (t *archiveTracker) committed(files []*meta.IndexFileMeta) {
	t.mu.Lock()
	for _, f := range files {
		delete(t.live, f.FileName)
	}
	t.mu.Unlock()
}

// waitGone waits until no build runs and every produced archive was deleted.
func (t *archiveTracker) waitGone(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		t.mu.Lock()
		building, live := t.building, len(t.live)
		t.mu.Unlock()
		if building == 0 && live == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %v, %d archive builds still run and %d generated archives are not deleted", timeout, building, live)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// trackedBuilder reports builds to the tracker.
type trackedBuilder struct {
	inner   pkfulltext.ArchiveBuilder
	tracker *archiveTracker
}

func (b *trackedBuilder) Build(ctx context.Context, files []*meta.DataFileMeta) (out *meta.IndexFileMeta, err error) {
	b.tracker.begin()
	defer func() { b.tracker.end(out) }()
	return b.inner.Build(ctx, files)
}

// trackedDeleter reports deletions to the tracker.
type trackedDeleter struct {
	inner   pkfulltext.IndexFileDeleter
	tracker *archiveTracker
}

func (d *trackedDeleter) DeleteIndexFile(ctx context.Context, f *meta.IndexFileMeta) error {
	err := d.inner.DeleteIndexFile(ctx, f)
	if err == nil {
		d.tracker.deleted(f.FileName)
	}
	return err
}

// report calls the progress callback (serialized) with the current counters.
func (m *maintenance) report(bucket *BucketResult) {
	if m.cfg.progress == nil {
		return
	}
	m.progressMu.Lock()
	defer m.progressMu.Unlock()
	r := m.round.Load()
	m.cfg.progress(Progress{Done: int(r >> 32), Total: int(r & 0xffffffff), Bucket: bucket,
		RowsIndexed: m.rowsIndexed.Load(), RowsPlanned: m.rowsPlanned.Load()})
}

// addRows records rows read by a build and reports them.
func (m *maintenance) addRows(n int64) {
	if n > 0 {
		m.rowsIndexed.Add(n)
		m.report(nil)
	}
}

// countingReaders counts the rows builds read, for progress reports: add is called every
// rowProgressStep rows and when a reader closes.
type countingReaders struct {
	inner pkfulltext.ReaderFactory
	add   func(rows int64)
}

func (c *countingReaders) Open(ctx context.Context, file *meta.DataFileMeta) (pkfulltext.TextReader, error) {
	r, err := c.inner.Open(ctx, file)
	if err != nil {
		return nil, err
	}
	return &countingReader{TextReader: r, add: c.add}, nil
}

type countingReader struct {
	pkfulltext.TextReader
	add     func(rows int64)
	pending int64
}

func (r *countingReader) Next(ctx context.Context) (textreader.Row, error) {
	row, err := r.TextReader.Next(ctx)
	if err == nil {
		if r.pending++; r.pending >= rowProgressStep {
			r.add(r.pending)
			r.pending = 0
		}
	}
	return row, err
}

func (r *countingReader) Close() error {
	r.add(r.pending)
	r.pending = 0
	return r.TextReader.Close()
}

// request is the commit of a maintenance: an APPEND commit of index changes only.
func (m *maintenance) request() commit.Request {
	return commit.Request{Conflict: commit.ErrMaintainConflict, Kind: snapshot.CommitAppend,
		User: m.cfg.commitUser, Identifier: m.cfg.identifier, MaxRetries: m.cfg.maxRetries, RetryWait: m.cfg.retryWait,
		BeforePublish: m.cfg.beforePublish, AfterPublish: m.cfg.afterPublish,
		Schema: m.r.Schema, Paths: m.r.Paths, Planner: m}
}

// Fingerprint is what the plan of a selected bucket depends on (see fingerprint); "" for
// buckets the filter leaves out and for absent ones.
func (m *maintenance) Fingerprint(_ commit.BucketKey, b *table.Bucket) string {
	if b == nil {
		return ""
	}
	rb, err := m.r.RestoreBucket(b)
	if err != nil {
		return "unreadable: " + err.Error() // planning it again reports the error
	}
	if m.cfg.filter != nil && !m.cfg.filter(rb.PartitionSpec, rb.Bucket) {
		return ""
	}
	return fingerprint(rb)
}

// Plan runs the maintainers of the given buckets (every selected bucket when keys is nil) on
// contents, aborting their earlier plans, and returns their index changes.
func (m *maintenance) Plan(ctx context.Context, contents *table.Contents, keys []commit.BucketKey) ([]*commit.Change, error) {
	var only map[bucketKey]bool
	if keys != nil {
		only = map[bucketKey]bool{}
		for _, k := range keys {
			key := bucketKey{k.Partition, k.Bucket}
			only[key] = true
			if p, ok := m.done[key]; ok {
				// A concurrent commit changed what this bucket's plan was based on: plan again.
				if err := p.commit.Abort(ctx); err != nil {
					return nil, fmt.Errorf("abort outdated plan of bucket %d: %w", k.Bucket, err)
				}
				delete(m.done, key)
			}
		}
	}
	planned, err := m.plan(ctx, contents, only)
	if err != nil {
		return nil, err
	}
	out := make([]*commit.Change, 0, len(planned))
	for _, key := range planned {
		p := m.done[key]
		out = append(out, &commit.Change{Partition: p.result.Partition, Bucket: p.result.Bucket,
			NewIndexFiles: p.result.Built, DeletedIndexFiles: p.result.Retired, Basis: p.sources})
	}
	return out, nil
}

// plan runs the maintainer of the selected buckets of contents that are in only (every one when
// only is nil) and returns the keys of the buckets it planned.
func (m *maintenance) plan(ctx context.Context, contents *table.Contents, only map[bucketKey]bool) ([]bucketKey, error) {
	type job struct {
		key     bucketKey
		bucket  *restore.RestoredBucket
		sources string
	}
	var jobs []job
	for _, b := range contents.Buckets {
		key := bucketKey{string(b.Partition), b.Bucket}
		if only != nil && !only[key] {
			continue
		}
		rb, err := m.r.RestoreBucket(b)
		if err != nil {
			return nil, err
		}
		if m.cfg.filter != nil && !m.cfg.filter(rb.PartitionSpec, rb.Bucket) {
			continue
		}
		plan, err := planBucket(m.r, rb)
		if err != nil {
			return nil, err
		}
		m.rowsPlanned.Add(plan.BuildRows)
		jobs = append(jobs, job{key: key, bucket: rb, sources: fingerprint(rb)})
	}
	if len(jobs) == 0 {
		return nil, nil
	}

	m.round.Store(int64(len(jobs)))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		finished int
		wg       sync.WaitGroup
		sem      = make(chan struct{}, m.cfg.parallelism)
	)
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				mu.Lock()
				if firstErr == nil {
					firstErr = ctx.Err()
				}
				mu.Unlock()
				return
			}
			defer func() { <-sem }()
			p, err := m.maintainBucket(ctx, j.bucket)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
					cancel()
				}
				return
			}
			p.sources = j.sources
			m.done[j.key] = p
			finished++
			m.round.Store(int64(finished)<<32 | int64(len(jobs)))
			m.report(&p.result)
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	keys := make([]bucketKey, len(jobs))
	for i, j := range jobs {
		keys[i] = j.key
	}
	return keys, nil
}

// maintainBucket restores one bucket's maintainer and runs it to completion with empty
// increments. The returned commit's Abort deletes the archives it built.
func (m *maintenance) maintainBucket(ctx context.Context, b *restore.RestoredBucket) (_ *pendingBucket, err error) {
	start := time.Now()
	var wrap func(pkfulltext.ReaderFactory) pkfulltext.ReaderFactory
	if m.cfg.progress != nil {
		wrap = func(inner pkfulltext.ReaderFactory) pkfulltext.ReaderFactory {
			return &countingReaders{inner: inner, add: m.addRows}
		}
	}
	mt, err := newIndexMaintainer(ctx, m.r, m.engine, &m.archives, b, wrap)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := mt.Close(ctx); cerr != nil && err == nil {
			err = cerr
		}
	}()
	commit, err := mt.PrepareCommit(ctx, pkindex.DataIncrement{}, pkindex.CompactIncrement{}, true)
	if err != nil {
		return nil, fmt.Errorf("maintain bucket %d of partition %v: %w", b.Bucket, b.PartitionSpec, err)
	}
	p := &pendingBucket{
		result: BucketResult{Partition: b.Partition, PartitionSpec: b.PartitionSpec, Bucket: b.Bucket},
		commit: commit,
	}
	if commit.CompactIncrement != nil {
		// Empty data increments always route to the append increment; anything else is a bug.
		_ = commit.Abort(ctx)
		return nil, fmt.Errorf("maintain bucket %d: changes routed to the compact increment", b.Bucket)
	}
	if inc := commit.AppendIncrement; inc != nil {
		p.result.Built = inc.NewIndexFiles
		p.result.Retired = inc.DeletedIndexFiles
	}
	if mutation.On("other-families-dropped") && p.result.Changed() {
		// The full-text maintenance commit retires every other family's payload of the bucket.
		for _, f := range b.SourcePayloads {
			if f.IndexType != pkfulltext.IndexType && !slices.ContainsFunc(p.result.Retired, func(x *meta.IndexFileMeta) bool { return x.FileName == f.FileName }) {
				p.result.Retired = append(p.result.Retired, f)
			}
		}
	}
	for _, cur := range mt.Payloads() {
		if !slices.ContainsFunc(p.result.Built, func(x *meta.IndexFileMeta) bool { return x.FileName == cur.FileName }) {
			p.result.Unchanged = append(p.result.Unchanged, cur)
		}
	}
	p.result.Duration = time.Since(start)
	return p, nil
}

// fingerprint captures everything a bucket's full-text plan depends on: its eligible source files
// (compacted files above level 0; appends at level 0 never matter) and its full-text payloads. A
// concurrent commit that leaves both alone leaves the plan valid.
func fingerprint(b *restore.RestoredBucket) string {
	var d, p []string
	for _, f := range b.DataFiles {
		if pkindex.ShouldReadDataFile(f) {
			d = append(d, fmt.Sprintf("%d/%s/%d", f.Level, f.FileName, f.RowCount))
		}
	}
	for _, f := range b.SourcePayloads {
		p = append(p, fmt.Sprintf("%s/%s/%d/%x", f.IndexType, f.FileName, f.RowCount, f.GlobalIndex.SourceMeta))
	}
	slices.Sort(d)
	slices.Sort(p)
	h, _ := json.Marshal([2][]string{d, p})
	return string(h)
}

// sortedPending returns the planned buckets ordered by partition bytes then bucket.
func (m *maintenance) sortedPending() []*pendingBucket {
	out := make([]*pendingBucket, 0, len(m.done))
	for _, p := range m.done {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *pendingBucket) int {
		if c := compareBytes(a.result.Partition, b.result.Partition); c != 0 {
			return c
		}
		return int(a.result.Bucket) - int(b.result.Bucket)
	})
	return out
}

func compareBytes(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return len(a) - len(b)
}

func (m *maintenance) result(base *snapshot.Snapshot) *MaintainResult {
	res := &MaintainResult{Base: base}
	for _, p := range m.sortedPending() {
		res.Buckets = append(res.Buckets, p.result)
	}
	return res
}

// abortAll aborts every planned bucket, deleting the archives it generated.
func (m *maintenance) abortAll(ctx context.Context) error {
	var errs []error
	for key, p := range m.done {
		if err := p.commit.Abort(ctx); err != nil {
			errs = append(errs, fmt.Errorf("abort bucket %d: %w", key.bucket, err))
		}
		delete(m.done, key)
	}
	return errors.Join(errs...)
}

// UncertainCommitError reports a publication whose outcome could not be established. The files
// it would reference are left in place, because the snapshot may have been published.
type UncertainCommitError = commit.UncertainCommitError
