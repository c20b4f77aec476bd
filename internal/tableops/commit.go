package tableops

import (
	"fmt"
	"slices"

	"github.com/paimon-pkft/pkft/internal/commit"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
)

// Table options of the commit protocol (package commit), kept here for the callers of
// tableops.
const (
	ManifestCompressionOption        = commit.ManifestCompressionOption
	ManifestTargetFileSizeOption     = commit.ManifestTargetFileSizeOption
	ManifestMergeMinCountOption      = commit.ManifestMergeMinCountOption
	ManifestFullCompactionSizeOption = commit.ManifestFullCompactionSizeOption
	ManifestSortEnabledOption        = commit.ManifestSortEnabledOption
	SequenceNumberInitModeOption     = commit.SequenceNumberInitModeOption
	MaxSequenceNumberProperty        = commit.MaxSequenceNumberProperty
)

// fingerprintCommit identifies what a compaction or a write's full-text maintainer planned on
// a bucket depended on: every live data file above level 0 (level 0 files may be appended
// concurrently; they stay where they are) and every index file.
func fingerprintCommit(b *table.Bucket) string {
	var out []string
	if b == nil {
		return fmt.Sprint(out) // an absent bucket is one without files
	}
	for _, f := range b.DataFiles {
		if f.Level > 0 {
			out = append(out, fmt.Sprintf("d/%d/%s", f.Level, f.FileName))
		}
	}
	for _, f := range b.IndexFiles {
		out = append(out, "i/"+f.IndexType+"/"+f.FileName)
	}
	slices.Sort(out)
	return fmt.Sprint(out)
}

// checkSchemaForWrite refuses what the Go writer and compaction do not implement, naming it.
func checkSchemaForWrite(s *schema.TableSchema) error {
	return checkWritableTable(s)
}
