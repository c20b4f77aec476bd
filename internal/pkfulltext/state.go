package pkfulltext

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/mutation"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// BucketIndexState is the immutable classification of one bucket's full-text archives for one
// indexed text field (Java PkFullTextBucketIndexState): the current archives, the stale ones
// that must be removed from the index manifest, and which archive covers each source data file.
// Index files of other types, and full-text files without global index meta, belong to neither
// list.
type BucketIndexState struct {
	textFieldID  int32
	current      []*meta.IndexFileMeta
	currentMetas []pkindex.SourceMeta // parsed source meta of current[i]
	stale        []*meta.IndexFileMeta
	// duplicates are the data levels with more than one candidate archive, and those
	// candidates (all stale).
	duplicates map[int32][]*meta.IndexFileMeta
	bySource   map[string]*meta.IndexFileMeta
}

// NewBucketIndexState validates active payloads strictly (the public Java constructor): every
// full-text payload of textFieldID must appear once, carry parsable source meta whose total row
// count equals the payload's row count and row range [0, total-1], and cover no source file
// another payload covers; any violation is an error. Full-text payloads of other fields are
// stale when they carry source meta and ignored otherwise. The state keeps the caller's
// pointers; callers must not modify the pointed-to metadata afterwards.
func NewBucketIndexState(textFieldID int32, activePayloads []*meta.IndexFileMeta) (*BucketIndexState, error) {
	return newBucketIndexState(textFieldID, activePayloads, nil)
}

// newBucketIndexState is NewBucketIndexState; when decoded is not nil, decoded[i] is the already
// parsed source meta of activePayloads[i] (which must then be a full-text payload of textFieldID
// whose source meta parses), so that classification does not parse it again.
func newBucketIndexState(textFieldID int32, activePayloads []*meta.IndexFileMeta, decoded []pkindex.SourceMeta) (*BucketIndexState, error) {
	s := &BucketIndexState{textFieldID: textFieldID}
	if decoded != nil {
		n := 0
		for _, sm := range decoded {
			n += sm.FileCount()
		}
		s.bySource = make(map[string]*meta.IndexFileMeta, n)
	} else {
		s.bySource = map[string]*meta.IndexFileMeta{}
	}
	names := map[string]bool{}
	for i, payload := range activePayloads {
		if payload == nil {
			return nil, fmt.Errorf("active full-text payload %d is nil", i)
		}
		global := payload.GlobalIndex
		if payload.IndexType != IndexType || global == nil {
			continue
		}
		if global.IndexFieldID != textFieldID {
			if global.SourceMeta != nil {
				s.stale = append(s.stale, payload)
			}
			continue
		}
		if names[payload.FileName] {
			return nil, fmt.Errorf("active full-text payload %s appears more than once in the index manifest", payload.FileName)
		}
		names[payload.FileName] = true
		var sm pkindex.SourceMeta
		if decoded != nil {
			sm = decoded[i]
		} else {
			var err error
			if sm, err = pkindex.SourceMetaFromIndexFile(payload.FileName, global.SourceMeta); err != nil {
				return nil, err
			}
		}
		sources := sm.AllFiles()
		var total int64
		for src := range sources {
			if total > math.MaxInt64-src.RowCount() {
				return nil, fmt.Errorf("full-text archive %s: source row count overflows a long", payload.FileName)
			}
			total += src.RowCount()
		}
		if payload.RowCount != total || global.RowRangeStart != 0 || global.RowRangeEnd != total-1 {
			return nil, fmt.Errorf("full-text archive %s row metadata does not match its source files", payload.FileName)
		}
		for src := range sources {
			// One hash per source: a name already covered leaves the map's size unchanged.
			n := len(s.bySource)
			s.bySource[src.FileName()] = payload
			if len(s.bySource) == n {
				return nil, fmt.Errorf("source data file %s is covered by both full-text archives %s and %s",
					src.FileName(), s.coveringPayload(src.FileName(), payload).FileName, payload.FileName)
			}
		}
		s.current = append(s.current, payload)
		s.currentMetas = append(s.currentMetas, sm)
	}
	return s, nil
}

// coveringPayload returns the first of the state's current payloads whose sources name source,
// or next when none does (next names it twice).
func (s *BucketIndexState) coveringPayload(source string, next *meta.IndexFileMeta) *meta.IndexFileMeta {
	for i, sm := range s.currentMetas {
		for src := range sm.AllFiles() {
			if src.FileName() == source {
				return s.current[i]
			}
		}
	}
	return next
}

// FromActiveDataFiles classifies a bucket's active payloads against its active data files
// (Java PkFullTextBucketIndexState.fromActiveDataFiles). A payload of textFieldID is a
// candidate when its source meta parses, names exactly the eligible active files of its data
// level in name order with their row counts, and passes [NewBucketIndexState] on its own;
// anything else is stale, as is every candidate of a level with more than one. Full-text
// payloads of other fields are stale when they carry source meta. Current payloads are
// returned in ascending level order; stale ones in input order, followed by the candidates of
// contested levels in ascending level order.
//
// An error is returned only for nil inputs and for inputs Java also rejects after
// classification: current payloads of different levels sharing a file name or a source file
// (possible only when activeDataFiles repeats a name).
func FromActiveDataFiles(textFieldID int32, activeDataFiles []*meta.DataFileMeta, activePayloads []*meta.IndexFileMeta) (*BucketIndexState, error) {
	_, sourcesByLevel, err := groupEligible(activeDataFiles)
	if err != nil {
		return nil, err
	}
	return classify(textFieldID, sourcesByLevel, activePayloads)
}

// groupEligible returns the files of activeDataFiles that feed full-text archives, in input
// order, and the same files grouped by data level. The groups share one allocation.
func groupEligible(activeDataFiles []*meta.DataFileMeta) ([]*meta.DataFileMeta, map[int32]*levelSources, error) {
	eligible := make([]*meta.DataFileMeta, 0, len(activeDataFiles))
	counts := map[int32]int{}
	for i, f := range activeDataFiles {
		if f == nil {
			return nil, nil, fmt.Errorf("active data file %d is nil", i)
		}
		if !pkindex.ShouldReadDataFile(f) {
			continue
		}
		if _, err := pkindex.NewSourceFile(f.FileName, f.RowCount); err != nil {
			return nil, nil, fmt.Errorf("active data file %s: %w", f.FileName, err)
		}
		eligible = append(eligible, f)
		counts[f.Level]++
	}
	sources := make([]pkindex.SourceFile, len(eligible))
	metas := make([]*meta.DataFileMeta, len(eligible))
	byLevel := make(map[int32]*levelSources, len(counts))
	groups := make([]levelSources, 0, len(counts))
	next := 0
	for level, n := range counts {
		groups = append(groups, levelSources{files: sources[next : next : next+n], metas: metas[next : next : next+n]})
		byLevel[level] = &groups[len(groups)-1]
		next += n
	}
	for _, f := range eligible {
		ls := byLevel[f.Level]
		src, err := pkindex.NewSourceFile(f.FileName, f.RowCount)
		if err != nil {
			return nil, nil, fmt.Errorf("active data file %s: %w", f.FileName, err)
		}
		ls.files = append(ls.files, src)
		ls.metas = append(ls.metas, f)
	}
	return eligible, byLevel, nil
}

// classify is [FromActiveDataFiles] over the eligible files grouped by level; it may sort the
// groups' source files (not their metas).
func classify(textFieldID int32, sourcesByLevel map[int32]*levelSources, activePayloads []*meta.IndexFileMeta) (*BucketIndexState, error) {
	candidatesByLevel := map[int32][]*meta.IndexFileMeta{}
	candidateMetas := map[*meta.IndexFileMeta]pkindex.SourceMeta{}
	var stale []*meta.IndexFileMeta
	for i, payload := range activePayloads {
		if payload == nil {
			return nil, fmt.Errorf("active full-text payload %d is nil", i)
		}
		global := payload.GlobalIndex
		if payload.IndexType != IndexType || global == nil {
			continue
		}
		if global.IndexFieldID != textFieldID {
			if global.SourceMeta != nil {
				stale = append(stale, payload)
			}
			continue
		}
		sm, ok := candidateLevel(textFieldID, payload, sourcesByLevel)
		if !ok {
			stale = append(stale, payload)
			continue
		}
		candidatesByLevel[sm.DataLevel()] = append(candidatesByLevel[sm.DataLevel()], payload)
		candidateMetas[payload] = sm
	}

	var current []*meta.IndexFileMeta
	var currentMetas []pkindex.SourceMeta
	var duplicates map[int32][]*meta.IndexFileMeta
	for _, level := range slices.Sorted(maps.Keys(candidatesByLevel)) {
		if candidates := candidatesByLevel[level]; len(candidates) == 1 || mutation.On("duplicate-level-keeps-one") {
			// (The mutation keeps the first of a level's several candidates current.)
			stale = append(stale, candidates[1:]...)
			current = append(current, candidates[0])
			currentMetas = append(currentMetas, candidateMetas[candidates[0]])
		} else {
			stale = append(stale, candidates...)
			if duplicates == nil {
				duplicates = map[int32][]*meta.IndexFileMeta{}
			}
			duplicates[level] = slices.Clone(candidates)
		}
	}
	s, err := newBucketIndexState(textFieldID, current, currentMetas)
	if err != nil {
		return nil, fmt.Errorf("classify full-text payloads: %w", err)
	}
	s.stale = stale
	s.duplicates = duplicates
	return s, nil
}

// candidateLevel returns the parsed source meta of payload when it exactly covers its data
// level's eligible sources and is internally consistent.
func candidateLevel(textFieldID int32, payload *meta.IndexFileMeta, sourcesByLevel map[int32]*levelSources) (pkindex.SourceMeta, bool) {
	// A header that does not parse, or names a level without eligible files or another number of
	// files, makes the payload stale whatever its names are: they are not decoded.
	level, count, ok := pkindex.PeekSourceMeta(payload.GlobalIndex.SourceMeta)
	if !ok {
		return pkindex.SourceMeta{}, false
	}
	if ls, ok := sourcesByLevel[level]; !ok || int(count) != len(ls.files) {
		return pkindex.SourceMeta{}, false
	}
	sm, err := pkindex.SourceMetaFromIndexFile(payload.FileName, payload.GlobalIndex.SourceMeta)
	if err != nil {
		return pkindex.SourceMeta{}, false
	}
	desired, ok := sourcesByLevel[sm.DataLevel()]
	if !ok || !desired.coveredExactlyBy(sm) {
		return pkindex.SourceMeta{}, false
	}
	if !desired.unique {
		// The level repeats a name, and so does sm: only the strict check can decide.
		single, err := newBucketIndexState(textFieldID, []*meta.IndexFileMeta{payload}, []pkindex.SourceMeta{sm})
		if err != nil || len(single.current) != 1 {
			return pkindex.SourceMeta{}, false
		}
		return sm, true
	}
	// sm names the level's distinct files, so it covers no source twice; what the strict check of
	// this payload alone would still reject is row metadata that does not add up.
	var total int64
	for src := range sm.AllFiles() {
		if total > math.MaxInt64-src.RowCount() {
			return pkindex.SourceMeta{}, false
		}
		total += src.RowCount()
	}
	global := payload.GlobalIndex
	if payload.RowCount != total || global.RowRangeStart != 0 || global.RowRangeEnd != total-1 {
		return pkindex.SourceMeta{}, false
	}
	return sm, true
}

// TextFieldID returns the id of the indexed text field.
func (s *BucketIndexState) TextFieldID() int32 { return s.textFieldID }

// CurrentPayloads returns the current archives (a fresh slice).
func (s *BucketIndexState) CurrentPayloads() []*meta.IndexFileMeta { return slices.Clone(s.current) }

// StalePayloads returns the archives that no longer describe the bucket (a fresh slice).
func (s *BucketIndexState) StalePayloads() []*meta.IndexFileMeta { return slices.Clone(s.stale) }

// DuplicateArchivesReason names why every candidate archive of a level with more than one is
// stale: two maintainers built the level's archive concurrently (a Java writer restored before
// another maintainer committed, whose commit does not check index files), so the level is
// searched by none of them until it is maintained again.
const DuplicateArchivesReason = "duplicate archives (concurrent maintainers)"

// DuplicateLevels returns the data levels that have more than one candidate archive (each exactly
// covering the level's files), with those archives; all of them are among StalePayloads, as in
// Java. Nil when there are none.
func (s *BucketIndexState) DuplicateLevels() map[int32][]*meta.IndexFileMeta {
	if s.duplicates == nil {
		return nil
	}
	out := make(map[int32][]*meta.IndexFileMeta, len(s.duplicates))
	for lv, ps := range s.duplicates {
		out[lv] = slices.Clone(ps)
	}
	return out
}

// PayloadBySourceFile returns, for every source data file a current archive covers, that
// archive (a fresh map).
func (s *BucketIndexState) PayloadBySourceFile() map[string]*meta.IndexFileMeta {
	return maps.Clone(s.bySource)
}

// CoveredSourceFiles returns the names of the covered source data files in the order Java's
// payloadBySourceFile map iterates them: by current archive, then by position in its source
// meta.
func (s *BucketIndexState) CoveredSourceFiles() []string {
	out := make([]string, 0, len(s.bySource))
	for _, sm := range s.currentMetas {
		for src := range sm.AllFiles() {
			out = append(out, src.FileName())
		}
	}
	return out
}

// levelSources are the eligible source files of one data level, in input order until a
// comparison needs them sorted by name (Java order, stable).
type levelSources struct {
	files []pkindex.SourceFile
	// metas are the level's data files in input order (files[i] is metas[i]'s until files are
	// sorted).
	metas  []*meta.DataFileMeta
	sorted bool
	// byName maps each name to its row count, built on first use; unique is false when a name
	// repeats (then only the sorted comparison decides).
	byName map[string]int64
	unique bool
}

// coveredExactlyBy reports whether sm's files are the level's files sorted by name, with their
// row counts. When sm's names are strictly increasing in Java order, distinct, as many as the
// level's distinct names and each with the level's row count, the sorted level is exactly sm's
// list, which is decided without sorting; anything else falls back to sorting the level once and
// comparing element by element.
func (l *levelSources) coveredExactlyBy(sm pkindex.SourceMeta) bool {
	if sm.FileCount() != len(l.files) {
		return false
	}
	if l.sorted {
		return sm.HasFiles(l.files)
	}
	if l.byName == nil && l.matchesIncreasing(sm) {
		l.unique = true
		return true
	}
	if l.byName == nil {
		l.byName = make(map[string]int64, len(l.files))
		for _, f := range l.files {
			l.byName[f.FileName()] = f.RowCount()
		}
		l.unique = len(l.byName) == len(l.files)
	}
	if l.unique && l.increasingAndKnown(sm) {
		return true
	}
	javaio.SortStableByJavaString(l.files, pkindex.SourceFile.FileName)
	l.sorted = true
	return sm.HasFiles(l.files)
}

// matchesIncreasing reports whether sm's names are strictly increasing in Java order and the
// level's files are sm's files, each matched by name and row count to its own entry of sm; then
// the level's names are distinct and, sorted, exactly sm's list. It indexes sm's names, which
// lie together in memory, and reads the level's files in input order, so that few lookups reach
// a name far away. False means only that the level decides otherwise.
func (l *levelSources) matchesIncreasing(sm pkindex.SourceMeta) bool {
	type entry struct {
		rows    int64
		matched bool
	}
	entries := make(map[string]*entry, sm.FileCount())
	all := make([]entry, 0, sm.FileCount())
	prev, first := "", true
	for src := range sm.AllFiles() {
		if !first && javaio.CompareJava(prev, src.FileName()) >= 0 {
			return false
		}
		all = append(all, entry{rows: src.RowCount()})
		entries[src.FileName()] = &all[len(all)-1]
		prev, first = src.FileName(), false
	}
	for _, f := range l.files {
		e, ok := entries[f.FileName()]
		if !ok || e.matched || e.rows != f.RowCount() {
			return false
		}
		e.matched = true
	}
	return true
}

// increasingAndKnown reports whether sm's names are strictly increasing in Java order and each
// is a file of the level with the same row count.
func (l *levelSources) increasingAndKnown(sm pkindex.SourceMeta) bool {
	prev, first := "", true
	for src := range sm.AllFiles() {
		if !first && javaio.CompareJava(prev, src.FileName()) >= 0 {
			return false
		}
		if rows, ok := l.byName[src.FileName()]; !ok || rows != src.RowCount() {
			return false
		}
		prev, first = src.FileName(), false
	}
	return true
}
