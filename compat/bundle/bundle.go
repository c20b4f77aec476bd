// Package bundle writes the released fixture bundle of pkft's golden corpus: a versioned tar.gz
// of every golden table (Java-, Go- and pypaimon-written, under testdata/tables) with a
// language-neutral JSON manifest — for each table who wrote it with which version, what it
// exercises, its keys and files, and where its expected rows, dump and ranked search answers
// are — and the manifest's JSON schema (manifest.schema.json, checked in beside this file).
// Other implementations (paimon-cpp, paimon-rust, ...) test their readers on it without running
// pkft, as Delta's acceptance-testing tables are shipped.
package bundle

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
)

// Format names the bundle format in every manifest; FormatVersion is its version, raised when
// the manifest changes incompatibly.
const (
	Format        = "pkft-corpus-bundle"
	FormatVersion = 1
)

// File names inside the bundle's top directory.
const (
	ManifestName = "manifest.json"
	SchemaName   = "manifest.schema.json"
)

// Schema is the manifest's JSON schema (draft 2020-12), manifest.schema.json.
//
//go:embed manifest.schema.json
var Schema []byte

// Manifest is manifest.json: the bundle's tables and the conventions of their expected answers.
// Paths are relative to the bundle's top directory, with '/' separators.
type Manifest struct {
	Format        string      `json:"format"`
	FormatVersion int         `json:"formatVersion"`
	Version       string      `json:"version"`
	Schema        string      `json:"schema"`
	Conventions   Conventions `json:"conventions"`
	Tables        []Table     `json:"tables"`
}

// Conventions say how the expected answers are written, for a reader in any language.
type Conventions struct {
	Values string `json:"values"`
	Rows   string `json:"rows"`
	Dump   string `json:"dump"`
	Search string `json:"search"`
}

// Table is one golden table of the bundle.
type Table struct {
	// Name is the table's directory name; Producer the corpus it belongs to (java, go,
	// pypaimon): its directory is tables/<producer>/<name>.
	Name     string `json:"name"`
	Producer string `json:"producer"`
	Path     string `json:"path"`
	// Writers are the implementations that wrote the table, in order, each with its version
	// and what it did.
	Writers []Writer `json:"writers"`
	// Exercises lists what the table covers.
	Exercises       []string `json:"exercises"`
	PrimaryKeys     []string `json:"primaryKeys"`
	PartitionKeys   []string `json:"partitionKeys"`
	FullTextColumns []string `json:"fullTextColumns"`
	// LatestSnapshotID is the snapshot the expected answers describe.
	LatestSnapshotID int64    `json:"latestSnapshotId"`
	Expected         Expected `json:"expected"`
	// KnownIssues are documented bugs of the table's writers that a reader meets on it.
	KnownIssues []KnownIssue `json:"knownIssues,omitempty"`
	// Files are every file of the table's directory with its size and SHA-256.
	Files []File `json:"files"`
}

// KnownIssue is a documented bug of a writer, seen on this table: where it comes from, what it
// does, and (ReadFails) whether a reader following Paimon's Java rules fails to read the
// table's rows, with Symptom, text every such failure names (a path, say).
type KnownIssue struct {
	Writer       string `json:"writer"`
	UpstreamFile string `json:"upstreamFile"`
	Description  string `json:"description"`
	ReadFails    bool   `json:"readFails"`
	Symptom      string `json:"symptom,omitempty"`
}

// Writer is one implementation that wrote a table.
type Writer struct {
	Implementation string `json:"implementation"`
	Version        string `json:"version"`
	Did            string `json:"did"`
}

// Expected locates a table's expected answers and says who gave them.
type Expected struct {
	Reader   string  `json:"reader"`
	RowCount int     `json:"rowCount"`
	Rows     string  `json:"rows"`
	Dump     string  `json:"dump,omitempty"`
	Search   *Search `json:"search,omitempty"`
}

// Search locates a full-text table's recorded search answers.
type Search struct {
	Path    string `json:"path"`
	Limit   int    `json:"limit"`
	Queries int    `json:"queries"`
	// Order is "score-then-key" (score descending, ties by primary key ascending) or "ranked"
	// (Paimon's own ranked order, each hit with its physical position).
	Order string `json:"order"`
}

// File is one file of a table's directory.
type File struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Versions of the writers and readers of the golden corpus.
const (
	paimonVersion   = "2.0.0"
	pypaimonVersion = "2.0.0"
	javaReader      = "java runner, Paimon " + paimonVersion + " (compat/java)"
)

var conventions = Conventions{
	Values: "rows are JSON objects by field name: strings, booleans and numbers as they are, DATE as YYYY-MM-DD, " +
		"DECIMAL as its plain decimal string, TIMESTAMP as an ISO-8601 local date-time (Java runner: without trailing " +
		"fractional zeros; pypaimon: with six fractional digits), BINARY/VARBINARY as base64, null as null",
	Rows: "every visible row of the latest snapshot (merges and deletion vectors applied), every field of the latest " +
		"schema, sorted by primary key ascending (field by field, nulls first)",
	Dump: "the canonical dump of the latest snapshot as the Java runner's dump command gives it: schema, snapshot, " +
		"buckets with their data files, index files and full-text bucket state (current, stale) and plan",
	Search: "an object {limit, queries, answers}: for each engine JSON query (searched on the table's " +
		"pk-full-text.index.columns column, limit hits) the answer {column, query, snapshotId, results: [{key, text, " +
		"score, bucket?, dataFile?, rowPosition?}]}; scores compare within 1e-5 relative",
}

// exercises says what each golden table covers; every table of the corpus must be described
// here (Manifest fails on one that is not).
var exercises = map[string][]string{
	"java/composite-key":   {"a DECIMAL and TIMESTAMP composite primary key", "full compaction"},
	"java/full-compaction": {"one bucket fully compacted: every row on the top level"},
	"java/partitioned-dv":  {"partitioned by STRING and DATE", "deletion vectors", "updates and deletes after a compaction"},
	"java/two-levels":      {"compacted files on two non-zero levels of one bucket"},
	"java/ft-default-partitioned": {"primary-key full-text index, default analyzer", "partitioned by STRING (eu, 中国) and DATE, 2 buckets",
		"deletion vectors with updates and deletes after a compaction", "multilingual text with nulls", "archives maintained by Paimon's writer and compaction"},
	"java/ft-ngram-two-levels": {"primary-key full-text index, ngram analyzer from the column's JSON options",
		"compacted files on two non-zero levels of one bucket", "index-file-in-data-file-dir (archives in the bucket directory)"},
	"java/ft-jieba-renamed-late": {"primary-key full-text index, jieba analyzer", "the text column renamed after its data was compacted",
		"pk-full-text.index.columns set after the data (a schema change without a snapshot)", "one bucket with levels that have no archive"},
	"java/ft-avro": {"file.format = avro: Java's Avro data files", "primary-key full-text index, default analyzer, one bucket",
		"deletion vectors with updates and deletes after a compaction", "archives maintained by Paimon's writer and compaction"},
	"java/sorted-types": {"pk-btree (INT, DECIMAL, DOUBLE, STRING) and pk-bitmap (BIGINT, DATE, BOOLEAN, STRING) indexes, one bucket",
		"sorted payloads on two non-zero levels, built by Paimon's writer and compactions", "deletion vectors over indexed files", "nulls in every indexed column"},
	"java/sorted-fulltext-partitioned": {"pk-btree (BIGINT, BOOLEAN, DATE), pk-bitmap (INT, DECIMAL, DOUBLE) and pk-full-text indexes together",
		"partitioned by STRING (eu, 中国), one bucket each", "deletion vectors over indexed files", "sorted payloads on two non-zero levels"},
	"go/go-maintained-jieba": {"pkft maintain building the archives Java's table lacked (jieba analyzer)"},
	"go/go-written-ngram": {"written, updated, deleted and fully compacted by pkft", "partitioned by STRING and DATE, 2 buckets, deletion vectors",
		"ngram analyzer", "index-file-in-data-file-dir", "archives retired by a second compaction"},
	"go/go-written-jieba": {"written, updated, deleted and compacted by pkft", "partitioned by STRING, 2 buckets, deletion vectors",
		"jieba analyzer", "updates and deletes left on level 0 after the last compaction"},
	"go/go-compacted-java":          {"a Java-written, Java-archived table fully compacted by pkft", "Java's archives of the changed levels retired, new ones built by pkft"},
	"pypaimon/pk-unpartitioned":     {"written by pypaimon", "one bucket, updates that null out earlier values", "Chinese, accented and emoji text"},
	"pypaimon/pk-partitioned":       {"written by pypaimon", "partitioned by STRING and DATE, 2 buckets", "a new partition and a partition overwrite"},
	"pypaimon/pk-decimal-timestamp": {"written by pypaimon", "a DECIMAL and TIMESTAMP primary key"},
}

// knownIssues are the documented writer bugs each golden table shows.
var knownIssues = map[string][]KnownIssue{
	"pypaimon/pk-partitioned": {{
		Writer:       "pypaimon " + pypaimonVersion,
		UpstreamFile: "pypaimon/utils/file_store_path_factory.py",
		Description: "FileStorePathFactory.relative_bucket_path names partition directories by str() of the value whatever " +
			"partition.legacy-name says: with the default (true) Java Paimon names a DATE partition by its days since the epoch " +
			"(day=19783 for 2024-03-01), pypaimon by its ISO date (day=2024-03-01). Java Paimon 2.0.0, paimon-rust 0.4.0 and pkft look for the " +
			"data files under day=19783 and fail; pypaimon reads its own table (the expected rows are its reading).",
		ReadFails: true,
		Symptom:   "day=1978",
	}},
}

// source is one golden corpus: where its tables and expected answers are.
type source struct {
	producer, tables, expected string
	list                       func(root string) ([]string, error)
}

func sources() []source {
	return []source{
		{"java", goldengen.JavaTablesDir, goldengen.JavaExpectedDir, goldengen.JavaGoldenTables},
		{"go", goldengen.GoTablesDir, goldengen.GoExpectedDir, func(string) ([]string, error) {
			var names []string
			for _, g := range goldengen.GoTables() {
				names = append(names, g.Name)
			}
			return names, nil
		}},
		{"pypaimon", goldengen.TablesDir, goldengen.ExpectedDir, goldengen.GoldenTables},
	}
}

// entry is one file of the bundle: its path inside the top directory and its content, from a
// file on disk or in memory.
type entry struct {
	name string
	disk string
	data []byte
}

// plan gathers the manifest and every file of the bundle of the corpus under root.
func plan(ctx context.Context, root, version string) (*Manifest, []entry, error) {
	m := &Manifest{Format: Format, FormatVersion: FormatVersion, Version: version, Schema: SchemaName, Conventions: conventions}
	var entries []entry
	described := map[string]bool{}
	for _, src := range sources() {
		names, err := src.list(root)
		if err != nil {
			return nil, nil, fmt.Errorf("bundle: the %s corpus: %w", src.producer, err)
		}
		sort.Strings(names)
		for _, name := range names {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			t, files, err := table(root, src, name, version)
			if err != nil {
				return nil, nil, fmt.Errorf("bundle: table %s/%s: %w", src.producer, name, err)
			}
			described[src.producer+"/"+name] = true
			m.Tables = append(m.Tables, *t)
			entries = append(entries, files...)
		}
	}
	for _, ids := range []map[string][]string{exercises, keysOf(knownIssues)} {
		for id := range ids {
			if !described[id] {
				return nil, nil, fmt.Errorf("bundle: table %s is described but not in the corpus", id)
			}
		}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	entries = append(entries, entry{name: ManifestName, data: append(data, '\n')}, entry{name: SchemaName, data: Schema})
	return m, entries, nil
}

// table describes one golden table and lists the bundle files it contributes: the table's
// directory and its expected answers.
func table(root string, src source, name, version string) (*Table, []entry, error) {
	id := src.producer + "/" + name
	ex, ok := exercises[id]
	if !ok {
		return nil, nil, fmt.Errorf("no description of what it exercises (add it to exercises in compat/bundle)")
	}
	dir := filepath.Join(root, src.tables, name)
	t := &Table{Name: name, Producer: src.producer, Path: path.Join("tables", src.producer, name), Exercises: ex, KnownIssues: knownIssues[id]}
	if err := readSchema(dir, t); err != nil {
		return nil, nil, err
	}
	var err error
	if t.LatestSnapshotID, err = latestSnapshot(dir); err != nil {
		return nil, nil, err
	}
	var entries []entry
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		f, err := fileOf(p, path.Join(t.Path, filepath.ToSlash(rel)))
		if err != nil {
			return err
		}
		t.Files = append(t.Files, f)
		entries = append(entries, entry{name: f.Path, disk: p})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	expected, err := expectedOf(root, src, name, version, t)
	if err != nil {
		return nil, nil, err
	}
	return t, append(entries, expected...), nil
}

func fileOf(disk, name string) (File, error) {
	f, err := os.Open(disk)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return File{}, fmt.Errorf("%s: %w", disk, err)
	}
	return File{Path: name, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// readSchema fills the keys and full-text columns of t from the table's latest schema file.
func readSchema(dir string, t *Table) error {
	id, err := highest(filepath.Join(dir, "schema"), "schema-")
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(dir, "schema", "schema-"+strconv.FormatInt(id, 10)))
	if err != nil {
		return err
	}
	var s struct {
		PrimaryKeys   []string          `json:"primaryKeys"`
		PartitionKeys []string          `json:"partitionKeys"`
		Options       map[string]string `json:"options"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("schema-%d: %w", id, err)
	}
	t.PrimaryKeys, t.PartitionKeys = nonNil(s.PrimaryKeys), nonNil(s.PartitionKeys)
	t.FullTextColumns = []string{}
	for _, c := range strings.Split(s.Options["pk-full-text.index.columns"], ",") {
		if c = strings.TrimSpace(c); c != "" {
			t.FullTextColumns = append(t.FullTextColumns, c)
		}
	}
	return nil
}

func keysOf(m map[string][]KnownIssue) map[string][]string {
	out := map[string][]string{}
	for k := range m {
		out[k] = nil
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func latestSnapshot(dir string) (int64, error) {
	return highest(filepath.Join(dir, "snapshot"), "snapshot-")
}

// highest returns the highest N of the files prefix+N in dir.
func highest(dir, prefix string) (int64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	best := int64(-1)
	for _, e := range entries {
		if n, err := strconv.ParseInt(strings.TrimPrefix(e.Name(), prefix), 10, 64); err == nil && strings.HasPrefix(e.Name(), prefix) && n > best {
			best = n
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("no %sN file in %s", prefix, dir)
	}
	return best, nil
}

// expectedOf fills t.Writers and t.Expected from the corpus's recorded answers and returns the
// bundle files holding them: expected/<producer>/<name>/{rows,dump,search}.json.
func expectedOf(root string, src source, name, version string, t *Table) ([]entry, error) {
	base := path.Join("expected", src.producer, name)
	var rec struct {
		Rows  []json.RawMessage `json:"rows"`
		Dump  json.RawMessage   `json:"dump"`
		Steps []struct {
			Op string `json:"op"`
		} `json:"steps"`
		Limit   int               `json:"limit"`
		Queries []json.RawMessage `json:"queries"`
		Search  []json.RawMessage `json:"search"`
	}
	if err := readJSON(filepath.Join(root, src.expected, name+".json"), &rec); err != nil {
		return nil, err
	}
	switch src.producer {
	case "java":
		t.Writers = []Writer{{"java", paimonVersion, "wrote every snapshot through the Java runner (compat/java)"}}
		t.Expected.Reader = javaReader
		if len(t.FullTextColumns) > 0 {
			if err := readJSON(filepath.Join(root, src.expected, name+".fulltext.json"), &rec); err != nil {
				return nil, err
			}
		}
	case "go":
		g, ok := goTable(name)
		if !ok {
			return nil, fmt.Errorf("not a table of goldengen.GoTables")
		}
		var ops []string
		for _, s := range rec.Steps {
			ops = append(ops, s.Op)
		}
		did := strings.Join(ops, ", ") + " through pkft's library facade (make golden; the table is checked in, so the pkft revision that wrote it is at or before the bundle's)"
		if g.BaseJava != "" {
			t.Writers = []Writer{{"java", paimonVersion, "wrote the table as the Java golden table " + g.BaseJava}}
		} else {
			t.Writers = []Writer{{"java", paimonVersion, "created the table (schema only)"}}
		}
		t.Writers = append(t.Writers, Writer{"pkft", version, did})
		t.Expected.Reader = javaReader
	case "pypaimon":
		t.Writers = []Writer{{"pypaimon", pypaimonVersion, "wrote every snapshot (compat/python/table_runner.py)"}}
		t.Expected.Reader = "pypaimon " + pypaimonVersion + " (compat/python/table_runner.py)"
	}
	if len(rec.Rows) == 0 {
		return nil, errors.New("its recorded answers have no rows")
	}
	t.Expected.RowCount = len(rec.Rows)
	var out []entry
	add := func(file string, v any) (string, error) {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return "", err
		}
		name := path.Join(base, file)
		out = append(out, entry{name: name, data: append(data, '\n')})
		return name, nil
	}
	var err error
	if t.Expected.Rows, err = add("rows.json", rec.Rows); err != nil {
		return nil, err
	}
	if len(rec.Dump) > 0 {
		if t.Expected.Dump, err = add("dump.json", rec.Dump); err != nil {
			return nil, err
		}
	}
	if len(rec.Search) > 0 {
		order := "score-then-key"
		if src.producer == "go" {
			order = "ranked"
		}
		s := &Search{Limit: rec.Limit, Queries: len(rec.Search), Order: order}
		if s.Path, err = add("search.json", map[string]any{"limit": rec.Limit, "queries": rec.Queries, "answers": rec.Search}); err != nil {
			return nil, err
		}
		t.Expected.Search = s
	}
	return out, nil
}

func goTable(name string) (goldengen.GoTable, bool) {
	for _, g := range goldengen.GoTables() {
		if g.Name == name {
			return g, true
		}
	}
	return goldengen.GoTable{}, false
}

func readJSON(p string, v any) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// TopDir is the top directory of the bundle of version, and the base of its file name.
func TopDir(version string) string { return "pkft-corpus-" + version }

// Write writes the bundle of the corpus under root, version version, to w: a gzip-compressed
// tar whose entries all lie under TopDir(version), in name order, with fixed times and owners
// (the same corpus gives the same bytes).
func Write(ctx context.Context, root, version string, w io.Writer) (*Manifest, error) {
	if version == "" || strings.ContainsAny(version, "/\\ ") {
		return nil, fmt.Errorf("bundle: version %q must be non-empty, without slashes or spaces", version)
	}
	m, entries, err := plan(ctx, root, version)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	top := TopDir(version)
	epoch := time.Unix(0, 0).UTC()
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data := e.data
		if e.disk != "" {
			if data, err = os.ReadFile(e.disk); err != nil {
				return nil, fmt.Errorf("bundle: %w", err)
			}
		}
		if err := tw.WriteHeader(&tar.Header{Name: top + "/" + e.name, Mode: 0o644, Size: int64(len(data)), ModTime: epoch, Format: tar.FormatPAX}); err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
		if _, err := tw.Write(data); err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	return m, nil
}

// WriteFile writes the bundle into dir as TopDir(version).tar.gz and returns its path. The file
// appears whole or not at all: it is written under a temporary name, removed on failure.
func WriteFile(ctx context.Context, root, version, dir string) (string, *Manifest, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, fmt.Errorf("bundle: %w", err)
	}
	f, err := os.CreateTemp(dir, ".corpus-bundle-*")
	if err != nil {
		return "", nil, fmt.Errorf("bundle: %w", err)
	}
	tmp := f.Name()
	m, err := Write(ctx, root, version, f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("bundle: %w", cerr)
	}
	out := filepath.Join(dir, TopDir(version)+".tar.gz")
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, out)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return "", nil, err
	}
	return out, m, nil
}
