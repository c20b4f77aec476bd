// Package inspect produces the canonical dump of a table (the dump command of the conformance
// protocol, compat/PROTOCOL.md): the latest snapshot, the schema, and per (partition, bucket)
// the live data files, index files with their decoded global index meta, deletion-vector
// ranges, the full-text bucket state and next plan, and the state and next plan of each sorted
// index definition. Both sides of the harness print the same JSON, so dumps compare with a
// plain diff.
package inspect

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/pksorted/state"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Dump is the canonical dump of a table's latest snapshot.
type Dump struct {
	SnapshotID int64        `json:"snapshotId"`
	CommitKind string       `json:"commitKind"`
	Schema     SchemaDump   `json:"schema"`
	Buckets    []BucketDump `json:"buckets"`
}

// SchemaDump is the part of the schema a dump compares.
type SchemaDump struct {
	ID            int64             `json:"id"`
	Fields        []FieldDump       `json:"fields"`
	PrimaryKeys   []string          `json:"primaryKeys"`
	PartitionKeys []string          `json:"partitionKeys"`
	Options       map[string]string `json:"options"`
}

// FieldDump is one schema field; Type is Paimon's SQL string of the type.
type FieldDump struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// BucketDump is one (partition, bucket). Partition values are rendered as PartitionValue does.
type BucketDump struct {
	Partition  map[string]any  `json:"partition"`
	Bucket     int32           `json:"bucket"`
	DataFiles  []DataFileDump  `json:"dataFiles"`
	IndexFiles []IndexFileDump `json:"indexFiles"`
	State      *StateDump      `json:"state,omitempty"`
	Plan       *PlanDump       `json:"plan,omitempty"`
	// Sorted is the state of each sorted index definition (pk-btree, pk-bitmap) of the table, in
	// field order; absent for a table without one.
	Sorted []SortedDump `json:"sorted,omitempty"`
}

// SortedDump is one sorted index definition's state in a bucket, as Java's maintainer restores
// it: the bucket's payloads of the definition (its index type and field) classified by
// PkSortedBucketIndexState against the eligible data files, and the next rebuild
// PrimaryKeyIndexLevels plans over the covered groups (nil when every level is current).
type SortedDump struct {
	IndexType string            `json:"indexType"`
	Column    string            `json:"column"`
	FieldID   int32             `json:"fieldId"`
	Groups    []SortedGroupDump `json:"groups"`
	Covered   []string          `json:"covered"`
	Uncovered []string          `json:"uncovered"`
	Rejected  []string          `json:"rejected"`
	Plan      *PlanDump         `json:"plan"`
	Error     string            `json:"error,omitempty"`
}

// SortedGroupDump is one covered level: its source files in name order and its payload.
type SortedGroupDump struct {
	Level    int32    `json:"level"`
	Sources  []string `json:"sources"`
	Payloads []string `json:"payloads"`
}

// DataFileDump is one live data file.
type DataFileDump struct {
	FileName          string `json:"fileName"`
	Level             int32  `json:"level"`
	RowCount          int64  `json:"rowCount"`
	FileSource        string `json:"fileSource"`
	MinSequenceNumber int64  `json:"minSequenceNumber"`
	MaxSequenceNumber int64  `json:"maxSequenceNumber"`
	DeleteRowCount    *int64 `json:"deleteRowCount"`
}

// IndexFileDump is one live index file.
type IndexFileDump struct {
	IndexType       string           `json:"indexType"`
	FileName        string           `json:"fileName"`
	FileSize        int64            `json:"fileSize"`
	RowCount        int64            `json:"rowCount"`
	ExternalPath    *string          `json:"externalPath"`
	GlobalIndex     *GlobalIndexDump `json:"globalIndex"`
	DeletionVectors []DVRangeDump    `json:"deletionVectors,omitempty"`
}

// GlobalIndexDump is a decoded GlobalIndexMeta. IndexMeta is, for a btree or bitmap payload, its
// decoded SortedIndexFileMeta {"firstKey", "lastKey" (base64, null for a null key), "hasNulls"}
// or {"error": Unparsable}; for others the parsed JSON when the bytes are a JSON document, else their
// text. SourceMeta is decoded, or carries the decoding error.
type GlobalIndexDump struct {
	RowRangeStart int64           `json:"rowRangeStart"`
	RowRangeEnd   int64           `json:"rowRangeEnd"`
	IndexFieldID  int32           `json:"indexFieldId"`
	ExtraFieldIDs []int32         `json:"extraFieldIds"`
	IndexMeta     any             `json:"indexMeta"`
	SourceMeta    *SourceMetaDump `json:"sourceMeta"`
}

// The fixed texts a dump records for failures, so that dumps of both languages compare: the
// messages themselves differ between Java and Go.
const (
	// Unparsable stands for source meta that does not decode.
	Unparsable = "unparsable"
	// StateError stands for a bucket whose state cannot be computed.
	StateError = "error"
)

// SourceMetaDump is a decoded PrimaryKeyIndexSourceMeta.
type SourceMetaDump struct {
	DataLevel int32            `json:"dataLevel,omitempty"`
	Files     []SourceFileDump `json:"files,omitempty"`
	Error     string           `json:"error,omitempty"`
}

// SourceFileDump is one source file of an archive.
type SourceFileDump struct {
	FileName string `json:"fileName"`
	RowCount int64  `json:"rowCount"`
}

// DVRangeDump is one deletion-vector range of a deletion-vector index file.
type DVRangeDump struct {
	DataFile    string `json:"dataFile"`
	Offset      int32  `json:"offset"`
	Length      int32  `json:"length"`
	Cardinality *int64 `json:"cardinality"`
}

// StateDump is the full-text bucket state: eligible data files per level, the current payload of
// each level and the stale payloads. Duplicates (Go only; absent when empty) names the levels
// whose archives are stale because the level has more than one candidate.
type StateDump struct {
	Eligible   map[string][]string `json:"eligible"`
	Current    map[string]string   `json:"current"`
	Stale      []string            `json:"stale"`
	Duplicates []DuplicateDump     `json:"duplicates,omitempty"`
	Error      string              `json:"error,omitempty"`
	// Coverage is the bucket's coverage derived from the same classification (BucketCoverage,
	// FailedCoverage); not part of the dump.
	Coverage *CoverageDump `json:"-"`
}

// DuplicateDump is one data level with more than one candidate archive: the archives (all
// stale) and the reason, pkfulltext.DuplicateArchivesReason.
type DuplicateDump struct {
	Level    int32    `json:"level"`
	Archives []string `json:"archives"`
	Reason   string   `json:"reason"`
}

// PlanDump is the next build the planner would do: the level, the payload it replaces, and the
// files the new archive must cover (none: the payload is to be removed).
type PlanDump struct {
	Level int32    `json:"level"`
	Input []string `json:"input"`
	Files []string `json:"files"`
}

// StateFunc computes the state and plan of one bucket; nil leaves both out of the dump.
type StateFunc func(s *schema.TableSchema, b *table.Bucket) (*StateDump, *PlanDump)

// TableDump reads the latest snapshot of t and dumps it.
func TableDump(ctx context.Context, t *table.Table, state StateFunc) (*Dump, error) {
	snap, err := t.Latest(ctx)
	if err != nil {
		return nil, err
	}
	return SnapshotDump(ctx, t, snap, state)
}

// SnapshotDump is [TableDump] of the snapshot snap.
func SnapshotDump(ctx context.Context, t *table.Table, snap *snapshot.Snapshot, state StateFunc) (*Dump, error) {
	sch, err := t.Schema(ctx, snap.SchemaID)
	if err != nil {
		return nil, err
	}
	contents, err := t.Read(ctx, snap)
	if err != nil {
		return nil, err
	}
	d := &Dump{SnapshotID: snap.ID, CommitKind: string(snap.CommitKind), Schema: dumpSchema(sch), Buckets: []BucketDump{}}
	partType := sch.PartitionType()
	for _, b := range contents.Buckets {
		bd, err := dumpBucket(partType, sch.PartitionKeys, b)
		if err != nil {
			return nil, err
		}
		if state != nil {
			bd.State, bd.Plan = state(sch, b)
		}
		bd.Sorted = sortedStates(sch, b)
		d.Buckets = append(d.Buckets, bd)
	}
	return d, nil
}

func dumpSchema(s *schema.TableSchema) SchemaDump {
	sd := SchemaDump{ID: s.ID, PrimaryKeys: orEmpty(s.PrimaryKeys), PartitionKeys: orEmpty(s.PartitionKeys), Options: s.Options}
	if sd.Options == nil {
		sd.Options = map[string]string{}
	}
	for _, f := range s.Fields {
		sd.Fields = append(sd.Fields, FieldDump{ID: f.ID, Name: f.Name, Type: f.Type.SQLString()})
	}
	return sd
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func dumpBucket(partType types.DataType, keys []string, b *table.Bucket) (BucketDump, error) {
	bd := BucketDump{Partition: map[string]any{}, Bucket: b.Bucket, DataFiles: []DataFileDump{}, IndexFiles: []IndexFileDump{}}
	if len(keys) > 0 {
		row, err := binrow.DeserializeBinaryRow(b.Partition)
		if err != nil {
			return bd, fmt.Errorf("decode partition of bucket %d: %w", b.Bucket, err)
		}
		values, err := row.Decode(partType)
		if err != nil {
			return bd, fmt.Errorf("decode partition of bucket %d: %w", b.Bucket, err)
		}
		for i, k := range keys {
			bd.Partition[k] = PartitionValue(partType.Fields[i].Type, values[i])
		}
	}
	bd.DataFiles = dataFileDumps(b.DataFiles)
	for _, f := range b.IndexFiles {
		bd.IndexFiles = append(bd.IndexFiles, dumpIndexFile(f))
	}
	sort.Slice(bd.IndexFiles, func(i, j int) bool {
		if bd.IndexFiles[i].IndexType != bd.IndexFiles[j].IndexType {
			return bd.IndexFiles[i].IndexType < bd.IndexFiles[j].IndexType
		}
		return bd.IndexFiles[i].FileName < bd.IndexFiles[j].FileName
	})
	return bd, nil
}

// dataFileDumps are the dump forms of files.
func dataFileDumps(files []*meta.DataFileMeta) []DataFileDump {
	out := make([]DataFileDump, 0, len(files))
	for _, f := range files {
		src := "null"
		if f.FileSource != nil {
			src = f.FileSource.String()
		}
		out = append(out, DataFileDump{
			FileName: f.FileName, Level: f.Level, RowCount: f.RowCount, FileSource: src,
			MinSequenceNumber: f.MinSequenceNumber, MaxSequenceNumber: f.MaxSequenceNumber, DeleteRowCount: f.DeleteRowCount,
		})
	}
	return out
}

func dumpIndexFile(f *meta.IndexFileMeta) IndexFileDump {
	d := IndexFileDump{IndexType: f.IndexType, FileName: f.FileName, FileSize: f.FileSize, RowCount: f.RowCount, ExternalPath: f.ExternalPath}
	for _, r := range f.DVRanges {
		d.DeletionVectors = append(d.DeletionVectors, DVRangeDump{DataFile: r.DataFileName, Offset: r.Offset, Length: r.Length, Cardinality: r.Cardinality})
	}
	if g := f.GlobalIndex; g != nil {
		gd := &GlobalIndexDump{RowRangeStart: g.RowRangeStart, RowRangeEnd: g.RowRangeEnd, IndexFieldID: g.IndexFieldID, ExtraFieldIDs: g.ExtraFieldIDs}
		if g.IndexMeta != nil && (f.IndexType == btree.Identifier || f.IndexType == bitmap.Identifier) {
			gd.IndexMeta = sortedIndexMeta(g.IndexMeta)
		} else if g.IndexMeta != nil {
			var parsed any
			if json.Unmarshal(g.IndexMeta, &parsed) == nil {
				gd.IndexMeta = parsed
			} else {
				gd.IndexMeta = string(g.IndexMeta)
			}
		}
		if g.SourceMeta != nil {
			sm, err := pkindex.DecodeSourceMeta(g.SourceMeta)
			if err != nil {
				gd.SourceMeta = &SourceMetaDump{Error: Unparsable}
			} else {
				smd := &SourceMetaDump{DataLevel: sm.DataLevel()}
				for _, s := range sm.SourceFiles() {
					smd.Files = append(smd.Files, SourceFileDump{FileName: s.FileName(), RowCount: s.RowCount()})
				}
				gd.SourceMeta = smd
			}
		}
		d.GlobalIndex = gd
	}
	return d
}

// PartitionValue renders a decoded partition value for a dump: strings and integers as they
// are, DATE as an ISO date, DECIMAL as its plain string, TIMESTAMP as an ISO local date-time,
// TIME as the text of its milliseconds of the day, bytes as a string of their hex digits, null
// as null — as the Java runner's dump prints them (Values#put).
func PartitionValue(t types.DataType, v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case binrow.Decimal:
		return x.String()
	case binrow.Timestamp:
		ts := time.UnixMilli(x.Millis).UTC().Add(time.Duration(x.NanoOfMilli))
		return ts.Format("2006-01-02T15:04:05.999999999")
	case []byte:
		return fmt.Sprintf("%x", x)
	case int32:
		switch t.Root {
		case types.RootDate:
			return time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02")
		case types.RootTime:
			// Java's dump prints a TIME (milliseconds of the day) as the text of the number.
			return strconv.Itoa(int(x))
		}
		return x
	case *big.Int:
		return x.String()
	default:
		return x
	}
}

// FullTextState is the StateFunc of the primary-key full-text index: it classifies the bucket's
// payloads for the column named by pk-full-text.index.columns and plans the next build, and
// derives from the classification the bucket's coverage (StateDump.Coverage, outside the dump).
// Tables without that option get no state.
func FullTextState(s *schema.TableSchema, b *table.Bucket) (*StateDump, *PlanDump) {
	field, ok := FullTextField(s)
	if !ok {
		return nil, nil
	}
	return fullTextStateOf(field, b)
}

// fullTextStateOf is FullTextState for the full-text index of field fieldID (FullTextField; -1:
// the named column is missing, an error state).
func fullTextStateOf(fieldID int32, b *table.Bucket) (*StateDump, *PlanDump) {
	failed := func() (*StateDump, *PlanDump) {
		return &StateDump{Error: StateError, Coverage: FailedCoverage(b.DataFiles)}, nil
	}
	if fieldID < 0 {
		return failed()
	}
	view, err := pkfulltext.InspectBucket(fieldID, b.DataFiles, b.IndexFiles)
	if err != nil {
		return failed()
	}
	st := &StateDump{Eligible: map[string][]string{}, Current: map[string]string{}, Stale: []string{},
		Coverage: BucketCoverage(b.DataFiles, view.Eligible, view.State)}
	for _, f := range view.Eligible {
		k := strconv.Itoa(int(f.Level))
		st.Eligible[k] = append(st.Eligible[k], f.FileName)
	}
	for _, p := range view.State.CurrentPayloads() {
		sm, err := pkindex.DecodeSourceMeta(p.GlobalIndex.SourceMeta)
		if err != nil {
			return failed()
		}
		st.Current[strconv.Itoa(int(sm.DataLevel()))] = p.FileName
	}
	for _, p := range view.State.StalePayloads() {
		st.Stale = append(st.Stale, p.FileName)
	}
	sort.Strings(st.Stale)
	dups := view.State.DuplicateLevels()
	for _, lv := range slices.Sorted(maps.Keys(dups)) {
		d := DuplicateDump{Level: lv, Reason: pkfulltext.DuplicateArchivesReason}
		for _, p := range dups[lv] {
			d.Archives = append(d.Archives, p.FileName)
		}
		sort.Strings(d.Archives)
		st.Duplicates = append(st.Duplicates, d)
	}
	if view.Plan == nil {
		return st, nil
	}
	plan := &PlanDump{Level: view.Plan.DataLevel(), Input: []string{}, Files: []string{}}
	for _, p := range view.Plan.InputUnits() {
		plan.Input = append(plan.Input, p.FileName)
	}
	for _, f := range view.Plan.SourceFiles() {
		plan.Files = append(plan.Files, f.FileName)
	}
	return st, plan
}

// sortedIndexMeta decodes a sorted payload's index meta for the dump.
func sortedIndexMeta(raw []byte) map[string]any {
	m, err := filemeta.Decode(raw)
	if err != nil {
		return map[string]any{"error": Unparsable}
	}
	key := func(k []byte) any {
		if k == nil {
			return nil
		}
		return base64.StdEncoding.EncodeToString(k)
	}
	return map[string]any{"firstKey": key(m.FirstKey), "lastKey": key(m.LastKey), "hasNulls": m.HasNulls}
}

// sortedStates is the state of every sorted definition of the table in bucket b.
func sortedStates(s *schema.TableSchema, b *table.Bucket) []SortedDump {
	var out []SortedDump
	for _, def := range definition.FromSchema(s.Options, s.Fields) {
		out = append(out, sortedState(def, b))
	}
	return out
}

func sortedState(def definition.Definition, b *table.Bucket) SortedDump {
	d := SortedDump{IndexType: def.IndexType, Column: def.Column, FieldID: def.FieldID,
		Groups: []SortedGroupDump{}, Covered: []string{}, Uncovered: []string{}, Rejected: []string{}}
	var own []*meta.IndexFileMeta
	for _, p := range b.IndexFiles {
		if p.IndexType == def.IndexType && p.GlobalIndex != nil && p.GlobalIndex.IndexFieldID == def.FieldID {
			own = append(own, p)
		}
	}
	// Java's dump passes the bucket's index files ordered by name.
	slices.SortStableFunc(own, func(x, y *meta.IndexFileMeta) int { return javaio.CompareJava(x.FileName, y.FileName) })
	st := state.FromActiveDataFiles(def.FieldID, def.IndexType, b.DataFiles, own)
	groups := make([]*state.Group, len(st.Groups))
	for i := range st.Groups {
		g := &st.Groups[i]
		groups[i] = g
		gd := SortedGroupDump{Level: g.DataLevel, Sources: []string{}, Payloads: []string{}}
		for _, f := range g.SourceFiles {
			gd.Sources = append(gd.Sources, f.FileName())
		}
		for _, p := range g.Payloads {
			gd.Payloads = append(gd.Payloads, p.FileName)
		}
		d.Groups = append(d.Groups, gd)
	}
	for _, f := range st.Covered {
		d.Covered = append(d.Covered, f.FileName())
	}
	for _, f := range st.Uncovered {
		d.Uncovered = append(d.Uncovered, f.FileName())
	}
	for _, p := range st.Rejected {
		d.Rejected = append(d.Rejected, p.FileName)
	}
	active := map[string]*meta.DataFileMeta{}
	for _, f := range b.DataFiles {
		if pkindex.ShouldReadDataFile(f) {
			active[f.FileName] = f
		}
	}
	plan, err := state.Levels().Pick(groups, active)
	if err != nil {
		return SortedDump{IndexType: def.IndexType, Column: def.Column, FieldID: def.FieldID, Error: StateError}
	}
	if plan != nil {
		pd := &PlanDump{Level: plan.DataLevel(), Input: []string{}, Files: []string{}}
		for _, g := range plan.InputUnits() {
			for _, p := range g.Payloads {
				pd.Input = append(pd.Input, p.FileName)
			}
		}
		for _, f := range plan.SourceFiles() {
			pd.Files = append(pd.Files, f.FileName)
		}
		d.Plan = pd
	}
	return d
}
