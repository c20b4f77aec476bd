package pkfulltext

import (
	"fmt"
	"slices"

	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// Plan is a full-text level plan: the level to rebuild, the payload it replaces (if any) and
// the data files the new archive must cover (none: remove the payload).
type Plan = pkindex.Plan[*meta.IndexFileMeta, *meta.DataFileMeta]

// payloadLevels is the level planner over full-text payloads and data files.
func payloadLevels() *pkindex.Levels[*meta.IndexFileMeta, *meta.DataFileMeta] {
	return levelsOver(payloadSourceMeta)
}

// levelsOver is the level planner reading each payload's source meta through sourceMeta.
func levelsOver(sourceMeta func(*meta.IndexFileMeta) (pkindex.SourceMeta, error)) *pkindex.Levels[*meta.IndexFileMeta, *meta.DataFileMeta] {
	return pkindex.NewLevels(
		func(p *meta.IndexFileMeta) (int32, error) {
			sm, err := sourceMeta(p)
			return sm.DataLevel(), err
		},
		func(p *meta.IndexFileMeta) ([]pkindex.SourceFile, error) {
			sm, err := sourceMeta(p)
			return sm.SourceFiles(), err
		},
		pkindex.DataFileInfo,
	)
}

// BucketView is what a bucket's full-text maintenance sees in a snapshot: the eligible data
// files, the classification of its index files, and the next plan (nil when every level is
// current).
type BucketView struct {
	Eligible []*meta.DataFileMeta
	State    *BucketIndexState
	Plan     *Plan
}

// InspectBucket classifies a bucket's index files against its data files and plans the next
// build, as a maintainer restored from them would (Java: PkFullTextBucketIndexState
// #fromActiveDataFiles, then PrimaryKeyIndexLevels#pick).
func InspectBucket(textFieldID int32, dataFiles []*meta.DataFileMeta, indexFiles []*meta.IndexFileMeta) (*BucketView, error) {
	eligible, byLevel, err := groupEligible(dataFiles)
	if err != nil {
		return nil, fmt.Errorf("classify full-text payloads: %w", err)
	}
	state, err := classify(textFieldID, byLevel, indexFiles)
	if err != nil {
		return nil, fmt.Errorf("classify full-text payloads: %w", err)
	}
	v := &BucketView{Eligible: eligible, State: state}
	if plan, ok := state.planDistinct(byLevel); ok {
		v.Plan = plan
		return v, nil
	}
	active := make(map[string]*meta.DataFileMeta, len(eligible))
	for _, f := range eligible {
		active[f.FileName] = f
	}
	// Every current payload was just found to cover exactly its level's eligible files, the ones
	// active holds unless a name repeats (then Pick compares every level itself).
	var exact func(*meta.IndexFileMeta) bool
	if len(active) == len(eligible) {
		exact = state.isCurrent
	}
	if v.Plan, err = state.levels().PickKnown(state.CurrentPayloads(), active, exact); err != nil {
		return nil, fmt.Errorf("plan full-text build: %w", err)
	}
	return v, nil
}

// planDistinct returns the plan Pick makes over the state's current payloads and the eligible
// files byLevel groups, without building Pick's name map, when it can tell that no two
// eligible files share a name (ok false: it cannot, and Pick decides). Classification already
// found every current payload to cover exactly its level's files, and those levels' names
// distinct (a repeat would have been an error or made the payload stale), so the plan is the
// lowest level without a current payload, rebuilt from its files in name order, and none when
// every level has one. What remains to check is that the files of the other levels repeat no
// name, neither among themselves nor one a current payload covers. It sorts the metas of the
// lowest level without a current payload.
func (s *BucketIndexState) planDistinct(byLevel map[int32]*levelSources) (*Plan, bool) {
	if len(s.currentMetas) != len(s.current) {
		return nil, false
	}
	covered := make(map[int32]bool, len(s.currentMetas))
	for _, sm := range s.currentMetas {
		covered[sm.DataLevel()] = true
	}
	var uncovered []int32
	n := 0
	for level, ls := range byLevel {
		if !covered[level] {
			uncovered = append(uncovered, level)
			n += len(ls.metas)
		}
	}
	if len(uncovered) == 0 {
		return nil, true
	}
	slices.Sort(uncovered)
	// Names that strictly increase once sorted are distinct, and no sort orders them otherwise.
	files := byLevel[uncovered[0]].metas
	if !javaio.SortByDistinctJavaStrings(files, fileName) || !s.distinctUncovered(files, byLevel, uncovered, n) {
		return nil, false
	}
	return pkindex.NewPlan[*meta.IndexFileMeta](uncovered[0], nil, files), true
}

// distinctUncovered reports whether the files of the uncovered levels repeat no name, neither
// among themselves nor one a current payload covers, given that the lowest uncovered level's
// files, sorted, are distinct. n counts the files of every uncovered level.
func (s *BucketIndexState) distinctUncovered(sorted []*meta.DataFileMeta, byLevel map[int32]*levelSources, uncovered []int32, n int) bool {
	if len(uncovered) == 1 {
		return !s.coversAny(sorted)
	}
	seen := make(map[string]struct{}, n)
	for _, level := range uncovered {
		files := byLevel[level].metas
		if s.coversAny(files) {
			return false
		}
		for _, f := range files {
			if _, ok := seen[f.FileName]; ok {
				return false
			}
			seen[f.FileName] = struct{}{}
		}
	}
	return true
}

// coversAny reports whether a current payload covers a file named as one of files.
func (s *BucketIndexState) coversAny(files []*meta.DataFileMeta) bool {
	for _, f := range files {
		if _, ok := s.bySource[f.FileName]; ok {
			return true
		}
	}
	return false
}

// fileName is a data file's name.
func fileName(f *meta.DataFileMeta) string { return f.FileName }

// levels is the level planner over this state's current payloads: the source meta that
// classification already parsed is used again instead of being decoded a second time.
func (s *BucketIndexState) levels() *pkindex.Levels[*meta.IndexFileMeta, *meta.DataFileMeta] {
	if len(s.currentMetas) != len(s.current) {
		return payloadLevels()
	}
	parsed := make(map[*meta.IndexFileMeta]pkindex.SourceMeta, len(s.current))
	for i, p := range s.current {
		parsed[p] = s.currentMetas[i]
	}
	return levelsOver(func(p *meta.IndexFileMeta) (pkindex.SourceMeta, error) {
		if sm, ok := parsed[p]; ok {
			return sm, nil
		}
		return payloadSourceMeta(p)
	})
}

// isCurrent reports whether p is one of the state's current payloads.
func (s *BucketIndexState) isCurrent(p *meta.IndexFileMeta) bool {
	return slices.Contains(s.current, p)
}
