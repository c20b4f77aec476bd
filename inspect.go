package pkft

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
)

// ErrNoSnapshot is the error of [Table.Dump] and [Table.State] for a table that has no snapshot
// yet (created, nothing committed).
var ErrNoSnapshot = table.ErrNoSnapshot

// InspectOption configures [Table.Dump] and [Table.State].
type InspectOption func(*inspectConfig)

type inspectConfig struct {
	snapshotID int64
}

// WithInspectSnapshot makes Dump and State read snapshot id instead of the latest; 0 means the
// latest.
func WithInspectSnapshot(id int64) InspectOption {
	return func(c *inspectConfig) { c.snapshotID = id }
}

// tableDump is inspect's dump of the snapshot the options select.
func (t *Table) tableDump(ctx context.Context, state inspect.StateFunc, opts []InspectOption) (*inspect.Dump, error) {
	var cfg inspectConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.snapshotID < 0 {
		return nil, fmt.Errorf("snapshot %d: want a snapshot id > 0 (0: the latest)", cfg.snapshotID)
	}
	if cfg.snapshotID == 0 {
		return inspect.TableDump(ctx, t.t, state)
	}
	snap, err := t.t.Snapshots.Snapshot(ctx, cfg.snapshotID)
	if err != nil {
		return nil, fmt.Errorf("snapshot %d: %w", cfg.snapshotID, err)
	}
	return inspect.SnapshotDump(ctx, t.t, snap, state)
}

// Dump returns the canonical dump of the table's latest snapshot (or [WithInspectSnapshot]'s) as JSON: the snapshot, the
// schema, and per (partition, bucket) the live data files, the index files with their decoded
// global index meta (a btree or bitmap payload's SortedIndexFileMeta decoded), deletion-vector
// ranges, the full-text state and next plan, and each sorted index definition's state and next
// plan. It is the document the Java conformance runner prints for the same table, so the two
// compare with a plain JSON diff.
//
// A table with no snapshot yields an error wrapping [ErrNoSnapshot].
func (t *Table) Dump(ctx context.Context, opts ...InspectOption) (json.RawMessage, error) {
	d, err := t.tableDump(ctx, inspect.FullTextState, opts)
	if err != nil {
		return nil, fmt.Errorf("dump %s: %w", t.path, err)
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("dump %s: %w", t.path, err)
	}
	return b, nil
}

// TableState is the full-text and sorted-index state of every (partition, bucket) of a snapshot.
type TableState struct {
	SnapshotID int64 `json:"snapshotId"`
	// Coverage sums the buckets' full-text coverage: the rows a search of the snapshot does not
	// see, and why. Nil for a table without a full-text index.
	Coverage *Coverage     `json:"coverage,omitempty"`
	Buckets  []BucketState `json:"buckets"`
}

// UncoveredReason says why the rows of a data file are in no current full-text archive, so that
// a search does not see them.
type UncoveredReason string

// The reasons, in the order a [Coverage] lists them. A full-text archive covers only data files
// a compaction rewrote (file source COMPACT) above level 0, one current archive per (partition,
// bucket, level), as in Java Paimon.
const (
	// UncoveredLevel0: the file is on level 0. Its rows are indexed once a compaction rewrites it
	// into a level above 0 (a compaction that only moves it up leaves it moved-up).
	UncoveredLevel0 UncoveredReason = inspect.UncoveredLevel0
	// UncoveredMovedUp: the file is above level 0 but no compaction wrote it: its file source is
	// APPEND (a compaction moved it up a level without rewriting it, as the compaction at commit
	// does with the first write into an empty table) or not recorded. It is never eligible for an
	// archive, and Maintain builds none for it; its rows are indexed once a compaction rewrites
	// the file: [WithUncoveredCompaction] rewrites exactly these files (every compaction does with
	// the table option compaction.force-rewrite-all-files), and a write with [WithIndexNewRows]
	// leaves none.
	UncoveredMovedUp UncoveredReason = inspect.UncoveredMovedUp
	// UncoveredNoArchive: the file is eligible (a compaction rewrote it above level 0) but its
	// level has no current archive; [Table.Maintain] builds it.
	UncoveredNoArchive UncoveredReason = inspect.UncoveredNoArchive
	// UncoveredDuplicateArchives: the file is eligible but its level has several archives, built
	// by concurrent maintainers, which Java (and pkft) take all as stale; [Table.Maintain]
	// rebuilds the level.
	UncoveredDuplicateArchives UncoveredReason = inspect.UncoveredDuplicateArchives
	// UncoveredStateError: the bucket's full-text state cannot be computed (for example an
	// archive whose source meta does not decode): all its files count as uncovered.
	UncoveredStateError UncoveredReason = inspect.UncoveredStateError
)

// Explain says in a sentence what the reason means and what makes the rows searchable.
func (r UncoveredReason) Explain() string {
	switch r {
	case UncoveredLevel0:
		return "not compacted yet; indexed once a compaction rewrites them into a level above 0"
	case UncoveredMovedUp:
		return "moved above level 0 by a compaction without being rewritten (file source APPEND); " +
			"never indexed until a compaction rewrites them (compact --strategy uncovered rewrites just these)"
	case UncoveredNoArchive:
		return "their level has no current archive; maintain builds it"
	case UncoveredDuplicateArchives:
		return "their level has duplicate archives of concurrent maintainers; maintain rebuilds it"
	case UncoveredStateError:
		return "the bucket's full-text state cannot be computed; its files count as uncovered"
	}
	return string(r)
}

// Coverage counts the data files and rows of a bucket (or of a table, summed over its buckets)
// and those no current full-text archive covers, which a search therefore does not see, by
// reason. Rows are physical rows: the data files' row counts, so rows deleted by deletion
// vectors and older versions of a key count as well, and a count can exceed what a scan
// returns.
type Coverage struct {
	// Files and Rows count every data file of the bucket(s) and their rows.
	Files int64 `json:"files"`
	Rows  int64 `json:"rows"`
	// UncoveredFiles and UncoveredRows count those no current archive covers.
	UncoveredFiles int64 `json:"uncoveredFiles"`
	UncoveredRows  int64 `json:"uncoveredRows"`
	// Uncovered breaks them down by reason, in the order of the reasons; a reason without files
	// is left out.
	Uncovered []UncoveredFiles `json:"uncovered"`
}

// UncoveredFiles are the uncovered data files of one reason: how many, their rows, and the
// levels they are on, ascending.
type UncoveredFiles struct {
	Reason UncoveredReason `json:"reason"`
	Levels []int32         `json:"levels"`
	Files  int64           `json:"files"`
	Rows   int64           `json:"rows"`
}

// coverageOf is the public form of an internal coverage; nil stays nil.
func coverageOf(c *inspect.CoverageDump) *Coverage {
	if c == nil {
		return nil
	}
	out := &Coverage{Files: c.Files, Rows: c.Rows, UncoveredFiles: c.UncoveredFiles, UncoveredRows: c.UncoveredRows,
		Uncovered: make([]UncoveredFiles, 0, len(c.Uncovered))}
	for _, u := range c.Uncovered {
		out.Uncovered = append(out.Uncovered, UncoveredFiles{Reason: UncoveredReason(u.Reason), Levels: u.Levels, Files: u.Files, Rows: u.Rows})
	}
	return out
}

// BucketState is the full-text state and next plan, and the sorted indexes' states, of one
// (partition, bucket).
type BucketState struct {
	Partition Partition `json:"partition"`
	Bucket    int32     `json:"bucket"`
	// State is nil for a table without a full-text index.
	State *FullTextState `json:"state"`
	// Plan is the next build the planner would do; nil when every level is current.
	Plan *BuildPlan `json:"plan"`
	// Coverage counts the bucket's data files and rows no current archive covers, and why; nil
	// for a table without a full-text index.
	Coverage *Coverage `json:"coverage,omitempty"`
	// Sorted is the state of each sorted index definition (pk-btree, pk-bitmap column) of the
	// table, in field order; absent for a table without one.
	Sorted []SortedIndexState `json:"sorted,omitempty"`
}

// SortedIndexState classifies one sorted index definition's payloads in a bucket as Java's
// maintainer restores them (PkSortedBucketIndexState over the payloads of its index type and
// field): the covered levels, the eligible data files of covered and uncovered levels, the
// payloads that cover nothing, and the next rebuild the shared level planner would do.
type SortedIndexState struct {
	// IndexType is "btree" or "bitmap".
	IndexType string `json:"indexType"`
	// Column and FieldID name the indexed column.
	Column  string `json:"column"`
	FieldID int32  `json:"fieldId"`
	// Groups are the covered levels in ascending order.
	Groups []SortedIndexGroup `json:"groups"`
	// Covered and Uncovered are the eligible data files of covered and uncovered levels.
	Covered   []string `json:"covered"`
	Uncovered []string `json:"uncovered"`
	// Rejected are the payloads that cover no level as it is (deleted by the next maintenance).
	Rejected []string `json:"rejected"`
	// Plan is the next rebuild (Input: the payloads it replaces); nil when every level is current.
	Plan *BuildPlan `json:"plan"`
	// Error is set when the state cannot be computed.
	Error string `json:"error,omitempty"`
}

// SortedIndexGroup is one covered level: its data files in name order and its payload.
type SortedIndexGroup struct {
	Level    int32    `json:"level"`
	Sources  []string `json:"sources"`
	Payloads []string `json:"payloads"`
}

// FullTextState classifies a bucket's full-text archives as Java's PkFullTextBucketIndexState
// does.
type FullTextState struct {
	// Eligible are the data files each non-zero level's archive must cover.
	Eligible map[int32][]string `json:"eligible"`
	// Current is the current archive of each level that has one.
	Current map[int32]string `json:"current"`
	// Stale are the archives that cover no level as it is.
	Stale []string `json:"stale"`
	// Duplicates are the levels whose archives are all stale because the level has more than one
	// candidate (two maintainers built it concurrently); absent when there are none.
	Duplicates []DuplicateArchives `json:"duplicates,omitempty"`
	// Error is set when the bucket's state cannot be computed (for example an archive whose
	// source meta does not decode).
	Error string `json:"error,omitempty"`
}

// DuplicateArchives is a level with more than one candidate archive: the archives (all stale,
// as Java classifies them) and the reason, "duplicate archives (concurrent maintainers)". The
// next Maintain rebuilds the level.
type DuplicateArchives struct {
	Level    int32    `json:"level"`
	Archives []string `json:"archives"`
	Reason   string   `json:"reason"`
}

// BuildPlan is the next build of a bucket: the level, the archive it replaces (empty: none),
// and the data files the new archive covers (none: the archive is only removed).
type BuildPlan struct {
	Level int32    `json:"level"`
	Input []string `json:"input"`
	Files []string `json:"files"`
}

// State reads the latest snapshot (or [WithInspectSnapshot]'s) and classifies the full-text archives and the payloads of each
// sorted index definition of every (partition, bucket); the full-text archives are classified for
// the full-text index of the table's latest schema, the one Maintain builds and Search reads. Its
// coverage, per bucket and for the table, counts the rows no current full-text archive covers —
// rows a search does not see — and says why (see [UncoveredReason]).
//
// [WithInspectSnapshot] selects an earlier snapshot; a table with no snapshot yields an error
// wrapping [ErrNoSnapshot].
func (t *Table) State(ctx context.Context, opts ...InspectOption) (*TableState, error) {
	// The full-text state is the one Maintain and Search act on: that of the latest schema's
	// full-text index (a schema that adds the index classifies the levels before the next
	// snapshot).
	latest, err := t.latestSchema(ctx)
	if err != nil {
		return nil, err
	}
	d, err := t.tableDump(ctx, func(_ *schema.TableSchema, b *table.Bucket) (*inspect.StateDump, *inspect.PlanDump) {
		return inspect.FullTextState(latest, b)
	}, opts)
	if err != nil {
		return nil, fmt.Errorf("state of %s: %w", t.path, err)
	}
	out := &TableState{SnapshotID: d.SnapshotID, Buckets: make([]BucketState, 0, len(d.Buckets))}
	var total *inspect.CoverageDump
	if inspect.HasFullTextIndex(latest.Options) {
		total = &inspect.CoverageDump{}
	}
	for _, b := range d.Buckets {
		bs := BucketState{Partition: make(Partition, len(d.Schema.PartitionKeys)), Bucket: b.Bucket}
		for i, k := range d.Schema.PartitionKeys {
			bs.Partition[i] = PartitionValue{Key: k, Value: b.Partition[k]}
		}
		if b.State != nil {
			st := &FullTextState{Eligible: map[int32][]string{}, Current: map[int32]string{}, Stale: b.State.Stale,
				Error: b.State.Error}
			for _, d := range b.State.Duplicates {
				st.Duplicates = append(st.Duplicates, DuplicateArchives{Level: d.Level, Archives: d.Archives, Reason: d.Reason})
			}
			for l, files := range b.State.Eligible {
				level, err := strconv.ParseInt(l, 10, 32)
				if err != nil {
					return nil, fmt.Errorf("state of %s: level %q: %w", t.path, l, err)
				}
				st.Eligible[int32(level)] = files
			}
			for l, f := range b.State.Current {
				level, err := strconv.ParseInt(l, 10, 32)
				if err != nil {
					return nil, fmt.Errorf("state of %s: level %q: %w", t.path, l, err)
				}
				st.Current[int32(level)] = f
			}
			bs.State = st
			bs.Coverage = coverageOf(b.State.Coverage)
			if total == nil {
				total = &inspect.CoverageDump{}
			}
			total.Add(b.State.Coverage)
		}
		if b.Plan != nil {
			bs.Plan = &BuildPlan{Level: b.Plan.Level, Input: b.Plan.Input, Files: b.Plan.Files}
		}
		for _, sd := range b.Sorted {
			ss := SortedIndexState{IndexType: sd.IndexType, Column: sd.Column, FieldID: sd.FieldID, Covered: sd.Covered,
				Uncovered: sd.Uncovered, Rejected: sd.Rejected, Error: sd.Error}
			for _, g := range sd.Groups {
				ss.Groups = append(ss.Groups, SortedIndexGroup{Level: g.Level, Sources: g.Sources, Payloads: g.Payloads})
			}
			if sd.Plan != nil {
				ss.Plan = &BuildPlan{Level: sd.Plan.Level, Input: sd.Plan.Input, Files: sd.Plan.Files}
			}
			bs.Sorted = append(bs.Sorted, ss)
		}
		out.Buckets = append(out.Buckets, bs)
	}
	out.Coverage = coverageOf(total)
	return out, nil
}

// RewriteResult is the outcome of [Table.RewriteMetadata].
type RewriteResult struct {
	SnapshotID int64  `json:"snapshotId"`
	CommitKind string `json:"commitKind"`
}

// RewriteMetadata re-encodes the latest snapshot's manifests, manifest list and index manifest
// under new names and commits them as the next snapshot (a manifest compaction: the same rows
// and files), with a random commit user.
func (t *Table) RewriteMetadata(ctx context.Context) (*RewriteResult, error) {
	snap, err := tableops.RewriteMetadata(ctx, t.t, "pkft-"+uuid.NewString())
	if err != nil {
		return nil, opError(err, "rewrite metadata of %s", t.path)
	}
	return &RewriteResult{SnapshotID: snap.ID, CommitKind: string(snap.CommitKind)}, nil
}
