package paths

import (
	"strconv"
	"strings"
)

// File and directory names of the Paimon table layout.
const (
	SchemaDir           = "schema"
	SchemaPrefix        = "schema-"
	SnapshotDir         = "snapshot"
	SnapshotPrefix      = "snapshot-"
	LatestHint          = "LATEST"
	EarliestHint        = "EARLIEST"
	ManifestDir         = "manifest"
	ManifestPrefix      = "manifest-"
	ManifestListPrefix  = "manifest-list-"
	IndexManifestPrefix = "index-manifest-"
	IndexDir            = "index"
	IndexPrefix         = "index-"
	StatisticsDir       = "statistics"
	StatisticsPrefix    = "stat-"
	BucketPrefix        = "bucket-"
	BranchDir           = "branch"
	BranchPrefix        = "branch-"
	// MainBranch is the name of the default branch, whose files live directly
	// under the table root.
	MainBranch = "main"
	// PostponeBucket is the bucket number of Paimon's postpone bucket mode,
	// whose directory is named "bucket-postpone".
	PostponeBucket = -2
)

// BranchPath is the root of a branch: the table root for the main branch
// (also for "" and whitespace-only names), root/branch/branch-NAME otherwise.
func BranchPath(root, branch string) string {
	if IsJavaWhitespaceOnly(branch) || branch == MainBranch {
		return Normalize(root)
	}
	return Join(root, BranchDir, BranchPrefix+branch)
}

// SchemaPath is root/schema/schema-ID.
func SchemaPath(root string, id int64) string {
	return Join(root, SchemaDir, SchemaPrefix+strconv.FormatInt(id, 10))
}

// SnapshotDirPath is root/snapshot.
func SnapshotDirPath(root string) string { return Join(root, SnapshotDir) }

// SnapshotPath is root/snapshot/snapshot-ID.
func SnapshotPath(root string, id int64) string {
	return Join(root, SnapshotDir, SnapshotPrefix+strconv.FormatInt(id, 10))
}

// LatestHintPath is root/snapshot/LATEST.
func LatestHintPath(root string) string { return Join(root, SnapshotDir, LatestHint) }

// EarliestHintPath is root/snapshot/EARLIEST.
func EarliestHintPath(root string) string { return Join(root, SnapshotDir, EarliestHint) }

// ParseVersionedName returns N for a name "PREFIX" + N such as "snapshot-12"
// or "schema-0". ok is false when the suffix is not a decimal long the way
// Java's Long.parseLong reads it.
func ParseVersionedName(name, prefix string) (n int64, ok bool) {
	if !strings.HasPrefix(name, prefix) {
		return 0, false
	}
	v, err := strconv.ParseInt(name[len(prefix):], 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// BucketDirName is "bucket-N", or "bucket-postpone" for PostponeBucket.
func BucketDirName(bucket int) string {
	if bucket == PostponeBucket {
		return BucketPrefix + "postpone"
	}
	return BucketPrefix + strconv.Itoa(bucket)
}
