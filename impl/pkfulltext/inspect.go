package pkfulltext

import (
	"fmt"
	"slices"

	"github.com/paimon-pkft/pkft/impl/meta"
	"github.com/paimon-pkft/pkft/impl/pkindex"
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
	v := &BucketView{}
	active := make(map[string]*meta.DataFileMeta, len(dataFiles))
	for _, f := range dataFiles {
		if pkindex.ShouldReadDataFile(f) {
			v.Eligible = append(v.Eligible, f)
			active[f.FileName] = f
		}
	}
	state, err := FromActiveDataFiles(textFieldID, v.Eligible, indexFiles)
	if err != nil {
		return nil, fmt.Errorf("classify full-text payloads: %w", err)
	}
	v.State = state
	// Every current payload was just found to cover exactly its level's eligible files, the ones
	// active holds unless a name repeats (then Pick compares every level itself).
	var exact func(*meta.IndexFileMeta) bool
	if len(active) == len(v.Eligible) {
		exact = state.isCurrent
	}
	if v.Plan, err = state.levels().PickKnown(state.CurrentPayloads(), active, exact); err != nil {
		return nil, fmt.Errorf("plan full-text build: %w", err)
	}
	return v, nil
}

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
