package bundle_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/paimon-pkft/pkft/compat/bundle"
	"github.com/paimon-pkft/pkft/internal/testing/arrowrows"
	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
)

const version = "test-1"

// extracted writes the bundle of the repository's corpus and unpacks it with tar, returning the
// bundle's top directory and its manifest.
func extracted(t *testing.T) (string, *bundle.Manifest, []byte) {
	t.Helper()
	root, err := goldengen.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	path, m, err := bundle.WriteFile(context.Background(), root, version, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "pkft-corpus-"+version+".tar.gz" {
		t.Fatalf("bundle written to %s", path)
	}
	out := t.TempDir()
	if b, err := exec.Command("tar", "-xzf", path, "-C", out).CombinedOutput(); err != nil {
		t.Fatalf("tar -xzf %s: %v\n%s", path, err, b)
	}
	top := filepath.Join(out, bundle.TopDir(version))
	data, err := os.ReadFile(filepath.Join(top, bundle.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	var read bundle.Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&read); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(*m, read); d != "" {
		t.Fatalf("the manifest in the bundle differs from the one written (-written +read):\n%s", d)
	}
	return top, &read, data
}

// compileSchema compiles the manifest schema shipped in the bundle, after checking it is the
// one checked in beside the package.
func compileSchema(t *testing.T, top string) *jsonschema.Schema {
	t.Helper()
	shipped, err := os.ReadFile(filepath.Join(top, bundle.SchemaName))
	if err != nil {
		t.Fatal(err)
	}
	checkedIn, err := os.ReadFile(bundle.SchemaName)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shipped, checkedIn) {
		t.Fatal("the bundle's manifest.schema.json is not the checked-in one")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(shipped))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const url = "file:///manifest.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validate(s *jsonschema.Schema, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

// TestBundle: make corpus-bundle's archive opens with tar; its manifest validates against the
// checked-in JSON schema (which refuses manifests that break it); it lists every golden table
// of the repository once, every file of each with its size and SHA-256 and no other; and every
// listed table reads — through pkft's scan of the unpacked copy — exactly as its expected rows
// say (or, for a table whose manifest documents a writer bug that keeps readers from its rows,
// fails as documented), with search answers for every recorded query at the latest snapshot.
func TestBundle(t *testing.T) {
	top, m, data := extracted(t)
	schema := compileSchema(t, top)
	if err := validate(schema, data); err != nil {
		t.Fatalf("the manifest does not validate against its schema: %v", err)
	}
	t.Run("schema refuses", func(t *testing.T) { schemaRefuses(t, schema, data) })

	root, err := goldengen.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, dir := range []string{goldengen.JavaTablesDir, goldengen.GoTablesDir, goldengen.TablesDir} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				want = append(want, filepath.ToSlash(filepath.Join(dir, e.Name())))
			}
		}
	}
	byDir := map[string]string{"java": goldengen.JavaTablesDir, "go": goldengen.GoTablesDir, "pypaimon": goldengen.TablesDir}
	for _, tb := range m.Tables {
		got = append(got, byDir[tb.Producer]+"/"+tb.Name)
	}
	slices.Sort(want)
	slices.Sort(got)
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("the bundle's tables differ from the golden corpus (-corpus +bundle):\n%s", d)
	}
	for _, tb := range m.Tables {
		t.Run(tb.Producer+"/"+tb.Name, func(t *testing.T) {
			checkFiles(t, top, tb)
			checkRows(t, top, tb)
			checkSearch(t, top, tb)
		})
	}
}

// checkFiles: the table's directory in the bundle holds exactly the listed files, each of the
// listed size and SHA-256.
func checkFiles(t *testing.T, top string, tb bundle.Table) {
	listed := map[string]bundle.File{}
	for _, f := range tb.Files {
		listed[f.Path] = f
	}
	seen := 0
	err := filepath.WalkDir(filepath.Join(top, filepath.FromSlash(tb.Path)), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(top, p)
		if err != nil {
			return err
		}
		f, ok := listed[filepath.ToSlash(rel)]
		if !ok {
			t.Errorf("%s is in the bundle but not in the manifest", rel)
			return nil
		}
		seen++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		if int64(len(data)) != f.Size || hex.EncodeToString(sum[:]) != f.SHA256 {
			t.Errorf("%s: %d bytes, sha256 %x; the manifest says %d bytes, %s", rel, len(data), sum, f.Size, f.SHA256)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(tb.Files) {
		t.Errorf("%d of the %d listed files are in the bundle", seen, len(tb.Files))
	}
}

// checkRows: pkft's scan of the unpacked table equals the expected rows.
func checkRows(t *testing.T, top string, tb bundle.Table) {
	ctx := context.Background()
	var rows []map[string]json.RawMessage
	readJSON(t, filepath.Join(top, tb.Expected.Rows), &rows)
	if len(rows) != tb.Expected.RowCount {
		t.Fatalf("%d expected rows, the manifest says %d", len(rows), tb.Expected.RowCount)
	}
	got, sch, err := arrowrows.Scan(ctx, filepath.Join(top, filepath.FromSlash(tb.Path)))
	for _, k := range tb.KnownIssues {
		if !k.ReadFails {
			continue
		}
		// A documented writer bug that keeps Java-rule readers from the rows: pkft's scan fails
		// as documented, and a scan that succeeds or fails otherwise means the entry is stale.
		if err == nil {
			t.Fatalf("the manifest documents that readers fail on the table (%s, %s), but pkft's scan succeeds", k.Writer, k.UpstreamFile)
		}
		if k.Symptom == "" || !strings.Contains(err.Error(), k.Symptom) {
			t.Fatalf("pkft's scan fails otherwise than documented (%q): %v", k.Symptom, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	want, err := arrowrows.CanonicalJSONRows(sch, rows)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("pkft's scan differs from the expected rows read by %s (-expected +scan):\n%s", tb.Expected.Reader, d)
	}
}

// checkSearch: a full-text table has an answer for each recorded query, at its latest snapshot,
// in the recorded order; the dump is there and describes the latest snapshot.
func checkSearch(t *testing.T, top string, tb bundle.Table) {
	if len(tb.FullTextColumns) == 0 {
		if tb.Expected.Search != nil {
			t.Fatal("search answers for a table without a full-text index")
		}
		return
	}
	var dump struct {
		SnapshotID int64 `json:"snapshotId"`
	}
	readJSON(t, filepath.Join(top, tb.Expected.Dump), &dump)
	if dump.SnapshotID != tb.LatestSnapshotID {
		t.Fatalf("the dump describes snapshot %d, the latest is %d", dump.SnapshotID, tb.LatestSnapshotID)
	}
	var s struct {
		Limit   int               `json:"limit"`
		Queries []json.RawMessage `json:"queries"`
		Answers []struct {
			Column     string `json:"column"`
			SnapshotID int64  `json:"snapshotId"`
			Results    []struct {
				Key      map[string]any `json:"key"`
				Score    float64        `json:"score"`
				DataFile string         `json:"dataFile"`
			} `json:"results"`
		} `json:"answers"`
	}
	readJSON(t, filepath.Join(top, tb.Expected.Search.Path), &s)
	if s.Limit != tb.Expected.Search.Limit || len(s.Queries) != tb.Expected.Search.Queries || len(s.Answers) != len(s.Queries) {
		t.Fatalf("limit %d, %d queries, %d answers; the manifest says limit %d, %d queries",
			s.Limit, len(s.Queries), len(s.Answers), tb.Expected.Search.Limit, tb.Expected.Search.Queries)
	}
	hits := 0
	for i, a := range s.Answers {
		if a.SnapshotID != tb.LatestSnapshotID || !slices.Contains(tb.FullTextColumns, a.Column) {
			t.Fatalf("answer %d: snapshot %d, column %s", i, a.SnapshotID, a.Column)
		}
		for j, r := range a.Results {
			hits++
			if len(r.Key) != len(tb.PrimaryKeys) || (tb.Expected.Search.Order == "ranked") != (r.DataFile != "") {
				t.Fatalf("answer %d hit %d: key %v, data file %q in %s order", i, j, r.Key, r.DataFile, tb.Expected.Search.Order)
			}
			if j > 0 && r.Score > a.Results[j-1].Score {
				t.Fatalf("answer %d: hit %d scores %v after %v", i, j, r.Score, a.Results[j-1].Score)
			}
		}
	}
	if hits == 0 {
		t.Fatal("no query has a hit: the answers test nothing")
	}
}

// schemaRefuses: manifests that break the format fail the schema.
func schemaRefuses(t *testing.T, s *jsonschema.Schema, data []byte) {
	for name, edit := range map[string]func(m map[string]any){
		"no tables":           func(m map[string]any) { delete(m, "tables") },
		"another format":      func(m map[string]any) { m["formatVersion"] = 2 },
		"an unknown member":   func(m map[string]any) { m["extra"] = true },
		"an unknown producer": func(m map[string]any) { table(m, 0)["producer"] = "cpp" },
		"an absolute path":    func(m map[string]any) { table(m, 0)["path"] = "/tables/java/x" },
		"a path out":          func(m map[string]any) { table(m, 0)["path"] = "tables/../../x" },
		"a bad checksum": func(m map[string]any) {
			table(m, 0)["files"].([]any)[0].(map[string]any)["sha256"] = "abc"
		},
		"full text without search": func(m map[string]any) {
			for i := range m["tables"].([]any) {
				if tb := table(m, i); len(tb["fullTextColumns"].([]any)) > 0 {
					delete(tb["expected"].(map[string]any), "search")
					return
				}
			}
			panic("no full-text table")
		},
	} {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(s, b); err == nil {
			t.Errorf("%s: the schema accepts it", name)
		}
	}
}

func table(m map[string]any, i int) map[string]any {
	return m["tables"].([]any)[i].(map[string]any)
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestWriteRefusesBadVersion: a version that cannot name a file is refused, and nothing is
// written.
func TestWriteRefusesBadVersion(t *testing.T) {
	root, err := goldengen.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, v := range []string{"", "a/b", "a b", `a\b`} {
		if _, _, err := bundle.WriteFile(context.Background(), root, v, dir); err == nil {
			t.Fatalf("version %q accepted", v)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a refused bundle left %d files", len(entries))
	}
}

// TestWriteDeterministic: the same corpus and version give the same bytes (entries in name
// order, fixed times and owners), so a released bundle can be checked against a rebuild.
func TestWriteDeterministic(t *testing.T) {
	root, err := goldengen.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if _, err := bundle.Write(context.Background(), root, version, &a); err != nil {
		t.Fatal(err)
	}
	if _, err := bundle.Write(context.Background(), root, version, &b); err != nil {
		t.Fatal(err)
	}
	if a.Len() == 0 || !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("two bundles of the same corpus differ (%d and %d bytes)", a.Len(), b.Len())
	}
}
