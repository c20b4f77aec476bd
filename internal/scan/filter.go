package scan

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/mergetree"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
	"github.com/paimon-pkft/pkft/internal/pksorted/query"
	"github.com/paimon-pkft/pkft/internal/predicate"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// filter is a scan's row filter with what Java's batch scan derives from it.
type filter struct {
	pred   *predicate.Predicate
	schema *schema.TableSchema
	layout *kvfile.Layout
	// key is the conjuncts of pred on primary-key fields only, over the key row (the key filter
	// Java's PrimaryKeyFileStoreTable pushes to key statistics); nil when there are none.
	key *predicate.Predicate
	// prune: the scan tests file statistics (deletion vectors on: Java enables the value filter
	// of a batch scan that skips level 0).
	prune bool
	// index is the part of pred the sorted definitions defs evaluate; nil when none.
	index *predicate.Predicate
	defs  []definition.Definition
}

func newFilter(s *schema.TableSchema, layout *kvfile.Layout, p *predicate.Predicate, dvOn bool) (*filter, error) {
	f := &filter{pred: p, schema: s, layout: layout, prune: dvOn}
	if !dvOn {
		return f, nil
	}
	keyNames, err := s.TrimmedPrimaryKeys()
	if err != nil {
		return nil, err
	}
	mapping := map[int]int{}
	for ki, name := range keyNames {
		if i := slices.IndexFunc(s.Fields, func(x types.DataField) bool { return x.Name == name }); i >= 0 {
			mapping[i] = ki
		}
	}
	var keyParts []*predicate.Predicate
	for _, c := range p.SplitAnd() {
		onKeys := true
		for _, fi := range c.Fields() {
			if _, ok := mapping[fi]; !ok {
				onKeys = false
			}
		}
		if onKeys {
			if q, ok := c.Project(mapping); ok {
				keyParts = append(keyParts, q)
			}
		}
	}
	if len(keyParts) > 0 {
		f.key = predicate.NewAnd(keyParts...)
	}
	enabled, err := schema.BoolOption(s.Options, "global-index.enabled", true)
	if err != nil {
		return nil, err
	}
	if enabled {
		f.defs = definition.FromSchema(s.Options, s.Fields)
		if len(f.defs) > 0 {
			f.index, _ = query.IndexFilter(p, s.Fields, f.defs)
		}
	}
	return f, nil
}

// mayMatch is KeyValueFileStoreScan#filterByStats for f: its key statistics pass the key filter
// and its value statistics the whole filter. Files written with another schema, and statistics
// that do not decode, are kept (only Go's report of pruned files can then differ from Java's;
// the rows never do).
func (fl *filter) mayMatch(f *meta.DataFileMeta) bool {
	if f.SchemaID != fl.schema.ID {
		return true
	}
	if fl.key != nil {
		st, ok := decodeStats(fl.layout.KeyType.Fields, nil, f.KeyStats, f.RowCount)
		if ok && !fl.key.TestStats(st) {
			return false
		}
	}
	st, ok := decodeStats(fl.schema.Fields, f.ValueStatsCols, f.ValueStats, f.RowCount)
	return !ok || fl.pred.TestStats(st)
}

// decodeStats lays stats out by fields: cols names the fields the stats rows hold (nil: all).
func decodeStats(fields []types.DataField, cols []string, stats meta.SimpleStats, rows int64) (predicate.Stats, bool) {
	statFields := fields
	if cols != nil {
		statFields = nil
		for _, c := range cols {
			i := slices.IndexFunc(fields, func(x types.DataField) bool { return x.Name == c })
			if i < 0 {
				return predicate.Stats{}, false
			}
			statFields = append(statFields, fields[i])
		}
	}
	rowType := types.Row(statFields...)
	decode := func(serialized []byte) ([]any, error) {
		r, err := binrow.DeserializeBinaryRow(serialized)
		if err != nil {
			return nil, err
		}
		if r.Arity != len(statFields) {
			return nil, fmt.Errorf("stats row of %d fields, want %d", r.Arity, len(statFields))
		}
		return r.Decode(rowType)
	}
	lo, err := decode(stats.MinValues)
	if err != nil || len(lo) != len(statFields) {
		return predicate.Stats{}, false
	}
	hi, err := decode(stats.MaxValues)
	if err != nil || len(hi) != len(statFields) || len(stats.NullCounts) != len(statFields) {
		return predicate.Stats{}, false
	}
	out := predicate.Stats{RowCount: rows, Min: make([]any, len(fields)), Max: make([]any, len(fields)), NullCounts: make([]*int64, len(fields))}
	for si, sf := range statFields {
		i := slices.IndexFunc(fields, func(x types.DataField) bool { return x.Name == sf.Name })
		out.Min[i], out.Max[i], out.NullCounts[i] = lo[si], hi[si], stats.NullCounts[si]
	}
	return out, true
}

// fileRead is a FileRead with the positions of a narrowed file.
type fileRead struct {
	FileRead
	positions *roaring64.Bitmap
}

// plan decides how each data file of rb is read: level-0 files are skipped when the table's batch
// scan skips them; with a filter, files are pruned by statistics and, in a bucket read raw,
// narrowed by the sorted indexes (Java's PrimaryKeySortedIndexResult keeps a split that is not
// raw-convertible whole). raw reports whether the bucket is read raw (see the package doc).
func (rd *Reader) plan(ctx context.Context, rb *restore.RestoredBucket) (out []fileRead, raw bool, err error) {
	var kept []*meta.DataFileMeta
	for _, f := range rb.DataFiles {
		if rd.how.skipLevel0 && f.Level == 0 {
			continue
		}
		if rd.filter != nil && rd.filter.prune && !rd.filter.mayMatch(f) {
			out = append(out, fileRead{FileRead: FileRead{File: f, How: Pruned}})
			continue
		}
		kept = append(kept, f)
	}
	raw = rawConvertible(kept, rd.how)
	if rd.filter == nil || rd.filter.index == nil || !raw {
		reason := ""
		if rd.filter != nil && rd.filter.index != nil {
			reason = "the bucket's files are merged (a file holds delete rows)"
		}
		for _, f := range kept {
			out = append(out, fileRead{FileRead: FileRead{File: f, How: Whole, Reason: reason}})
		}
		return out, raw, nil
	}
	open := func(ctx context.Context, p *meta.IndexFileMeta) (io.ReaderAt, io.Closer, error) {
		ext := ""
		if p.ExternalPath != nil {
			ext = *p.ExternalPath
		}
		f, err := rd.r.Table.FileIO.OpenReaderAt(ctx, rb.IndexPaths.ToPathOf(p.FileName, ext))
		if err != nil {
			return nil, nil, err
		}
		return f, f, nil
	}
	results, err := query.Evaluate(ctx, rd.filter.index, rd.r.Schema.Fields, rd.filter.defs, rd.r.Schema.Options,
		query.Bucket{DataFiles: kept, Payloads: rb.SourcePayloads}, open)
	if err != nil {
		return nil, false, fmt.Errorf("sorted index: %w", err)
	}
	for _, r := range results {
		fr := fileRead{FileRead: FileRead{File: r.File, How: Whole, Reason: r.Reason}}
		switch r.Outcome {
		case query.Narrowed:
			fr.How, fr.positions = Narrowed, r.Positions
			fr.Ranges, fr.Selected = r.Ranges(), int64(r.Positions.GetCardinality())
		case query.NoRows:
			fr.How = NoRows
		}
		out = append(out, fr)
	}
	return out, raw, nil
}

// rawConvertible is MergeTreeSplitGenerator#splitForBatch's test for reading a bucket's files
// raw: all above level 0 and without delete rows (a file without a delete row count is taken to
// have none, as Java does), in a table with deletion vectors or the first-row engine, or all in
// one level.
func rawConvertible(files []*meta.DataFileMeta, h how) bool {
	levels := map[int32]bool{}
	for _, f := range files {
		if f.Level == 0 || (f.DeleteRowCount != nil && *f.DeleteRowCount > 0) {
			return false
		}
		levels[f.Level] = true
	}
	return h.dvOn || h.merge.Engine == mergetree.FirstRow || len(levels) <= 1
}
