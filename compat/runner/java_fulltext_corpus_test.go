package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
)

// The full-text tables of the Java corpus: primary-key tables with pk-full-text.index.columns that
// Paimon's own writer and compaction fill (BucketedPrimaryKeyIndexMaintainer maintains their
// archives as a Flink or Spark job would; the runner never calls the maintainer). make golden
// checks them in with the rest of the Java corpus; the ngram one is also in javaCorpus, so that
// table/java-dump runs on it.
const (
	ftDefaultTable = "ft-default-partitioned"
	ftNgramTable   = "ft-ngram-two-levels"
	ftJiebaTable   = "ft-jieba-renamed-late"
	ftAvroTable    = "ft-avro"
)

// javaFullTextCorpus returns fresh (unbuilt) definitions of the full-text tables:
//
//   - ft-default-partitioned: the default analyzer; partitioned by STRING and DATE, 2 buckets,
//     deletion vectors with updates and deletes after a compaction, multilingual text with nulls;
//   - ft-ngram-two-levels: the ngram analyzer from the column's JSON options; compacted files
//     on two non-zero levels of one bucket; index-file-in-data-file-dir;
//   - ft-jieba-renamed-late: the jieba analyzer; the text column was renamed after its data was
//     written and compacted, and pk-full-text.index.columns set after that (a schema change
//     without a snapshot); one later single-row write makes its bucket build archives while the
//     other bucket keeps levels with no archive yet. The rename comes before the option because
//     Paimon refuses to rename a column pk-full-text.index.columns names
//     (SchemaManager#assertNotUpdatingPrimaryKeyIndexColumn: "Cannot rename primary-key index
//     column"). Observed: the single row lands on level 4 by an upgrade, keeps file source
//     APPEND, and so is in no archive;
//   - ft-avro: file.format = avro (Java's Avro data files, which Go scans, searches and maintains
//     though it writes Parquet only); one bucket, deletion vectors, updates and deletes after a
//     compaction.
func javaFullTextCorpus() []*corpusTable {
	idContent := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	return []*corpusTable{
		{
			name: ftDefaultTable,
			fields: []field{
				{"region", "STRING NOT NULL"}, {"dt", "DATE NOT NULL"}, {"id", "INT NOT NULL"}, {"content", "STRING"},
			},
			primaryKeys:   []string{"region", "dt", "id"},
			partitionKeys: []string{"region", "dt"},
			options: map[string]string{
				"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content",
			},
			steps: []tableStep{
				{rows: ftPartitionRows(101, 0, 50)},
				{rows: ftPartitionRows(102, 35, 70)},
				{},
				{rows: append(ftPartitionRows(103, 0, 6), deletes(ftPartitionRows(104, 10, 14))...)},
			},
			exercises: func(path string, d *inspect.Dump) error {
				if err := hasDVRanges(path, d); err != nil {
					return err
				}
				if len(d.Buckets) != 4 {
					return fmt.Errorf("%d buckets, want 2 partitions of 2 buckets", len(d.Buckets))
				}
				return ftArchivesCurrent(d, true)
			},
		},
		{
			name:        ftNgramTable,
			fields:      idContent,
			primaryKeys: []string{"id"},
			options: map[string]string{
				"bucket": "1", "deletion-vectors.enabled": "true", "target-file-size": "16 kb",
				"index-file-in-data-file-dir":         "true",
				pkfulltext.ColumnsOption:              "content",
				pkfulltext.FieldOptionsKey("content"): `{"tokenizer":"ngram","ngram.min-gram":"2","ngram.max-gram":"3"}`,
			},
			steps: ftTwoLevelSteps(400),
			exercises: func(path string, d *inspect.Dump) error {
				if err := hasTwoLevels(path, d); err != nil {
					return err
				}
				if err := indexFilesInBucketDirs(path, d); err != nil {
					return err
				}
				return ftArchivesCurrent(d, true)
			},
		},
		{
			name:        ftJiebaTable,
			fields:      []field{{"id", "INT NOT NULL"}, {"body", "STRING"}},
			primaryKeys: []string{"id"},
			options:     map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"},
			steps: []tableStep{
				{rows: ftTextRows(201, "body", 0, 70)},
				{rows: ftTextRows(202, "body", 50, 90)},
				{},
				{alter: map[string]any{"renameColumns": map[string]string{"body": "content"}}},
				{alter: map[string]any{"setOptions": map[string]string{
					pkfulltext.ColumnsOption:              "content",
					pkfulltext.FieldOptionsKey("content"): `{"tokenizer":"jieba"}`,
				}}},
				// One row: one bucket's writer restores, maintains and builds; the other bucket
				// keeps its compacted levels without archives.
				{rows: ftTextRows(203, "content", 1000, 1001)},
			},
			exercises: func(_ string, d *inspect.Dump) error {
				var text *inspect.FieldDump
				for i, f := range d.Schema.Fields {
					if f.Name == "content" {
						text = &d.Schema.Fields[i]
					}
				}
				if text == nil || text.ID != 1 || d.Schema.ID == 0 {
					return fmt.Errorf("want the renamed column content with the original field id 1 in a later schema, got %+v (schema %d)", d.Schema.Fields, d.Schema.ID)
				}
				withArchive, without := 0, 0
				for _, b := range d.Buckets {
					if b.State == nil || b.State.Error != "" {
						return fmt.Errorf("bucket %d has no full-text state", b.Bucket)
					}
					if len(b.State.Current) > 0 {
						withArchive++
					}
					if len(b.State.Eligible) > len(b.State.Current) && b.Plan != nil {
						without++
					}
				}
				if withArchive == 0 || without == 0 {
					return fmt.Errorf("want a bucket with archives and one with levels that have none: %d with, %d without", withArchive, without)
				}
				return nil
			},
		},
		{
			name:        ftAvroTable,
			fields:      idContent,
			primaryKeys: []string{"id"},
			options: map[string]string{
				"bucket": "1", "deletion-vectors.enabled": "true", "file.format": "avro", pkfulltext.ColumnsOption: "content",
			},
			steps: []tableStep{
				{rows: ftTextRows(401, "content", 0, 60)},
				{rows: ftTextRows(402, "content", 40, 90)},
				{},
				{rows: append(ftTextRows(403, "content", 0, 6), deletes(ftTextRows(404, "content", 20, 24))...)},
			},
			exercises: func(path string, d *inspect.Dump) error {
				if err := dataFilesIn(d, ".avro"); err != nil {
					return err
				}
				if err := hasDVRanges(path, d); err != nil {
					return err
				}
				return ftArchivesCurrent(d, true)
			},
		},
	}
}

// ftPartitionRows are rows lo..hi-1 of each of two partitions (a STRING and a DATE), their
// texts from the multilingual corpus generator (nulls included).
func ftPartitionRows(seed uint64, lo, hi int) []row {
	var rows []row
	for p, part := range [][2]string{{"eu", "2024-01-31"}, {"中国", "2024-02-29"}} {
		for _, r := range ftTextRows(seed+uint64(p)*1000, "content", lo, hi) {
			r["region"], r["dt"] = part[0], part[1]
			rows = append(rows, r)
		}
	}
	return rows
}

// ftTextRows are rows id lo..hi-1 with column col from the multilingual corpus generator.
func ftTextRows(seed uint64, col string, lo, hi int) []row {
	gen := corpus.Generate(seed, hi)
	var rows []row
	for i := lo; i < hi; i++ {
		r := row{"id": i, col: nil}
		if !gen[i].Null {
			r[col] = gen[i].Text
		}
		rows = append(rows, r)
	}
	return rows
}

// ftTwoLevelSteps is the recipe of scaledTwoLevelSteps (compacted files on two non-zero levels
// of one bucket) with multilingual texts and nulls.
func ftTwoLevelSteps(base int) []tableStep {
	spread := func(seed uint64, lo, hi int) []row {
		gen := corpus.Generate(seed, hi)
		var rows []row
		for k := lo; k < hi; k++ {
			r := row{"id": k * 7919 % 100_003, "content": nil}
			if !gen[k].Null {
				r["content"] = gen[k].Text + " " + strconv.Itoa(k)
			}
			rows = append(rows, r)
		}
		return rows
	}
	end := base * 32 / 25
	return []tableStep{
		{rows: spread(301, 0, base), compact: true},
		{rows: spread(302, base*4/5, end), compact: true},
		{rows: spread(303, 0, 10)},
		{rows: append(spread(304, 5, 25), deletes(spread(305, end-10, end))...)},
	}
}

// indexFilesInBucketDirs checks every index file of d lies in its bucket directory
// (index-file-in-data-file-dir), for an unpartitioned table.
func indexFilesInBucketDirs(path string, d *inspect.Dump) error {
	for _, b := range d.Buckets {
		for _, f := range b.IndexFiles {
			in := filepath.Join(path, fmt.Sprintf("bucket-%d", b.Bucket), f.FileName)
			if _, err := os.Stat(in); err != nil {
				return fmt.Errorf("index file %s is not in its bucket directory: %w", f.FileName, err)
			}
		}
	}
	return nil
}

// ftArchivesCurrent checks Java's dump of a full-text table: some archive exists and, when all
// is set, every eligible level of every bucket has a current archive and nothing is stale or
// planned.
func ftArchivesCurrent(d *inspect.Dump, all bool) error {
	archives := 0
	for _, b := range d.Buckets {
		for _, f := range b.IndexFiles {
			if f.IndexType == pkfulltext.IndexType {
				archives++
			}
		}
	}
	if archives == 0 {
		return errors.New("no full-text archive in the table")
	}
	if all {
		if err := everyArchiveCurrent(d); err != nil {
			return err
		}
	}
	return nil
}

// ftCorpusTable returns a fresh definition of the full-text corpus table name.
func ftCorpusTable(name string) *corpusTable {
	for _, c := range javaFullTextCorpus() {
		if c.name == name {
			return c
		}
	}
	panic("no full-text corpus table " + name)
}

// dataFilesIn checks every data file of d is named with the extension ext (the table's
// file.format).
func dataFilesIn(d *inspect.Dump, ext string) error {
	n := 0
	for _, b := range d.Buckets {
		for _, f := range b.DataFiles {
			if !strings.HasSuffix(f.FileName, ext) {
				return fmt.Errorf("data file %s is not a %s file", f.FileName, ext)
			}
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("no data file")
	}
	return nil
}
