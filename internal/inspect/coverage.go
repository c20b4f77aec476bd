package inspect

import (
	"slices"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
)

// The reasons a data file's rows are in no current full-text archive, in the order a coverage
// lists them.
const (
	// UncoveredLevel0: the file is on level 0. Archives cover only files a compaction rewrote
	// above level 0; a compaction that rewrites the file into a higher level indexes its rows.
	UncoveredLevel0 = "level-0"
	// UncoveredMovedUp: the file is above level 0 but no compaction wrote it (its file source is
	// APPEND — a compaction moved it up without rewriting it — or not recorded). It is never
	// eligible for an archive; its rows are indexed once a compaction rewrites the file.
	UncoveredMovedUp = "moved-up"
	// UncoveredNoArchive: the file is eligible, but its level has no current archive; the next
	// maintenance builds it.
	UncoveredNoArchive = "no-archive"
	// UncoveredDuplicateArchives: the file is eligible, but its level has several candidate
	// archives (concurrent maintainers built it), all stale; the next maintenance rebuilds it.
	UncoveredDuplicateArchives = "duplicate-archives"
	// UncoveredStateError: the bucket's full-text state cannot be computed; every file of the
	// bucket counts as uncovered.
	UncoveredStateError = "error"
)

// reasons lists the reasons in the order a coverage lists them.
var reasons = [...]string{UncoveredLevel0, UncoveredMovedUp, UncoveredNoArchive, UncoveredDuplicateArchives, UncoveredStateError}

// CoverageDump counts the data files of one bucket (or of several, summed) and their rows, and
// those no current full-text archive covers, by reason. Rows are the data files' row counts:
// physical rows, deleted and superseded ones included.
type CoverageDump struct {
	Files          int64           `json:"files"`
	Rows           int64           `json:"rows"`
	UncoveredFiles int64           `json:"uncoveredFiles"`
	UncoveredRows  int64           `json:"uncoveredRows"`
	Uncovered      []UncoveredDump `json:"uncovered"`
}

// UncoveredDump is the uncovered files of one reason: how many, their rows, and their levels in
// ascending order.
type UncoveredDump struct {
	Reason string  `json:"reason"`
	Levels []int32 `json:"levels"`
	Files  int64   `json:"files"`
	Rows   int64   `json:"rows"`
}

// BucketCoverage derives the coverage of a bucket's data files from its full-text
// classification: eligible are the files the classification was computed over (those that feed
// archives, a subsequence of files in their order, as pkfulltext returns them), and state the
// classification of the bucket's archives against them (nil when no file is eligible). A file
// is covered when it is eligible and its level has a current archive (one that covers exactly
// the level's eligible files); an eligible file of a level without one is uncovered because the
// level's archives are duplicates (state.DuplicateLevels) or because it has none; a file that is
// not eligible is uncovered because it is on level 0 or, above level 0, because no compaction
// wrote it. A current archive whose source meta has no readable level makes the coverage that of
// a failed state (FailedCoverage).
func BucketCoverage(files, eligible []*meta.DataFileMeta, state *pkfulltext.BucketIndexState) *CoverageDump {
	return bucketCoverage(files, eligible, state, nil)
}

// FilesCoverage is the coverage of the data files of bucket b that keep selects, each judged as
// in the whole bucket's full-text state (fieldID as FullTextField returns it): what a writer
// learns of the files it committed.
func FilesCoverage(fieldID int32, b *table.Bucket, keep func(*meta.DataFileMeta) bool) *CoverageDump {
	if fieldID >= 0 {
		if view, err := pkfulltext.InspectBucket(fieldID, b.DataFiles, b.IndexFiles); err == nil {
			return bucketCoverage(b.DataFiles, view.Eligible, view.State, keep)
		}
	}
	var kept []*meta.DataFileMeta
	for _, f := range b.DataFiles {
		if keep(f) {
			kept = append(kept, f)
		}
	}
	return FailedCoverage(kept)
}

// bucketCoverage is BucketCoverage of the files keep selects (nil: all).
func bucketCoverage(files, eligible []*meta.DataFileMeta, state *pkfulltext.BucketIndexState, keep func(*meta.DataFileMeta) bool) *CoverageDump {
	current := map[int32]bool{}
	var duplicate map[int32][]*meta.IndexFileMeta
	if state != nil {
		for _, p := range state.CurrentPayloads() {
			level, _, ok := pkindex.PeekSourceMeta(p.GlobalIndex.SourceMeta)
			if !ok {
				var kept []*meta.DataFileMeta
				for _, f := range files {
					if keep == nil || keep(f) {
						kept = append(kept, f)
					}
				}
				return FailedCoverage(kept)
			}
			current[level] = true
		}
		duplicate = state.DuplicateLevels()
	}
	isEligible := eligibleIn(files, eligible)
	var t tally
	for i, f := range files {
		if keep != nil && !keep(f) {
			continue
		}
		fed := isEligible(i)
		var reason int
		switch _, dup := duplicate[f.Level]; {
		case fed && current[f.Level]:
			reason = covered
		case fed && dup:
			reason = duplicateArchives
		case fed:
			reason = noArchive
		case f.Level == 0:
			reason = level0
		default:
			reason = movedUp
		}
		t.count(f, reason)
	}
	return t.coverage()
}

// covered stands, in place of a reason's index, for a covered file.
const covered = -1

// Indexes of the reasons in reasons.
const (
	level0 = iota
	movedUp
	noArchive
	duplicateArchives
	stateError
)

// tally counts files by reason (an index of reasons, or covered).
type tally struct {
	files, rows int64
	by          [stateError + 1]UncoveredDump
}

func (t *tally) count(f *meta.DataFileMeta, reason int) {
	t.files++
	t.rows += f.RowCount
	if reason == covered {
		return
	}
	u := &t.by[reason]
	u.Files++
	u.Rows += f.RowCount
	if !slices.Contains(u.Levels, f.Level) {
		u.Levels = append(u.Levels, f.Level)
	}
}

func (t *tally) coverage() *CoverageDump {
	c := &CoverageDump{Files: t.files, Rows: t.rows, Uncovered: []UncoveredDump{}}
	for i, u := range t.by {
		if u.Files == 0 {
			continue
		}
		u.Reason = reasons[i]
		slices.Sort(u.Levels)
		c.UncoveredFiles += u.Files
		c.UncoveredRows += u.Rows
		c.Uncovered = append(c.Uncovered, u)
	}
	return c
}

// eligibleIn returns whether files[i] is one of eligible. eligible is expected to be a
// subsequence of files (then no map is built); otherwise the files are looked up by identity.
func eligibleIn(files, eligible []*meta.DataFileMeta) func(i int) bool {
	marks := make([]bool, len(files))
	j := 0
	for i, f := range files {
		if j < len(eligible) && eligible[j] == f {
			marks[i] = true
			j++
		}
	}
	if j < len(eligible) {
		set := make(map[*meta.DataFileMeta]bool, len(eligible))
		for _, f := range eligible {
			set[f] = true
		}
		for i, f := range files {
			marks[i] = set[f]
		}
	}
	return func(i int) bool { return marks[i] }
}

// FailedCoverage is the coverage of a bucket whose full-text state cannot be computed: every
// file is uncovered, for the reason UncoveredStateError.
func FailedCoverage(files []*meta.DataFileMeta) *CoverageDump {
	var t tally
	for _, f := range files {
		t.count(f, stateError)
	}
	return t.coverage()
}

// Add adds the counts of o to c (o nil: nothing).
func (c *CoverageDump) Add(o *CoverageDump) {
	if o == nil {
		return
	}
	c.Files += o.Files
	c.Rows += o.Rows
	for _, u := range o.Uncovered {
		c.add(u)
	}
}

// add counts uncovered files u, keeping Uncovered in reason order and each entry's levels
// sorted and distinct.
func (c *CoverageDump) add(u UncoveredDump) {
	c.UncoveredFiles += u.Files
	c.UncoveredRows += u.Rows
	if c.Uncovered == nil {
		c.Uncovered = []UncoveredDump{}
	}
	rank := slices.Index(reasons[:], u.Reason)
	i := 0
	for i < len(c.Uncovered) && slices.Index(reasons[:], c.Uncovered[i].Reason) < rank {
		i++
	}
	if i == len(c.Uncovered) || c.Uncovered[i].Reason != u.Reason {
		c.Uncovered = slices.Insert(c.Uncovered, i, UncoveredDump{Reason: u.Reason, Levels: []int32{}})
	}
	e := &c.Uncovered[i]
	e.Files += u.Files
	e.Rows += u.Rows
	for _, l := range u.Levels {
		if j, found := slices.BinarySearch(e.Levels, l); !found {
			e.Levels = slices.Insert(e.Levels, j, l)
		}
	}
}

// HasFullTextIndex reports whether table options configure a full-text index
// (pk-full-text.index.columns names a column).
func HasFullTextIndex(options map[string]string) bool {
	return len(pkfulltext.IndexColumns(options)) > 0
}

// FullTextField returns the field id of the schema's full-text column (the first column
// pk-full-text.index.columns names, as FullTextState takes it); ok is false when the schema
// configures no full-text index. A named column the schema lacks is field -1: every bucket's
// state is then an error.
func FullTextField(s *schema.TableSchema) (id int32, ok bool) {
	cols := pkfulltext.IndexColumns(s.Options)
	if len(cols) == 0 {
		return 0, false
	}
	f, found := s.FieldByName(cols[0])
	if !found {
		return -1, true
	}
	return int32(f.ID), true
}

// SnapshotCoverage sums the full-text coverage of the buckets of c that keep selects (nil: every
// bucket) for the full-text index of field fieldID (FullTextField): each bucket's coverage as
// FullTextState derives it with its state.
func SnapshotCoverage(c *table.Contents, fieldID int32, keep func(*table.Bucket) (bool, error)) (*CoverageDump, error) {
	total := &CoverageDump{Uncovered: []UncoveredDump{}}
	for _, b := range c.Buckets {
		if keep != nil {
			ok, err := keep(b)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		st, _ := fullTextStateOf(fieldID, b)
		total.Add(st.Coverage)
	}
	return total, nil
}
