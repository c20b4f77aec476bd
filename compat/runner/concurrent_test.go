package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
)

// rowsInBucket returns n rows of an (id INT, content STRING) table, ids from start on, whose
// bucket is bucket (by Go's bucket function, checked against Java's by bucket/hash).
func rowsInBucket(tbl *table.Table, ctx context.Context, bucket, start, n int, seed uint64) ([]row, error) {
	sch, err := tbl.LatestSchema(ctx)
	if err != nil {
		return nil, err
	}
	var out []row
	for id := start; len(out) < n; id++ {
		b, err := tableops.BucketOf(sch, []any{int32(id), "x"})
		if err != nil {
			return nil, err
		}
		if b == bucket {
			r := ftTextRows(seed, "content", id-start, id-start+1)[0]
			r["id"] = id
			out = append(out, r)
		}
	}
	return out, nil
}

// javaKeys reads the table with Java and returns its rows by id.
func javaKeys(ctx context.Context, g *maintainGroup, path string) (map[string]any, error) {
	rows, err := javaRead(ctx, g.proc, path)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, r := range rows {
		id := fmt.Sprint(r["id"])
		if f, ok := r["id"].(float64); ok {
			id = strconv.FormatFloat(f, 'f', -1, 64)
		}
		out[id] = r["content"]
	}
	return out, nil
}

// compactReplans is table/concurrent-commit/compact-replans (java+go): Go fully compacts a
// 16-bucket full-text table; held just before publishing, Java commits twice into one bucket (a
// write of new keys with a full compaction of that bucket, then updates of old keys). Go must compact that bucket
// again from the new snapshot (and no other), commit the compaction of all 16 buckets in one
// COMPACT snapshot, keep every row of both sides, leave nothing it generated unreferenced, and
// Java's state must show every archive current.
func (g *maintainGroup) compactReplans(ctx context.Context) error {
	const buckets = 16
	fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	// Java writes with write-only (no compaction): every bucket has level-0 files to compact;
	// then write-only is removed, so that Java's concurrent writer compacts as usual.
	opts := map[string]string{"bucket": fmt.Sprint(buckets), "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content",
		"write-only": "true"}
	steps := []tableStep{{rows: ftTextRows(701, "content", 0, 400)}, {rows: ftTextRows(702, "content", 200, 600)},
		{alter: map[string]any{"removeOptions": []string{"write-only"}}}}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "concurrent", "compact-replans"), "concurrent-compact-replans",
		fields, []string{"id"}, nil, opts, steps)
	if err != nil {
		return err
	}
	tbl := table.Open(fileio.NewLocal(), path)
	// The model: the steps' rows, later ones replacing earlier ones (a reader of a table with
	// deletion vectors does not see level-0 files yet, so it is not read from Java).
	before := map[string]any{}
	for _, st := range steps {
		for _, r := range st.rows {
			before[fmt.Sprint(r["id"])] = r["content"]
		}
	}
	base, err := tbl.Latest(ctx)
	if err != nil {
		return err
	}
	baseContents, err := tbl.Read(ctx, base)
	if err != nil {
		return err
	}
	if len(baseContents.Buckets) != buckets {
		return fmt.Errorf("the table has %d buckets with files, want %d", len(baseContents.Buckets), buckets)
	}
	baseFiles := map[string]bool{}
	for _, e := range baseContents.Entries {
		baseFiles[e.File.FileName] = true
	}
	const target = 5
	// New keys written with a compaction of the bucket, then updates of old keys of the bucket
	// (deletion vectors on the compacted file): the bucket has something to compact again.
	javaRows, err := rowsInBucket(tbl, ctx, target, 10_000, 5, 703)
	if err != nil {
		return err
	}
	updates, err := rowsInBucket(tbl, ctx, target, 0, 3, 704)
	if err != nil {
		return err
	}
	javaRows = append(javaRows, updates...)
	l0, err := listFiles(path)
	if err != nil {
		return err
	}
	var l1, l2 map[string]bool
	calls := 0
	hook := func(ctx context.Context, next *snapshot.Snapshot) error {
		if calls++; calls > 1 {
			return nil
		}
		var err error
		if l1, err = listFiles(path); err != nil {
			return err
		}
		if err := g.proc.Call(ctx, "write", map[string]any{"path": path, "rows": javaRows[:5], "compactBucket": target}, nil); err != nil {
			return fmt.Errorf("Java's write with a compaction of bucket %d: %w", target, err)
		}
		if err := g.proc.Call(ctx, "write", map[string]any{"path": path, "rows": javaRows[5:]}, nil); err != nil {
			return fmt.Errorf("Java's write to bucket %d: %w", target, err)
		}
		l2, err = listFiles(path)
		return err
	}
	res, err := tableops.Compact(ctx, tbl, g.engine, tableops.WithParallelism(2), tableops.WithBeforePublish(hook))
	if err != nil {
		return fmt.Errorf("go compact: %w", err)
	}
	if l2 == nil {
		return errors.New("Go never reached publication")
	}
	if res.Snapshot == nil || res.Snapshot.CommitKind != snapshot.CommitCompact {
		return fmt.Errorf("Go committed %+v, want a COMPACT snapshot", res.Snapshot)
	}
	if res.Commit.Conflicts != 1 || res.Commit.Replans != 1 {
		return fmt.Errorf("Go's compaction went through %+v, want one conflict and one bucket compacted again", res.Commit)
	}
	if len(res.Buckets) != buckets {
		return fmt.Errorf("Go committed the compaction of %d buckets, want %d", len(res.Buckets), buckets)
	}
	for _, b := range res.Buckets {
		javaInput := slices.ContainsFunc(b.Before, func(f *meta.DataFileMeta) bool { return !baseFiles[f.FileName] })
		if javaInput != (b.Bucket == target) {
			return fmt.Errorf("bucket %d: compacted Java's concurrent files = %v (Java committed into bucket %d)", b.Bucket, javaInput, target)
		}
	}
	// The COMPACT snapshot's delta manifests change all 16 buckets.
	committed, err := tbl.Read(ctx, res.Snapshot)
	if err != nil {
		return err
	}
	touched := map[int32]bool{}
	for _, m := range committed.DeltaManifests {
		entries, err := tbl.ReadManifest(ctx, m.FileName)
		if err != nil {
			return err
		}
		for _, e := range entries {
			touched[e.Bucket] = true
		}
	}
	if len(touched) != buckets {
		return fmt.Errorf("Go's COMPACT snapshot %d changes %d buckets, want %d", res.Snapshot.ID, len(touched), buckets)
	}
	if err := noGoLeaks(ctx, tbl, path, l0, l1, l2); err != nil {
		return err
	}
	after, err := javaKeys(ctx, g, path)
	if err != nil {
		return err
	}
	for _, r := range javaRows {
		before[fmt.Sprint(r["id"])] = r["content"]
	}
	if d := cmp.Diff(before, after); d != "" {
		return fmt.Errorf("Java reads (-want +got):\n%s", d)
	}
	j, err := g.sameState(ctx, path, res.Snapshot.ID)
	if err != nil {
		return err
	}
	if err := allCurrent(j); err != nil {
		return fmt.Errorf("Java's state after Go's compaction: %w", err)
	}
	report.AddNote(fmt.Sprintf("table/concurrent-commit/compact-replans: %d buckets in COMPACT snapshot %d, %d conflict(s), %d bucket(s) re-planned, %d attempt(s)",
		len(res.Buckets), res.Snapshot.ID, res.Commit.Conflicts, res.Commit.Replans, res.Commit.Attempts))
	return nil
}

// pkftCommandEnv names a pkft command built already, which pkftCLI then returns instead of
// building one (the conformance image, which has no Go toolchain, sets it).
const pkftCommandEnv = "PKFT_COMMAND"

// pkftCLI builds the pkft command once per test binary (or takes $PKFT_COMMAND) and returns its path.
var pkftCLI = sync.OnceValues(func() (string, error) {
	if bin := os.Getenv(pkftCommandEnv); bin != "" {
		return bin, nil
	}
	dir, err := os.MkdirTemp("", "pkft-cli-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "pkft")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return "", err
	}
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, "./tools/pkft")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the pkft command: %w\n%s", err, out)
	}
	return bin, nil
})

// runPKFT runs the pkft command with args and returns its standard output.
func runPKFT(ctx context.Context, args ...string) ([]byte, error) {
	bin, err := pkftCLI()
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("pkft %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// waitForFile waits until path exists, or done delivers (the other side failed), or ctx ends.
func waitForFile(ctx context.Context, path string, done <-chan error) error {
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		select {
		case err := <-done:
			return fmt.Errorf("the Java writer ended before %s appeared: %v", filepath.Base(path), err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// duplicateArchives is table/concurrent-commit/duplicate-archives (java+go): a Java writer is
// restored (by its writes) on a table whose levels lack archives; then Go's Maintain commits
// every level's archive; then the Java writer prepares its commit, its maintainers build the
// same levels' archives again (from the state they restored) and it commits them, since Java's
// commit checks no index files. Every such level now has two candidate archives, all stale by
// Java's state: `pkft state` must classify them exactly as Java does and name the reason,
// `pkft maintain` must repair them in one commit, and Java's state must then show every level
// current.
func (g *maintainGroup) duplicateArchives(ctx context.Context, goP *Process) error {
	path, err := g.concurrentTable(ctx, "duplicate-archives")
	if err != nil {
		return err
	}
	// The Java writer must not compact (its level-0 file would change no level Go indexed).
	if err := g.proc.Call(ctx, "alter-table", map[string]any{"path": path, "setOptions": map[string]string{"write-only": "true"}}, nil); err != nil {
		return err
	}
	tbl := table.Open(fileio.NewLocal(), path)
	syncDir := filepath.Join(g.dir, "concurrent", "duplicate-archives-sync")
	if err := os.MkdirAll(syncDir, 0o755); err != nil {
		return err
	}
	ready, resume := filepath.Join(syncDir, "java-restored"), filepath.Join(syncDir, "go-maintained")
	done := make(chan error, 1)
	go func() {
		done <- g.proc.Call(ctx, "write", map[string]any{"path": path, "rows": ftTextRows(606, "content", 2000, 2012),
			"readyFile": ready, "awaitFile": resume}, nil)
	}()
	if err := waitForFile(ctx, ready, done); err != nil {
		return err
	}
	var res maintained
	if err := goP.Call(ctx, "maintain", map[string]any{"path": path}, &res); err != nil {
		_ = os.WriteFile(resume, nil, 0o644)
		<-done
		return fmt.Errorf("go maintain: %w", err)
	}
	if err := os.WriteFile(resume, nil, 0o644); err != nil {
		return err
	}
	if err := <-done; err != nil {
		return fmt.Errorf("Java's write: %w", err)
	}
	if res.committed() == 0 {
		return errors.New("Go's Maintain committed nothing: no level lacked an archive")
	}
	latest, err := tbl.Latest(ctx)
	if err != nil {
		return err
	}
	if latest.ID != res.committed()+1 {
		return fmt.Errorf("latest snapshot %d, want Java's commit after Go's %d", latest.ID, res.committed())
	}
	// Go's state (pkft state) names the duplicated levels; its classification is Java's.
	out, err := runPKFT(ctx, "state", path, "--json")
	if err != nil {
		return err
	}
	var state struct {
		Buckets []struct {
			Bucket int32              `json:"bucket"`
			State  *inspect.StateDump `json:"state"`
		} `json:"buckets"`
	}
	if err := json.Unmarshal(out, &state); err != nil {
		return fmt.Errorf("decode pkft state: %w", err)
	}
	jd, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	javaStale := map[int32][]string{}
	for _, b := range jd.Buckets {
		if b.State != nil {
			javaStale[b.Bucket] = b.State.Stale
		}
	}
	duplicated := 0
	for _, b := range state.Buckets {
		if b.State == nil {
			return fmt.Errorf("bucket %d: pkft state has no full-text state", b.Bucket)
		}
		if !slices.Equal(b.State.Stale, javaStale[b.Bucket]) {
			return fmt.Errorf("bucket %d: stale archives by pkft state %v, by Java %v", b.Bucket, b.State.Stale, javaStale[b.Bucket])
		}
		for _, d := range b.State.Duplicates {
			if d.Reason != pkfulltext.DuplicateArchivesReason || len(d.Archives) < 2 {
				return fmt.Errorf("bucket %d level %d: duplicates %+v", b.Bucket, d.Level, d)
			}
			for _, a := range d.Archives {
				if !slices.Contains(javaStale[b.Bucket], a) {
					return fmt.Errorf("bucket %d: duplicate archive %s is not stale by Java's state", b.Bucket, a)
				}
			}
			duplicated++
		}
	}
	if duplicated == 0 {
		return fmt.Errorf("no level has duplicate archives after Java's commit (pkft state: %s)", out)
	}
	if !strings.Contains(string(out), pkfulltext.DuplicateArchivesReason) {
		return errors.New("pkft state does not name the reason")
	}
	// The maintenance plan names the same levels.
	_, plans, err := tableops.PlanMaintenance(ctx, tbl)
	if err != nil {
		return err
	}
	planned := 0
	for _, p := range plans {
		planned += len(p.DuplicateLevels)
	}
	if planned != duplicated {
		return fmt.Errorf("the maintenance plan names %d levels with duplicate archives, pkft state %d", planned, duplicated)
	}
	// pkft maintain repairs every level in one commit; Java's state shows them current.
	if _, err := runPKFT(ctx, "maintain", path); err != nil {
		return err
	}
	repaired, err := tbl.Latest(ctx)
	if err != nil {
		return err
	}
	if repaired.ID != latest.ID+1 {
		return fmt.Errorf("pkft maintain left snapshot %d, want one commit after %d", repaired.ID, latest.ID)
	}
	j, err := g.sameState(ctx, path, repaired.ID)
	if err != nil {
		return err
	}
	if err := allCurrent(j); err != nil {
		return fmt.Errorf("Java's state after pkft maintain: %w", err)
	}
	report.AddNote(fmt.Sprintf("table/concurrent-commit/duplicate-archives: %d level(s) with duplicate archives, repaired by one pkft maintain", duplicated))
	return nil
}

// onlyJavaOrphans checks that every file under path that no snapshot references is metadata of
// a lost Java commit attempt (FileStoreCommitImpl keeps an attempt's manifests when it loses the
// race for the snapshot id, to retry with them), and returns how many there are. Go commits use
// commit users starting with "go-"; a commit names its metadata files with the uuid of its path
// factory, so the files of a Java commit's attempts carry the uuid of the manifest lists of its
// committed snapshot. Any other unreferenced file (data, index, or metadata of another uuid) is
// Go's and fails the check.
func onlyJavaOrphans(ctx context.Context, tbl *table.Table, path string) (int, error) {
	refs, err := referenced(ctx, tbl)
	if err != nil {
		return 0, err
	}
	ids, err := tbl.Snapshots.IDs(ctx)
	if err != nil {
		return 0, err
	}
	javaUUIDs := map[string]bool{}
	for _, id := range ids {
		s, err := tbl.Snapshots.Snapshot(ctx, id)
		if err != nil {
			return 0, err
		}
		if strings.HasPrefix(s.CommitUser, "go-") {
			continue
		}
		// Java names manifests, manifest lists and index manifests with path factories of their
		// own: collect the uuid of each kind the snapshot wrote.
		javaUUIDs[metadataUUID(s.BaseManifestList)] = true
		if s.IndexManifest != nil {
			javaUUIDs[metadataUUID(*s.IndexManifest)] = true
		}
		c, err := tbl.Read(ctx, s)
		if err != nil {
			return 0, err
		}
		for _, m := range c.DeltaManifests {
			javaUUIDs[metadataUUID(m.FileName)] = true
		}
	}
	files, err := listFiles(path)
	if err != nil {
		return 0, err
	}
	var leaked []string
	java := 0
	for f := range files {
		base := filepath.Base(f)
		if base == "LATEST" || base == "EARLIEST" || refs[base] || strings.HasPrefix(f, "schema/") {
			continue
		}
		if strings.HasPrefix(f, "manifest/") && javaUUIDs[metadataUUID(base)] {
			java++
			continue
		}
		leaked = append(leaked, f)
	}
	slices.Sort(leaked)
	if len(leaked) > 0 {
		return 0, fmt.Errorf("files Go generated and no snapshot references: %v", leaked)
	}
	return java, nil
}

// metadataUUID is the path factory uuid in a metadata file name ({prefix}{uuid}-{N}).
func metadataUUID(name string) string {
	for _, p := range []string{"manifest-list-", "index-manifest-", "manifest-"} {
		if rest, ok := strings.CutPrefix(name, p); ok && len(rest) >= 36 {
			return rest[:36]
		}
	}
	return ""
}

// realProcessRounds is the number of rounds of table/concurrent-commit/real-processes.
const realProcessRounds = 30

// processCommit is the commit part of a pkft --json result.
type processCommit struct {
	SnapshotID int64                `json:"snapshotId"`
	Commit     tableops.CommitStats `json:"commit"`
}

// pkftCommit runs a committing pkft command with --json and decodes its result. A run that fails
// with a commit conflict returns conflict true and no error; any other failure is an error.
func pkftCommit(ctx context.Context, stdin []byte, args ...string) (res processCommit, conflict bool, err error) {
	bin, err := pkftCLI()
	if err != nil {
		return res, false, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, append(args, "--json")...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if strings.Contains(stderr.String(), tableops.ErrCommitConflict.Error()) {
			return res, true, nil
		}
		return res, false, fmt.Errorf("pkft %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return res, false, fmt.Errorf("pkft %s: decode %q: %w", args[0], stdout.String(), err)
	}
	return res, false, nil
}

// realProcesses is table/concurrent-commit/real-processes (go+java): for realProcessRounds
// rounds, two `pkft write` processes, one `pkft compact` process and a Java writer commit to one
// full-text table at the same time. Each writer owns its keys (inserts, updates and deletes of
// them), so the expected table is the model of the writes that reported success. After the
// rounds a final `pkft compact` makes every row visible to Java's reader (deletion vectors) and
// a final `pkft maintain` repairs what concurrent maintainers left; then Java must read exactly
// the model, no file may be unreferenced by every snapshot, and Java's state must show every
// archive current. The Java writer runs with write-only (no compaction of its own): its
// compactions would conflict with Go's and fail its commit, leaving its own files behind, which
// would hide whether Go left any.
func (g *maintainGroup) realProcesses(ctx context.Context, rounds int) error {
	fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	opts := map[string]string{"bucket": "4", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content"}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "concurrent", "real-processes"), "concurrent-real-processes",
		fields, []string{"id"}, nil, opts, []tableStep{{rows: ftTextRows(801, "content", 0, 200)}, {}})
	if err != nil {
		return err
	}
	if _, err := pkftCLI(); err != nil {
		return err
	}
	model := map[string]any{}
	for _, r := range ftTextRows(801, "content", 0, 200) {
		model[fmt.Sprint(r["id"])] = r["content"]
	}
	// writerRows returns one round's rows of writer w: new keys, updates and a delete of its
	// earlier keys.
	writerRows := func(w, round int) []row {
		base := (w + 1) * 1_000_000
		var rows []row
		for i := 0; i < 6; i++ {
			id := base + round*10 + i
			rows = append(rows, row{"id": id, "content": fmt.Sprintf("writer %d round %d key %d paimon", w, round, id)})
		}
		if round > 0 {
			rows = append(rows, row{"id": base + (round-1)*10, "content": fmt.Sprintf("writer %d round %d update", w, round)})
			rows = append(rows, row{"id": base + (round-1)*10 + 1, "content": nil, "_rowKind": "-D"})
		}
		return rows
	}
	apply := func(rows []row) {
		for _, r := range rows {
			k := fmt.Sprint(r["id"])
			if r["_rowKind"] == "-D" {
				delete(model, k)
			} else {
				model[k] = r["content"]
			}
		}
	}
	var totals struct {
		commits, conflicts, failures, replaced, replans, attempts int
		javaCommits                                               int
	}
	add := func(res processCommit, conflict bool) {
		if conflict {
			totals.failures++
			return
		}
		if res.SnapshotID > 0 {
			totals.commits++
		}
		totals.conflicts += res.Commit.Conflicts
		totals.replaced += res.Commit.Replaced
		totals.replans += res.Commit.Replans
		totals.attempts += res.Commit.Attempts
	}
	for round := 0; round < rounds; round++ {
		type outcome struct {
			res      processCommit
			conflict bool
			err      error
		}
		var wg sync.WaitGroup
		outs := make([]outcome, 3)
		rows := [3][]row{writerRows(0, round), writerRows(1, round), writerRows(2, round)}
		for w := 0; w < 2; w++ {
			var in bytes.Buffer
			for _, r := range rows[w] {
				line, err := json.Marshal(r)
				if err != nil {
					return err
				}
				in.Write(append(line, '\n'))
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				o := &outs[w]
				o.res, o.conflict, o.err = pkftCommit(ctx, in.Bytes(), "write", path, "--commit-user", fmt.Sprintf("go-writer-%d", w))
			}()
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			o := &outs[2]
			o.res, o.conflict, o.err = pkftCommit(ctx, nil, "compact", path, "--commit-user", "go-compact")
		}()
		var javaErr error
		go func() {
			defer wg.Done()
			javaErr = g.proc.Call(ctx, "write", map[string]any{"path": path, "rows": rows[2],
				"dynamicOptions": map[string]string{"write-only": "true"}}, nil)
		}()
		wg.Wait()
		if javaErr != nil {
			return fmt.Errorf("round %d: the Java writer: %w", round, javaErr)
		}
		totals.javaCommits++
		apply(rows[2])
		for w, o := range outs {
			if o.err != nil {
				return fmt.Errorf("round %d: %w", round, o.err)
			}
			add(o.res, o.conflict)
			if w < 2 && !o.conflict {
				apply(rows[w])
			}
		}
	}
	// Final compaction (rows on level 0 are invisible to a reader of a table with deletion
	// vectors) and maintenance.
	if _, conflict, err := pkftCommit(ctx, nil, "compact", path, "--commit-user", "go-compact"); err != nil || conflict {
		return fmt.Errorf("final compaction: conflict %v, %v", conflict, err)
	}
	if _, err := runPKFT(ctx, "maintain", path, "--commit-user", "go-maintain"); err != nil {
		return err
	}
	got, err := javaKeys(ctx, g, path)
	if err != nil {
		return err
	}
	if d := cmp.Diff(model, got); d != "" {
		return fmt.Errorf("Java reads (-model +got):\n%s", d)
	}
	tbl := table.Open(fileio.NewLocal(), path)
	javaOrphans, err := onlyJavaOrphans(ctx, tbl, path)
	if err != nil {
		return err
	}
	j, err := g.latestState(ctx, tbl, path)
	if err != nil {
		return err
	}
	if err := allCurrent(j); err != nil {
		return fmt.Errorf("Java's state after the final maintain: %w", err)
	}
	report.AddNote(fmt.Sprintf("table/concurrent-commit/real-processes: %d rounds; Go: %d commits in %d publication attempts, %d conflicts (%d replaced snapshots), %d buckets re-planned, %d runs failed with a commit conflict; Java: %d commits, %d metadata files of its lost attempts left in place",
		rounds, totals.commits, totals.attempts, totals.conflicts, totals.replaced, totals.replans, totals.failures, totals.javaCommits, javaOrphans))
	return nil
}
