package pkft_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// expireTable creates an unindexed primary-key table (one bucket, deletion vectors, so that the
// writer compacts at every commit and writes deletion-vector index files) with extra options.
func expireTable(t *testing.T, extra map[string]string, partitioned bool) *pkft.Table {
	t.Helper()
	opts := map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"}
	for k, v := range extra {
		opts[k] = v
	}
	def := pkft.TableDefinition{
		Columns:     []pkft.ColumnDefinition{{Name: "id", Type: "BIGINT"}, {Name: "v", Type: "STRING"}},
		PrimaryKeys: []string{"id"},
		Options:     opts,
	}
	if partitioned {
		def.Columns = append([]pkft.ColumnDefinition{{Name: "p", Type: "STRING"}}, def.Columns...)
		def.PrimaryKeys = []string{"p", "id"}
		def.PartitionKeys = []string{"p"}
	}
	tbl, err := pkft.Create(context.Background(), filepath.Join(t.TempDir(), "t"), def)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// writeRows writes rows [from, to) with value v in one commit.
func writeRows(t *testing.T, tbl *pkft.Table, kind pkft.RowKind, from, to int, v string, opts ...pkft.WriteOption) *pkft.WriteResult {
	t.Helper()
	ctx := context.Background()
	w, err := tbl.NewWriter(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for i := from; i < to; i++ {
		if err := w.Write(ctx, kind, []any{int64(i), v}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// snapshotIDs lists the snapshot files of the table.
func snapshotIDs(t *testing.T, tbl *pkft.Table) []int64 {
	t.Helper()
	ids, err := snapshot.NewManager(fileio.NewLocal(), tbl.Path(), "").IDs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// checkNoUnreferencedFile checks that every file under the table's manifest, index and bucket
// directories is referenced by a snapshot on disk (its manifest lists, manifests, index
// manifest, live data files and index files), and that every file a snapshot references exists.
func checkNoUnreferencedFile(t *testing.T, root string) {
	t.Helper()
	ctx := context.Background()
	tb := table.Open(fileio.NewLocal(), root)
	r, err := restore.NewRestorer(ctx, tb)
	if err != nil {
		t.Fatal(err)
	}
	referenced := map[string]bool{}
	ids, err := tb.Snapshots.IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		s, err := tb.Snapshots.Snapshot(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		c, err := tb.Read(ctx, s)
		if err != nil {
			t.Fatalf("retained snapshot %d cannot be read: %v", id, err)
		}
		referenced[tb.ManifestPath(s.BaseManifestList)] = true
		referenced[tb.ManifestPath(s.DeltaManifestList)] = true
		if s.IndexManifest != nil {
			referenced[tb.ManifestPath(*s.IndexManifest)] = true
		}
		for _, m := range slices.Concat(c.BaseManifests, c.DeltaManifests) {
			referenced[tb.ManifestPath(m.FileName)] = true
		}
		for _, b := range c.Buckets {
			rb, err := r.RestoreBucket(b)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range b.DataFiles {
				referenced[rb.DataPaths.ToPath(f.FileName, "")] = true
			}
			for _, f := range b.IndexFiles {
				referenced[rb.IndexPaths.ToPathOf(f.FileName, "")] = true
			}
		}
	}
	for p := range referenced {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("a retained snapshot references %s, which is gone: %v", p, err)
		}
	}
	var onDisk []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if strings.HasPrefix(rel, paths.SchemaDir+"/") || strings.HasPrefix(rel, paths.SnapshotDir+"/") {
			return nil
		}
		onDisk = append(onDisk, paths.Normalize(p))
		if !referenced[paths.Normalize(p)] {
			t.Errorf("%s is on disk but no retained snapshot references it", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(onDisk) == 0 {
		t.Fatal("no file on disk: the walk checked nothing")
	}
}

// TestExpireRetention: 60 writes of 100 updates into a 10k-row table. With default options and
// a clock two hours ahead (the time window passed), num-retained.min (10) snapshots remain; with
// the real clock nothing is older than the hour and every snapshot remains, unless
// num-retained.max=5 (min 1): then 5 remain (num-retained.max expires whatever the time window
// keeps; in a passed window only num-retained.min bounds the expiry, as in ExpireSnapshotsImpl). In every case no file on disk is unreferenced by a retained snapshot
// and every referenced file exists.
func TestExpireRetention(t *testing.T) {
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }
	for _, tc := range []struct {
		name  string
		opts  map[string]string
		clock func() time.Time
		want  int // snapshots left; 0: all
	}{
		{"defaults", nil, later, 10},
		{"max-5", map[string]string{"snapshot.num-retained.max": "5", "snapshot.num-retained.min": "1"}, nil, 5},
		{"max-5-window-passed", map[string]string{"snapshot.num-retained.max": "5", "snapshot.num-retained.min": "1"}, later, 1},
		{"within-time-window", nil, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tbl := expireTable(t, tc.opts, false)
			var wopts []pkft.WriteOption
			if tc.clock != nil {
				wopts = append(wopts, pkft.WithClock(tc.clock))
			}
			expired := writeRows(t, tbl, pkft.Insert, 0, 10_000, "initial", wopts...).ExpiredSnapshots
			for i := range 60 {
				res := writeRows(t, tbl, pkft.Insert, i*100, i*100+100, "update "+strconv.Itoa(i), wopts...)
				expired += res.ExpiredSnapshots
			}
			ids := snapshotIDs(t, tbl)
			latest := ids[len(ids)-1]
			if latest < 61 {
				t.Fatalf("latest snapshot %d after 61 commits", latest)
			}
			want := tc.want
			if want == 0 {
				want = int(latest)
			}
			if len(ids) != want {
				t.Fatalf("%d snapshots remain (%v), want %d", len(ids), ids, want)
			}
			if int(latest)-len(ids) != expired {
				t.Errorf("writes reported %d expired snapshots, %d are gone", expired, int(latest)-len(ids))
			}
			if ids[0] != latest-int64(want)+1 {
				t.Errorf("snapshots %v are not the latest %d", ids, want)
			}
			hint, err := os.ReadFile(filepath.Join(tbl.Path(), "snapshot", "EARLIEST"))
			if err != nil {
				t.Fatal(err)
			}
			if string(hint) != strconv.FormatInt(ids[0], 10) {
				t.Errorf("EARLIEST hint %q, want %d", hint, ids[0])
			}
			checkNoUnreferencedFile(t, tbl.Path())
			rows := scanCount(t, tbl)
			if rows != 10_000 {
				t.Errorf("the table reads %d rows, want 10000", rows)
			}
		})
	}
}

// scanCount counts the rows a scan of the latest snapshot returns.
func scanCount(t *testing.T, tbl *pkft.Table) int {
	t.Helper()
	rr, err := tbl.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	n := 0
	for rr.Next() {
		n += int(rr.RecordBatch().NumRows())
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestExpireTimeRetained: ExpireSnapshots with an older-than time expires exactly the snapshots
// whose successor was committed before it, down to retain-min.
func TestExpireTimeRetained(t *testing.T) {
	ctx := context.Background()
	tbl := expireTable(t, map[string]string{"write-only": "true"}, false)
	for i := range 6 {
		writeRows(t, tbl, pkft.Insert, i*10, i*10+10, "x")
		time.Sleep(5 * time.Millisecond)
	}
	if got := snapshotIDs(t, tbl); len(got) != 6 {
		t.Fatalf("write-only table: %d snapshots after 6 writes, want 6 (no expiry at commit)", len(got))
	}
	m := snapshot.NewManager(fileio.NewLocal(), tbl.Path(), "")
	s4, err := m.Snapshot(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	// Snapshot 3 expires only when snapshot 4 is older than the bound: a bound at snapshot 4's
	// time keeps 3, one just after it expires 1..3.
	res, err := tbl.ExpireSnapshots(ctx, pkft.WithRetainMin(1), pkft.WithOlderThan(time.UnixMilli(s4.TimeMillis)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Expired != 2 || res.EarliestSnapshotID != 3 {
		t.Fatalf("older than snapshot 4's time: %+v, want 2 expired, earliest 3", res)
	}
	res, err = tbl.ExpireSnapshots(ctx, pkft.WithRetainMin(1), pkft.WithOlderThan(time.UnixMilli(s4.TimeMillis+1)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Expired != 1 || res.EarliestSnapshotID != 4 {
		t.Fatalf("older than snapshot 4's time + 1 ms: %+v, want 1 expired, earliest 4", res)
	}
	if got := snapshotIDs(t, tbl); !slices.Equal(got, []int64{4, 5, 6}) {
		t.Fatalf("snapshots %v, want [4 5 6]", got)
	}
	checkNoUnreferencedFile(t, tbl.Path())
}

// TestExpireLimit: snapshot.expire.limit (and --max-deletes) bounds the snapshots expired at a
// time; retain-max overrides the table's.
func TestExpireLimit(t *testing.T) {
	ctx := context.Background()
	tbl := expireTable(t, map[string]string{"write-only": "true", "snapshot.expire.limit": "3"}, false)
	for i := range 10 {
		writeRows(t, tbl, pkft.Insert, i, i+1, "x")
	}
	now := pkft.WithExpireClock(func() time.Time { return time.Now().Add(2 * time.Hour) })
	res, err := tbl.ExpireSnapshots(ctx, pkft.WithRetainMax(2), pkft.WithRetainMin(2), now)
	if err != nil {
		t.Fatal(err)
	}
	if res.Expired != 3 {
		t.Fatalf("expired %d with snapshot.expire.limit=3, want 3", res.Expired)
	}
	res, err = tbl.ExpireSnapshots(ctx, pkft.WithRetainMax(2), pkft.WithRetainMin(2), pkft.WithMaxDeletes(100), now)
	if err != nil {
		t.Fatal(err)
	}
	if res.Expired != 5 {
		t.Fatalf("expired %d with max deletes 100, want 5", res.Expired)
	}
	if got := snapshotIDs(t, tbl); !slices.Equal(got, []int64{9, 10}) {
		t.Fatalf("snapshots %v, want [9 10]", got)
	}
	if _, err := tbl.ExpireSnapshots(ctx, pkft.WithRetainMax(1), pkft.WithRetainMin(2)); err == nil || !strings.Contains(err.Error(), "retainMax") {
		t.Errorf("retain max below retain min: %v, want a refusal", err)
	}
	checkNoUnreferencedFile(t, tbl.Path())
}

// TestExpireProtectsTagsAndConsumers: a snapshot a consumer still reads is not expired, and the
// data files a tag holds survive the expiry of its snapshot.
func TestExpireProtectsTagsAndConsumers(t *testing.T) {
	ctx := context.Background()
	tbl := expireTable(t, map[string]string{"write-only": "true"}, false)
	for i := range 6 {
		writeRows(t, tbl, pkft.Insert, 0, 5, "round "+strconv.Itoa(i)) // every write replaces the same keys
	}
	// A tag of snapshot 2 (a tag file is the snapshot's JSON) and a consumer at snapshot 4.
	data, err := os.ReadFile(filepath.Join(tbl.Path(), "snapshot", "snapshot-2"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(tbl.Path(), "tag"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tbl.Path(), "tag", "tag-t2"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(tbl.Path(), "consumer"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tbl.Path(), "consumer", "consumer-c1"), []byte(`{"nextSnapshot":4}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tb := table.Open(fileio.NewLocal(), tbl.Path())
	s2, err := tb.Snapshots.Snapshot(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	tagged, err := tb.Read(ctx, s2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tbl.ExpireSnapshots(ctx, pkft.WithRetainMax(1), pkft.WithRetainMin(1), pkft.WithOlderThan(time.Now().Add(time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Expired != 3 || res.EarliestSnapshotID != 4 {
		t.Fatalf("with a consumer at 4: %+v, want 3 expired, earliest 4", res)
	}
	// The tag still reads: its manifests, data files and index files are all there.
	if _, err := tb.Read(ctx, s2); err != nil {
		t.Fatalf("the tag's snapshot no longer reads: %v", err)
	}
	r, err := restore.NewRestorer(ctx, tb)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range tagged.Buckets {
		rb, err := r.RestoreBucket(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range b.DataFiles {
			if _, err := os.Stat(rb.DataPaths.ToPath(f.FileName, "")); err != nil {
				t.Errorf("tagged data file %s deleted: %v", f.FileName, err)
			}
		}
	}
	if err := os.Remove(filepath.Join(tbl.Path(), "consumer", "consumer-c1")); err != nil {
		t.Fatal(err)
	}
	res, err = tbl.ExpireSnapshots(ctx, pkft.WithRetainMax(1), pkft.WithRetainMin(1), pkft.WithOlderThan(time.Now().Add(time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Expired != 2 {
		t.Fatalf("without the consumer: %+v, want 2 expired", res)
	}
	if _, err := tb.Read(ctx, s2); err != nil {
		t.Fatalf("the tag's snapshot no longer reads: %v", err)
	}
}

// TestExpireCleanEmptyDirectories: with snapshot.clean-empty-directories, the bucket and
// partition directories whose files expired are deleted; without it they stay.
func TestExpireCleanEmptyDirectories(t *testing.T) {
	ctx := context.Background()
	for _, clean := range []bool{true, false} {
		t.Run(strconv.FormatBool(clean), func(t *testing.T) {
			tbl := expireTable(t, map[string]string{"write-only": "true", "snapshot.clean-empty-directories": strconv.FormatBool(clean)}, true)
			write := func(kind pkft.RowKind) {
				w, err := tbl.NewWriter(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for i := range 3 {
					if err := w.Write(ctx, kind, []any{"gone", int64(i), "x"}); err != nil {
						t.Fatal(err)
					}
					if err := w.Write(ctx, pkft.Insert, []any{"kept", int64(i), "x"}); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := w.Commit(ctx); err != nil {
					t.Fatal(err)
				}
			}
			write(pkft.Insert)
			write(pkft.Delete)
			// A full compaction drops the deleted rows: partition p=gone has no file left.
			if _, err := tbl.Compact(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := tbl.ExpireSnapshots(ctx, pkft.WithRetainMax(1), pkft.WithRetainMin(1), pkft.WithOlderThan(time.Now().Add(time.Hour))); err != nil {
				t.Fatal(err)
			}
			_, err := os.Stat(filepath.Join(tbl.Path(), "p=gone"))
			if clean && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("clean-empty-directories: p=gone still there (%v)", err)
			}
			if !clean && err != nil {
				t.Errorf("without clean-empty-directories p=gone was deleted: %v", err)
			}
			if _, err := os.Stat(filepath.Join(tbl.Path(), "p=kept", "bucket-0")); err != nil {
				t.Errorf("p=kept/bucket-0: %v", err)
			}
			checkNoUnreferencedFile(t, tbl.Path())
		})
	}
}

// TestExpireDecoupledChangelogRefused: changelog retention above the snapshot retention (a
// lifecycle Java decouples, which pkft does not port) is refused by name: by Create, and, on a
// table whose schema another writer changed, by a writer and by ExpireSnapshots before anything
// is written or deleted. A coupled value is accepted.
func TestExpireDecoupledChangelogRefused(t *testing.T) {
	ctx := context.Background()
	for key, value := range map[string]string{"changelog.num-retained.max": "100", "changelog.time-retained": "2 h", "changelog.num-retained.min": "20"} {
		dir := filepath.Join(t.TempDir(), "t")
		_, err := pkft.Create(ctx, dir, pkft.TableDefinition{
			Columns:     []pkft.ColumnDefinition{{Name: "id", Type: "BIGINT"}, {Name: "v", Type: "STRING"}},
			PrimaryKeys: []string{"id"},
			Options:     map[string]string{"bucket": "1", key: value, "snapshot.num-retained.max": "50"},
		})
		if err == nil || !strings.Contains(err.Error(), key) || !errors.Is(err, pkft.ErrUnsupportedTable) {
			t.Errorf("%s=%s: Create: %v, want a refusal naming it", key, value, err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s=%s: a refused Create left %s (%v)", key, value, dir, err)
		}

		tbl := expireTable(t, map[string]string{"snapshot.num-retained.max": "50", "write-only": "true"}, false)
		for range 3 {
			writeRows(t, tbl, pkft.Insert, 0, 1, "x")
		}
		addSchemaOption(t, tbl.Path(), key, value)
		_, err = tbl.NewWriter(ctx)
		if err == nil || !strings.Contains(err.Error(), key) || !errors.Is(err, pkft.ErrUnsupportedTable) {
			t.Errorf("%s=%s: NewWriter: %v, want a refusal naming it", key, value, err)
		}
		if _, err := tbl.ExpireSnapshots(ctx, pkft.WithRetainMin(1), pkft.WithOlderThan(time.Now().Add(time.Hour))); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s=%s: ExpireSnapshots: %v, want a refusal naming it", key, value, err)
		}
		if ids := snapshotIDs(t, tbl); len(ids) != 3 {
			t.Errorf("%s=%s: snapshots %v after the refusals, want the 3 written", key, value, ids)
		}
	}
	tbl := expireTable(t, map[string]string{"changelog.num-retained.max": "20", "snapshot.num-retained.max": "50"}, false)
	writeRows(t, tbl, pkft.Insert, 0, 1, "x")
}

// addSchemaOption commits the next schema of the table at root with key=value added, as Java's
// SchemaManager commits an option change (no snapshot).
func addSchemaOption(t *testing.T, root, key, value string) {
	t.Helper()
	s, err := table.Open(fileio.NewLocal(), root).LatestSchema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	next := *s
	next.ID = s.ID + 1
	next.Options = map[string]string{key: value}
	for k, v := range s.Options {
		next.Options[k] = v
	}
	next.OptionOrder = append(slices.Clone(s.OptionOrder), key)
	if err := os.WriteFile(filepath.Join(root, "schema", schema.FileName(next.ID)), next.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCreateRefusesRetentionBounds: Create refuses the retention bounds Java's SchemaValidation
// refuses (snapshot.num-retained.min and changelog.num-retained.min at least 1, each not larger
// than its maximum, the changelog's falling back to the snapshot's) with Paimon's rule, naming
// the options, their values and the bound, and not as a limitation of pkft (neither
// ErrUnsupportedTable nor "not supported"); snapshot.expire.limit below 1, which Java accepts,
// is refused as pkft's own limitation, saying so.
func TestCreateRefusesRetentionBounds(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		opts        map[string]string
		unsupported bool
		want        string
	}{
		{map[string]string{"snapshot.num-retained.max": "5"}, false, // min defaults to 10
			"snapshot.num-retained.min should not be larger than snapshot.num-retained.max (snapshot.num-retained.min is 10, its default, snapshot.num-retained.max is 5); Java Paimon's SchemaValidation refuses it too: set snapshot.num-retained.min to at most 5 as well"},
		{map[string]string{"snapshot.num-retained.min": "0"}, false,
			`table option snapshot.num-retained.min = "0": snapshot.num-retained.min should be at least 1; Java Paimon's SchemaValidation refuses it too`},
		{map[string]string{"snapshot.num-retained.max": "0"}, false,
			"snapshot.num-retained.min should not be larger than snapshot.num-retained.max (snapshot.num-retained.min is 10, its default, snapshot.num-retained.max is 0); Java Paimon's SchemaValidation refuses it too: snapshot.num-retained.max must be at least 1, since snapshot.num-retained.min must be"},
		{map[string]string{"changelog.num-retained.min": "0"}, false,
			`table option changelog.num-retained.min = "0": changelog.num-retained.min should be at least 1; Java Paimon's SchemaValidation refuses it too`},
		{map[string]string{"changelog.num-retained.max": "0"}, false,
			"changelog.num-retained.min should not be larger than changelog.num-retained.max (changelog.num-retained.min is 10, the default of snapshot.num-retained.min it falls back to, changelog.num-retained.max is 0); Java Paimon's SchemaValidation refuses it too: changelog.num-retained.max must be at least 1, since changelog.num-retained.min must be"},
		{map[string]string{"snapshot.num-retained.min": "2", "snapshot.num-retained.max": "4", "changelog.num-retained.min": "2", "changelog.num-retained.max": "1"}, false,
			"changelog.num-retained.min should not be larger than changelog.num-retained.max (changelog.num-retained.min is 2, changelog.num-retained.max is 1); Java Paimon's SchemaValidation refuses it too: set changelog.num-retained.min to at most 1 as well"},
		{map[string]string{"snapshot.expire.limit": "0"}, true,
			`table option snapshot.expire.limit = "0": below 1, which Java Paimon accepts (its expiry then expires no snapshot) but pkft's expiry does not implement`},
	} {
		c.opts["bucket"] = "1"
		_, err := pkft.Create(ctx, filepath.Join(t.TempDir(), "t"), pkft.TableDefinition{
			Columns:     []pkft.ColumnDefinition{{Name: "id", Type: "BIGINT"}},
			PrimaryKeys: []string{"id"},
			Options:     c.opts,
		})
		if err == nil || errors.Is(err, pkft.ErrUnsupportedTable) != c.unsupported || !strings.Contains(err.Error(), c.want) ||
			!c.unsupported && strings.Contains(err.Error(), "not supported") {
			t.Errorf("Create with %v: %v\nwant a refusal containing %q (unsupported: %v)", c.opts, err, c.want, c.unsupported)
		}
	}
}

// TestWriteRefusesRetentionAsPaimon: a table whose schema sets snapshot.num-retained.min = 0
// (which no Paimon writes: SchemaValidation refuses it at alteration too) is refused by a write
// and a compaction with Paimon's rule, not as unsupported by the Go writer.
func TestWriteRefusesRetentionAsPaimon(t *testing.T) {
	ctx := context.Background()
	tbl := expireTable(t, nil, false)
	writeRows(t, tbl, pkft.Insert, 0, 1, "x")
	addSchemaOption(t, tbl.Path(), "snapshot.num-retained.min", "0")
	want := `table option snapshot.num-retained.min = "0": snapshot.num-retained.min should be at least 1; Java Paimon's SchemaValidation refuses it too`
	check := func(op string, err error) {
		t.Helper()
		if err == nil || errors.Is(err, pkft.ErrUnsupportedTable) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "not supported") {
			t.Errorf("%s: %v\nwant Paimon's rule %q, not a pkft limitation", op, err, want)
		}
	}
	_, err := tbl.NewWriter(ctx)
	check("NewWriter", err)
	_, err = tbl.Compact(ctx)
	check("Compact", err)
}

// TestExpireAfterCompactAndNotWriteOnly: a compaction expires after its commit as a write does;
// a writer given WithWriteOnly (Java's write-only as a dynamic option) expires nothing.
func TestExpireAfterCompactAndNotWriteOnly(t *testing.T) {
	ctx := context.Background()
	tbl := expireTable(t, nil, false)
	later := pkft.WithClock(func() time.Time { return time.Now().Add(2 * time.Hour) })
	for i := range 8 {
		writeRows(t, tbl, pkft.Insert, i, i+1, "x") // 2 snapshots each (APPEND, COMPACT)
	}
	res := writeRows(t, tbl, pkft.Insert, 100, 101, "x", pkft.WithWriteOnly(), later)
	if res.ExpiredSnapshots != 0 || len(snapshotIDs(t, tbl)) != 17 {
		t.Fatalf("a write-only writer expired %d snapshots (%d left), want none", res.ExpiredSnapshots, len(snapshotIDs(t, tbl)))
	}
	cres, err := tbl.Compact(ctx, later)
	if err != nil {
		t.Fatal(err)
	}
	ids := snapshotIDs(t, tbl)
	if cres.ExpiredSnapshots != 8 || len(ids) != 10 || ids[0] != 9 {
		t.Fatalf("the compaction expired %d, left %v; want 8 expired, snapshots 9-18", cres.ExpiredSnapshots, ids)
	}
	checkNoUnreferencedFile(t, tbl.Path())
}

// TestExpiryKeepsAStrayHintTemp: the temporary file a kill can leave while snapshot/EARLIEST is
// rewritten (snapshot/.EARLIEST.<uuid>.tmp) is kept by later expiries, as Java's are, and
// deleted by the orphan cleaning once older than its threshold, as Java's is.
func TestExpiryKeepsAStrayHintTemp(t *testing.T) {
	ctx := context.Background()
	tbl := expireTable(t, map[string]string{"write-only": "true"}, false)
	for i := range 6 {
		writeRows(t, tbl, pkft.Insert, i, i+1, "x")
	}
	stray := filepath.Join(tbl.Path(), "snapshot", ".EARLIEST.0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11.tmp")
	if err := os.WriteFile(stray, []byte("3"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(stray, old, old); err != nil {
		t.Fatal(err)
	}
	now := pkft.WithExpireClock(func() time.Time { return time.Now().Add(2 * time.Hour) })
	res, err := tbl.ExpireSnapshots(ctx, pkft.WithRetainMax(2), pkft.WithRetainMin(2), now)
	if err != nil {
		t.Fatal(err)
	}
	if res.Expired != 4 {
		t.Fatalf("expired %d, want 4", res.Expired)
	}
	if _, err := os.Stat(stray); err != nil {
		t.Fatalf("the expiry removed the stray hint temporary file: %v", err)
	}
	ores, err := tbl.RemoveOrphanFiles(ctx, pkft.WithOlderThan(time.Now().Add(-24*time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stray); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the orphan cleaning kept %s (deleted %v): %v", stray, ores.Deleted, err)
	}
	if got := snapshotIDs(t, tbl); !slices.Equal(got, []int64{5, 6}) {
		t.Errorf("snapshots %v after the cleaning, want [5 6]", got)
	}
}
