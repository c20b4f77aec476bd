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

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
	"github.com/paimon-pkft/pkft/internal/testing/testtables"
)

// goldenTable copies the Java-written golden table testdata/tables/java/<name> into a temporary
// directory. With fullText it names "content" in pk-full-text.index.columns as Java's
// SchemaManager commits an option change: the next schema file, the option appended, no
// snapshot, so the table's compacted levels have no archive yet.
func goldenTable(t *testing.T, name string, fullText bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", "tables", "java", name))); err != nil {
		t.Fatal(err)
	}
	if fullText {
		addFullText(t, dir)
	}
	return dir
}

// addFullText adds a schema to the table at dir that indexes its content column.
func addFullText(t *testing.T, dir string) {
	t.Helper()
	if err := testtables.AddFullText(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
}

// pkftRun runs the command line in-process and returns its exit status, stdout and stderr.
func pkftRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// tableFiles maps every file under root (relative) to its content.
func tableFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func newFiles(before, after map[string]string) []string {
	var out []string
	for k := range after {
		if _, ok := before[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// summaryLine matches one bucket line of maintain's summary.
var summaryLine = regexp.MustCompile(`^(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)$`)

// summaryRows returns the bucket lines of maintain's human output as fields.
func summaryRows(t *testing.T, out string) [][]string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "PARTITION") {
		t.Fatalf("summary:\n%s", out)
	}
	var rows [][]string
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "TOTAL") {
			break
		}
		m := summaryLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("summary line %q", l)
		}
		rows = append(rows, m[1:])
	}
	return rows
}

func TestMaintain_DryRunThenCommitThenNothing(t *testing.T) {
	testenv.Native(t)
	dir := goldenTable(t, "partitioned-dv", true)
	before := tableFiles(t, dir)

	code, out, errs := pkftRun(t, "maintain", dir, "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, errs)
	}
	if !sameFiles(before, tableFiles(t, dir)) {
		t.Fatal("--dry-run changed the table")
	}
	if errs != "" {
		t.Errorf("stderr is not a terminal, yet: %q", errs)
	}
	rows := summaryRows(t, out)
	if len(rows) != 8 {
		t.Fatalf("%d bucket lines, want 8:\n%s", len(rows), out)
	}
	for _, r := range rows {
		if !strings.HasPrefix(r[0], "region=") || r[2] != "2" || r[3] != "0" || r[4] != "0" || r[6] != "-" {
			t.Errorf("dry-run line %v", r)
		}
	}
	if !strings.Contains(out, "TOTAL (8 buckets)") || !strings.Contains(out, "dry run: 16 archives to build, 0 to retire on snapshot 7; nothing written") {
		t.Errorf("dry-run summary:\n%s", out)
	}

	code, out, errs = pkftRun(t, "maintain", dir, "--parallel", "2")
	if code != 0 {
		t.Fatalf("maintain: exit %d: %s", code, errs)
	}
	after := tableFiles(t, dir)
	added := newFiles(before, after)
	var archives, snapshots int
	for _, f := range added {
		switch {
		case strings.HasPrefix(f, "index/"):
			archives++
		case strings.HasPrefix(f, "snapshot/snapshot-"):
			snapshots++
			if f != "snapshot/snapshot-8" {
				t.Errorf("new snapshot %s, want snapshot-8", f)
			}
		}
	}
	if archives != 16 || snapshots != 1 {
		t.Errorf("maintain added %d archives and %d snapshots, want 16 and 1: %v", archives, snapshots, added)
	}
	if !strings.Contains(out, "committed snapshot 8 (on snapshot 7, 1 attempt(s))") {
		t.Errorf("summary:\n%s", out)
	}
	for _, r := range summaryRows(t, out) {
		if r[2] != "2" || r[6] == "-" {
			t.Errorf("maintain line %v", r)
		}
	}

	code, out, errs = pkftRun(t, "maintain", dir)
	if code != 0 {
		t.Fatalf("second maintain: exit %d: %s", code, errs)
	}
	if !sameFiles(after, tableFiles(t, dir)) {
		t.Error("maintaining a current table changed it")
	}
	if !strings.Contains(out, "every archive of snapshot 8 is current; nothing committed") {
		t.Errorf("summary:\n%s", out)
	}
	for _, r := range summaryRows(t, out) {
		if r[2] != "0" || r[3] != "0" || r[4] != "2" {
			t.Errorf("current bucket line %v", r)
		}
	}
}

func TestMaintain_JSON(t *testing.T) {
	testenv.Native(t)
	dir := goldenTable(t, "partitioned-dv", true)
	code, out, errs := pkftRun(t, "maintain", dir, "--json", "--partition", "region=us,dt=2024-01-31", "--partition", "region=eu,dt=19782", "--bucket", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		DryRun         *bool  `json:"dryRun"`
		BaseSnapshotID *int64 `json:"baseSnapshotId"`
		SnapshotID     *int64 `json:"snapshotId"`
		Attempts       *int   `json:"attempts"`
		Commit         *struct {
			Attempts, Conflicts, Replaced, Replans int
		} `json:"commit"`
		DurationNanos *int64 `json:"durationNanos"`
		// The table has 8 snapshots, fewer than snapshot.num-retained.min: none expires.
		ExpiredSnapshots *int `json:"expiredSnapshots"`
		Buckets          []struct {
			Partition map[string]any `json:"partition"`
			Bucket    *int32         `json:"bucket"`
			Built     []map[string]any
			Retired   []map[string]any
			Unchanged []map[string]any
			Rows      *int64 `json:"rowsIndexed"`
			Nanos     *int64 `json:"durationNanos"`
		} `json:"buckets"`
		Coverage *coverageJSON `json:"coverage"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if res.ExpiredSnapshots == nil || *res.ExpiredSnapshots != 0 {
		t.Errorf("expiredSnapshots = %v, want 0", res.ExpiredSnapshots)
	}
	if res.DryRun == nil || *res.DryRun || res.BaseSnapshotID == nil || *res.BaseSnapshotID != 7 || res.SnapshotID == nil ||
		*res.SnapshotID != 8 || res.Attempts == nil || *res.Attempts != 1 || res.DurationNanos == nil || *res.DurationNanos <= 0 ||
		res.Commit == nil || res.Commit.Attempts != 1 || res.Commit.Conflicts != 0 || res.Commit.Replans != 0 {
		t.Errorf("result:\n%s", out)
	}
	// The two maintained buckets' files are all covered now.
	res.Coverage.check(t, "maintain --json")
	if res.Coverage == nil || res.Coverage.Files == 0 || res.Coverage.UncoveredRows != 0 {
		t.Errorf("coverage:\n%s", out)
	}
	var got []string
	for _, b := range res.Buckets {
		// The partition's DATE prints as Java's dump prints it.
		got = append(got, fmt.Sprintf("region=%v/dt=%v", b.Partition["region"], b.Partition["dt"]))
		if b.Bucket == nil || *b.Bucket != 1 || len(b.Built) != 2 || b.Retired == nil || b.Unchanged == nil || b.Rows == nil || *b.Rows <= 0 || b.Nanos == nil {
			t.Errorf("bucket:\n%s", out)
		}
		for _, a := range b.Built {
			if a["fileName"] == "" || a["level"].(float64) <= 0 || a["rowCount"].(float64) <= 0 || a["fileSize"].(float64) <= 0 {
				t.Errorf("archive %v", a)
			}
		}
	}
	if want := []string{"region=eu/dt=2024-02-29", "region=us/dt=2024-01-31"}; !slices.Equal(got, want) {
		t.Errorf("maintained %v, want %v", got, want)
	}
	// A Go program reading this output decodes it into the library's own result type.
	var lib pkft.MaintainResult
	if err := json.Unmarshal([]byte(out), &lib); err != nil {
		t.Fatalf("decode into pkft.MaintainResult: %v", err)
	}
	if built, _, _ := lib.Totals(); built != 4 || len(lib.Buckets) != 2 || lib.Buckets[0].Partition.String() != "region=eu/dt=2024-02-29" {
		t.Errorf("pkft.MaintainResult %+v", lib)
	}
}

func TestSearch_HumanAndJSON(t *testing.T) {
	testenv.Native(t)
	dir := goldenTable(t, "partitioned-dv", true)
	if code, _, errs := pkftRun(t, "maintain", dir); code != 0 {
		t.Fatalf("maintain: %s", errs)
	}
	before := tableFiles(t, dir)
	code, out, errs := pkftRun(t, "search", dir, "--query", "first", "--limit", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []*regexp.Regexp{
		regexp.MustCompile(`^#\s+SCORE\s+REGION\s+DT\s+ID\s+CONTENT$`),
		regexp.MustCompile(`^1\s+\d\.\d{4}\s+eu\s+2024-01-31\s+7\s+first eu 2024-01-31 7$`),
		regexp.MustCompile(`^2\s+\d\.\d{4}\s+eu\s+2024-01-31\s+9\s+first eu 2024-01-31 9$`),
		regexp.MustCompile(`^3\s+\d\.\d{4}\s+eu\s+2024-01-31\s+13\s+first eu 2024-01-31 13$`),
		regexp.MustCompile(`^3 hit\(s\) in snapshot 8$`),
	}
	if len(lines) != len(want) {
		t.Fatalf("output:\n%s", out)
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("line %d %q does not match %s", i, lines[i], re)
		}
	}

	code, out, errs = pkftRun(t, "search", dir, "--query", `{"match_phrase":{"query":"updated us"}}`, "--column", "content",
		"--partition", "dt=2024-02-29", "--limit", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Query         string   `json:"query"`
		SnapshotID    int64    `json:"snapshotId"`
		Column        string   `json:"column"`
		KeyColumns    []string `json:"keyColumns"`
		PartitionKeys []string `json:"partitionKeys"`
		Hits          []struct {
			Key         []any          `json:"key"`
			Text        *string        `json:"text"`
			Score       float64        `json:"score"`
			Partition   map[string]any `json:"partition"`
			Bucket      int32          `json:"bucket"`
			DataFile    string         `json:"dataFile"`
			RowPosition int64          `json:"rowPosition"`
		} `json:"hits"`
		Coverage *coverageJSON `json:"coverage"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if res.Query != `{"match_phrase":{"query":"updated us"}}` || res.SnapshotID != 8 || res.Column != "content" ||
		!slices.Equal(res.KeyColumns, []string{"region", "dt", "id"}) || !slices.Equal(res.PartitionKeys, []string{"region", "dt"}) || len(res.Hits) != 2 {
		t.Fatalf("result:\n%s", out)
	}
	// Every row of the searched partition is in an archive: the coverage says so, stderr is quiet.
	res.Coverage.check(t, "search --json")
	if res.Coverage == nil || res.Coverage.Files == 0 || res.Coverage.UncoveredRows != 0 || errs != "" {
		t.Errorf("coverage:\n%s\nstderr: %q", out, errs)
	}
	for _, h := range res.Hits {
		if h.Text == nil || !strings.HasPrefix(*h.Text, "updated us 2024-02-29") || h.Score <= 0 || len(h.Key) != 3 ||
			h.Key[0] != "us" || h.Key[1] != "2024-02-29" || h.Partition["region"] != "us" || h.Partition["dt"] != "2024-02-29" || h.DataFile == "" {
			t.Errorf("hit %+v", h)
		}
	}
	if !sameFiles(before, tableFiles(t, dir)) {
		t.Error("search changed the table")
	}
}

func TestErrors(t *testing.T) {
	plain := goldenTable(t, "two-levels", false)
	dir := goldenTable(t, "partitioned-dv", true)
	before := tableFiles(t, dir)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no table", []string{"maintain"}, exitUsage, "accepts 1 arg"},
		{"missing table", []string{"maintain", filepath.Join(dir, "nope")}, exitFailed, "no Paimon table at"},
		{"no full-text index", []string{"maintain", plain}, exitFailed, "pk-full-text.index.columns"},
		{"bad partition", []string{"maintain", dir, "--partition", "region"}, exitUsage, "want key=value"},
		{"duplicate partition key", []string{"maintain", dir, "--partition", "region=eu,region=us"}, exitUsage, "given twice"},
		{"unknown partition key", []string{"maintain", dir, "--partition", "nope=1", "--dry-run"}, exitFailed, "not a partition key"},
		{"negative bucket", []string{"maintain", dir, "--bucket", "-1"}, exitUsage, "want a bucket number"},
		{"negative parallel", []string{"maintain", dir, "--parallel", "-2"}, exitUsage, "want a positive number"},
		{"bad progress", []string{"maintain", dir, "--progress", "sometimes"}, exitUsage, "want auto, always, never or json"},
		{"unknown flag", []string{"maintain", dir, "--force"}, exitUsage, "unknown flag"},
		{"no query", []string{"search", dir}, exitUsage, "--query is required"},
		{"zero limit", []string{"search", dir, "-q", "x", "--limit", "0"}, exitUsage, "want a positive number"},
		{"other column", []string{"search", dir, "-q", "x", "--column", "nope"}, exitFailed, "nope"},
		{"search without index", []string{"search", plain, "-q", "x"}, exitFailed, "pk-full-text"},
		{"bad log level", []string{"dump", dir, "--log-level", "loud"}, exitUsage, "--log-level"},
		{"bad log format", []string{"dump", dir, "--log-format", "xml"}, exitUsage, "--log-format"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := pkftRun(t, c.args...)
			if code != c.code || out != "" {
				t.Errorf("exit %d (want %d), stdout %q", code, c.code, out)
			}
			// A plain line, not a log record.
			if !strings.HasPrefix(errs, "pkft: ") || strings.Contains(errs, "level=") || !strings.Contains(errs, c.want) {
				t.Errorf("stderr %q, want a line 'pkft: ...' containing %q", errs, c.want)
			}
		})
	}
	if !sameFiles(before, tableFiles(t, dir)) {
		t.Error("a failed command changed the table")
	}
}

func TestMaintain_NothingSelected(t *testing.T) {
	testenv.Native(t)
	dir := goldenTable(t, "partitioned-dv", true)
	before := tableFiles(t, dir)
	code, out, errs := pkftRun(t, "maintain", dir, "--bucket", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "TOTAL (0 buckets)") || !strings.Contains(out, "no bucket of snapshot 7 is selected; nothing to do") {
		t.Errorf("output:\n%s", out)
	}
	if !sameFiles(before, tableFiles(t, dir)) {
		t.Error("maintaining no bucket changed the table")
	}
}

func TestMaintain_Progress(t *testing.T) {
	testenv.Native(t)
	dir := goldenTable(t, "partitioned-dv", true)
	// A buffer is not a terminal: auto draws nothing.
	code, _, errs := pkftRun(t, "maintain", dir, "--dry-run")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	code, _, errs = pkftRun(t, "maintain", dir, "--progress", "always", "--parallel", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "/224") || !strings.Contains(errs, "buckets ") || !strings.Contains(errs, "rows/") {
		t.Errorf("progress on stderr: %q", errs)
	}
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is a terminal")
	}
}
