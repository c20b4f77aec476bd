package restore_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
)

// TestRestoreJavaGolden restores every bucket of the latest snapshot of each Java golden table
// (testdata/tables/java) and checks what a writer would start from against the table itself: the
// writer's schema and its index definitions, the bucket's directory (its data files are there),
// the index files by type in manifest order, the source payloads (exactly the files with source
// meta), the deletion vectors, the text column's name at each data file's own schema, and the
// sorted readers over every data file.
func TestRestoreJavaGolden(t *testing.T) {
	ctx := context.Background()
	root, err := goldengen.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	names, err := goldengen.JavaGoldenTables(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatalf("no Java golden table under %s: run make golden", goldengen.JavaTablesDir)
	}
	seen := map[string]int{}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			g, err := goldengen.OpenJavaGolden(ctx, root, name)
			if err != nil {
				t.Fatal(err)
			}
			r, err := restore.NewRestorer(ctx, g.Table)
			if err != nil {
				t.Fatal(err)
			}
			checkDefinitions(t, r, seen)
			for _, b := range g.Contents.Buckets {
				checkBucket(ctx, t, r, b, seen)
			}
		})
	}
	// Each branch above must have met a table that takes it, or the corpus checks too little.
	for _, what := range []string{"full-text", "sorted", "no index", "partitioned", "deletion vectors", "source payloads", "renamed text column", "sorted reader", "text reader"} {
		if seen[what] == 0 {
			t.Errorf("no golden table has %s", what)
		}
	}
}

func checkDefinitions(t *testing.T, r *restore.Restorer, seen map[string]int) {
	t.Helper()
	latest, err := r.Table.LatestSchema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Schema.ID != latest.ID {
		t.Errorf("writer's schema %d, the latest is %d", r.Schema.ID, latest.ID)
	}
	hasFullText := len(pkfulltext.IndexColumns(latest.Options)) > 0
	if (r.FullText != nil) != hasFullText {
		t.Errorf("full-text definition %v, the schema indexes %v", r.FullText, pkfulltext.IndexColumns(latest.Options))
	}
	sorted, err := definition.Resolve(latest)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sorted) != len(sorted) {
		t.Errorf("%d sorted definitions, the schema has %d", len(r.Sorted), len(sorted))
	}
	if r.HasIndexes() != (hasFullText || len(sorted) > 0) {
		t.Errorf("HasIndexes() = %v with full text %v and %d sorted definitions", r.HasIndexes(), hasFullText, len(sorted))
	}
	switch {
	case hasFullText:
		seen["full-text"]++
	case len(sorted) > 0:
		seen["sorted"]++
	default:
		seen["no index"]++
	}
	if !hasFullText {
		if _, err := r.FullTextBuilder(context.Background(), &restore.RestoredBucket{}, nil); !errors.Is(err, pkfulltext.ErrNoIndex) {
			t.Errorf("FullTextBuilder without a full-text index: %v, want ErrNoIndex", err)
		}
	}
}

func checkBucket(ctx context.Context, t *testing.T, r *restore.Restorer, b *table.Bucket, seen map[string]int) {
	t.Helper()
	rb, err := r.RestoreBucket(b)
	if err != nil {
		t.Fatalf("bucket %d: %v", b.Bucket, err)
	}
	if rb.Bucket != b.Bucket || rb.TotalBuckets != b.TotalBuckets || len(rb.DataFiles) != len(b.DataFiles) {
		t.Errorf("bucket %d: restored %d of %d buckets with %d data files, want %d of %d with %d", b.Bucket,
			rb.Bucket, rb.TotalBuckets, len(rb.DataFiles), b.Bucket, b.TotalBuckets, len(b.DataFiles))
	}
	if len(r.Schema.PartitionKeys) > 0 {
		seen["partitioned"]++
		if len(rb.PartitionSpec) != len(r.Schema.PartitionKeys) {
			t.Errorf("bucket %d: partition %v for keys %v", b.Bucket, rb.PartitionSpec, r.Schema.PartitionKeys)
		}
	} else if rb.PartitionSpec != nil {
		t.Errorf("bucket %d of an unpartitioned table: partition %v", b.Bucket, rb.PartitionSpec)
	}
	// The bucket's directory, from its partition: every data file is there.
	for _, f := range rb.DataFiles {
		if _, err := os.Stat(rb.DataPaths.ToPath(f.FileName, "")); err != nil {
			t.Errorf("bucket %d: data file %s not where the restored paths put it: %v", b.Bucket, f.FileName, err)
		}
	}
	// Index files by type in manifest order, and the source payloads.
	var wantSources []string
	byType := map[string][]string{}
	for _, f := range b.IndexFiles {
		byType[f.IndexType] = append(byType[f.IndexType], f.FileName)
		if f.GlobalIndex != nil && f.GlobalIndex.SourceMeta != nil {
			wantSources = append(wantSources, f.FileName)
		}
	}
	got := map[string][]string{}
	for typ, files := range rb.IndexFiles {
		for _, f := range files {
			got[typ] = append(got[typ], f.FileName)
		}
	}
	if !mapsEqual(got, byType) {
		t.Errorf("bucket %d: index files by type %v, want %v", b.Bucket, got, byType)
	}
	var gotSources []string
	for _, f := range rb.SourcePayloads {
		gotSources = append(gotSources, f.FileName)
	}
	if !slices.Equal(gotSources, wantSources) {
		t.Errorf("bucket %d: source payloads %v, want %v", b.Bucket, gotSources, wantSources)
	}
	seen["source payloads"] += len(wantSources)
	// Deletion vectors: each for a data file of the bucket, with its recorded cardinality.
	dvs, err := rb.ReadDeletionVectors(ctx, r)
	if err != nil {
		t.Fatalf("bucket %d: %v", b.Bucket, err)
	}
	want := map[string]int64{}
	for _, f := range rb.DeletionVectorFiles() {
		for _, m := range f.DVRanges {
			if m.Cardinality != nil {
				want[m.DataFileName] = *m.Cardinality
			} else {
				want[m.DataFileName] = -1
			}
		}
	}
	if len(dvs) != len(want) {
		t.Errorf("bucket %d: %d deletion vectors, the index files record %d", b.Bucket, len(dvs), len(want))
	}
	for file, v := range dvs {
		if c, ok := want[file]; !ok || c >= 0 && v.Cardinality() != c {
			t.Errorf("bucket %d: deletion vector of %s: cardinality %d, recorded %d (%v)", b.Bucket, file, v.Cardinality(), c, ok)
		}
	}
	seen["deletion vectors"] += len(dvs)
	if r.FullText != nil {
		checkTextColumn(ctx, t, r, rb, seen)
	}
	for _, def := range r.Sorted {
		builder, err := r.SortedBuilder(rb, def, r.SortedIndexFile(rb))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rb.DataFiles {
			rd, err := builder.Readers.Open(ctx, f)
			if err != nil {
				t.Fatalf("bucket %d: sorted reader of %s: %v", b.Bucket, f.FileName, err)
			}
			if rd.RowCount() != f.RowCount {
				t.Errorf("bucket %d: sorted reader of %s counts %d rows, the file %d", b.Bucket, f.FileName, rd.RowCount(), f.RowCount)
			}
			rd.Close()
			seen["sorted reader"]++
		}
	}
}

// checkTextColumn: the builder's readers name the text column as each data file's own schema
// does (a rename after a file was written keeps that file's old name).
func checkTextColumn(ctx context.Context, t *testing.T, r *restore.Restorer, rb *restore.RestoredBucket, seen map[string]int) {
	t.Helper()
	builder, err := r.FullTextBuilder(ctx, rb, r.FullTextIndexFile(rb, nil))
	if err != nil {
		t.Fatal(err)
	}
	if builder.FieldID != r.FullText.FieldID {
		t.Errorf("builder field %d, definition %d", builder.FieldID, r.FullText.FieldID)
	}
	readers := builder.Readers.(*pkfulltext.DataFileReaders)
	// A Restorer made without NewRestorer (no schema cache yet) names columns as well.
	bare := &restore.Restorer{Table: r.Table, Schema: r.Schema, Paths: r.Paths, FullText: r.FullText}
	bareBuilder, err := bare.FullTextBuilder(ctx, rb, bare.FullTextIndexFile(rb, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rb.DataFiles {
		s, err := r.Table.Schema(ctx, f.SchemaID)
		if err != nil {
			t.Fatal(err)
		}
		field, ok := s.FieldByID(int(r.FullText.FieldID))
		if !ok {
			continue
		}
		for _, fn := range []func(int64, int32) (string, error){readers.FieldName, bareBuilder.Readers.(*pkfulltext.DataFileReaders).FieldName} {
			name, err := fn(f.SchemaID, r.FullText.FieldID)
			if err != nil || name != field.Name {
				t.Errorf("text column of %s (schema %d): %q, %v; want %q", f.FileName, f.SchemaID, name, err, field.Name)
			}
		}
		if field.Name != r.FullText.Column {
			seen["renamed text column"]++
		}
	}
	// Every data file opens through the builder's readers and yields its recorded rows.
	for _, f := range rb.DataFiles {
		rd, err := readers.Open(ctx, f)
		if err != nil {
			t.Fatalf("text reader of %s: %v", f.FileName, err)
		}
		n := int64(0)
		for ; n < rd.RowCount(); n++ {
			if _, err := rd.Next(ctx); err != nil {
				t.Fatalf("row %d of %s: %v", n, f.FileName, err)
			}
		}
		if n != f.RowCount {
			t.Errorf("%s: %d rows read, the file records %d", f.FileName, n, f.RowCount)
		}
		rd.Close()
		seen["text reader"]++
	}
	for _, bad := range []*meta.DataFileMeta{{FileName: "data-missing-0.parquet", RowCount: 1}, {FileName: "data-no-format", RowCount: 1}} {
		if rd, err := readers.Open(ctx, bad); err == nil {
			rd.Close()
			t.Errorf("text reader of %s: no error", bad.FileName)
		}
	}
	if m, err := r.NewFullTextMaintainer(ctx, rb, nil); err != nil || m == nil {
		t.Errorf("bucket %d: full-text maintainer %v: %v", rb.Bucket, m, err)
	}
	if _, err := readers.FieldName(1<<40, r.FullText.FieldID); err == nil {
		t.Error("the text column at a schema that does not exist: no error")
	}
}

func mapsEqual(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestRestorerErrors: a table without schema, and partition bytes that are no binary row, are
// errors, not a restorer or a partition.
func TestRestorerErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := restore.NewRestorer(ctx, table.Open(fileio.NewLocal(), t.TempDir())); err == nil {
		t.Error("NewRestorer of an empty directory: no error")
	}
	root, err := goldengen.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	g, err := goldengen.OpenJavaGolden(ctx, root, "ft-default-partitioned")
	if err != nil {
		t.Fatal(err)
	}
	r, err := restore.NewRestorer(ctx, g.Table)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.PartitionSpec([]byte{1, 2, 3}); err == nil {
		t.Error("PartitionSpec of three bytes: no error")
	}
	if _, err := r.RestoreBucket(&table.Bucket{Partition: []byte{1}}); err == nil {
		t.Error("RestoreBucket with a bad partition: no error")
	}
}
