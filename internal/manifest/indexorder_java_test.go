package manifest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/javacompat"
	"github.com/paimon-pkft/pkft/internal/meta"
)

// TestCombineIndexManifestJavaOrder replays every index manifest change of the Java-written
// tables: from the previous snapshot's index manifest and the change (a DELETE for every global
// index file that disappeared and for every bucket that lost its deletion-vector or hash file,
// an ADD for every new file; Java commits a replaced deletion-vector file as an ADD only), the
// combined manifest must list the entries in the order Java wrote them. ADDs are given in the
// order of Java's new manifest, which only matters for keys sharing a HashMap bin.
func TestCombineIndexManifestJavaOrder(t *testing.T) {
	tables, err := filepath.Glob("../../testdata/tables/java/*")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, dir := range tables {
		snaps := javaSnapshotIndexManifests(t, dir)
		var prevName string
		for _, name := range snaps {
			if name == "" || name == prevName {
				prevName = name
				continue
			}
			var prev []meta.IndexManifestEntry
			if prevName != "" {
				prev = readJavaIndexManifest(t, dir, prevName)
			}
			cur := readJavaIndexManifest(t, dir, name)
			prevName = name
			if len(cur) < 2 {
				continue // a single entry has one order
			}
			got, err := CombineIndexManifest(prev, deriveIndexChanges(prev, cur), false)
			if err != nil {
				t.Fatalf("%s %s: %v", filepath.Base(dir), name, err)
			}
			if g, w := indexNames(got), indexNames(cur); !slices.Equal(g, w) {
				t.Errorf("%s %s:\n go   %s\n java %s", filepath.Base(dir), name, strings.Join(g, " "), strings.Join(w, " "))
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no Java index manifest with several entries was checked")
	}
	t.Logf("%d Java index manifests replayed", checked)
}

func deriveIndexChanges(prev, cur []meta.IndexManifestEntry) []meta.IndexManifestEntry {
	bucketed := func(e *meta.IndexManifestEntry) bool {
		return e.IndexFile.IndexType == meta.IndexTypeDeletionVectors || e.IndexFile.IndexType == meta.IndexTypeHash
	}
	prevFiles, curFiles, curBuckets := map[string]bool{}, map[string]bool{}, map[bucketKey]bool{}
	for i := range prev {
		prevFiles[prev[i].IndexFile.FileName] = true
	}
	for i := range cur {
		curFiles[cur[i].IndexFile.FileName] = true
		curBuckets[bucketKeyOf(&cur[i])] = true
	}
	var changes []meta.IndexManifestEntry
	for _, e := range prev {
		gone := !curFiles[e.IndexFile.FileName]
		if bucketed(&e) {
			gone = !curBuckets[bucketKeyOf(&e)]
		}
		if gone {
			e.Kind = meta.FileKindDelete
			changes = append(changes, e)
		}
	}
	for _, e := range cur {
		if !prevFiles[e.IndexFile.FileName] {
			changes = append(changes, e)
		}
	}
	return changes
}

// javaSnapshotIndexManifests returns the index manifest name of every snapshot, by id.
func javaSnapshotIndexManifests(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "snapshot", "snapshot-*"))
	if err != nil {
		t.Fatal(err)
	}
	type snap struct {
		id   int
		name string
	}
	var snaps []snap
	for _, f := range files {
		id, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(f), "snapshot-"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			IndexManifest string `json:"indexManifest"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		snaps = append(snaps, snap{id, s.IndexManifest})
	}
	sort.Slice(snaps, func(i, j int) bool { return snaps[i].id < snaps[j].id })
	out := make([]string, len(snaps))
	for i, s := range snaps {
		out[i] = s.name
	}
	return out
}

func readJavaIndexManifest(t *testing.T, dir, name string) []meta.IndexManifestEntry {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "manifest", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, err := ReadIndexManifest(name, f)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// TestCombineIndexManifestTreeBinFallback: file names that Java would keep in a tree bin (eleven
// names with one String hash code in a table of 64 bins) fall back to insertion order for their
// type; the other type keeps its HashMap order and nothing is lost.
func TestCombineIndexManifestTreeBinFallback(t *testing.T) {
	var prev []meta.IndexManifestEntry
	var want []string
	for i := 0; i < 40; i++ {
		name := "ft-" + strconv.Itoa(i)
		prev = append(prev, idx(meta.FileKindAdd, "full-text", name, 0))
		want = append(want, "full-text:"+name)
	}
	for _, n := range []string{"AaAaAaAa", "AaAaAaBB", "AaAaBBAa", "AaAaBBBB", "AaBBAaAa", "AaBBAaBB",
		"AaBBBBAa", "AaBBBBBB", "BBAaAaAa", "BBAaAaBB", "BBAaBBAa"} {
		prev = append(prev, idx(meta.FileKindAdd, "full-text", n, 0))
		want = append(want, "full-text:"+n)
	}
	prev = append(prev, idx(meta.FileKindAdd, meta.IndexTypeDeletionVectors, "dv-0", 0))
	changes := []meta.IndexManifestEntry{idx(meta.FileKindAdd, "full-text", "ft-new", 0)}
	want = append(want, "full-text:ft-new")
	var names []string
	for _, e := range prev[:51] {
		names = append(names, e.IndexFile.FileName)
	}
	if _, err := javacompat.HashMapOrder(names); !errors.Is(err, javacompat.ErrTreeBin) {
		t.Fatalf("the names do not make a tree bin: %v", err)
	}
	got, err := CombineIndexManifest(prev, changes, false)
	if err != nil {
		t.Fatal(err)
	}
	// JDK 17 iterates a HashSet of these two type names as full-text, DELETION_VECTORS.
	want = append(want, "DELETION_VECTORS:dv-0")
	if g := indexNames(got); !slices.Equal(g, want) {
		t.Errorf("got  %v\nwant %v", g, want)
	}
}
