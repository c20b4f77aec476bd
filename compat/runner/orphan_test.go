package runner

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/snapshot"
)

var orphanCommands = []string{"create-table", "write", "compact", "create-tag", "create-branch", "remove-orphan-files"}

// casesOrphan registers orphan/java-differential. Java writes a partitioned table with deletion vectors,
// tags snapshot 1 and branches from the tag; Go writes on top; snapshots 1 and 2 are then expired
// by hand (their files stay, as after an expiry without cleanup) and the files of aborted writes
// are left in every directory the cleaning lists, some new. Copies of the table are cleaned by Go
// (pkft's RemoveOrphanFiles) and by Java (LocalOrphanFilesClean) with the same threshold, first
// as dry runs, then for real: both must list and delete the same files and leave the same trees.
// Then the same on copies of every golden table (orphanGoldenDifferential).
func casesOrphan(ct *caseTable) {
	impls, runners := consumerRunners(ct)
	for _, impl := range producerImpls(impls, Maintainer) {
		ct.add(caseRow{Name: "orphan/java-differential", Direction: as(impl, "go<->java"), Doc: docOrphanJavaDifferential,
			Sides: []caseSide{side(impl, Writer, Maintainer), side("java", Writer, Maintainer, Consumer)},
			Uses: []caseUse{runnerOf(runners, impl, "write", "remove-orphan-files"),
				ownJava(fmt.Errorf("the Java runner lacks one of %v: rebuild it (make runner)", orphanCommands), orphanCommands...)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				goP, p := ce.runner(impl), ce.runner("java")
				dir := ce.T.TempDir()
				src, expected, err := buildOrphanTable(ctx, p, goP, filepath.Join(dir, "warehouse"))
				if err != nil {
					return err
				}
				threshold := time.Now().Add(-24 * time.Hour)
				goDir, javaDir := filepath.Join(dir, "go"), filepath.Join(dir, "java")
				for _, dst := range []string{goDir, javaDir} {
					if err := copyTreeWithTimes(src, dst); err != nil {
						return err
					}
				}
				for _, dry := range []bool{true, false} {
					before := treeOf(goDir)
					goDeleted, err := goRemoveOrphans(ctx, goP, goDir, threshold, dry)
					if err != nil {
						return fmt.Errorf("Go (dry run %v): %w", dry, err)
					}
					javaDeleted, err := javaRemoveOrphans(ctx, p, javaDir, threshold, dry)
					if err != nil {
						return fmt.Errorf("Java (dry run %v): %w", dry, err)
					}
					if d := cmp.Diff(javaDeleted, goDeleted); d != "" {
						return fmt.Errorf("dry run %v: deleted files differ (-java +go):\n%s", dry, d)
					}
					for _, want := range expected {
						if !slices.Contains(goDeleted, want) {
							return fmt.Errorf("dry run %v: neither deleted %s, an orphan: %v", dry, want, goDeleted)
						}
					}
					if d := cmp.Diff(treeOf(javaDir), treeOf(goDir)); d != "" {
						return fmt.Errorf("dry run %v: remaining trees differ (-java +go):\n%s", dry, d)
					}
					if dry && !slices.Equal(before, treeOf(goDir)) {
						return fmt.Errorf("Go's dry run changed the table")
					}
				}
				// Java reads what remains of every retained snapshot, tag and branch.
				if err := p.Call(ctx, "read", map[string]any{"path": goDir}, nil); err != nil {
					return fmt.Errorf("Java reading the table Go cleaned: %w", err)
				}
				return orphanGoldenDifferential(ctx, p, goP, filepath.Join(dir, "golden"), threshold)
			}})
	}
}

// orphanGoldenDifferential runs both cleanings on copies of every golden table (Java, Go and
// pypaimon writers: deletion vectors, archives, sorted indexes, index files in bucket
// directories), each with an old orphan in a bucket directory and in index/ and a new one.
func orphanGoldenDifferential(ctx context.Context, p, goP *Process, dir string, threshold time.Time) error {
	repo, err := RepoRoot()
	if err != nil {
		return err
	}
	n := 0
	for _, kind := range []string{"java", "go", "pypaimon"} {
		entries, err := os.ReadDir(filepath.Join(repo, "testdata", "tables", kind))
		if err != nil {
			return err
		}
		for _, e := range entries {
			src := filepath.Join(repo, "testdata", "tables", kind, e.Name())
			if _, err := os.Stat(filepath.Join(src, "schema")); err != nil {
				continue
			}
			base := filepath.Join(dir, kind+"-"+e.Name())
			if err := os.CopyFS(filepath.Join(base, "src"), os.DirFS(src)); err != nil {
				return err
			}
			table := filepath.Join(base, "src")
			old := time.Now().Add(-48 * time.Hour)
			if err := ageTreeOf(table, old); err != nil {
				return err
			}
			var bucket string
			for _, f := range treeOf(table) {
				if d := filepath.ToSlash(filepath.Dir(f)); strings.HasPrefix(filepath.Base(d), "bucket-") {
					bucket = d
					break
				}
			}
			if bucket == "" {
				return fmt.Errorf("%s/%s: no bucket directory", kind, e.Name())
			}
			const id = "0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11"
			for _, rel := range []string{bucket + "/data-" + id + "-0.parquet", "index/index-" + id + "-0"} {
				if err := putFile(table, rel, old); err != nil {
					return err
				}
				if err := putFile(table, strings.ReplaceAll(rel, id, "7c3d9a01-1c55-4a43-a0c1-5d8b8e0f7a11"), time.Now()); err != nil {
					return err
				}
			}
			if err := ageDirs(table, old); err != nil {
				return err
			}
			goDir, javaDir := filepath.Join(base, "go"), filepath.Join(base, "java")
			for _, dst := range []string{goDir, javaDir} {
				if err := copyTreeWithTimes(table, dst); err != nil {
					return err
				}
			}
			goDeleted, err := goRemoveOrphans(ctx, goP, goDir, threshold, false)
			if err != nil {
				return fmt.Errorf("%s/%s: Go: %w", kind, e.Name(), err)
			}
			javaDeleted, err := javaRemoveOrphans(ctx, p, javaDir, threshold, false)
			if err != nil {
				return fmt.Errorf("%s/%s: Java: %w", kind, e.Name(), err)
			}
			if d := cmp.Diff(javaDeleted, goDeleted); d != "" {
				return fmt.Errorf("%s/%s: deleted files differ (-java +go):\n%s", kind, e.Name(), d)
			}
			if len(goDeleted) != 2 {
				return fmt.Errorf("%s/%s: both deleted %v, want the two old orphans", kind, e.Name(), goDeleted)
			}
			if d := cmp.Diff(treeOf(javaDir), treeOf(goDir)); d != "" {
				return fmt.Errorf("%s/%s: remaining trees differ (-java +go):\n%s", kind, e.Name(), d)
			}
			n++
		}
	}
	if n < 10 {
		return fmt.Errorf("only %d golden tables compared", n)
	}
	return nil
}

// buildOrphanTable writes the table and its orphans; it returns its path and the orphans both
// sides must delete (relative paths).
func buildOrphanTable(ctx context.Context, p, goP *Process, warehouse string) (string, []string, error) {
	var steps []tableStep
	for round := 0; round < 3; round++ {
		var rows []row
		for i := 0; i < 20; i++ {
			rows = append(rows, row{"region": []string{"eu", "us"}[i%2], "id": int64(i + round*7), "content": fmt.Sprintf("round %d row %d", round, i)})
		}
		steps = append(steps, tableStep{rows: rows, compact: round == 1})
	}
	path, err := createJavaTable(ctx, p, warehouse, "orphans",
		[]field{{"region", "STRING NOT NULL"}, {"id", "BIGINT NOT NULL"}, {"content", "STRING"}},
		[]string{"region", "id"}, []string{"region"},
		map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"}, steps)
	if err != nil {
		return "", nil, err
	}
	if err := p.Call(ctx, "create-tag", map[string]any{"path": path, "tag": "first", "snapshotId": 1}, nil); err != nil {
		return "", nil, err
	}
	if err := p.Call(ctx, "create-branch", map[string]any{"path": path, "branch": "b1", "tag": "first"}, nil); err != nil {
		return "", nil, err
	}
	// Go writes on top, through its runner.
	var goRows []row
	for i := 0; i < 5; i++ {
		goRows = append(goRows, row{"region": "eu", "id": 100 + i, "content": "go row"})
	}
	if err := goWrite(ctx, goP, path, goRows); err != nil {
		return "", nil, err
	}
	// Expire snapshots 1 and 2 by hand: their files stay; the tag protects snapshot 1's.
	var expected []string
	for _, id := range []int64{1, 2} {
		sp := filepath.Join(path, "snapshot", fmt.Sprintf("snapshot-%d", id))
		data, err := os.ReadFile(sp)
		if err != nil {
			return "", nil, err
		}
		if id == 2 {
			s, err := snapshot.Parse(data)
			if err != nil {
				return "", nil, err
			}
			expected = append(expected, "manifest/"+s.BaseManifestList, "manifest/"+s.DeltaManifestList)
		}
		if err := os.Remove(sp); err != nil {
			return "", nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(path, "snapshot", "EARLIEST"), []byte("3"), 0o644); err != nil {
		return "", nil, err
	}
	old := time.Now().Add(-48 * time.Hour)
	if err := ageTreeOf(path, old); err != nil {
		return "", nil, err
	}
	const id = "0b1e2f44-1c55-4a43-a0c1-5d8b8e0f7a11"
	orphans := []string{
		"region=eu/bucket-0/data-" + id + "-0.parquet",
		"region=us/bucket-1/data-" + id + "-1.parquet",
		"manifest/manifest-" + id + "-0",
		"manifest/manifest-list-" + id + "-0",
		"manifest/index-manifest-" + id + "-0",
		"index/index-" + id + "-0",
		"statistics/stat-" + id + "-0",
		"snapshot/.snapshot-9." + id + ".tmp",
		"branch/branch-b1/snapshot/.snapshot-2." + id + ".tmp",
		"region=fr/stray-" + id,
	}
	for _, rel := range orphans {
		if err := putFile(path, rel, old); err != nil {
			return "", nil, err
		}
		// The same file written a moment ago is kept.
		if err := putFile(path, strings.ReplaceAll(rel, id, "7c3d9a01-1c55-4a43-a0c1-5d8b8e0f7a11"), time.Now()); err != nil {
			return "", nil, err
		}
	}
	if err := os.MkdirAll(filepath.Join(path, "region=eu", "bucket-9"), 0o755); err != nil {
		return "", nil, err
	}
	if err := ageDirs(path, old); err != nil {
		return "", nil, err
	}
	return path, append(expected, orphans...), nil
}

func putFile(root, rel string, mod time.Time) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, []byte("aborted "+rel), 0o644); err != nil {
		return err
	}
	return os.Chtimes(p, mod, mod)
}

// ageTreeOf dates every file and directory under root at mod.
func ageTreeOf(root string, mod time.Time) error {
	return filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, mod, mod)
	})
}

// ageDirs dates every directory under root at mod (files keep their times).
func ageDirs(root string, mod time.Time) error {
	var dirs []string
	if err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return err
	}); err != nil {
		return err
	}
	for _, d := range dirs {
		if err := os.Chtimes(d, mod, mod); err != nil {
			return err
		}
	}
	return nil
}

// copyTreeWithTimes copies src to dst keeping modification times (directories last).
func copyTreeWithTimes(src, dst string) error {
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return err
	}
	var all []string
	if err := filepath.WalkDir(src, func(p string, _ fs.DirEntry, err error) error {
		all = append(all, p)
		return err
	}); err != nil {
		return err
	}
	slices.Reverse(all)
	for _, p := range all {
		info, err := os.Stat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if err := os.Chtimes(filepath.Join(dst, rel), info.ModTime(), info.ModTime()); err != nil {
			return err
		}
	}
	return nil
}

// treeOf lists the files and directories under root, relative (directories end in "/").
func treeOf(root string) []string {
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	slices.Sort(out)
	return out
}

// goRemoveOrphans cleans the table at path with Go's runner goP (the protocol's
// remove-orphan-files) and returns the files it deleted (or would delete), sorted.
func goRemoveOrphans(ctx context.Context, goP *Process, path string, olderThan time.Time, dry bool) ([]string, error) {
	var res struct {
		Deleted []string `json:"deleted"`
	}
	if err := goP.Call(ctx, "remove-orphan-files", map[string]any{"path": path, "olderThanMillis": olderThan.UnixMilli(), "dryRun": dry}, &res); err != nil {
		return nil, err
	}
	out := append([]string{}, res.Deleted...)
	slices.Sort(out)
	return out, nil
}

func javaRemoveOrphans(ctx context.Context, p *Process, path string, olderThan time.Time, dry bool) ([]string, error) {
	var res struct {
		Deleted []string `json:"deleted"`
	}
	if err := p.Call(ctx, "remove-orphan-files", map[string]any{"path": path, "olderThanMillis": olderThan.UnixMilli(), "dryRun": dry}, &res); err != nil {
		return nil, err
	}
	out := []string{}
	for _, d := range res.Deleted {
		out = append(out, d)
	}
	slices.Sort(out)
	return out, nil
}

// docOrphanJavaDifferential describes orphan/java-differential.
const docOrphanJavaDifferential = "Java writes a partitioned table with deletion vectors, tags snapshot 1 and branches from " +
	"the tag, Go writes on top (its runner's `write`); two snapshots are expired by hand and the files of aborted " +
	"writes are left in every directory the cleaning lists (data, manifest, manifest list, " +
	"index manifest, index, statistics, snapshot temporaries of main and of the branch, a " +
	"partition without buckets, an empty bucket directory), each also written a moment ago. " +
	"Copies are cleaned by Go (its runner's `remove-orphan-files`: `Table.RemoveOrphanFiles`) and by Java's `LocalOrphanFilesClean` " +
	"with the same threshold, as dry runs and then for real: the same files are listed and " +
	"deleted (every hand-made orphan and the expired snapshot's manifest lists among them), the" +
	" remaining trees are equal, and Java reads the table Go cleaned. The same comparison then " +
	"runs on copies of every golden table (written by Java, Go and pypaimon: deletion vectors, " +
	"archives, sorted indexes, index files in bucket directories), each with an old and a new " +
	"orphan in a bucket directory and in `index/`: both delete the two old ones and nothing " +
	"else."
