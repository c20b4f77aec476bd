package pkft

import (
	"strconv"
	"time"

	"github.com/paimon-pkft/pkft/internal/openconfig"
)

// Every operation takes its own option type, so that an option an operation does not honour
// does not compile: [Table.Compact] cannot be given [WithDryRun], [Table.NewWriter] cannot be
// given [WithBucket]. A setting that several operations honour is one constructor whose result
// is an option of each of them (for example [WithCommitUser] is a [MaintainOption], a
// [CompactOption] and a [WriteOption]).

// OpenOption configures [Open]. It is a function of a configuration internal to the module: the
// options are made by this package's constructors ([WithFileSystemOptions], [KeepArchivesOpen],
// [WithEngineLibrary]).
type OpenOption func(*openconfig.Config)

// MaintainOption configures [Table.Maintain].
type MaintainOption interface{ applyMaintain(*maintainConfig) }

// CompactOption configures [Table.Compact].
type CompactOption interface{ applyCompact(*compactConfig) }

// WriteOption configures [Table.NewWriter].
type WriteOption interface{ applyWrite(*writeConfig) }

// SearchOption configures [Table.Search].
type SearchOption interface{ applySearch(*searchConfig) }

// scope is what Maintain and Compact share: the buckets they work on, how many at once, who
// commits and who hears about progress.
type scope struct {
	partitions  []map[string]string
	buckets     []int32
	shard       *shard
	parallelism int
	progress    func(Progress)
	commitUser  string
	now         func() time.Time
}

type maintainConfig struct {
	scope
	dryRun bool
}

type compactConfig struct {
	scope
	minor     bool
	uncovered bool
}

type writeConfig struct {
	commitUser   string
	writeOnly    bool
	indexNewRows bool
	now          func() time.Time
	progress     func(Progress)
}

// ClockOption sets a clock; it is a [MaintainOption], a [CompactOption] and a [WriteOption].
type ClockOption interface {
	MaintainOption
	CompactOption
	WriteOption
}

type clockOption func() time.Time

func (o clockOption) applyMaintain(c *maintainConfig) { c.now = o }
func (o clockOption) applyCompact(c *compactConfig)   { c.now = o }
func (o clockOption) applyWrite(c *writeConfig)       { c.now = o }

// WithClock sets the clock the snapshot expiry after the operation's commit measures
// snapshot.time-retained against (default time.Now); a nil clock is time.Now.
func WithClock(now func() time.Time) ClockOption { return clockOption(now) }

type writeOnlyOption struct{}

func (writeOnlyOption) applyWrite(c *writeConfig) { c.writeOnly = true }

// WithWriteOnly makes the writer commit its level-0 files without the compaction Java's writer
// runs at commit, as Paimon's write-only option does for a job whose table a dedicated
// compaction job compacts. On a deletion-vector table the rows are then invisible to batch
// readers and searches until a compaction moves them up.
func WithWriteOnly() WriteOption { return writeOnlyOption{} }

type minorCompactionOption struct{}

func (minorCompactionOption) applyCompact(c *compactConfig) { c.minor = true }

// WithMinorCompaction makes [Table.Compact] a dedicated compaction without full (Paimon's
// compact action with compact_strategy minor): in each bucket the table's compaction strategy
// picks what to compact, as Java's writer picks at commit, which may be nothing.
func WithMinorCompaction() CompactOption { return minorCompactionOption{} }

type uncoveredCompactionOption struct{}

func (uncoveredCompactionOption) applyCompact(c *compactConfig) { c.uncovered = true }

// WithUncoveredCompaction makes [Table.Compact] an index backfill that costs what is uncovered:
// in each selected bucket it rewrites exactly the data files above level 0 that no archive can
// ever cover (reason [UncoveredMovedUp]: level-0 files a compaction moved up without rewriting
// them, which keep their APPEND source), each into COMPACT files of its own level with its
// deletion vector applied, and builds the indexes of those levels (full-text archives, and the
// pk-btree and pk-bitmap payloads the table declares) in the same COMPACT snapshot. No other
// data file is read or written; levels without a current archive get theirs as [Table.Maintain]
// would build them. It cannot be combined with [WithMinorCompaction], and a table without a
// primary-key index is refused.
func WithUncoveredCompaction() CompactOption { return uncoveredCompactionOption{} }

type indexNewRowsOption struct{}

func (indexNewRowsOption) applyWrite(c *writeConfig) { c.indexNewRows = true }

// WithIndexNewRows makes the rows a writer commits searchable at its commit: the compaction at
// commit rewrites each level-0 file it would move up unchanged (Java's choice, after which no
// archive ever covers the file) into COMPACT files of the level it goes to, and the full-text
// archives (and pk-btree / pk-bitmap payloads) of that level are built in the write's COMPACT
// snapshot. It costs rewriting what the write wrote. Without it, the rows written are found by
// scans at once but by searches only once a compaction rewrites them (see [Table.State]'s
// coverage and [WithUncoveredCompaction]). It is an option of the write, not of the table; it is
// refused with [WithWriteOnly], on a write-only table, and on a table without a primary-key
// index.
func WithIndexNewRows() WriteOption { return indexNewRowsOption{} }

// PartitionOption selects partitions; it is a [MaintainOption], a [CompactOption], a
// [SearchOption] and a [ScanOption].
type PartitionOption interface {
	MaintainOption
	CompactOption
	SearchOption
	ScanOption
}

type partitionOption map[string]string

func (o partitionOption) applyMaintain(c *maintainConfig) { c.partitions = append(c.partitions, o) }
func (o partitionOption) applyCompact(c *compactConfig)   { c.partitions = append(c.partitions, o) }
func (o partitionOption) applySearch(c *searchConfig)     { c.partitions = append(c.partitions, o) }

// WithPartition restricts an operation to the partitions whose values equal spec (partition key
// -> value as text; keys left out match anything). Values are read as Paimon's partition
// arguments are: strings as they are, integers and booleans in decimal and true/false, DECIMAL
// in plain notation, DATE as yyyy-mm-dd or as its day number. Given several times, a partition
// matching any of the specs is selected.
func WithPartition(spec map[string]string) PartitionOption { return partitionOption(spec) }

// BucketOption selects buckets; it is a [MaintainOption] and a [CompactOption].
type BucketOption interface {
	MaintainOption
	CompactOption
}

type bucketOption int32

func (o bucketOption) applyMaintain(c *maintainConfig) { c.buckets = append(c.buckets, int32(o)) }
func (o bucketOption) applyCompact(c *compactConfig)   { c.buckets = append(c.buckets, int32(o)) }

// WithBucket restricts maintenance or compaction to bucket n (of every selected partition).
// Given several times, any of the buckets is selected.
func WithBucket(n int32) BucketOption { return bucketOption(n) }

// shard is a WithShard selection: the buckets whose ShardOf is index.
type shard struct{ index, count int }

func (o shard) applyMaintain(c *maintainConfig) { s := o; c.shard = &s }
func (o shard) applyCompact(c *compactConfig)   { s := o; c.shard = &s }

// WithShard restricts maintenance or compaction to shard index of count (0 <= index < count):
// the (partition, bucket) pairs for which [ShardOf] is index. The count workers given shards
// 0..count-1 of one table split its buckets with no overlap and no gap, whatever the table's
// partitions and bucket numbers, and each commits only its own buckets through the commit
// protocol (workers that race re-base and retry). Combined with [WithPartition] and
// [WithBucket], a bucket must match all of them. An index outside [0, count) fails the call.
func WithShard(index, count int) BucketOption { return shard{index: index, count: count} }

// ShardOf is the shard of count that (partition, bucket) belongs to: the FNV-1a 64-bit hash of
// the partition's directory path as Paimon names it (for example "region=eu/dt=2024-01-31",
// empty for an unpartitioned table), a "/" and the bucket number in decimal, modulo count. It is
// stable across processes, machines and releases (the hash is part of the documented behaviour).
// With count below 1 there is no shard: ShardOf returns -1.
func ShardOf(partitionPath string, bucket int32, count int) int {
	if count < 1 {
		return -1
	}
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, c := range []byte(partitionPath + "/" + strconv.Itoa(int(bucket))) {
		h ^= uint64(c)
		h *= prime
	}
	return int(h % uint64(count))
}

// ParallelismOption bounds the work done at once; it is a [MaintainOption], a [CompactOption]
// and a [SearchOption].
type ParallelismOption interface {
	MaintainOption
	CompactOption
	SearchOption
	RemoveOrphanFilesOption
}

type parallelismOption int

func (o parallelismOption) applyMaintain(c *maintainConfig) { c.parallelism = int(o) }
func (o parallelismOption) applyCompact(c *compactConfig)   { c.parallelism = int(o) }
func (o parallelismOption) applySearch(c *searchConfig)     { c.parallelism = int(o) }
func (o parallelismOption) applyOrphan(c *orphanConfig)     { c.parallelism = int(o) }

// WithParallelism bounds how many buckets are maintained or compacted at once (default: the
// number of CPUs), how many archives a search reads at once (default: the table option
// global-index.thread-num, 32 when unset, as Java's read pool), or how many manifests
// [Table.RemoveOrphanFiles] reads at once (default: the number of CPUs). 0 keeps the default.
func WithParallelism(n int) ParallelismOption { return parallelismOption(n) }

// ProgressOption reports progress; it is a [MaintainOption], a [CompactOption] and a
// [WriteOption].
type ProgressOption interface {
	MaintainOption
	CompactOption
	WriteOption
}

type progressOption func(Progress)

func (o progressOption) applyMaintain(c *maintainConfig) { c.progress = o }
func (o progressOption) applyCompact(c *compactConfig)   { c.progress = o }
func (o progressOption) applyWrite(c *writeConfig)       { c.progress = o }

// WithProgress calls report as maintenance, compaction or a write's commit advances: after each
// bucket finishes, and, for maintenance and a write's compaction at commit, every few thousand
// source rows while archives build. A [Writer.Commit] reports its phases in order
// ([PhaseFlush], [PhaseCompact], [PhaseCommit]), each at its start and up to its end. Calls are
// serialized; report must not block long. A dry run reports nothing.
func WithProgress(report func(Progress)) ProgressOption { return progressOption(report) }

// CommitUserOption names the committer; it is a [MaintainOption], a [CompactOption] and a
// [WriteOption].
type CommitUserOption interface {
	MaintainOption
	CompactOption
	WriteOption
}

type commitUserOption string

func (o commitUserOption) applyMaintain(c *maintainConfig) { c.commitUser = string(o) }
func (o commitUserOption) applyCompact(c *compactConfig)   { c.commitUser = string(o) }
func (o commitUserOption) applyWrite(c *writeConfig)       { c.commitUser = string(o) }

// WithCommitUser sets the commitUser recorded in the snapshot (default: a random UUID, as a
// Java writer without a configured user does).
func WithCommitUser(user string) CommitUserOption { return commitUserOption(user) }

type dryRunOption bool

func (o dryRunOption) applyMaintain(c *maintainConfig) { c.dryRun = bool(o) }
func (o dryRunOption) applyOrphan(c *orphanConfig)     { c.dryRun = bool(o) }

// DryRunOption makes an operation report what it would do and change nothing; it is a
// [MaintainOption] and a [RemoveOrphanFilesOption].
type DryRunOption interface {
	MaintainOption
	RemoveOrphanFilesOption
}

// WithDryRun makes Maintain plan only: it classifies every selected bucket's archives and
// reports the levels it would build and the archives it would retire, building and writing
// nothing. It makes [Table.RemoveOrphanFiles] list the files it would delete, deleting nothing.
func WithDryRun(dryRun bool) DryRunOption { return dryRunOption(dryRun) }

type olderThanOption time.Time

func (o olderThanOption) applyOrphan(c *orphanConfig) { c.olderThan = time.Time(o) }
func (o olderThanOption) applyExpire(c *expireConfig) {
	t := time.Time(o)
	c.olderThan = &t
}

// OlderThanOption bounds an operation to what is older than a time; it is a
// [RemoveOrphanFilesOption] and an [ExpireOption].
type OlderThanOption interface {
	RemoveOrphanFilesOption
	ExpireOption
}

// WithOlderThan makes [Table.RemoveOrphanFiles] consider only files modified before t (default:
// [DefaultOrphanAge] before now; t must be in the past, since a file being written now, which no
// snapshot references yet, would otherwise be deleted), and [Table.ExpireSnapshots] expire only
// snapshots whose successor was committed before t (default: the table's snapshot.time-retained
// before now), as the older_than argument of Paimon's remove_orphan_files and expire_snapshots.
func WithOlderThan(t time.Time) OlderThanOption { return olderThanOption(t) }

type searchOption func(*searchConfig)

func (o searchOption) applySearch(c *searchConfig) { o(c) }

// WithColumn names the text column to search; it must be the table's full-text column
// (pk-full-text.index.columns). By default that column is searched.
func WithColumn(column string) SearchOption {
	return searchOption(func(c *searchConfig) { c.column = column })
}

// WithLimit sets how many hits are returned, best first (default [DefaultLimit]); it must be
// positive.
func WithLimit(n int) SearchOption {
	return searchOption(func(c *searchConfig) { c.limit = n })
}

// WithSnapshot searches snapshot id instead of the latest one.
func WithSnapshot(id int64) SearchOption {
	return searchOption(func(c *searchConfig) { c.snapshotID = id })
}
