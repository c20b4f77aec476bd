package search

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/paimon-pkft/pkft/internal/dv"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkfulltext/textreader"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// The end-to-end fixture: a Java-written golden table (testdata/tables/java) copied to a
// temporary directory, given a schema that names its text column in pk-full-text.index.columns
// (and enables deletion vectors, which Paimon requires with it),
// archives built by pkfulltext for the levels a test chooses, and a new snapshot whose index
// manifest holds them next to the table's deletion vectors. Until the maintenance commit lands,
// the test writes that snapshot itself.

const textColumn = "content"

// goldenDir is the checked-in Java golden table name.
func goldenDir(t testing.TB, name string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "tables", "java", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("golden table %s: %v", name, err)
	}
	return dir
}

func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// levelChoice says what the fixture builds for one (bucket, level): an archive, an archive whose
// metadata is made stale (it claims one more source row), or nothing.
type levelChoice int

const (
	buildLevel levelChoice = iota
	skipLevel
	staleLevel
)

// fixture is a prepared table.
type fixture struct {
	t        *table.Table
	snap     *snapshot.Snapshot
	schema   *schema.TableSchema
	fieldID  int32
	factory  *paths.FileStorePathFactory
	archives int
	// covered are the data files a current archive covers, by bucket path key.
	covered map[string]bool
}

// newFixture prepares golden table name with engine; choose decides per bucket and level
// (nil builds every level).
// prepareTable copies golden table name to a temporary directory and commits a schema naming
// its text column in pk-full-text.index.columns (and enabling deletion vectors, which Paimon
// requires with it). It returns the fixture, without archives, and the table's latest snapshot.
func prepareTable(t testing.TB, name string) (*fixture, *snapshot.Snapshot) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	copyDir(t, goldenDir(t, name), dir)
	tb := table.Open(fileio.NewLocal(), dir)
	snap, err := tb.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s0, err := tb.Schema(ctx, snap.SchemaID)
	if err != nil {
		t.Fatal(err)
	}
	s1 := *s0
	s1.ID = s0.ID + 1
	s1.Options = map[string]string{}
	for k, v := range s0.Options {
		s1.Options[k] = v
	}
	s1.Options[pkfulltext.ColumnsOption] = textColumn
	s1.OptionOrder = append(slices.Clone(s0.OptionOrder), pkfulltext.ColumnsOption)
	if _, ok := s1.Options["deletion-vectors.enabled"]; !ok {
		s1.Options["deletion-vectors.enabled"] = "true"
		s1.OptionOrder = append(s1.OptionOrder, "deletion-vectors.enabled")
	}
	if err := os.WriteFile(filepath.Join(dir, "schema", schema.FileName(s1.ID)), s1.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	field, ok := s1.FieldByName(textColumn)
	if !ok {
		t.Fatalf("%s has no column %s", name, textColumn)
	}
	return &fixture{t: tb, schema: &s1, fieldID: int32(field.ID), covered: map[string]bool{}}, snap
}

func newFixture(t testing.TB, name string, engine fulltext.Engine, choose func(bucket int32, level int32) levelChoice) *fixture {
	t.Helper()
	ctx := context.Background()
	f, snap := prepareTable(t, name)
	tb, s1 := f.t, *f.schema
	dir := tb.Root
	po, err := paths.OptionsFromTable(dir, s1.Options)
	if err != nil {
		t.Fatal(err)
	}
	if f.factory, err = paths.NewFileStorePathFactory(po); err != nil {
		t.Fatal(err)
	}
	analyzer, err := pkfulltext.ResolveAnalyzerOptions(s1.Options, textColumn)
	if err != nil {
		t.Fatal(err)
	}
	contents, err := tb.Read(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	// The fixture builds every level's archive with engine, in place of any the table holds (a
	// Java table's archives are the native engine's); the other index files stay.
	var entries []meta.IndexManifestEntry
	for _, e := range contents.IndexEntries {
		if e.IndexFile.IndexType != pkfulltext.IndexType {
			entries = append(entries, e)
		}
	}
	for _, b := range contents.Buckets {
		ipf, dpf := f.bucketPaths(t, b.Partition, b.Bucket)
		view, err := pkfulltext.InspectBucket(f.fieldID, b.DataFiles, b.IndexFiles)
		if err != nil {
			t.Fatal(err)
		}
		byLevel := map[int32][]*meta.DataFileMeta{}
		for _, df := range view.Eligible {
			byLevel[df.Level] = append(byLevel[df.Level], df)
		}
		for level, files := range byLevel {
			c := buildLevel
			if choose != nil {
				c = choose(b.Bucket, level)
			}
			if c == skipLevel {
				continue
			}
			slices.SortFunc(files, func(a, b *meta.DataFileMeta) int { return javaio.CompareJava(a.FileName, b.FileName) })
			builder := &pkfulltext.Builder{
				IndexFile: &pkfulltext.IndexFile{FileIO: tb.FileIO, Paths: ipf, Engine: engine},
				Readers:   &pkfulltext.DataFileReaders{FileIO: tb.FileIO, Paths: dpf, FieldID: f.fieldID, FieldName: f.fieldName},
				FieldID:   f.fieldID,
				Options:   analyzer,
			}
			archive, err := builder.Build(ctx, files)
			if err != nil {
				t.Fatalf("build archive of bucket %d level %d: %v", b.Bucket, level, err)
			}
			if c == staleLevel {
				makeStale(t, archive)
			} else {
				for _, df := range files {
					f.covered[f.fileKey(b.Partition, b.Bucket, df.FileName)] = true
				}
				f.archives++
			}
			entries = append(entries, meta.IndexManifestEntry{Kind: meta.FileKindAdd, Partition: b.Partition, Bucket: b.Bucket, IndexFile: *archive})
		}
	}
	path := f.factory.NewIndexManifest()
	var buf bytes.Buffer
	if err := manifest.WriteIndexManifest(&buf, entries, manifest.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := tb.FileIO.WriteFileAtomic(ctx, path, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	next := *snap
	next.ID = snap.ID + 1
	next.SchemaID = s1.ID
	indexManifest := paths.Name(path)
	next.IndexManifest = &indexManifest
	next.CommitKind = snapshot.CommitKind("COMPACT")
	if err := tb.Snapshots.Commit(ctx, &next); err != nil {
		t.Fatal(err)
	}
	f.snap = &next
	return f
}

// makeStale rewrites an archive's metadata so that it claims one more row in its first source:
// the bucket state must then classify it as stale.
func makeStale(t testing.TB, archive *meta.IndexFileMeta) {
	t.Helper()
	sm, err := pkindex.DecodeSourceMeta(archive.GlobalIndex.SourceMeta)
	if err != nil {
		t.Fatal(err)
	}
	files := sm.SourceFiles()
	first, err := pkindex.NewSourceFile(files[0].FileName(), files[0].RowCount()+1)
	if err != nil {
		t.Fatal(err)
	}
	files[0] = first
	sm2, err := pkindex.NewSourceMeta(sm.DataLevel(), files)
	if err != nil {
		t.Fatal(err)
	}
	if archive.GlobalIndex.SourceMeta, err = sm2.Encode(); err != nil {
		t.Fatal(err)
	}
	archive.RowCount++
	archive.GlobalIndex.RowRangeEnd++
}

func (f *fixture) fieldName(schemaID int64, fieldID int32) (string, error) {
	s, err := f.t.Schema(context.Background(), schemaID)
	if err != nil {
		return "", err
	}
	fd, ok := s.FieldByID(int(fieldID))
	if !ok {
		return "", fmt.Errorf("schema %d field %d: %w", schemaID, fieldID, textreader.ErrFieldNotInSchema)
	}
	return fd.Name, nil
}

func (f *fixture) fileKey(partition []byte, bucket int32, file string) string {
	return fmt.Sprintf("%x/%d/%s", rowBytes(partition), bucket, file)
}

func (f *fixture) bucketPaths(t testing.TB, partition []byte, bucket int32) (paths.IndexPathFactory, *paths.DataFilePathFactory) {
	t.Helper()
	r, err := restore.NewRestorer(context.Background(), f.t)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := r.RestoreBucket(&table.Bucket{Partition: partition, Bucket: bucket})
	if err != nil {
		t.Fatal(err)
	}
	return rb.IndexPaths, rb.DataPaths
}

// modelRow is one live row of a covered data file.
type modelRow struct {
	partition []byte
	bucket    int32
	file      string
	pos       int64
	text      string
}

// liveCoveredRows reads, by brute force, every live row (deletion vectors applied) with a
// non-null text of every data file a current archive covers.
func (f *fixture) liveCoveredRows(t testing.TB) []modelRow {
	t.Helper()
	ctx := context.Background()
	contents, err := f.t.Read(ctx, f.snap)
	if err != nil {
		t.Fatal(err)
	}
	var rows []modelRow
	for _, b := range contents.Buckets {
		ipf, dpf := f.bucketPaths(t, b.Partition, b.Bucket)
		deleted := map[string]dv.DeletionVector{}
		for _, idx := range b.IndexFiles {
			if idx.IndexType != meta.IndexTypeDeletionVectors {
				continue
			}
			var ranges []dv.Range
			for _, r := range idx.DVRanges {
				ranges = append(ranges, dv.Range{DataFile: r.DataFileName, Offset: r.Offset, Length: r.Length})
			}
			got, err := dv.ReadAll(ctx, f.t.FileIO, ipf.ToPathOf(idx.FileName, ""), ranges)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range got {
				deleted[k] = v
			}
		}
		readers := &pkfulltext.DataFileReaders{FileIO: f.t.FileIO, Paths: dpf, FieldID: f.fieldID, FieldName: f.fieldName}
		for _, df := range b.DataFiles {
			if !f.covered[f.fileKey(b.Partition, b.Bucket, df.FileName)] {
				continue
			}
			r, err := readers.Open(ctx, df)
			if err != nil {
				t.Fatal(err)
			}
			for pos := int64(0); pos < df.RowCount; pos++ {
				row, err := r.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if row.Null || (deleted[df.FileName] != nil && deleted[df.FileName].IsDeleted(pos)) {
					continue
				}
				rows = append(rows, modelRow{b.Partition, b.Bucket, df.FileName, pos, string(row.Text)})
			}
			r.Close()
		}
	}
	return rows
}

// tokens splits text as the engines' default analyzers do: runs of letters and digits, lower
// cased.
func tokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// matching is the model of a one-word match query: the rows whose text has the word.
func matching(rows []modelRow, word string) map[string]string {
	out := map[string]string{}
	for _, r := range rows {
		if slices.Contains(tokens(r.text), strings.ToLower(word)) {
			out[fmt.Sprintf("%d/%s/%d", r.bucket, r.file, r.pos)] = r.text
		}
	}
	return out
}

func resultKey(r Result) string {
	return fmt.Sprintf("%d/%s/%d", r.Bucket, r.DataFile, r.RowPosition)
}
