package pkfulltext

import (
	"fmt"

	"github.com/paimon-pkft/pkft/impl/meta"
	"github.com/paimon-pkft/pkft/impl/pkindex"
)

// Plan is a full-text level plan: the level to rebuild, the payload it replaces (if any) and
// the data files the new archive must cover (none: remove the payload).
type Plan = pkindex.Plan[*meta.IndexFileMeta, *meta.DataFileMeta]

// payloadLevels is the level planner over full-text payloads and data files.
func payloadLevels() *pkindex.Levels[*meta.IndexFileMeta, *meta.DataFileMeta] {
	return pkindex.NewLevels(
		func(p *meta.IndexFileMeta) (int32, error) {
			sm, err := payloadSourceMeta(p)
			return sm.DataLevel(), err
		},
		func(p *meta.IndexFileMeta) ([]pkindex.SourceFile, error) {
			sm, err := payloadSourceMeta(p)
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
	active := map[string]*meta.DataFileMeta{}
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
	if v.Plan, err = payloadLevels().Pick(state.CurrentPayloads(), active); err != nil {
		return nil, fmt.Errorf("plan full-text build: %w", err)
	}
	return v, nil
}
