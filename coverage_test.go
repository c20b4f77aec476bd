package pkft_test

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
	"github.com/paimon-pkft/pkft/internal/testing/testtables"
)

// coverageTable creates a one-bucket deletion-vector table (id BIGINT, content STRING) with the
// given extra options; fullText names content in pk-full-text.index.columns.
func coverageTable(t *testing.T, fullText bool, options map[string]string) (*pkft.Table, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "docs")
	def := pkft.TableDefinition{
		Columns:     []pkft.ColumnDefinition{{Name: "id", Type: "BIGINT"}, {Name: "content", Type: "STRING"}},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"},
	}
	if fullText {
		def.Options["pk-full-text.index.columns"] = "content"
	}
	for k, v := range options {
		def.Options[k] = v
	}
	tbl, err := pkft.Create(context.Background(), dir, def)
	if err != nil {
		t.Fatal(err)
	}
	return tbl, dir
}

// writeZebras writes n rows "zebra <id>" with ids from first, with the writer options opts.
func writeZebras(t *testing.T, tbl *pkft.Table, first, n int64, opts ...pkft.WriteOption) *pkft.WriteResult {
	t.Helper()
	ctx := context.Background()
	w, err := tbl.NewWriter(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for id := first; id < first+n; id++ {
		if err := w.Write(ctx, pkft.Insert, []any{id, "a striped zebra"}); err != nil {
			t.Fatal(err)
		}
	}
	wr, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return wr
}

// uncovered is one expected reason of a coverage: its rows and levels.
type uncovered struct {
	reason pkft.UncoveredReason
	rows   int64
	levels []int32
}

// checkCoverage compares a coverage's rows, uncovered rows and reasons with the expected ones.
func checkCoverage(t *testing.T, what string, c *pkft.Coverage, rows int64, want ...uncovered) {
	t.Helper()
	if c == nil {
		t.Errorf("%s: no coverage", what)
		return
	}
	var got []uncovered
	var total int64
	var files int64
	for _, u := range c.Uncovered {
		got = append(got, uncovered{u.Reason, u.Rows, u.Levels})
		total += u.Rows
		files += u.Files
		if u.Files <= 0 {
			t.Errorf("%s: %s counts %d files", what, u.Reason, u.Files)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: uncovered %+v, want %+v", what, got, want)
	}
	if c.Rows != rows || c.UncoveredRows != total || c.UncoveredFiles != files || c.UncoveredFiles > c.Files {
		t.Errorf("%s: %d rows in %d files, %d uncovered in %d files; want %d rows, the reasons' %d uncovered in %d files",
			what, c.Rows, c.Files, c.UncoveredRows, c.UncoveredFiles, rows, total, files)
	}
}

// stateCoverage returns the table's state after checking that the table total is the sum of the
// buckets' coverages.
func stateCoverage(t *testing.T, tbl *pkft.Table) *pkft.TableState {
	t.Helper()
	st, err := tbl.State(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Coverage == nil {
		t.Fatal("State has no table coverage")
	}
	var rows, uncoveredRows int64
	for _, b := range st.Buckets {
		if b.Coverage == nil {
			t.Fatalf("bucket %d has no coverage", b.Bucket)
		}
		rows += b.Coverage.Rows
		uncoveredRows += b.Coverage.UncoveredRows
	}
	if rows != st.Coverage.Rows || uncoveredRows != st.Coverage.UncoveredRows {
		t.Errorf("table coverage %d rows, %d uncovered; the buckets sum to %d, %d", st.Coverage.Rows, st.Coverage.UncoveredRows, rows, uncoveredRows)
	}
	return st
}

// searchZebra searches "zebra" and checks the hits and that the result's coverage is the state's
// of the same snapshot.
func searchZebra(t *testing.T, tbl *pkft.Table, wantHits int) *pkft.SearchResult {
	t.Helper()
	ctx := context.Background()
	res, err := tbl.Search(ctx, "zebra", pkft.WithLimit(100))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != wantHits {
		t.Errorf("search: %d hits, want %d", len(res.Hits), wantHits)
	}
	st := stateCoverage(t, tbl)
	if st.SnapshotID != res.SnapshotID {
		t.Fatalf("searched snapshot %d, state of %d", res.SnapshotID, st.SnapshotID)
	}
	if !reflect.DeepEqual(res.Coverage, *st.Coverage) {
		t.Errorf("search coverage %+v, state's %+v", res.Coverage, *st.Coverage)
	}
	return res
}

// TestCoverageMovedUp: the first write into an empty table is moved up to the top level
// unchanged by the compaction at commit (file source APPEND) and left so by a full compaction:
// its rows are in no archive, Maintain has nothing to build, and the state, the search and the
// maintenance all count them as moved-up.
func TestCoverageMovedUp(t *testing.T) {
	testenv.Native(t)
	ctx := context.Background()
	tbl, _ := coverageTable(t, true, nil)
	writeZebras(t, tbl, 0, 3)
	moved := uncovered{pkft.UncoveredMovedUp, 3, []int32{5}}
	st := stateCoverage(t, tbl)
	checkCoverage(t, "state", st.Coverage, 3, moved)
	checkCoverage(t, "bucket 0", st.Buckets[0].Coverage, 3, moved)
	if len(st.Buckets[0].State.Eligible) != 0 {
		t.Errorf("eligible %v, want none", st.Buckets[0].State.Eligible)
	}
	res := searchZebra(t, tbl, 0)
	checkCoverage(t, "search", &res.Coverage, 3, moved)

	if _, err := tbl.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	mr, err := tbl.Maintain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if built, _, _ := mr.Totals(); built != 0 || mr.SnapshotID != 0 {
		t.Errorf("maintenance built %d archives, committed snapshot %d; want none", built, mr.SnapshotID)
	}
	checkCoverage(t, "maintain", mr.Coverage, 3, moved)
	searchZebra(t, tbl, 0)
}

// TestCoverageLevel0: a write-only commit leaves its rows on level 0 (level-0). A full
// compaction without compaction.force-rewrite-all-files moves the only file of an empty table's
// bucket up unchanged (then moved-up); with the option it rewrites it, and its archive covers
// it. With the option the level-0 rows are counted next to the covered rows of an earlier write.
func TestCoverageLevel0(t *testing.T) {
	testenv.Native(t)
	ctx := context.Background()
	for _, force := range []bool{false, true} {
		t.Run(map[bool]string{false: "moved-up", true: "force-rewrite-all-files"}[force], func(t *testing.T) {
			var options map[string]string
			rows, covered := int64(2), 0
			if force {
				options = map[string]string{"compaction.force-rewrite-all-files": "true"}
				rows, covered = 5, 3
			}
			tbl, _ := coverageTable(t, true, options)
			if force {
				writeZebras(t, tbl, 0, 3) // rewritten at commit: covered
			}
			writeZebras(t, tbl, 3, 2, pkft.WithWriteOnly())
			level0 := uncovered{pkft.UncoveredLevel0, 2, []int32{0}}
			checkCoverage(t, "state", stateCoverage(t, tbl).Coverage, rows, level0)
			res := searchZebra(t, tbl, covered)
			checkCoverage(t, "search", &res.Coverage, rows, level0)
			mr, err := tbl.Maintain(ctx)
			if err != nil {
				t.Fatal(err)
			}
			checkCoverage(t, "maintain", mr.Coverage, rows, level0)

			if _, err := tbl.Compact(ctx); err != nil {
				t.Fatal(err)
			}
			if force {
				checkCoverage(t, "after a full compaction", stateCoverage(t, tbl).Coverage, rows)
				searchZebra(t, tbl, 5)
				return
			}
			checkCoverage(t, "after a full compaction", stateCoverage(t, tbl).Coverage, rows, uncovered{pkft.UncoveredMovedUp, 2, []int32{5}})
			searchZebra(t, tbl, 0)
		})
	}
}

// withOption reopens tbl after a new schema sets key to value (as Java's SchemaManager commits
// an option change).
func withOption(t *testing.T, tbl *pkft.Table, key, value string) *pkft.Table {
	t.Helper()
	ctx := context.Background()
	dir := tbl.Path()
	s, err := table.Open(fileio.NewLocal(), dir).LatestSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := *s
	next.ID = s.ID + 1
	next.Options = maps.Clone(s.Options)
	if _, ok := next.Options[key]; !ok {
		next.OptionOrder = append(slices.Clone(s.OptionOrder), key)
	}
	next.Options[key] = value
	if err := os.WriteFile(filepath.Join(dir, "schema", schema.FileName(next.ID)), next.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := pkft.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCoverageNoArchive: files a compaction rewrote before the table had its full-text index are
// eligible but their level has no archive (no-archive) until Maintain builds it.
func TestCoverageNoArchive(t *testing.T) {
	testenv.Native(t)
	ctx := context.Background()
	_, dir := coverageTable(t, false, map[string]string{"compaction.force-rewrite-all-files": "true"})
	tbl, err := pkft.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	writeZebras(t, tbl, 0, 4)
	if err := testtables.AddFullText(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if tbl, err = pkft.Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	noArchive := uncovered{pkft.UncoveredNoArchive, 4, []int32{5}}
	checkCoverage(t, "state", stateCoverage(t, tbl).Coverage, 4, noArchive)
	res := searchZebra(t, tbl, 0)
	checkCoverage(t, "search", &res.Coverage, 4, noArchive)

	dry, err := tbl.Maintain(ctx, pkft.WithDryRun(true))
	if err != nil {
		t.Fatal(err)
	}
	checkCoverage(t, "dry run", dry.Coverage, 4, noArchive)
	mr, err := tbl.Maintain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if built, _, _ := mr.Totals(); built != 1 {
		t.Errorf("maintenance built %d archives, want 1", built)
	}
	checkCoverage(t, "after maintenance", mr.Coverage, 4)
	res = searchZebra(t, tbl, 4)
	checkCoverage(t, "search after maintenance", &res.Coverage, 4)
	// A search of the snapshot maintenance started from counts what that snapshot lacked.
	old, err := tbl.Search(ctx, "zebra", pkft.WithSnapshot(mr.BaseSnapshotID))
	if err != nil {
		t.Fatal(err)
	}
	if old.SnapshotID != mr.BaseSnapshotID || len(old.Hits) != 0 {
		t.Errorf("search of snapshot %d: snapshot %d, %d hits; want no hit", mr.BaseSnapshotID, old.SnapshotID, len(old.Hits))
	}
	checkCoverage(t, "search of the snapshot before maintenance", &old.Coverage, 4, noArchive)
}

// TestSearchCoverageOfSelectedPartitions: a search counts the uncovered rows of the partitions it
// searches only.
func TestSearchCoverageOfSelectedPartitions(t *testing.T) {
	testenv.Native(t)
	ctx := context.Background()
	tbl, err := pkft.Create(ctx, filepath.Join(t.TempDir(), "docs"), pkft.TableDefinition{
		Columns:       []pkft.ColumnDefinition{{Name: "region", Type: "STRING"}, {Name: "id", Type: "BIGINT"}, {Name: "content", Type: "STRING"}},
		PrimaryKeys:   []string{"region", "id"},
		PartitionKeys: []string{"region"},
		Options: map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "pk-full-text.index.columns": "content",
			"compaction.force-rewrite-all-files": "true"},
	})
	if err != nil {
		t.Fatal(err)
	}
	write := func(region string, n int, opts ...pkft.WriteOption) {
		w, err := tbl.NewWriter(ctx, opts...)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := w.Write(ctx, pkft.Insert, []any{region, int64(i), "a striped zebra"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write("eu", 3)
	write("us", 2, pkft.WithWriteOnly())
	level0 := uncovered{pkft.UncoveredLevel0, 2, []int32{0}}
	for _, c := range []struct {
		partition string
		rows      int64
		want      []uncovered
	}{{"", 5, []uncovered{level0}}, {"eu", 3, nil}, {"us", 2, []uncovered{level0}}} {
		var opts []pkft.SearchOption
		if c.partition != "" {
			opts = append(opts, pkft.WithPartition(map[string]string{"region": c.partition}))
		}
		res, err := tbl.Search(ctx, "zebra", opts...)
		if err != nil {
			t.Fatal(err)
		}
		checkCoverage(t, "search of partition "+c.partition, &res.Coverage, c.rows, c.want...)
	}
}

// TestCoverageDuplicateArchives: a level with two archives (as concurrent maintainers leave it)
// has no current archive; its rows are duplicate-archives — the search finds nothing there and
// says so — until Maintain rebuilds the level.
func TestCoverageDuplicateArchives(t *testing.T) {
	testenv.Native(t)
	ctx := context.Background()
	tbl, dir := coverageTable(t, true, map[string]string{"compaction.force-rewrite-all-files": "true"})
	writeZebras(t, tbl, 0, 3)
	searchZebra(t, tbl, 3)
	if err := testtables.DuplicateArchive(ctx, dir); err != nil {
		t.Fatal(err)
	}
	st := stateCoverage(t, tbl)
	if len(st.Buckets[0].State.Duplicates) != 1 {
		t.Fatalf("duplicates %+v, want one level", st.Buckets[0].State.Duplicates)
	}
	dup := uncovered{pkft.UncoveredDuplicateArchives, 3, []int32{5}}
	checkCoverage(t, "state", st.Coverage, 3, dup)
	res := searchZebra(t, tbl, 0)
	checkCoverage(t, "search", &res.Coverage, 3, dup)
	mr, err := tbl.Maintain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if built, retired, _ := mr.Totals(); built != 1 || retired != 2 {
		t.Errorf("maintenance built %d and retired %d archives, want 1 and 2", built, retired)
	}
	checkCoverage(t, "after maintenance", mr.Coverage, 3)
	searchZebra(t, tbl, 3)
}

// TestCoverageStateError: a bucket whose full-text state cannot be computed counts every file as
// uncovered. Here the manifests list the compacted file a second time, on level 4, and an archive
// of level 4 covers it: two current archives cover one file, which the classification refuses.
func TestCoverageStateError(t *testing.T) {
	testenv.Native(t)
	tbl, dir := coverageTable(t, true, map[string]string{"compaction.force-rewrite-all-files": "true"})
	writeZebras(t, tbl, 0, 3)
	writeZebras(t, tbl, 3, 2, pkft.WithWriteOnly())
	ctx := context.Background()
	ft := table.Open(fileio.NewLocal(), dir)
	latest, err := ft.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ft.Read(ctx, latest)
	if err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, m := range slices.Concat(c.BaseManifests, c.DeltaManifests) {
		entries, err := ft.ReadManifest(ctx, m.FileName)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(entries, func(e meta.ManifestEntry) bool { return e.Kind == meta.FileKindAdd && e.File.Level == 5 })
		if i < 0 {
			continue
		}
		again := entries[i]
		again.File.Level = 4
		var buf bytes.Buffer
		if err := manifest.WriteManifestFile(&buf, append(entries, again), manifest.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "manifest", m.FileName), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		listed = true
		break
	}
	if !listed {
		t.Fatal("no data file on level 5")
	}
	err = testtables.CommitIndexEntries(ctx, dir, func(c *table.Contents) ([]meta.IndexManifestEntry, error) {
		for _, e := range c.IndexEntries {
			if e.IndexFile.IndexType != pkfulltext.IndexType {
				continue
			}
			sm, err := pkindex.DecodeSourceMeta(e.IndexFile.GlobalIndex.SourceMeta)
			if err != nil {
				return nil, err
			}
			level4, err := pkindex.NewSourceMeta(4, sm.SourceFiles())
			if err != nil {
				return nil, err
			}
			twin := e
			global := *e.IndexFile.GlobalIndex
			if global.SourceMeta, err = level4.Encode(); err != nil {
				return nil, err
			}
			twin.IndexFile.GlobalIndex = &global
			twin.IndexFile.FileName = "level-4-" + e.IndexFile.FileName
			return []meta.IndexManifestEntry{twin}, nil
		}
		return nil, errors.New("the table has no full-text archive")
	})
	if err != nil {
		t.Fatal(err)
	}
	st := stateCoverage(t, tbl)
	if st.Buckets[0].State.Error == "" {
		t.Fatalf("bucket state %+v, want an error", st.Buckets[0].State)
	}
	checkCoverage(t, "state", st.Coverage, 8, uncovered{pkft.UncoveredStateError, 8, []int32{0, 4, 5}})
	// Searching and maintaining the bucket fail on the same classification.
	if _, err := tbl.Search(ctx, "zebra"); err == nil {
		t.Error("the search of a bucket whose state cannot be computed succeeded")
	}
	if _, err := tbl.Maintain(ctx); err == nil {
		t.Error("the maintenance of a bucket whose state cannot be computed succeeded")
	}
}
