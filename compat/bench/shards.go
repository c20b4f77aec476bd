package bench

// The table of the sharded-maintenance measurements, the shards section of make bench and the
// conformance case scale/shards: ShardBuckets buckets of ShardRowsPerBucket rows, one compacted
// level without an archive in each.
const (
	ShardBuckets       = 64
	ShardRowsPerBucket = 300
)

// ShardTable is the spec of that table.
func ShardTable() TableSpec {
	return TableSpec{Rows: ShardBuckets * ShardRowsPerBucket, Buckets: ShardBuckets, FilesPerBucket: 1, Analyzer: Analyzers[0]}
}

// ShardCounts are the numbers of concurrent shard workers both run.
func ShardCounts() []int { return []int{1, 2, 4, 8} }
