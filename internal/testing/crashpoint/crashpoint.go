// Package crashpoint is the crash-point harness of the table-writing operations (test-only): it
// runs an operation on a fresh copy of a table through a faultio.FS armed at one injection point
// and checks what a crash or a failure there leaves behind:
//
//	(a) the table reads, and its dump (data and index files, full-text state and plan) is exactly
//	    the one of the last committed snapshot: the table before the operation, or after it when
//	    the point came after the snapshot was published;
//	(b) no snapshot names a missing file (manifest lists, manifests, index manifest, data, index
//	    and statistics files, with their recorded sizes);
//	(c) the full-text state of every bucket is computable (the logic of `pkft state`);
//	(d) a retry of the operation without faults succeeds and ends in the table a fault-free run
//	    produces, up to the names of new files;
//	(e) every file the faulted run left that no snapshot references (an orphan) is one Paimon's
//	    orphan-file cleaning would remove (manifest/, index/, statistics/, bucket directories, and
//	    non-snapshot files of snapshot/); a failure that is not a crash leaves none, unless the
//	    injected fault hit the cleanup itself (a failed delete, or FailNoCleanup).
//
// It also checks that no file that existed before the operation was deleted or changed. Java's
// view of the faulted tables is checked by the conformance case faults/<operation>, which runs the
// same harness and keeps each case's table for the Java runner.
package crashpoint

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/faultio"
)

// Operation is one table-writing operation under test.
type Operation struct {
	// Name names the operation in reports ("rewrite-metadata", "maintain", ...).
	Name string
	// Setup creates the table the operation runs on in dir (a fresh empty directory) and returns
	// its root.
	Setup func(dir string) (string, error)
	// Run runs the operation once on the table at root through fio.
	Run func(ctx context.Context, fio fileio.FileIO, root string) error
	// NotIdempotent marks an operation whose second run after a committed first one changes the
	// table again (a write adds its rows again); its retry (d) runs only when the faulted run did
	// not commit, as a Java writer retries only a commit that is not in the table
	// (FileStoreCommitImpl#filterCommitted).
	NotIdempotent bool
	// Deletes marks an operation that deletes files existing before it (orphan-file removal):
	// a faulted run may delete those a fault-free run deletes, and only those, and its retry
	// must delete the rest of them.
	Deletes bool
	// WantDeleted, when set, returns exactly the files (relative to the root, after Setup) a
	// fault-free run of a Deletes operation must delete; the reference run is checked against it.
	WantDeleted func() []string
	// Expires marks an operation that expires snapshots (it commits none and deletes files).
	// It is also a Deletes operation. Its checks differ: (b) holds for the snapshots the
	// fault-free run retains (a kill during an expiry leaves the snapshots it was expiring on
	// disk, naming files it already deleted, as Java's ExpireSnapshotsImpl does, until the next
	// expiry finishes), and the retry (d) ends with the snapshots of the fault-free run.
	Expires bool
}

// Modes are the injection modes every operation is driven through.
var Modes = []faultio.Mode{faultio.Fail, faultio.FailAfter, faultio.Crash, faultio.FailNoCleanup}

// Reference is the outcome of a fault-free run.
type Reference struct {
	// Before and After are the normalized dumps before and after the operation.
	Before, After string
	// BeforeID and AfterID are the latest snapshot ids before and after.
	BeforeID, AfterID int64
	// Steps are the normalized dumps of the snapshots the operation committed before its last
	// one, by id (a write's APPEND snapshot before the COMPACT snapshot of its compaction at
	// commit, as Java's FileStoreCommitImpl commits them one after the other).
	Steps map[int64]string
	// Counts are the file operations the run made.
	Counts faultio.Counts
	// Deleted are the files existing before that the run deleted (relative to the root).
	Deleted map[string]bool
	// Snapshots are the snapshot ids on disk after the run (for Operation.Expires).
	Snapshots []int64
}

// Case is the outcome of one injection point.
type Case struct {
	Point faultio.Point
	// Err is the faulted operation's error (nil when it completed despite the fault).
	Err error
	// Committed reports that the faulted run's snapshot is the latest one.
	Committed bool
	// Partial reports that the faulted run committed one of its snapshots but not its last one
	// (the table is that of Reference.Steps); the operation must then have failed.
	Partial bool
	// Orphans are the files the faulted run left that no snapshot references, relative to the
	// table root.
	Orphans []string
	// Problems are the checks that failed; empty when the case passes.
	Problems []string
	// Root is the faulted table after the checks, before the retry (only when KeepTables).
	Root string
}

// Passed reports whether every check held.
func (c *Case) Passed() bool { return len(c.Problems) == 0 }

func (c *Case) fail(format string, args ...any) {
	c.Problems = append(c.Problems, fmt.Sprintf(format, args...))
}

// Harness runs an operation's cases.
type Harness struct {
	Op Operation
	// TempDir returns a fresh empty directory per call.
	TempDir func() string
	// KeepTables makes each case keep a copy of its faulted table (before the retry) in
	// Case.Root, for checks by another reader.
	KeepTables bool
	// Store is where the operation runs; nil runs it on local copies.
	Store Store
	ref   *Reference
	// template is the table Setup made once; every run works on a copy, so file names that
	// Setup itself generates (a write before a compaction) are the same in every run.
	template string
}

func (h *Harness) store() Store {
	if h.Store == nil {
		return LocalStore{}
	}
	return h.Store
}

// FileIO is the file system the operation runs on (the store's).
func (h *Harness) FileIO() fileio.FileIO { return h.store().FileIO() }

// put returns a new copy of the operation's table in the store, with a local view of it.
func (h *Harness) put(ctx context.Context) (root, view string, err error) {
	local, err := h.fresh()
	if err != nil {
		return "", "", err
	}
	if root, err = h.store().Put(ctx, local); err != nil {
		return "", "", err
	}
	if view, err = h.store().View(ctx, root); err != nil {
		return "", "", err
	}
	return root, view, nil
}

// fresh returns a new local copy of the operation's table.
func (h *Harness) fresh() (string, error) {
	if h.template == "" {
		root, err := h.Op.Setup(h.TempDir())
		if err != nil {
			return "", err
		}
		h.template = root
	}
	dst := filepath.Join(h.TempDir(), filepath.Base(h.template))
	if err := os.CopyFS(dst, os.DirFS(h.template)); err != nil {
		return "", err
	}
	return dst, nil
}

// Reference runs the operation without faults (once) and returns its outcome.
func (h *Harness) Reference(ctx context.Context) (*Reference, error) {
	if h.ref != nil {
		return h.ref, nil
	}
	root, view, err := h.put(ctx)
	if err != nil {
		return nil, err
	}
	before, beforeID, err := normalizedDump(ctx, view, nil)
	if err != nil {
		return nil, fmt.Errorf("dump before: %w", err)
	}
	pre, err := snapshotTree(view)
	if err != nil {
		return nil, err
	}
	f := faultio.New(h.FileIO())
	if err := h.Op.Run(ctx, f, root); err != nil {
		return nil, fmt.Errorf("fault-free %s: %w", h.Op.Name, err)
	}
	if view, err = h.store().View(ctx, root); err != nil {
		return nil, err
	}
	after, afterID, err := normalizedDump(ctx, view, pre)
	if err != nil {
		return nil, fmt.Errorf("dump after: %w", err)
	}
	h.ref = &Reference{Before: before, After: after, BeforeID: beforeID, AfterID: afterID, Counts: f.Counts(), Steps: map[int64]string{},
		Deleted: map[string]bool{}}
	post, err := snapshotTree(view)
	if err != nil {
		return nil, err
	}
	for name := range pre {
		if _, ok := post[name]; !ok {
			h.ref.Deleted[name] = true
		}
	}
	if len(h.ref.Deleted) > 0 && !h.Op.Deletes {
		return nil, fmt.Errorf("fault-free %s deleted files existing before it: %v", h.Op.Name, sortedNames(h.ref.Deleted))
	}
	if h.Op.Deletes && len(h.ref.Deleted) == 0 {
		return nil, fmt.Errorf("fault-free %s deleted nothing: the sweep would check nothing", h.Op.Name)
	}
	if h.Op.WantDeleted != nil {
		want := slices.Clone(h.Op.WantDeleted())
		sort.Strings(want)
		if got := sortedNames(h.ref.Deleted); !slices.Equal(got, want) {
			return nil, fmt.Errorf("fault-free %s deleted %v, want %v", h.Op.Name, got, want)
		}
	}
	if h.ref.Snapshots, err = snapshotIDs(ctx, view); err != nil {
		return nil, err
	}
	for id := beforeID + 1; id < afterID; id++ {
		dump, err := stepDump(ctx, view, h.TempDir(), id, afterID, pre)
		if err != nil {
			return nil, fmt.Errorf("dump of snapshot %d: %w", id, err)
		}
		h.ref.Steps[id] = dump
	}
	return h.ref, nil
}

// Run runs one case: the operation through f armed at p on a fresh table, the checks, a retry.
func (h *Harness) Run(ctx context.Context, f *faultio.FS, p faultio.Point) (*Case, error) {
	ref, err := h.Reference(ctx)
	if err != nil {
		return nil, err
	}
	c := &Case{Point: p}
	root, view, err := h.put(ctx)
	if err != nil {
		return nil, err
	}
	pre, err := snapshotTree(view)
	if err != nil {
		return nil, err
	}
	f.Arm(p)
	c.Err = runGuarded(ctx, h.Op, f, root)
	fired, crashed := f.Fired(), f.Crashed()
	f.Disarm()
	if !fired {
		// The point is past the operation's last operation of its kind: a fault-free run.
		if c.Err != nil {
			c.fail("run without reaching %s failed: %v", p, c.Err)
		}
	}
	if c.Err != nil && !errors.Is(c.Err, faultio.ErrInjected) && !errors.Is(c.Err, faultio.ErrCrashed) {
		c.fail("error does not wrap the injected fault: %v", c.Err)
	}

	if view, err = h.store().View(ctx, root); err != nil {
		return nil, err
	}
	// (a), (c): the dump is that of the last committed snapshot.
	got, gotID, err := normalizedDump(ctx, view, pre)
	switch {
	case err != nil:
		c.fail("(a) table does not read: %v", err)
	case gotID == ref.BeforeID && got == ref.Before:
	case gotID == ref.AfterID && got == ref.After:
		c.Committed = true
	case ref.Steps[gotID] != "" && got == ref.Steps[gotID]:
		c.Partial = true
		if c.Err == nil {
			c.fail("(a) the operation reported success but committed only up to snapshot %d of %d", gotID, ref.AfterID)
		}
	default:
		c.fail("(a) snapshot %d is neither the table before (%d) nor after (%d) the operation: %s", gotID, ref.BeforeID, ref.AfterID, firstDiff(got, ref.Before, ref.After))
	}
	if c.Err == nil && !c.Committed && ref.AfterID != ref.BeforeID {
		c.fail("(a) the operation reported success but its snapshot is not the latest")
	}
	// (b) every snapshot's files exist (for an expiry: every snapshot it retains).
	from := int64(0)
	if h.Op.Expires && len(ref.Snapshots) > 0 {
		from = ref.Snapshots[0]
	}
	refs, err := checkReferencesFrom(ctx, view, from)
	for _, e := range errs(err) {
		c.fail("(b) %v", e)
	}
	// Nothing that existed before was deleted or changed.
	post, err := snapshotTree(view)
	if err != nil {
		return nil, err
	}
	for name, st := range pre {
		if now, ok := post[name]; !ok {
			if !h.Op.Deletes || !ref.Deleted[name] {
				c.fail("file %s existing before the operation was deleted", name)
			}
		} else if now != st && !isHint(name) {
			c.fail("file %s existing before the operation was changed", name)
		}
	}
	// (e) orphans.
	for name := range post {
		if _, ok := pre[name]; ok || refs[filepath.Base(name)] || isHint(name) {
			continue
		}
		c.Orphans = append(c.Orphans, name)
		if !cleanable(name) {
			c.fail("(e) orphan %s is not one Paimon's orphan-file cleaning removes", name)
		}
	}
	sort.Strings(c.Orphans)
	if len(c.Orphans) > 0 && !crashed && p.Op != faultio.OpDelete && p.Mode != faultio.FailNoCleanup {
		c.fail("(e) a failure (not a crash) left orphans %v", c.Orphans)
	}
	if h.KeepTables {
		keep := filepath.Join(h.TempDir(), filepath.Base(view))
		if err := os.CopyFS(keep, os.DirFS(view)); err != nil {
			return nil, err
		}
		c.Root = keep
	}
	// (d) a retry succeeds and ends where a fault-free run ends.
	if (c.Committed || c.Partial) && h.Op.NotIdempotent {
		return c, nil
	}
	if err := runGuarded(ctx, h.Op, h.FileIO(), root); err != nil {
		c.fail("(d) retry failed: %v", err)
	} else if view, err = h.store().View(ctx, root); err != nil {
		return nil, err
	} else if final, _, err := normalizedDump(ctx, view, pre); err != nil {
		c.fail("(d) table does not read after the retry: %v", err)
	} else if stripID(final) != stripID(ref.After) {
		c.fail("(d) the retry ends in another table than a fault-free run: %s", firstDiff(stripID(final), stripID(ref.After)))
	}
	if _, err := checkReferences(ctx, view); err != nil {
		c.fail("(b) after the retry: %v", err)
	}
	if h.Op.Deletes {
		final, err := snapshotTree(view)
		if err != nil {
			return nil, err
		}
		for name := range pre {
			_, ok := final[name]
			if ok && ref.Deleted[name] && h.Op.Expires && !crashed {
				// An expiry cleans quietly, as Java's SnapshotDeletion does: a failed delete, or
				// a failed read of the manifests that list a file, leaves the file on disk,
				// referenced by no retained snapshot ((b) checks that), for remove-orphan-files;
				// the retry has nothing left to expire.
				continue
			}
			if ok == ref.Deleted[name] {
				c.fail("(d) after the retry %s is %s, unlike after a fault-free run", name, map[bool]string{true: "present", false: "missing"}[ok])
			}
		}
	}
	if h.Op.Expires {
		if ids, err := snapshotIDs(ctx, view); err != nil {
			c.fail("(d) list snapshots after the retry: %v", err)
		} else if !slices.Equal(ids, ref.Snapshots) {
			c.fail("(d) the retry leaves snapshots %v, a fault-free run %v", ids, ref.Snapshots)
		}
	}
	return c, nil
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// stepDump is the normalized dump of the table at root as of snapshot id (of the ids up to last):
// a copy of it without the later snapshots and without the LATEST hint.
func stepDump(ctx context.Context, root, dir string, id, last int64, pre map[string]fileState) (string, error) {
	cp := filepath.Join(dir, filepath.Base(root))
	if err := os.CopyFS(cp, os.DirFS(root)); err != nil {
		return "", err
	}
	for k := id + 1; k <= last; k++ {
		if err := os.Remove(filepath.Join(cp, "snapshot", fmt.Sprintf("snapshot-%d", k))); err != nil {
			return "", err
		}
	}
	if err := os.Remove(filepath.Join(cp, "snapshot", "LATEST")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	dump, gotID, err := normalizedDump(ctx, cp, pre)
	if err != nil {
		return "", err
	}
	if gotID != id {
		return "", fmt.Errorf("the copy's latest snapshot is %d", gotID)
	}
	return dump, nil
}

// Referenced returns the base names of every file a snapshot of the table at root references
// (manifest lists, manifests, index manifest, data, index and statistics files); it fails when
// one of them is missing.
func Referenced(ctx context.Context, root string) (map[string]bool, error) {
	return checkReferences(ctx, root)
}

// runGuarded runs the operation, turning a panic into an error.
func runGuarded(ctx context.Context, op Operation, fio fileio.FileIO, root string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return op.Run(ctx, fio, root)
}

func errs(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// isHint reports the LATEST and EARLIEST hints, which operations may rewrite.
func isHint(rel string) bool {
	dir, name := filepath.Split(rel)
	return dir == "snapshot/" && (name == "LATEST" || name == "EARLIEST")
}

// cleanable reports whether Paimon's OrphanFilesClean considers the file: it lists manifest/,
// index/, statistics/, the bucket directories of the data paths, and the non-snapshot files of
// snapshot/.
func cleanable(rel string) bool {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	name := parts[len(parts)-1]
	switch parts[0] {
	case "manifest", "index", "statistics":
		return len(parts) == 2
	case "snapshot":
		return len(parts) == 2 && !strings.HasPrefix(name, "snapshot-") && name != "LATEST" && name != "EARLIEST"
	case "schema", "tag", "branch", "changelog", "consumer", "service":
		return false
	}
	return len(parts) >= 2 && strings.HasPrefix(parts[len(parts)-2], "bucket-")
}

type fileState struct {
	size  int64
	mtime int64
	// sum is the SHA-256 of the content: a store's modification times may be too coarse to
	// tell a rewrite (S3 records seconds).
	sum [sha256.Size]byte
}

// snapshotTree records every regular file under root with its size, modification time and
// content hash.
func snapshotTree(root string) (map[string]fileState, error) {
	out := map[string]fileState{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = fileState{info.Size(), info.ModTime().UnixNano(), sha256.Sum256(data)}
		return nil
	})
	return out, err
}

// checkReferences reads every snapshot and checks each file it names exists with the recorded
// size. It returns the names of every referenced file.
func checkReferences(ctx context.Context, root string) (map[string]bool, error) {
	return checkReferencesFrom(ctx, root, 0)
}

// snapshotIDs lists the snapshot ids of the table at root.
func snapshotIDs(ctx context.Context, root string) ([]int64, error) {
	return table.Open(fileio.NewLocal(), root).Snapshots.IDs(ctx)
}

// checkReferencesFrom is checkReferences over the snapshots from id from on.
func checkReferencesFrom(ctx context.Context, root string, from int64) (map[string]bool, error) {
	tbl := table.Open(fileio.NewLocal(), root)
	tree, err := snapshotTree(root)
	if err != nil {
		return nil, err
	}
	byName := map[string][]fileState{}
	for rel, st := range tree {
		byName[filepath.Base(rel)] = append(byName[filepath.Base(rel)], st)
	}
	refs := map[string]bool{}
	var problems []error
	need := func(what, name string, size int64) {
		refs[name] = true
		sts, ok := byName[name]
		if !ok {
			problems = append(problems, fmt.Errorf("%s %s is missing", what, name))
			return
		}
		if size >= 0 && !slices.ContainsFunc(sts, func(s fileState) bool { return s.size == size }) {
			problems = append(problems, fmt.Errorf("%s %s has another size than the recorded %d", what, name, size))
		}
	}
	ids, err := tbl.Snapshots.IDs(ctx)
	if err != nil {
		return refs, err
	}
	for _, id := range ids {
		if id < from {
			continue
		}
		refs[filepath.Base(tbl.Snapshots.Path(id))] = true
		s, err := tbl.Snapshots.Snapshot(ctx, id)
		if err != nil {
			problems = append(problems, fmt.Errorf("snapshot %d: %w", id, err))
			continue
		}
		size := func(p *int64) int64 {
			if p == nil {
				return -1
			}
			return *p
		}
		need("manifest list", s.BaseManifestList, size(s.BaseManifestListSize))
		need("manifest list", s.DeltaManifestList, size(s.DeltaManifestListSize))
		if s.ChangelogManifestList != nil {
			need("manifest list", *s.ChangelogManifestList, size(s.ChangelogManifestListSize))
		}
		if s.IndexManifest != nil {
			need("index manifest", *s.IndexManifest, -1)
		}
		if s.Statistics != nil {
			need("statistics", *s.Statistics, -1)
		}
		c, err := tbl.Read(ctx, s)
		if err != nil {
			problems = append(problems, fmt.Errorf("snapshot %d: %w", id, err))
			continue
		}
		for _, m := range slices.Concat(c.BaseManifests, c.DeltaManifests) {
			need("manifest", m.FileName, m.FileSize)
		}
		for _, e := range c.Entries {
			need("data file", e.File.FileName, e.File.FileSize)
		}
		for _, e := range c.IndexEntries {
			if e.Kind == meta.FileKindAdd {
				need("index file", e.IndexFile.FileName, e.IndexFile.FileSize)
			}
		}
	}
	return refs, errors.Join(problems...)
}

var snapshotIDField = regexp.MustCompile(`"snapshotId":\d+,?`)

func stripID(dump string) string { return snapshotIDField.ReplaceAllString(dump, "") }

// fileName matches the names of the files an operation writes (data files, index files).
var fileName = regexp.MustCompile(`(?:data|index|changelog)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-\d+(?:\.[a-z]+)?`)

// normalizedDump dumps the latest snapshot with the full-text state as `pkft state` computes it,
// naming files absent from pre (files the operation wrote) NEW and sorting every array, so that
// two runs writing the same content under other names compare equal.
func normalizedDump(ctx context.Context, root string, pre map[string]fileState) (string, int64, error) {
	d, err := inspect.TableDump(ctx, table.Open(fileio.NewLocal(), root), inspect.FullTextState)
	if err != nil {
		return "", 0, err
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return "", 0, err
	}
	if pre != nil {
		old := map[string]bool{}
		for rel := range pre {
			old[filepath.Base(rel)] = true
		}
		raw = fileName.ReplaceAllFunc(raw, func(name []byte) []byte {
			if old[string(name)] {
				return name
			}
			return []byte("NEW")
		})
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", 0, err
	}
	out, err := json.Marshal(sortArrays(v))
	if err != nil {
		return "", 0, err
	}
	return string(out), d.SnapshotID, nil
}

// sortArrays sorts every array in v by the JSON form of its elements.
func sortArrays(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = sortArrays(e)
		}
	case []any:
		keys := make([]string, len(x))
		for i, e := range x {
			x[i] = sortArrays(e)
			b, _ := json.Marshal(x[i])
			keys[i] = string(b)
		}
		sort.Sort(byKey{x, keys})
	}
	return v
}

type byKey struct {
	v    []any
	keys []string
}

func (b byKey) Len() int           { return len(b.v) }
func (b byKey) Less(i, j int) bool { return b.keys[i] < b.keys[j] }
func (b byKey) Swap(i, j int) {
	b.v[i], b.v[j] = b.v[j], b.v[i]
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
}

// firstDiff shows where got first differs from the closest of wants.
func firstDiff(got string, wants ...string) string {
	best, at := "", -1
	for _, w := range wants {
		i := 0
		for i < len(got) && i < len(w) && got[i] == w[i] {
			i++
		}
		if i > at {
			best, at = w, i
		}
	}
	clip := func(s string) string {
		from, to := max(at-120, 0), min(at+200, len(s))
		if from > len(s) {
			return ""
		}
		return s[from:to]
	}
	return fmt.Sprintf("at byte %d:\n   got  ...%s...\n   want ...%s...", at, clip(got), clip(best))
}
