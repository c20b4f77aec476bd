package tableops

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"time"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/commit"
	"github.com/paimon-pkft/pkft/internal/dv"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/mergetree"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// keyDecoder decodes serialized key rows (a data file's min and max keys) once each and orders
// them as the table's key comparator does. The first decoding error is kept in err; the
// comparison then falls back to byte order, and the caller fails with err.
type keyDecoder struct {
	keyType types.DataType
	cache   map[string][]any
	err     error
}

func newKeyDecoder(keyType types.DataType) *keyDecoder {
	return &keyDecoder{keyType: keyType, cache: map[string][]any{}}
}

func (d *keyDecoder) decode(b []byte) ([]any, error) {
	if v, ok := d.cache[string(b)]; ok {
		return v, nil
	}
	v, err := commit.DecodeKey(d.keyType, b)
	if err != nil {
		return nil, err
	}
	d.cache[string(b)] = v
	return v, nil
}

func (d *keyDecoder) compare(a, b []byte) int {
	ka, err := d.decode(a)
	if err == nil {
		var kb []any
		if kb, err = d.decode(b); err == nil {
			return binrow.CompareKeys(ka, kb)
		}
	}
	if d.err == nil {
		d.err = fmt.Errorf("decode a data file key: %w", err)
	}
	return bytes.Compare(a, b)
}

// bucketTask is one compaction of one bucket's merge tree (Java's MergeTreeCompactTask or
// FileRewriteCompactTask with the table's rewriter): the unit a strategy picked, merged or
// upgraded into its output level, and the bucket's deletion vectors maintained as Java's
// LookupMergeTreeCompactRewriter maintains them.
type bucketTask struct {
	c      *compaction
	rb     *restore.RestoredBucket
	levels *mergetree.Levels
	keys   *keyDecoder
	// dvm maintains the bucket's deletion vectors (nil when the table has none); dvs are the
	// vectors applied when reading (dvm's map, or the bucket's vectors without a maintainer).
	dvm        *dv.Maintainer
	dvs        map[string]dv.DeletionVector
	out        int32
	maxLevel   int32
	dropDelete bool
	lookup     *levelLookup
	bc         *BucketCompaction
	// now is the time record-level expiry compares with, in epoch seconds; expireErr the first
	// error reading a file's statistics for it.
	now       int64
	expireErr error
}

// compactFiles compacts one bucket whose merge tree holds files (the snapshot's data files,
// plus the level-0 files a write adds). With c.full it is a forced full compaction
// (CompactStrategy#pickFullCompaction); otherwise the table's strategy picks (Java's
// MergeTreeCompactManager#triggerCompaction(false)), restored being the files the bucket's
// writer was restored with. It returns nil when nothing was picked. The bucket's new
// deletion-vector index file, when the compaction changed its vectors, is in
// BucketCompaction.DeletionVectors.
func (c *compaction) compactFiles(ctx context.Context, rb *restore.RestoredBucket, files, restored []*meta.DataFileMeta) (_ *BucketCompaction, err error) {
	keys := newKeyDecoder(c.layout.KeyType)
	levels, err := mergetree.NewLevels(keys.compare, files, c.opts.NumLevels)
	if err == nil {
		err = keys.err
	}
	if err != nil {
		return nil, fmt.Errorf("bucket %d: %w", rb.Bucket, err)
	}
	t := &bucketTask{c: c, rb: rb, levels: levels, keys: keys, maxLevel: levels.MaxLevel(), now: time.Now().Unix(),
		bc: &BucketCompaction{Partition: rb.Partition, PartitionSpec: rb.PartitionSpec, Bucket: rb.Bucket}}
	vectors := map[string]dv.DeletionVector{}
	if len(rb.DeletionVectorFiles()) > 0 {
		if vectors, err = rb.ReadDeletionVectors(ctx, c.r); err != nil {
			return nil, err
		}
	}
	t.dvs = vectors
	var hasDV func(string) bool
	if c.dvEnabled {
		var restoredNames [][]string
		for _, f := range rb.DeletionVectorFiles() {
			names := make([]string, len(f.DVRanges))
			for i, r := range f.DVRanges {
				names[i] = r.DataFileName
			}
			restoredNames = append(restoredNames, names)
		}
		t.dvm = dv.NewMaintainer(restoredNames, vectors, false)
		t.dvs = t.dvm.Vectors()
		hasDV = func(name string) bool { return t.dvm.Vector(name) != nil }
	}
	if c.cfg.uncovered {
		if err := t.rewriteUncovered(ctx, hasDV != nil); err != nil {
			return nil, err
		}
		if len(t.bc.Before) == 0 {
			return nil, nil
		}
		return t.finish(ctx)
	}
	var strategy mergetree.Strategy
	if !c.full {
		strategy = mergetree.NewStrategy(c.opts, restored, nil)
	}
	var expired func(*meta.DataFileMeta) bool
	if c.expire != nil {
		expired = func(f *meta.DataFileMeta) bool { return t.fileExpired(ctx, f) }
	}
	unit, dropDelete, err := mergetree.TriggerCompaction(mergetree.ClockAt(time.Now()), strategy, levels, c.full, c.opts, hasDV, expired)
	if err == nil {
		err = t.expireErr
	}
	if err != nil {
		return nil, fmt.Errorf("bucket %d: pick compaction: %w", rb.Bucket, err)
	}
	if unit == nil {
		return nil, nil
	}
	t.out, t.dropDelete = unit.OutputLevel, dropDelete
	defer func() {
		if t.lookup != nil {
			t.lookup.close()
		}
	}()
	keyed, err := t.keyed(unit.Files)
	if err != nil {
		return nil, err
	}
	if unit.FileRewrite {
		// FileRewriteCompactTask: each file rewritten on its own.
		for _, kf := range keyed {
			if err := t.rewrite(ctx, [][][]mergetree.KeyedFile{{{kf}}}); err != nil {
				return nil, err
			}
		}
	} else if err := t.mergeTreeTask(ctx, keyed); err != nil {
		return nil, err
	}
	return t.finish(ctx)
}

// finish writes the bucket's deletion vectors when the compaction changed them and returns what
// the compaction did.
func (t *bucketTask) finish(ctx context.Context) (*BucketCompaction, error) {
	if t.dvm != nil && t.dvm.Modified() {
		im, err := t.writeDeletionVectors(ctx)
		if err != nil {
			return nil, err
		}
		t.bc.DeletionVectors = im
	}
	return t.bc, nil
}

// rewriteUncovered is the compaction of WithUncoveredCompaction: every file above level 0 that
// the primary-key indexes can never cover (pkindex.ShouldReadDataFile false: a level-0 file
// moved up without a rewrite) is rewritten on its own into COMPACT files of its own level, as
// Java's FileRewriteCompactTask rewrites each file of a unit into its output level. A level is a
// sorted run, so a file rewritten alone keeps its key range and the level stays sorted; its
// deletion vector is applied and dropped. Deletes are dropped where Java's compaction into that
// level would drop them (MergeTreeCompactManager#triggerCompaction's dropDelete).
func (t *bucketTask) rewriteUncovered(ctx context.Context, deletionVectors bool) error {
	byLevel := map[int32][]*meta.DataFileMeta{}
	var levels []int32
	for _, f := range t.levels.AllFiles() {
		if f.Level == 0 || pkindex.ShouldReadDataFile(f) {
			continue
		}
		if byLevel[f.Level] == nil {
			levels = append(levels, f.Level)
		}
		byLevel[f.Level] = append(byLevel[f.Level], f)
	}
	slices.Sort(levels)
	highest := t.levels.NonEmptyHighestLevel()
	for _, level := range levels {
		unit := &mergetree.CompactUnit{OutputLevel: level, Files: byLevel[level], FileRewrite: true}
		t.out = level
		t.dropDelete = mergetree.DropDelete(unit, highest, deletionVectors, t.c.opts.ChainTable)
		keyed, err := t.keyed(unit.Files)
		if err != nil {
			return err
		}
		for _, kf := range keyed {
			if err := t.rewrite(ctx, [][][]mergetree.KeyedFile{{{kf}}}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *bucketTask) keyed(files []*meta.DataFileMeta) ([]mergetree.KeyedFile, error) {
	out := make([]mergetree.KeyedFile, 0, len(files))
	for _, f := range files {
		lo, err := t.keys.decode(f.MinKey)
		if err != nil {
			return nil, fmt.Errorf("min key of %s: %w", f.FileName, err)
		}
		hi, err := t.keys.decode(f.MaxKey)
		if err != nil {
			return nil, fmt.Errorf("max key of %s: %w", f.FileName, err)
		}
		out = append(out, mergetree.KeyedFile{File: f, Min: lo, Max: hi})
	}
	return out, nil
}

// mergeTreeTask is MergeTreeCompactTask#doCompact: sections of overlapping files are merged,
// files that overlap nothing are upgraded unless small (then merged with their neighbours).
func (t *bucketTask) mergeTreeTask(ctx context.Context, files []mergetree.KeyedFile) error {
	var candidate [][][]mergetree.KeyedFile
	flush := func() error {
		if len(candidate) == 0 {
			return nil
		}
		c := candidate
		candidate = nil
		if len(c) == 1 {
			switch len(c[0]) {
			case 0:
				return nil
			case 1:
				for _, kf := range c[0][0] {
					if err := t.upgrade(ctx, kf); err != nil {
						return err
					}
				}
				return nil
			}
		}
		return t.rewrite(ctx, c)
	}
	for _, section := range mergetree.IntervalPartition(files) {
		if len(section) > 1 {
			candidate = append(candidate, section)
			continue
		}
		for _, kf := range section[0] {
			if kf.File.FileSize < t.c.minFileSize {
				candidate = append(candidate, [][]mergetree.KeyedFile{{kf}})
				continue
			}
			if err := flush(); err != nil {
				return err
			}
			if err := t.upgrade(ctx, kf); err != nil {
				return err
			}
		}
	}
	return flush()
}

// containsDeletes is MergeTreeCompactTask#containsDeleteRecords: a file without a delete row
// count may hold deletes.
func containsDeletes(f *meta.DataFileMeta) bool {
	return f.DeleteRowCount == nil || *f.DeleteRowCount > 0
}

// upgrade is MergeTreeCompactTask#upgrade: a file with deletes going to the max level is
// rewritten (deletes are dropped there), a file on another level goes through the rewriter's
// upgrade.
func (t *bucketTask) upgrade(ctx context.Context, kf mergetree.KeyedFile) error {
	if (t.out == t.maxLevel && containsDeletes(kf.File)) || t.c.opts.ForceRewriteAllFiles || t.fileExpired(ctx, kf.File) {
		if t.expireErr != nil {
			return t.expireErr
		}
		return t.rewrite(ctx, [][][]mergetree.KeyedFile{{{kf}}})
	}
	if kf.File.Level == t.out {
		return nil
	}
	if t.c.cfg.indexNewRows && kf.File.Level == 0 && t.out > 0 {
		// WithIndexNewRows: the level-0 file is rewritten where Java moves it up, so that it
		// leaves level 0 as a COMPACT file the indexes cover. Under lookup the read goes
		// through the lookup as the lookup rewriter's rewrite does.
		if t.c.opts.NeedLookup {
			return t.merge(ctx, [][][]mergetree.KeyedFile{{{kf}}}, t.dvm != nil, true, true)
		}
		return t.rewrite(ctx, [][][]mergetree.KeyedFile{{{kf}}})
	}
	if !t.c.opts.NeedLookup || kf.File.Level != 0 {
		// AbstractCompactRewriter#upgrade (and the lookup rewriter's NO_CHANGELOG_NO_REWRITE).
		t.moveUp(kf.File)
		return nil
	}
	// LookupMergeTreeCompactRewriter#upgradeStrategy for a level-0 file: with deletion vectors a
	// file that may hold deletes is rewritten (deletes must be dropped); into the top level, and
	// for deduplicate without a sequence field, it is read for its lookups only and moved up as
	// it is; otherwise (first-row, partial-update, a sequence field) it is rewritten, since
	// records already in higher levels may merge with it. Either way the read goes through the
	// lookup, which marks the older versions of its keys deleted in the higher levels.
	rewriteFile := (t.dvm != nil && containsDeletes(kf.File)) ||
		(t.out != t.maxLevel && (t.c.merge.Engine != mergetree.Deduplicate || len(t.c.merge.SeqFields) > 0))
	return t.merge(ctx, [][][]mergetree.KeyedFile{{{kf}}}, t.dvm != nil, true, rewriteFile)
}

// keep is the record filter of record-level expiry (nil without it).
func (t *bucketTask) keep() func(*kvfile.KeyValue) bool {
	if t.c.expire == nil {
		return nil
	}
	return func(kv *kvfile.KeyValue) bool { return t.c.expire.Keep(kv.Value, t.now) }
}

// fileExpired is MergeTreeCompactTask#containsExpiredRecords; an error reading the file's schema
// or statistics is kept in t.expireErr (and the file reported expired, so that the caller stops).
func (t *bucketTask) fileExpired(ctx context.Context, f *meta.DataFileMeta) bool {
	if t.c.expire == nil {
		return false
	}
	s, err := t.c.schemaOf(ctx, f.SchemaID)
	var expired bool
	if err == nil {
		expired, err = t.c.expire.FileExpired(f, s, t.now)
	}
	if err != nil {
		if t.expireErr == nil {
			t.expireErr = fmt.Errorf("record-level expiry: %w", err)
		}
		return true
	}
	return expired
}

// schemaOf returns the table's schema of the given id (cached).
func (c *compaction) schemaOf(ctx context.Context, id int64) (*schema.TableSchema, error) {
	if id == c.r.Schema.ID {
		return c.r.Schema, nil
	}
	if s, ok := c.schemas.Load(id); ok {
		return s.(*schema.TableSchema), nil
	}
	s, err := c.t.Schema(ctx, id)
	if err != nil {
		return nil, err
	}
	c.schemas.Store(id, s)
	return s, nil
}

func (t *bucketTask) moveUp(f *meta.DataFileMeta) {
	up := *f
	up.Level = t.out
	t.bc.Before = append(t.bc.Before, f)
	t.bc.After = append(t.bc.After, &up)
	t.bc.Upgraded++
}

// dataFiles opens the data files of the bucket rb.
func (c *compaction) dataFiles(rb *restore.RestoredBucket) mergetree.OpenFile {
	return func(ctx context.Context, f *meta.DataFileMeta) (*kvfile.Reader, error) {
		ext := ""
		if f.ExternalPath != nil {
			ext = *f.ExternalPath
		}
		return kvfile.Open(ctx, c.t.FileIO, rb.DataPaths.ToPath(f.FileName, ext), f.FileName, c.layout)
	}
}

// rewrite is the table rewriter's rewrite: with lookup (ChangelogMergeTreeRewriter), sections
// holding a level-0 file merged into a level above 0 look their keys up in the higher levels;
// other sections are merged as MergeTreeCompactRewriter#rewriteCompaction merges them.
func (t *bucketTask) rewrite(ctx context.Context, candidate [][][]mergetree.KeyedFile) error {
	lookup := t.c.opts.NeedLookup && t.out > 0 && hasLevel0(candidate)
	return t.merge(ctx, candidate, t.dropDelete, lookup, true)
}

// merge reads the sections of candidate merged by key (the record with the highest sequence
// number of each key). With lookup, a key whose records all come from level 0 is looked up in
// the levels above the output level (LookupChangelogMergeFunctionWrapper): the live row found
// there is marked deleted in its file's deletion vector. With writeFiles the records are
// written into new files of the output level (retractions left out under dropDelete) and the
// rewritten files lose their deletion vectors; without, the files move up unchanged.
func (t *bucketTask) merge(ctx context.Context, candidate [][][]mergetree.KeyedFile, dropDelete, lookup, writeFiles bool) (err error) {
	var w *kvfile.RollingWriter
	if writeFiles {
		w, err = kvfile.NewRollingWriter(t.c.t.FileIO, t.c.layout, t.rb.DataPaths,
			kvfile.WriterOptions{Level: t.out, Source: meta.FileSourceCompact, SchemaID: t.c.r.Schema.ID})
		if err != nil {
			return err
		}
		defer func() {
			t.c.track(t.rb, w.Written()...)
			if err != nil {
				w.Abort(ctx)
			}
		}()
	}
	if lookup && t.lookup == nil {
		t.lookup = newLevelLookup(t, t.out+1)
	}
	var before []*meta.DataFileMeta
	for _, section := range candidate {
		m, err := mergetree.NewMergeReader(ctx, section, t.c.dataFiles(t.rb), t.dvs, t.keep(), t.c.merge)
		if err != nil {
			return err
		}
		for {
			recs, err := m.Next(ctx)
			if err == io.EOF {
				break
			}
			var kv *kvfile.KeyValue
			if err == nil {
				if lookup {
					kv, err = t.lookupResult(ctx, recs)
				} else {
					kv, err = t.c.merge.Reduce(recs)
				}
			}
			if err != nil {
				m.Close()
				return fmt.Errorf("bucket %d: %w", t.rb.Bucket, err)
			}
			if w == nil || kv == nil || (dropDelete && kv.IsRetract()) {
				continue
			}
			if err := w.Write(ctx, kv); err != nil {
				m.Close()
				return fmt.Errorf("bucket %d: %w", t.rb.Bucket, err)
			}
			t.bc.RowsWritten++
		}
		m.Close()
		t.bc.RowsRead += m.RowsRead()
		for _, run := range section {
			for _, kf := range run {
				before = append(before, kf.File)
			}
		}
	}
	if !writeFiles {
		for _, f := range before {
			t.moveUp(f)
		}
		return nil
	}
	out, err := w.Close(ctx)
	if err != nil {
		return err
	}
	t.bc.Before = append(t.bc.Before, before...)
	t.bc.After = append(t.bc.After, out...)
	t.bc.Rewritten += len(before)
	if t.dvm != nil {
		// LookupMergeTreeCompactRewriter#notifyRewriteCompactBefore.
		for _, f := range before {
			t.dvm.Remove(f.FileName)
		}
	}
	return nil
}

// lookupResult is the result of one key's records under the lookup rewriter's merge wrapper.
// First-row (FirstRowMergeFunctionWrapper): the first record, dropped when only level 0 holds the
// key and the levels above the output level have it. Deduplicate
// (LookupChangelogMergeFunctionWrapper): when no record comes from a level above 0, the key is
// looked up in the levels above the output level and the live row found there is marked deleted
// (with deletion vectors) and merged with the level-0 records in merge order.
func (t *bucketTask) lookupResult(ctx context.Context, recs []mergetree.Record) (*kvfile.KeyValue, error) {
	key := recs[0].KV.Key
	if t.c.merge.Engine == mergetree.FirstRow {
		return t.c.merge.FirstRowLookup(recs, func() (bool, error) {
			hit, err := t.lookup.find(ctx, key)
			return hit != nil, err
		})
	}
	var found *kvfile.KeyValue
	if mergetree.HighLevel(recs) == nil {
		hit, err := t.lookup.find(ctx, key)
		if err != nil {
			return nil, err
		}
		if hit != nil {
			if t.dvm != nil {
				if err := t.dvm.NotifyNewDeletion(hit.file, hit.pos); err != nil {
					return nil, err
				}
			}
			// A keys-only lookup (deletion vectors, deduplicate) merges no old value, as
			// Java's wrapper given a FilePosition.
			if !t.lookup.keysOnly {
				found = hit.kv
			}
		}
	}
	return t.c.merge.LookupMerge(recs, found)
}

// writeDeletionVectors writes the bucket's live deletion vectors into one new index file
// (BucketedDvMaintainer#writeDeletionVectorsIndex), which replaces the bucket's deletion-vector
// file in the index manifest.
func (t *bucketTask) writeDeletionVectors(ctx context.Context) (*meta.IndexFileMeta, error) {
	fr, err := dv.Write(ctx, t.c.t.FileIO, t.rb.IndexPaths, t.dvm.Entries())
	if err != nil {
		return nil, fmt.Errorf("bucket %d: write deletion vectors: %w", t.rb.Bucket, err)
	}
	t.c.track(t.rb, fr.Path)
	im := &meta.IndexFileMeta{IndexType: meta.IndexTypeDeletionVectors, FileName: fr.FileName, FileSize: fr.FileSize,
		RowCount: int64(len(fr.Ranges)), DVRanges: []meta.DeletionVectorMeta{}}
	for _, rg := range fr.Ranges {
		im.DVRanges = append(im.DVRanges, meta.DeletionVectorMeta{DataFileName: rg.DataFile, Offset: rg.Offset, Length: rg.Length, Cardinality: rg.Cardinality})
	}
	if fr.ExternalPath != "" {
		p := fr.ExternalPath
		im.ExternalPath = &p
	}
	return im, nil
}

// levelLookup finds keys in the levels from a start level up (LookupLevels#lookup): the first
// level whose file holds a live row of the key answers. Keys are asked in ascending order, so
// each level keeps a cursor that reads its files forward, as Java reads a file once into its
// lookup file.
type levelLookup struct {
	t       *bucketTask
	cursors []*levelCursor
	// keysOnly: the lookup needs a key's existence and position only; the hits carry no value.
	// The levels' files are read by their key and system columns and the value fields eager
	// only; a lookup that needs the value decodes it for the rows it finds.
	keysOnly bool
	eager    []int
}

type lookupHit struct {
	file string
	pos  int64
	kv   *kvfile.KeyValue
}

func newLevelLookup(t *bucketTask, start int32) *levelLookup {
	l := &levelLookup{t: t}
	l.keysOnly, l.eager = lookupKeysOnly(t.c.merge, t.c.opts, t.c.expire, t.dvm != nil)
	for _, run := range t.levels.LevelSortedRuns() {
		if run.Level < start || run.Level == 0 {
			continue
		}
		files, err := t.keyed(run.Run.Files)
		l.cursors = append(l.cursors, &levelCursor{t: t, l: l, files: files, err: err, idx: -1})
	}
	return l
}

// lookupKeysOnly reports whether a lookup needs no value, only a key's existence and position,
// as Java's rewriter decides its lookup processor (MergeTreeCompactManagerFactory#createRewriter):
// first-row looks keys up with an empty value type (PersistEmptyProcessor, no expiry filter);
// with deletion vectors, no changelog, the deduplicate engine and no sequence field, a lookup
// keeps only the row's position (PersistPositionProcessor) and the merge gets no old value.
// Every other lookup needs the value of the row it finds (PersistValueAndPosProcessor,
// PersistValueProcessor). eager are the value fields read with every row: record-level expiry's
// time field, which the lookup's reader filters on (except first-row's).
func lookupKeysOnly(m *mergetree.Merge, o mergetree.Options, expire *mergetree.RecordExpire, dvs bool) (keysOnly bool, eager []int) {
	if m.Engine == mergetree.FirstRow {
		return true, nil
	}
	if expire != nil {
		eager = []int{expire.Field()}
	}
	keysOnly = dvs && !o.ProduceChangelog && m.Engine == mergetree.Deduplicate && len(m.SeqFields) == 0
	return keysOnly, eager
}

func (l *levelLookup) find(ctx context.Context, key []any) (*lookupHit, error) {
	for _, c := range l.cursors {
		hit, err := c.find(ctx, key)
		if err != nil || hit != nil {
			return hit, err
		}
	}
	return nil, nil
}

func (l *levelLookup) close() {
	for _, c := range l.cursors {
		c.closeFile()
	}
}

// levelCursor reads one level's files forward, skipping rows deletion vectors delete. Keys are
// asked in ascending order, so a file is opened once: after find(k) every row before the cursor
// has a key below k, and no later key can be among them. Only a key below the last one asked
// (out of order) reads the file again from its start.
type levelCursor struct {
	t     *bucketTask
	l     *levelLookup
	files []mergetree.KeyedFile
	err   error
	idx   int
	rd    *kvfile.Reader
	vec   dv.DeletionVector
	cur   *kvfile.KeyValue
	pos   int64
	last  []any // the last key asked of the open file
}

func (c *levelCursor) closeFile() {
	if c.rd != nil {
		c.rd.Close()
		c.rd = nil
	}
	c.cur, c.last = nil, nil
}

func (c *levelCursor) open(ctx context.Context, i int) error {
	c.closeFile()
	c.idx = i
	f := c.files[i].File
	ext := ""
	if f.ExternalPath != nil {
		ext = *f.ExternalPath
	}
	rd, err := kvfile.OpenKeys(ctx, c.t.c.t.FileIO, c.t.rb.DataPaths.ToPath(f.FileName, ext), f.FileName, c.t.c.layout, c.l.eager...)
	if err != nil {
		return err
	}
	if rd.NumRows() != f.RowCount {
		rd.Close()
		return fmt.Errorf("data file %s has %d rows, its metadata says %d", f.FileName, rd.NumRows(), f.RowCount)
	}
	c.rd, c.vec = rd, c.t.dvs[f.FileName]
	return c.advance(ctx)
}

func (c *levelCursor) advance(ctx context.Context) error {
	for {
		kv, pos, err := c.rd.Next(ctx)
		if err == io.EOF {
			c.cur = nil
			return nil
		}
		if err != nil {
			return fmt.Errorf("look up in %s: %w", c.files[c.idx].File.FileName, err)
		}
		if c.vec != nil && c.vec.IsDeleted(pos) {
			continue
		}
		// The lookup reads through the expiry filter, except first-row's (its own reader).
		if c.t.c.expire != nil && c.t.c.merge.Engine != mergetree.FirstRow && !c.t.c.expire.Keep(kv.Value, c.t.now) {
			continue
		}
		c.cur, c.pos = kv, pos
		return nil
	}
}

func (c *levelCursor) find(ctx context.Context, key []any) (*lookupHit, error) {
	if c.err != nil {
		return nil, c.err
	}
	i := sort.Search(len(c.files), func(i int) bool { return binrow.CompareKeys(c.files[i].Max, key) >= 0 })
	if i == len(c.files) || binrow.CompareKeys(c.files[i].Min, key) > 0 {
		return nil, nil
	}
	// A key below the last one asked (keys asked out of order) reads the file again from its
	// start; a key between the last one and the cursor is simply not in the file.
	if i != c.idx || c.rd == nil || (c.last != nil && binrow.CompareKeys(key, c.last) < 0) {
		if err := c.open(ctx, i); err != nil {
			return nil, err
		}
	}
	c.last = slices.Clone(key)
	for c.cur != nil && binrow.CompareKeys(c.cur.Key, key) < 0 {
		if err := c.advance(ctx); err != nil {
			return nil, err
		}
	}
	if c.cur == nil || binrow.CompareKeys(c.cur.Key, key) != 0 {
		return nil, nil
	}
	hit := &lookupHit{file: c.files[c.idx].File.FileName, pos: c.pos, kv: c.cur}
	if !c.l.keysOnly {
		// The value of the row found, decoded for it alone.
		value, err := c.rd.ReadValue()
		if err != nil {
			return nil, fmt.Errorf("look up in %s: %w", c.files[c.idx].File.FileName, err)
		}
		kv := *c.cur
		kv.Value = value
		c.cur = &kv
		hit.kv = c.cur
	}
	return hit, nil
}

// hasLevel0 reports whether a candidate holds a level-0 file.
func hasLevel0(candidate [][][]mergetree.KeyedFile) bool {
	return slices.ContainsFunc(candidate, func(section [][]mergetree.KeyedFile) bool {
		return slices.ContainsFunc(section, func(run []mergetree.KeyedFile) bool {
			return slices.ContainsFunc(run, func(kf mergetree.KeyedFile) bool { return kf.File.Level == 0 })
		})
	})
}
