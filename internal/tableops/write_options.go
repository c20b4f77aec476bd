package tableops

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/options"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
)

// Table options the writer and the compaction check (CoreOptions).
const (
	MergeEngineOption       = "merge-engine"
	SequenceFieldOption     = "sequence.field"
	ChangelogProducerOption = "changelog-producer"
	IgnoreDeleteOption      = "ignore-delete"
	IgnoreUpdateBeforeOpt   = "ignore-update-before"
	WriteBufferSizeOption   = "write-buffer-size"
	NumLevelsOption         = "num-levels"
	NumSortedRunTrigger     = "num-sorted-run.compaction-trigger"
	CompactionSmallFileOpt  = "compaction.small-file-ratio"
	defaultWriteBufferBytes = 256 << 20
)

// ErrUnsupportedTable reports a table whose configuration the Go writer and compaction do not
// implement; the message names the option.
var ErrUnsupportedTable = errors.New("table configuration not supported by the Go writer")

// restoreWritable opens a Restorer on the table's latest schema for a write or a compaction:
// the table must pass checkWritableTable, and a table with a primary-key full-text index needs an
// archive engine.
func restoreWritable(ctx context.Context, t *table.Table, engine fulltext.Engine) (*restore.Restorer, error) {
	r, err := restore.NewRestorer(ctx, t)
	if err != nil {
		return nil, err
	}
	if err := checkWritableTable(r.Schema); err != nil {
		return nil, err
	}
	if r.FullText != nil && engine == nil {
		return nil, errors.New("the table has a primary-key full-text index: an archive engine is needed")
	}
	return r, nil
}

// checkWritableTable refuses what Go cannot write or compact the way Java would: tables without a
// primary key, bucket modes other than fixed, a bucket function Java could not create for the
// bucket key, and every table option the registry refuses (checkTableOptions).
func checkWritableTable(s *schema.TableSchema) error {
	if len(s.PrimaryKeys) == 0 {
		return fmt.Errorf("table has no primary key (append tables are not written by Go): %w", ErrUnsupportedTable)
	}
	if err := checkTableOptions(s); err != nil {
		return err
	}
	if _, err := numBuckets(s); err != nil {
		return err
	}
	keys, err := s.BucketKeys()
	if err != nil {
		return err
	}
	_, err = bucketFunction(s, keys)
	return err
}

// checkTableOptions refuses a table setting an option pkft's registry (internal/options) refuses
// for a write or a compaction, or one it does not know, naming every such key and value.
func checkTableOptions(s *schema.TableSchema) error {
	return checkTableOptionsFor(options.Write, s)
}

// checkTableOptionsFor refuses a table setting an option the registry refuses for op, naming
// every such key and value; a value Java Paimon refuses as well (options.RuleError) is not
// called unsupported by the Go writer.
func checkTableOptionsFor(op options.Op, s *schema.TableSchema) error {
	if err := options.New().CheckFor(op, s.Options); errors.Is(err, options.ErrRefused) {
		return fmt.Errorf("%w: %w", ErrUnsupportedTable, err)
	} else if err != nil {
		return err
	}
	return nil
}

// numBuckets reads the table's bucket count: only fixed bucket mode (bucket > 0) is accepted.
func numBuckets(s *schema.TableSchema) (int, error) {
	v, ok := s.Options[schema.OptionBucket]
	if !ok {
		return 0, fmt.Errorf("bucket is not set (dynamic bucket mode is not supported): %w", ErrUnsupportedTable)
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("option bucket: %w", err)
	}
	if n <= 0 {
		return 0, fmt.Errorf("bucket = %d: only fixed bucket mode (bucket > 0) is supported: %w", n, ErrUnsupportedTable)
	}
	return n, nil
}

// checkBucketCount refuses a bucket whose files were written with another bucket count than the
// table's numBuckets, as Java's writer (and so its compaction) refuses to restore it
// (AbstractFileStoreWrite#scanExistingFileMetas): a rescaled table needs INSERT OVERWRITE first.
func checkBucketCount(tb *table.Bucket, numBuckets int) error {
	if tb.TotalBuckets > 0 && int(tb.TotalBuckets) != numBuckets {
		return fmt.Errorf("bucket %d: the table has %d buckets but the bucket's files were written with %d (rescaled tables are not supported): %w",
			tb.Bucket, numBuckets, tb.TotalBuckets, ErrUnsupportedTable)
	}
	return nil
}

// ignoreDeleteOf reads ignore-delete with its fallback keys (CoreOptions IGNORE_DELETE).
func ignoreDeleteOf(opts map[string]string) (bool, error) {
	for _, k := range []string{IgnoreDeleteOption, "first-row.ignore-delete", "deduplicate.ignore-delete", "partial-update.ignore-delete"} {
		if _, ok := opts[k]; ok {
			return schema.BoolOption(opts, k, false)
		}
	}
	return false, nil
}
