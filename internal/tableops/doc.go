// Package tableops holds the operations that commit to a Paimon table from Go: each writes new
// files under fresh names, publishes them atomically, commits the next snapshot without
// overwriting, and deletes everything it wrote when any step fails.
//
// A Writer (OpenWriter) buffers rows, routes them to buckets and commits them with the
// compaction Java's writer runs at commit; Compact compacts buckets with their index archives;
// Maintain brings a table's primary-key index archives up to date in one index-only commit and
// PlanMaintenance shows what it would do; RewriteMetadata re-encodes the metadata as a manifest
// compaction. Buckets are restored by internal/restore and every commit goes through
// internal/commit.
package tableops
