package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/golden"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// updateBad reports gotest.tools' -update flag (golden.FlagUpdate): it regenerates testdata/bad
// from the golden tables and records the outcomes.
func updateBad() bool { return golden.FlagUpdate() }

// badBase is the golden table the bad-input corpus damages: a Java-written full-text table
// (partitions, two buckets, deletion vectors, current archives), so every kind of file exists.
const badBase = "ft-default-partitioned"

var badDir = filepath.Join("..", "..", "testdata", "bad")

// badCase is one entry of testdata/bad/cases.json: the files of testdata/bad/<name>/ replace
// those of the base table at the same relative paths, and Expect records each command's outcome
// (see outcome).
type badCase struct {
	Name   string            `json:"name"`
	What   string            `json:"what"`
	Files  []string          `json:"files"`
	Expect map[string]string `json:"expect"`
}

// badCommands are the commands run over every case; {} is the table path.
var badCommands = []struct {
	name string
	args []string
	// writes reports whether the command may write (only maintain: a committed repair).
	writes bool
}{
	{"dump", []string{"dump", "{}"}, false},
	{"state", []string{"state", "{}", "--json"}, false},
	{"maintain-dry-run", []string{"maintain", "{}", "--dry-run", "--json", "--progress", "never"}, false},
	{"search", []string{"search", "{}", "--query", "paimon", "--limit", "5", "--json"}, false},
	{"maintain", []string{"maintain", "{}", "--json", "--progress", "never", "--parallel", "1"}, true},
}

// TestBadInputCorpus runs pkft dump, state, maintain (dry run and real) and search over every
// damaged table of testdata/bad: each must exit with a clear error or a conservative result —
// never panic, hang, or delete or change a file; only a real maintain may write, and only new
// files of a successful commit. Each outcome must equal the one recorded in cases.json:
// "error: <message>" (the table path replaced by TABLE) or "ok: <summary>". With -update the
// corpus is regenerated from the golden table and the outcomes recorded (review the diff).
func TestBadInputCorpus(t *testing.T) {
	testenv.Native(t)
	if updateBad() {
		generateBadCorpus(t)
	}
	data, err := os.ReadFile(filepath.Join(badDir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []badCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 20 {
		t.Fatalf("only %d cases", len(cases))
	}
	for i := range cases {
		c := &cases[i]
		t.Run(c.Name, func(t *testing.T) {
			got := map[string]string{}
			for _, cmd := range badCommands {
				root := materialize(t, c)
				got[cmd.name] = runBad(t, root, cmd.args, cmd.writes)
			}
			if updateBad() {
				c.Expect = got
				return
			}
			for _, cmd := range badCommands {
				if got[cmd.name] != c.Expect[cmd.name] {
					t.Errorf("%s: %s\n  got  %s\n  want %s", c.What, cmd.name, got[cmd.name], c.Expect[cmd.name])
				}
			}
		})
	}
	if updateBad() {
		out, err := json.MarshalIndent(cases, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(badDir, "cases.json"), append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// materialize copies the base table and lays the case's files over it.
func materialize(t *testing.T, c *badCase) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), badBase)
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "testdata", "tables", "java", badBase))); err != nil {
		t.Fatal(err)
	}
	for _, f := range c.Files {
		data, err := os.ReadFile(filepath.Join(badDir, c.Name, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

type treeEntry struct {
	size  int64
	mtime time.Time
}

func treeOf(t *testing.T, root string) map[string]treeEntry {
	t.Helper()
	out := map[string]treeEntry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = treeEntry{info.Size(), info.ModTime()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var badTimeout = 60 * time.Second

// runBad runs one command in-process over root and returns its outcome. It fails the test on a
// panic, a hang, a deleted or changed file, or a write by a command that must not write.
func runBad(t *testing.T, root string, args []string, mayWrite bool) string {
	t.Helper()
	args = slices.Clone(args)
	for i := range args {
		args[i] = strings.ReplaceAll(args[i], "{}", root)
	}
	before := treeOf(t, root)
	type result struct {
		code           int
		stdout, stderr string
		panicked       any
	}
	done := make(chan result, 1)
	ctx, cancel := context.WithTimeout(context.Background(), badTimeout)
	defer cancel()
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r.panicked = p
			}
			done <- r
		}()
		var out, errb bytes.Buffer
		r.code = run(ctx, args, &out, &errb)
		r.stdout, r.stderr = out.String(), errb.String()
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(badTimeout + 10*time.Second):
		t.Fatalf("pkft %s hangs", strings.Join(args, " "))
	}
	if r.panicked != nil {
		t.Fatalf("pkft %s panics: %v", strings.Join(args, " "), r.panicked)
	}
	after := treeOf(t, root)
	var wrote []string
	for name, e := range before {
		if a, ok := after[name]; !ok {
			t.Errorf("pkft %s deleted %s", args[0], name)
		} else if a != e && !(mayWrite && r.code == 0 && name == filepath.Join("snapshot", "LATEST")) {
			t.Errorf("pkft %s changed %s", args[0], name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			wrote = append(wrote, name)
		}
	}
	if len(wrote) > 0 && (!mayWrite || r.code != 0) {
		t.Errorf("pkft %s wrote %v (exit %d)", args[0], wrote, r.code)
	}
	if r.code != 0 {
		return "error: " + errorLine(r.stderr, root)
	}
	return "ok: " + summarize(t, args[0], args, r.stdout, len(wrote) > 0)
}

// errorLine returns the printed error ("pkft: ..." lines) without its prefix, the table path
// replaced by TABLE.
func errorLine(stderr, root string) string {
	msg := strings.TrimPrefix(strings.TrimSpace(stderr), "pkft: ")
	return strings.ReplaceAll(msg, root, "TABLE")
}

// summarize turns a successful command's output into a short comparable summary.
func summarize(t *testing.T, cmd string, args []string, stdout string, wrote bool) string {
	var v map[string]any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Errorf("pkft %s printed no JSON: %v", cmd, err)
		return "unparsable output"
	}
	count := func(key string) int {
		if a, ok := v[key].([]any); ok {
			return len(a)
		}
		return 0
	}
	switch {
	case cmd == "dump":
		return fmt.Sprintf("snapshot %v, %d buckets", v["snapshotId"], count("buckets"))
	case cmd == "state":
		stale, plans := 0, 0
		for _, b := range v["buckets"].([]any) {
			bm := b.(map[string]any)
			if s, ok := bm["state"].(map[string]any); ok {
				if st, ok := s["stale"].([]any); ok {
					stale += len(st)
				}
				if e, ok := s["error"].(string); ok && e != "" {
					stale += 1000
				}
			}
			if bm["plan"] != nil {
				plans++
			}
		}
		return fmt.Sprintf("%d buckets, %d stale payloads, %d plans", count("buckets"), stale, plans)
	case cmd == "search":
		return fmt.Sprintf("%d hits", count("hits"))
	default: // maintain
		built := 0
		for _, b := range v["buckets"].([]any) {
			if bl, ok := b.(map[string]any)["built"].([]any); ok {
				built += len(bl)
			}
		}
		return fmt.Sprintf("%d archives built, wrote files %v", built, wrote)
	}
}

// generateBadCorpus regenerates testdata/bad/<case>/ from the base table and resets cases.json to
// the list of cases (outcomes are recorded by the test run that follows).
func generateBadCorpus(t *testing.T) {
	ctx := context.Background()
	base := filepath.Join("..", "..", "testdata", "tables", "java", badBase)
	tbl := table.Open(fileio.NewLocal(), base)
	snap, err := tbl.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tbl.Read(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	find := func(name string) string {
		var found string
		filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == name {
				found, _ = filepath.Rel(base, p)
			}
			return nil
		})
		if found == "" {
			t.Fatalf("%s not found in %s", name, badBase)
		}
		return filepath.ToSlash(found)
	}
	var dvFile, archive *meta.IndexFileMeta
	var ftEntry int
	for i, e := range c.IndexEntries {
		switch {
		case e.IndexFile.IndexType == meta.IndexTypeDeletionVectors && dvFile == nil:
			dvFile = &c.IndexEntries[i].IndexFile
		case e.IndexFile.IndexType == pkfulltext.IndexType && archive == nil:
			archive, ftEntry = &c.IndexEntries[i].IndexFile, i
		}
	}
	if dvFile == nil || archive == nil {
		t.Fatal("base table has no deletion vector or archive")
	}
	kinds := []struct{ kind, rel string }{
		{"snapshot", "snapshot/snapshot-" + fmt.Sprint(snap.ID)},
		{"schema", find("schema-0")},
		{"manifest-list", "manifest/" + snap.BaseManifestList},
		{"manifest", "manifest/" + c.BaseManifests[0].FileName},
		{"index-manifest", "manifest/" + *snap.IndexManifest},
		{"dv-index", find(dvFile.FileName)},
		{"data-parquet", find(c.Entries[0].File.FileName)},
		{"archive", find(archive.FileName)},
	}
	if err := os.RemoveAll(badDir); err != nil {
		t.Fatal(err)
	}
	var cases []badCase
	add := func(name, what, rel string, data []byte) {
		p := filepath.Join(badDir, name, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, badCase{Name: name, What: what, Files: []string{rel}})
	}
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(base, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, k := range kinds {
		b := read(k.rel)
		add(k.kind+"-truncated", k.kind+" cut to half its length", k.rel, b[:len(b)/2])
		flipped := slices.Clone(b)
		flipped[len(b)/2] ^= 0x04
		add(k.kind+"-bitflip", k.kind+" with one bit flipped in the middle", k.rel, flipped)
		add(k.kind+"-empty", k.kind+" empty", k.rel, nil)
	}
	opts := manifest.WriteOptions{Compression: "zstd"}
	encode := func(write func(*bytes.Buffer) error) []byte {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	// Names escaping the table.
	mrel := kinds[3].rel
	entries, err := tbl.ReadManifest(ctx, c.BaseManifests[0].FileName)
	if err != nil {
		t.Fatal(err)
	}
	escaped := slices.Clone(entries)
	escaped[0].File.FileName = "../../../escape.parquet"
	add("manifest-name-escapes", "a data file named ../../../escape.parquet", mrel, encode(func(b *bytes.Buffer) error {
		return manifest.WriteManifestFile(b, escaped, opts)
	}))
	dup := append(slices.Clone(entries), entries[0])
	add("manifest-duplicate-entry", "a data file added twice", mrel, encode(func(b *bytes.Buffer) error {
		return manifest.WriteManifestFile(b, dup, opts)
	}))
	// A compacted file's row count off by one: its archive's source meta no longer matches.
	for _, m := range slices.Concat(c.BaseManifests, c.DeltaManifests) {
		es, err := tbl.ReadManifest(ctx, m.FileName)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(es, func(e meta.ManifestEntry) bool {
			return e.Kind == meta.FileKindAdd && e.File.Level > 0 && slices.ContainsFunc(c.Entries, func(l meta.ManifestEntry) bool {
				return l.File.FileName == e.File.FileName
			})
		})
		if i < 0 {
			continue
		}
		es[i].File.RowCount++
		add("manifest-row-count-off", "a compacted data file's row count one more than its archive's source meta says", "manifest/"+m.FileName, encode(func(b *bytes.Buffer) error {
			return manifest.WriteManifestFile(b, es, opts)
		}))
		break
	}
	irel := kinds[4].rel
	idx := slices.Clone(c.IndexEntries)
	idx[ftEntry].IndexFile.FileName = "../escape-index"
	add("index-manifest-name-escapes", "an archive named ../escape-index", irel, encode(func(b *bytes.Buffer) error {
		return manifest.WriteIndexManifest(b, idx, opts)
	}))
	idx = append(slices.Clone(c.IndexEntries), c.IndexEntries[ftEntry])
	add("index-manifest-duplicate-entry", "an archive listed twice", irel, encode(func(b *bytes.Buffer) error {
		return manifest.WriteIndexManifest(b, idx, opts)
	}))
	idx = slices.Clone(c.IndexEntries)
	idx[ftEntry].IndexFile.RowCount++
	add("index-manifest-row-count-off", "an archive's row count one more than its sources", irel, encode(func(b *bytes.Buffer) error {
		return manifest.WriteIndexManifest(b, idx, opts)
	}))
	srel := kinds[0].rel
	sj := read(srel)
	add("snapshot-unknown-version", "snapshot version 99", srel, bytes.Replace(sj, []byte(`"version" : 3`), []byte(`"version" : 99`), 1))
	add("snapshot-list-escapes", "a base manifest list named ../../x", srel,
		bytes.Replace(sj, []byte(snap.BaseManifestList), []byte("../../x"), 1))
	schj := read(kinds[1].rel)
	add("schema-unknown-version", "schema version 99", kinds[1].rel, regexp.MustCompile(`"version"\s*:\s*\d+`).ReplaceAll(schj, []byte(`"version" : 99`)))
	for _, cs := range cases {
		if cs.Name == "snapshot-unknown-version" || cs.Name == "schema-unknown-version" {
			data, _ := os.ReadFile(filepath.Join(badDir, cs.Name, filepath.FromSlash(cs.Files[0])))
			if !bytes.Contains(data, []byte(`"version" : 99`)) {
				t.Fatalf("%s: version not replaced", cs.Name)
			}
		}
	}
	out, err := json.MarshalIndent(cases, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(badDir, "cases.json"), append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
