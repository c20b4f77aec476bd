package tableops

import (
	"context"
	"fmt"
	"slices"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// BucketPlan is what Maintain would do to one bucket, computed without building anything.
type BucketPlan struct {
	Partition     []byte
	PartitionSpec []paths.PartitionKV
	Bucket        int32
	// BuildLevels are the data levels whose archive is missing or stale, ascending.
	BuildLevels []int32
	// BuildRows is the number of source rows the builds would index.
	BuildRows int64
	// Retire are the archives that would be removed (stale ones).
	Retire []*meta.IndexFileMeta
	// Current are the archives that would be kept.
	Current []*meta.IndexFileMeta
	// DuplicateLevels are the levels whose archives are stale because the level has more than
	// one candidate (pkfulltext.DuplicateArchivesReason), ascending; they are rebuilt.
	DuplicateLevels []int32
}

// Changed reports whether maintenance would change the bucket.
func (p *BucketPlan) Changed() bool { return len(p.BuildLevels) > 0 || len(p.Retire) > 0 }

// PlanMaintenance classifies the full-text archives of every selected bucket of the latest
// snapshot, as the maintainers Maintain restores would (PkFullTextBucketIndexState), and reports
// the levels to build and the archives to retire. Only WithBuckets among the options matters. It
// reads metadata only and writes nothing; it is what a dry run shows.
func PlanMaintenance(ctx context.Context, t *table.Table, opts ...MaintainOption) (*snapshot.Snapshot, []BucketPlan, error) {
	var cfg maintainConfig
	for _, o := range opts {
		o(&cfg)
	}
	r, err := restore.NewRestorer(ctx, t)
	if err != nil {
		return nil, nil, err
	}
	if r.FullText == nil {
		return nil, nil, fmt.Errorf("plan maintenance of %s: %w", t.Root, pkfulltext.ErrNoIndex)
	}
	base, err := t.Latest(ctx)
	if err != nil {
		return nil, nil, err
	}
	contents, err := t.Read(ctx, base)
	if err != nil {
		return nil, nil, err
	}
	var out []BucketPlan
	for _, b := range contents.Buckets {
		rb, err := r.RestoreBucket(b)
		if err != nil {
			return nil, nil, err
		}
		if cfg.filter != nil && !cfg.filter(rb.PartitionSpec, rb.Bucket) {
			continue
		}
		p, err := planBucket(r, rb)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, p)
	}
	return base, out, nil
}

// planBucket classifies one restored bucket's archives and lists the builds it needs.
func planBucket(r *restore.Restorer, rb *restore.RestoredBucket) (BucketPlan, error) {
	if r.FullText == nil {
		// Only the full-text archives are planned here; a table with sorted indexes only has
		// nothing to show.
		return BucketPlan{Partition: rb.Partition, PartitionSpec: rb.PartitionSpec, Bucket: rb.Bucket}, nil
	}
	view, err := pkfulltext.InspectBucket(r.FullText.FieldID, rb.DataFiles, rb.SourcePayloads)
	if err != nil {
		return BucketPlan{}, fmt.Errorf("bucket %d: %w", rb.Bucket, err)
	}
	p := BucketPlan{Partition: rb.Partition, PartitionSpec: rb.PartitionSpec, Bucket: rb.Bucket,
		Retire: view.State.StalePayloads(), Current: view.State.CurrentPayloads()}
	for lv := range view.State.DuplicateLevels() {
		p.DuplicateLevels = append(p.DuplicateLevels, lv)
	}
	slices.Sort(p.DuplicateLevels)
	covered := map[int32]bool{}
	for _, c := range p.Current {
		sm, err := pkindex.SourceMetaFromIndexFile(c.FileName, c.GlobalIndex.SourceMeta)
		if err != nil {
			return BucketPlan{}, err
		}
		covered[sm.DataLevel()] = true
	}
	for _, f := range view.Eligible {
		if covered[f.Level] {
			continue
		}
		if !slices.Contains(p.BuildLevels, f.Level) {
			p.BuildLevels = append(p.BuildLevels, f.Level)
		}
		p.BuildRows += f.RowCount
	}
	slices.Sort(p.BuildLevels)
	return p, nil
}
