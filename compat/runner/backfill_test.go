package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/table"
)

// backfillWords are the words the backfill cases' rows carry, one per row: a search of a word
// must return exactly the live rows that carry it.
var backfillWords = []string{"heron", "otter", "badger"}

// casesBackfill registers the cases of the index backfill (issue 35): compaction/uncovered (go->java):
// Go creates and writes a table whose rows no archive covers, the coverage says so, and after
// Go's uncovered compaction Java's state is current and Java's search returns every matching
// row; write/index-new-rows (go->java): every write Go makes with WithIndexNewRows is searched
// by Java at the write's commit; maintain/flink-tables/<variant> (java->go->java): `pkft maintain
// --watch` maintains tables Java writes with options of Flink jobs (a changelog producer,
// full-compaction.delta-commits, a user key) and leaves Java's changelog read unchanged.
func casesBackfill(ct *caseTable) {
	gf := groupFixture()
	impls, runners := consumerRunners(ct)
	forProducers(impls, []Role{Writer, Compactor}, gf, groupFixture, func(p string, gf *fixture[*maintainGroup]) {
		ct.add(caseRow{Name: "compaction/uncovered", Direction: as(p, "go->java"), Doc: docCompactionUncovered,
			Sides: []caseSide{side(p, Writer, Compactor, Maintainer), side("java", Consumer)},
			Uses:  []caseUse{serving(gf, writeCommands...), runnerOf(runners, p, "create-table", "write", "compact", "search")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return uncoveredBackfill(ctx, gf.in(ce), ce.runner(p))
			}})
		ct.add(caseRow{Name: "write/index-new-rows", Direction: as(p, "go->java"), Doc: docWriteIndexNewRows,
			Sides: []caseSide{side(p, Writer, Compactor), side("java", Consumer)},
			Uses:  []caseUse{featureOf(runners, p, FeatureIndexNewRows), serving(gf, writeCommands...), runnerOf(runners, p, "create-table", "write", "search")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return indexNewRows(ctx, gf.in(ce), ce.runner(p))
			}})
	})
	for _, v := range flinkVariants() {
		ct.add(caseRow{Name: "maintain/flink-tables/" + v.name, Direction: "java->go->java", Doc: docMaintainFlinkTablesVariant,
			Sides: []caseSide{side("java", Writer, Consumer), side("go", Maintainer)},
			Uses:  []caseUse{serving(gf, append(slices.Clone(writeCommands), "changelog-read")...)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return flinkTable(ctx, gf.in(ce), v)
			}})
	}
}

// backfillTable is a Go-created table of the backfill cases and the model of its live rows
// (id -> content). Go creates, writes and compacts it through its runner goP; tbl is Go's
// in-process handle for its state (Table.State's coverage).
type backfillTable struct {
	path  string
	goP   *Process
	tbl   *pkft.Table
	model map[int64]string
}

// createBackfillTable creates, with Go, a partition-less deletion-vector table of two buckets
// with a full-text index on content.
func createBackfillTable(ctx context.Context, g *maintainGroup, goP *Process, name string) (*backfillTable, error) {
	var created struct {
		Path string `json:"path"`
	}
	if err := goP.Call(ctx, "create-table", map[string]any{"warehouse": filepath.Join(g.dir, "backfill"), "database": "default",
		"table": strings.ReplaceAll(name, "-", "_"), "fields": []field{{"id", "BIGINT NOT NULL"}, {"content", "STRING"}},
		"primaryKeys": []string{"id"}, "partitionKeys": []string{},
		"options": map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", "pk-full-text.index.columns": "content"}}, &created); err != nil {
		return nil, fmt.Errorf("go create-table: %w", err)
	}
	tbl, err := pkft.Open(ctx, created.Path)
	if err != nil {
		return nil, err
	}
	return &backfillTable{path: created.Path, goP: goP, tbl: tbl, model: map[int64]string{}}, nil
}

// write commits, with Go, n new rows from id first, updates of up to update live rows (a new
// word) and deletes of up to del others, chosen by seed.
func (b *backfillTable) write(ctx context.Context, seed uint64, first, n int64, update, del int, indexNewRows bool) error {
	r := rand.New(rand.NewPCG(seed, 35))
	text := func(id int64) string {
		return fmt.Sprintf("%s seen near the river, note %d", backfillWords[r.IntN(len(backfillWords))], id)
	}
	live := slices.Sorted(func(yield func(int64) bool) {
		for id := range b.model {
			if !yield(id) {
				return
			}
		}
	})
	r.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
	changes := map[int64]*string{}
	for id := first; id < first+n; id++ {
		s := text(id)
		changes[id] = &s
	}
	for i, id := range live {
		switch {
		case i < update:
			s := text(id)
			changes[id] = &s
		case i < update+del:
			changes[id] = nil
		}
	}
	var rows []row
	for _, id := range slices.Sorted(maps.Keys(changes)) {
		if s := changes[id]; s == nil {
			rows = append(rows, row{"id": id, "_rowKind": "-D"})
		} else {
			rows = append(rows, row{"id": id, "content": *s})
		}
	}
	args := map[string]any{"path": b.path, "rows": rows}
	if indexNewRows {
		args["indexNewRows"] = true
	}
	if err := b.goP.Call(ctx, "write", args, nil); err != nil {
		return fmt.Errorf("go write: %w", err)
	}
	for id, s := range changes {
		if s == nil {
			delete(b.model, id)
		} else {
			b.model[id] = *s
		}
	}
	return nil
}

// javaFindsEveryRow checks that Java reads exactly the model and that Java's search of each word
// returns exactly the live rows carrying it, in the latest snapshot; it returns the snapshot.
func (b *backfillTable) javaFindsEveryRow(ctx context.Context, g *maintainGroup) (int64, error) {
	rows, err := javaRead(ctx, g.proc, b.path)
	if err != nil {
		return 0, err
	}
	if len(rows) != len(b.model) {
		return 0, fmt.Errorf("Java reads %d rows, the model has %d", len(rows), len(b.model))
	}
	var snapshot int64 = -1
	for _, word := range backfillWords {
		var want []int64
		for id, s := range b.model {
			if firstWord(s) == word {
				want = append(want, id)
			}
		}
		slices.Sort(want)
		var j javaRankedResult
		if err := g.proc.Call(ctx, "search", map[string]any{"path": b.path, "query": word, "limit": 100000, "ranked": true}, &j); err != nil {
			return 0, fmt.Errorf("java search %s: %w", word, err)
		}
		var got []int64
		for _, h := range j.Results {
			id, ok := h.Key["id"].(float64)
			if !ok {
				return 0, fmt.Errorf("java search %s: hit key %v", word, h.Key)
			}
			got = append(got, int64(id))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			return 0, fmt.Errorf("Java's search of %q finds %d rows, %d live rows carry it (missing or extra: %v)", word, len(got), len(want), symmetricDiff(got, want))
		}
		if snapshot >= 0 && j.SnapshotID != snapshot {
			return 0, fmt.Errorf("Java searched snapshots %d and %d", snapshot, j.SnapshotID)
		}
		snapshot = j.SnapshotID
	}
	return snapshot, nil
}

func firstWord(s string) string {
	for i, c := range s {
		if c == ' ' {
			return s[:i]
		}
	}
	return s
}

// symmetricDiff lists up to 10 ids in exactly one of two sorted lists.
func symmetricDiff(a, b []int64) []int64 {
	var out []int64
	for _, id := range a {
		if _, ok := slices.BinarySearch(b, id); !ok {
			out = append(out, id)
		}
	}
	for _, id := range b {
		if _, ok := slices.BinarySearch(a, id); !ok {
			out = append(out, id)
		}
	}
	return out[:min(len(out), 10)]
}

// noUncoveredFiles checks, in Java's dump, that no data file lies on level 0 and none above it
// is APPEND: every file is one an archive covers.
func noUncoveredFiles(d *inspect.Dump) error {
	for _, b := range d.Buckets {
		for _, f := range b.DataFiles {
			if f.Level == 0 || f.FileSource != "COMPACT" {
				return fmt.Errorf("partition %v bucket %d: %s on level %d with source %s", b.Partition, b.Bucket, f.FileName, f.Level, f.FileSource)
			}
		}
	}
	return nil
}

// uncoveredBackfill is compaction/uncovered: Go writes a first batch (moved up unchanged by the
// compaction at commit) and a second of new rows, updates and deletes; Go's coverage counts the
// moved-up rows and Java's search misses rows; Go's uncovered compaction rewrites exactly the
// moved-up files (the files an archive covered stay), after which Java's state is current, Java
// reads and searches every row, Go's searches equal Java's, and a second uncovered compaction
// commits nothing.
func uncoveredBackfill(ctx context.Context, g *maintainGroup, goP *Process) error {
	b, err := createBackfillTable(ctx, g, goP, "uncovered")
	if err != nil {
		return err
	}
	if err := b.write(ctx, 1, 0, 300, 0, 0, false); err != nil {
		return err
	}
	if err := b.write(ctx, 2, 300, 60, 80, 30, false); err != nil {
		return err
	}
	st, err := b.tbl.State(ctx)
	if err != nil {
		return err
	}
	var movedUp int64
	for _, u := range st.Coverage.Uncovered {
		if u.Reason == pkft.UncoveredMovedUp {
			movedUp = u.Rows
		}
	}
	if movedUp < 300 {
		return fmt.Errorf("Go's coverage counts %d moved-up rows (%+v), want at least the first write's 300", movedUp, st.Coverage.Uncovered)
	}
	if _, err := b.javaFindsEveryRow(ctx, g); err == nil {
		return errors.New("before the backfill Java's search already finds every row: the case tests nothing")
	}
	before, err := javaDump(ctx, g.proc, b.path)
	if err != nil {
		return err
	}
	if err := goP.Call(ctx, "compact", map[string]any{"path": b.path, "uncovered": true}, nil); err != nil {
		return fmt.Errorf("go uncovered compaction: %w", err)
	}
	after, err := javaDump(ctx, g.proc, b.path)
	if err != nil {
		return err
	}
	if after.SnapshotID != before.SnapshotID+1 || after.CommitKind != "COMPACT" {
		return fmt.Errorf("the uncovered compaction committed nothing: Java dumps snapshot %d (%s) after %d", after.SnapshotID, after.CommitKind, before.SnapshotID)
	}
	if err := allCurrent(after); err != nil {
		return fmt.Errorf("Java's state after the backfill: %w", err)
	}
	if err := noUncoveredFiles(after); err != nil {
		return fmt.Errorf("after the backfill: %w", err)
	}
	// Exactly the moved-up files were rewritten: every other file stays, and each new file is on
	// the level of a removed one.
	kept, removedLevels := map[string]bool{}, map[int32]bool{}
	for _, bd := range after.Buckets {
		for _, f := range bd.DataFiles {
			kept[f.FileName] = true
		}
	}
	for _, bd := range before.Buckets {
		for _, f := range bd.DataFiles {
			moved := f.Level > 0 && f.FileSource != "COMPACT"
			switch {
			case moved && kept[f.FileName]:
				return fmt.Errorf("moved-up file %s is still there", f.FileName)
			case !moved && !kept[f.FileName]:
				return fmt.Errorf("file %s (level %d, %s) was rewritten though an archive covers it", f.FileName, f.Level, f.FileSource)
			case moved:
				removedLevels[f.Level] = true
			}
		}
	}
	old := map[string]bool{}
	for _, bd := range before.Buckets {
		for _, f := range bd.DataFiles {
			old[f.FileName] = true
		}
	}
	for _, bd := range after.Buckets {
		for _, f := range bd.DataFiles {
			if !old[f.FileName] && !removedLevels[f.Level] {
				return fmt.Errorf("new file %s on level %d, where no moved-up file was", f.FileName, f.Level)
			}
		}
	}
	if snap, err := b.javaFindsEveryRow(ctx, g); err != nil {
		return fmt.Errorf("after the backfill: %w", err)
	} else if snap != after.SnapshotID {
		return fmt.Errorf("Java searched snapshot %d, the backfill committed %d", snap, after.SnapshotID)
	}
	if err := g.sameSearchesVia(ctx, goP, b.path, backfillWords, []int{5, 1000}); err != nil {
		return err
	}
	if err := goP.Call(ctx, "compact", map[string]any{"path": b.path, "uncovered": true}, nil); err != nil {
		return err
	}
	if again, err := javaDump(ctx, g.proc, b.path); err != nil {
		return err
	} else if again.SnapshotID != after.SnapshotID {
		return fmt.Errorf("a second uncovered compaction committed snapshot %d", again.SnapshotID)
	}
	return nil
}

// indexNewRows is write/index-new-rows: Go writes with WithIndexNewRows into an empty table (the
// write whose files the compaction at commit would move up unchanged) and then new rows,
// updates and deletes; after each write Java's search of the write's snapshot returns every
// matching row, Java's state is current and no file is left uncovered.
func indexNewRows(ctx context.Context, g *maintainGroup, goP *Process) error {
	b, err := createBackfillTable(ctx, g, goP, "index-new-rows")
	if err != nil {
		return err
	}
	for round := range 4 {
		update, del := 0, 0
		if round > 0 {
			update, del = 40, 15
		}
		if err := b.write(ctx, uint64(10+round), int64(round*200), 200, update, del, true); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		st, err := b.tbl.State(ctx)
		if err != nil {
			return err
		}
		if st.Coverage.UncoveredRows != 0 {
			return fmt.Errorf("round %d: Go's coverage counts %d uncovered rows: %+v", round, st.Coverage.UncoveredRows, st.Coverage.Uncovered)
		}
		snap, err := b.javaFindsEveryRow(ctx, g)
		if err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		if snap != st.SnapshotID {
			return fmt.Errorf("round %d: Java searched snapshot %d, the write's is %d", round, snap, st.SnapshotID)
		}
		d, err := javaDump(ctx, g.proc, b.path)
		if err != nil {
			return err
		}
		if err := allCurrent(d); err != nil {
			return fmt.Errorf("round %d: Java's state: %w", round, err)
		}
		if err := noUncoveredFiles(d); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
	}
	return g.sameSearchesVia(ctx, goP, b.path, backfillWords, []int{5, 1000})
}

// flinkVariant is one table shape of maintain/flink-tables: options Flink jobs set, which an
// index-only maintenance commit cannot change.
type flinkVariant struct {
	name    string
	options map[string]string
}

func flinkVariants() []flinkVariant {
	return []flinkVariant{
		{"changelog-producer-lookup", map[string]string{"changelog-producer": "lookup"}},
		// Deletion vectors allow no full-compaction changelog producer (Java refuses the table).
		{"full-compaction-delta-commits", map[string]string{"full-compaction.delta-commits": "2"}},
		{"owner", map[string]string{"owner": "team-search"}},
	}
}

// javaChangelog is the runner's changelog-read result.
type javaChangelog struct {
	Snapshots []struct {
		ID         int64            `json:"id"`
		CommitKind string           `json:"commitKind"`
		Rows       []map[string]any `json:"rows"`
	} `json:"snapshots"`
}

// flinkTable is maintain/flink-tables/<variant> (java->go->java): Java creates a two-bucket
// full-text table with deletion vectors and the variant's options and commits eight writes of
// new rows, updates and deletes with its compaction at commit, its writer maintaining no archive
// (the index taken out of its options, as a writer job that leaves the index to a sidecar), so
// the compacted levels lack their archives. `pkft maintain --watch` then maintains the table:
// it catches up, builds archives, and Java's state shows every archive current; Java reads the
// model's rows, and Java's changelog read (every snapshot with a changelog) is what it was
// before the sidecar ran: the index-only commits added no changelog and changed none.
func flinkTable(ctx context.Context, g *maintainGroup, v flinkVariant) error {
	fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content"}
	for k, val := range v.options {
		opts[k] = val
	}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "flink-"+v.name), "flink-"+v.name, fields, []string{"id"}, nil, opts, nil)
	if err != nil {
		return err
	}
	model := map[string]any{}
	for c := range 8 {
		rows := ftTextRows(uint64(700+c), "content", c*40, c*40+40)
		if c > 0 {
			rows = append(rows, row{"id": c - 1, "content": fmt.Sprintf("updated by commit %d river", c)})
			rows = append(rows, row{"id": c*40 - 2, "content": nil, "_rowKind": "-D"})
		}
		if err := g.proc.Call(ctx, "write", map[string]any{"path": path, "rows": rows,
			"dynamicOptions": map[string]any{pkfulltext.ColumnsOption: nil}}, nil); err != nil {
			return fmt.Errorf("commit %d: the Java writer: %w", c, err)
		}
		for _, r := range rows {
			if k := fmt.Sprint(r["id"]); r["_rowKind"] == "-D" {
				delete(model, k)
			} else {
				model[k] = r["content"]
			}
		}
	}
	var before javaChangelog
	if err := g.proc.Call(ctx, "changelog-read", map[string]any{"path": path}, &before); err != nil {
		return fmt.Errorf("java changelog read: %w", err)
	}
	if v.options["changelog-producer"] != "" && len(before.Snapshots) == 0 {
		return fmt.Errorf("the %s table has no changelog: the case tests nothing", v.options["changelog-producer"])
	}
	d, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	if allCurrent(d) == nil {
		return errors.New("every archive is current before the sidecar ran: the case tests nothing")
	}
	tbl := table.Open(fileio.NewLocal(), path)
	latest, _, err := tbl.Snapshots.LatestID(ctx)
	if err != nil {
		return err
	}
	side, err := startSidecar(ctx, path, 100*time.Millisecond)
	if err != nil {
		return err
	}
	defer side.cmd.Process.Kill()
	start := time.Now()
	var m map[string]float64
	for {
		if m, err = side.metrics(ctx); err != nil {
			return err
		}
		if m["pkft_watch_snapshots_behind"] == 0 && m["pkft_watch_round_in_progress"] == 0 && m["pkft_watch_latest_snapshot_id"] > float64(latest) {
			break
		}
		if time.Since(start) > sidecarCatchUp {
			return fmt.Errorf("the sidecar did not maintain the table within %v: metrics %v\n%s", sidecarCatchUp, m, side.output())
		}
		select {
		case err := <-side.exited:
			return fmt.Errorf("the sidecar exited: %v\n%s", err, side.output())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	if m["pkft_watch_archives_built_total"] == 0 {
		return fmt.Errorf("the sidecar built no archive: metrics %v", m)
	}
	if err := side.stop(30 * time.Second); err != nil {
		return err
	}
	j, err := g.latestState(ctx, tbl, path)
	if err != nil {
		return err
	}
	if err := allCurrent(j); err != nil {
		return fmt.Errorf("Java's state after the sidecar: %w", err)
	}
	got, err := javaKeys(ctx, g, path)
	if err != nil {
		return err
	}
	if diff := cmp.Diff(model, got); diff != "" {
		return fmt.Errorf("Java reads (-model +got):\n%s", diff)
	}
	var after javaChangelog
	if err := g.proc.Call(ctx, "changelog-read", map[string]any{"path": path}, &after); err != nil {
		return fmt.Errorf("java changelog read after the sidecar: %w", err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		return fmt.Errorf("Java's changelog read changed (-before +after):\n%s", diff)
	}
	return nil
}

// docCompactionUncovered describes compaction/uncovered.
const docCompactionUncovered = "Go creates the same table and writes a first batch (moved up unchanged) and a second of " +
	"new rows, updates and deletes: Go's coverage counts the moved-up rows and Java's search " +
	"misses rows. Go's `WithUncoveredCompaction` (the Go runner's `compact` with `uncovered`) then rewrites exactly the moved-up files " +
	"(every other file stays, every new file is on a level a moved-up file was on); Java's " +
	"state of the COMPACT snapshot is current with no APPEND file left above level 0, Java's " +
	"search returns exactly the live rows carrying each word, Go's searches equal Java's, and a" +
	" second uncovered compaction commits nothing."

// docWriteIndexNewRows describes write/index-new-rows.
const docWriteIndexNewRows = "Go, through its runner (`create-table`, `write` with `indexNewRows`), creates a two-bucket " +
	"full-text table with deletion vectors and makes four writes with " +
	"`WithIndexNewRows` (the first into the empty table, whose files the compaction at commit " +
	"would otherwise move up unchanged; then new rows, updates and deletes): after each commit " +
	"Go's coverage counts no uncovered row, Java reads the model's rows, Java's search of the " +
	"write's snapshot returns exactly the live rows carrying each word, Java's state shows " +
	"every archive current and no data file is on level 0 or APPEND above it; Go's searches " +
	"equal Java's."

// docMaintainFlinkTablesVariant describes maintain/flink-tables/<variant>.
const docMaintainFlinkTablesVariant = "Java creates two-bucket full-text tables with deletion vectors and options of Flink jobs " +
	"(`changelog-producer = lookup`; `full-compaction.delta-commits = 2`; the user key `owner =" +
	" team-search`) and commits eight writes of new rows, updates and deletes with its " +
	"compaction at commit, its writer maintaining no archive (the index taken out of its " +
	"options); then `pkft maintain --watch` runs until it has caught up and built archives: " +
	"Java's state shows every archive current, Java reads the model's rows, and Java's " +
	"changelog read (runner command `changelog-read`: every snapshot with a changelog, in " +
	"`ScanMode.CHANGELOG`) equals the one before the sidecar ran (the lookup table must have a " +
	"changelog)."
