package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
	"github.com/paimon-pkft/pkft/internal/testing/testtables"
)

// coverageJSON is the "coverage" object of state, search and maintain --json.
type coverageJSON struct {
	Files          int64 `json:"files"`
	Rows           int64 `json:"rows"`
	UncoveredFiles int64 `json:"uncoveredFiles"`
	UncoveredRows  int64 `json:"uncoveredRows"`
	Uncovered      []struct {
		Reason string  `json:"reason"`
		Levels []int32 `json:"levels"`
		Files  int64   `json:"files"`
		Rows   int64   `json:"rows"`
	} `json:"uncovered"`
}

// check reports a coverage whose reasons do not add up to its uncovered counts.
func (c *coverageJSON) check(t *testing.T, what string) {
	t.Helper()
	if c == nil {
		t.Errorf("%s: no coverage", what)
		return
	}
	var rows, files int64
	for _, u := range c.Uncovered {
		rows += u.Rows
		files += u.Files
	}
	if c.Uncovered == nil || rows != c.UncoveredRows || files != c.UncoveredFiles || c.UncoveredRows > c.Rows || c.UncoveredFiles > c.Files {
		t.Errorf("%s: inconsistent coverage %+v", what, *c)
	}
}

// reasons is "reason rows/files levels" for each reason, for comparisons.
func (c *coverageJSON) reasons() []string {
	var out []string
	for _, u := range c.Uncovered {
		out = append(out, fmt.Sprintf("%s %d/%d %v", u.Reason, u.Rows, u.Files, u.Levels))
	}
	return out
}

// zebraTable creates a one-bucket full-text table with pkft create, with extra options.
func zebraTable(t *testing.T, options map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "docs")
	opts := map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "pk-full-text.index.columns": "content"}
	for k, v := range options {
		opts[k] = v
	}
	schema, err := json.Marshal(map[string]any{
		"columns":     []map[string]string{{"name": "id", "type": "INT"}, {"name": "content", "type": "STRING"}},
		"primaryKeys": []string{"id"}, "options": opts,
	})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(file, schema, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := pkftRun(t, "create", dir, "--schema", file); code != 0 {
		t.Fatalf("create: %s", errs)
	}
	return dir
}

// writeZebraRows writes n rows "a striped zebra" with ids from first through pkft write.
func writeZebraRows(t *testing.T, dir string, first, n int, flags ...string) {
	t.Helper()
	var rows strings.Builder
	for id := first; id < first+n; id++ {
		fmt.Fprintf(&rows, `{"id":%d,"content":"a striped zebra"}`+"\n", id)
	}
	if _, err := pkftRunIn(t, rows.String(), append([]string{"write", dir}, flags...)...); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// TestCoverageCLI_UnsearchableRows: the first write into an empty table is moved up without a
// rewrite and a write-only write stays on level 0, so a search finds nothing. Every command says
// so: pkft state (a headline, the bucket's reasons, what each means; --json: the coverage),
// pkft search (a notice on stderr, also with --json, whose output has the count), and pkft
// maintain (nothing to build, and what remains uncovered).
func TestCoverageCLI_UnsearchableRows(t *testing.T) {
	testenv.Native(t)
	dir := zebraTable(t, nil)
	writeZebraRows(t, dir, 0, 3)
	writeZebraRows(t, dir, 3, 2, "--write-only")

	code, out, errs := pkftRun(t, "state", dir)
	if code != 0 {
		t.Fatalf("state: exit %d: %s", code, errs)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^snapshot 3: 5 of 5 rows \(2 of 2 data files\) are not covered by a full-text archive; searches do not see them$`),
		regexp.MustCompile(`(?m)^-\s+0\s+2\s+5\s+5\s+level-0: 2 rows in 1 file, moved-up: 3 rows in 1 file\s+-\s+0\s+-$`),
		regexp.MustCompile(`(?m)^TOTAL \(1 bucket\)\s+2\s+5\s+5$`),
		regexp.MustCompile(`(?m)^level-0: 2 rows in 1 file on level 0: not compacted yet; indexed once a compaction rewrites them`),
		regexp.MustCompile(`(?m)^moved-up: 3 rows in 1 file on level 5: moved above level 0 by a compaction without being rewritten`),
	} {
		if !want.MatchString(out) {
			t.Errorf("state does not match %s:\n%s", want, out)
		}
	}
	code, out, errs = pkftRun(t, "state", dir, "--json")
	if code != 0 {
		t.Fatalf("state --json: exit %d: %s", code, errs)
	}
	var st struct {
		Coverage *coverageJSON `json:"coverage"`
		Buckets  []struct {
			Coverage *coverageJSON `json:"coverage"`
		} `json:"buckets"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("state --json: %v:\n%s", err, out)
	}
	want := []string{"level-0 2/1 [0]", "moved-up 3/1 [5]"}
	st.Coverage.check(t, "state --json")
	if len(st.Buckets) != 1 || st.Coverage.Rows != 5 || fmt.Sprint(st.Coverage.reasons()) != fmt.Sprint(want) ||
		fmt.Sprint(st.Buckets[0].Coverage.reasons()) != fmt.Sprint(want) {
		t.Errorf("state --json coverage:\n%s", out)
	}

	notice := "notice: 5 rows in 2 files are not covered by a full-text archive, so this search did not see them " +
		"(level-0: 2 rows in 1 file, moved-up: 3 rows in 1 file); see `pkft state`\n"
	code, out, errs = pkftRun(t, "search", dir, "--query", "zebra")
	if code != 0 || !strings.HasSuffix(out, "0 hit(s) in snapshot 3\n") || errs != notice {
		t.Errorf("search: exit %d\n%s\nstderr %q, want %q", code, out, errs, notice)
	}
	code, out, errs = pkftRun(t, "search", dir, "--query", "zebra", "--json")
	var res struct {
		Hits     []any         `json:"hits"`
		Coverage *coverageJSON `json:"coverage"`
	}
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || errs != notice {
		t.Fatalf("search --json: exit %d, %v\n%s\nstderr %q", code, err, out, errs)
	}
	res.Coverage.check(t, "search --json")
	if len(res.Hits) != 0 || res.Coverage.UncoveredRows != 5 || fmt.Sprint(res.Coverage.reasons()) != fmt.Sprint(want) {
		t.Errorf("search --json:\n%s", out)
	}

	code, out, errs = pkftRun(t, "maintain", dir, "--progress", "never")
	if code != 0 {
		t.Fatalf("maintain: exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"every archive of snapshot 3 is current; nothing committed\n" +
			"5 rows in 2 files (of 5 rows in the selected buckets) remain uncovered by a full-text archive in snapshot 3; searches do not see them:\n" +
			"level-0: 2 rows in 1 file on level 0: ",
		"\nmoved-up: 3 rows in 1 file on level 5: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("maintain output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = pkftRun(t, "maintain", dir, "--progress", "never", "--json")
	var mr struct {
		Coverage *coverageJSON `json:"coverage"`
	}
	if err := json.Unmarshal([]byte(out), &mr); code != 0 || err != nil {
		t.Fatalf("maintain --json: exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	mr.Coverage.check(t, "maintain --json")
	if fmt.Sprint(mr.Coverage.reasons()) != fmt.Sprint(want) {
		t.Errorf("maintain --json coverage:\n%s", out)
	}
}

// TestCoverageCLI_DuplicateArchives: after concurrent maintainers left two archives on a level,
// search finds nothing there and says why and that pkft maintain repairs it; after pkft maintain
// every row is found and nothing is left to say.
func TestCoverageCLI_DuplicateArchives(t *testing.T) {
	testenv.Native(t)
	dir := zebraTable(t, map[string]string{"compaction.force-rewrite-all-files": "true"})
	writeZebraRows(t, dir, 0, 3)
	if code, out, errs := pkftRun(t, "search", dir, "--query", "zebra"); code != 0 || !strings.HasSuffix(out, "3 hit(s) in snapshot 2\n") || errs != "" {
		t.Fatalf("search of the written table: exit %d\n%s\nstderr %q", code, out, errs)
	}
	if err := testtables.DuplicateArchive(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	code, out, errs := pkftRun(t, "search", dir, "--query", "zebra")
	notice := "notice: 3 rows in 1 file are not covered by a full-text archive, so this search did not see them " +
		"(duplicate-archives: 3 rows in 1 file); `pkft maintain` indexes 3 rows; see `pkft state`\n"
	if code != 0 || !strings.HasSuffix(out, "0 hit(s) in snapshot 3\n") || errs != notice {
		t.Errorf("search: exit %d\n%s\nstderr %q, want %q", code, out, errs, notice)
	}
	code, out, errs = pkftRun(t, "state", dir)
	if code != 0 || !strings.Contains(out, "\nduplicate-archives: 3 rows in 1 file on level 5: their level has duplicate archives of concurrent maintainers; maintain rebuilds it\n") {
		t.Errorf("state: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = pkftRun(t, "maintain", dir, "--progress", "never")
	if code != 0 || !strings.HasSuffix(out, "committed snapshot 4 (on snapshot 3, 1 attempt(s))\n") {
		t.Errorf("maintain: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := pkftRun(t, "search", dir, "--query", "zebra"); code != 0 || !strings.HasSuffix(out, "3 hit(s) in snapshot 4\n") || errs != "" {
		t.Errorf("search after maintain: exit %d\n%s\nstderr %q", code, out, errs)
	}
	code, out, _ = pkftRun(t, "state", dir)
	if code != 0 || !strings.HasPrefix(out, "snapshot 4: every row (3 rows in 1 file) is covered by a current full-text archive\n") {
		t.Errorf("state after maintain:\n%s", out)
	}
}

// TestCoverageNotice: the notice's wording for one row, and none when nothing is uncovered.
func TestCoverageNotice(t *testing.T) {
	if n := coverageNotice(pkft.Coverage{Files: 3, Rows: 10}); n != "" {
		t.Errorf("notice for a covered search: %q", n)
	}
	got := coverageNotice(pkft.Coverage{Files: 2, Rows: 4, UncoveredFiles: 2, UncoveredRows: 3, Uncovered: []pkft.UncoveredFiles{
		{Reason: pkft.UncoveredLevel0, Levels: []int32{0}, Files: 1, Rows: 1},
		{Reason: pkft.UncoveredNoArchive, Levels: []int32{3}, Files: 1, Rows: 2},
	}})
	want := "notice: 3 rows in 2 files are not covered by a full-text archive, so this search did not see them " +
		"(level-0: 1 row in 1 file, no-archive: 2 rows in 1 file); `pkft maintain` indexes 2 rows; see `pkft state`"
	if got != want {
		t.Errorf("notice\n got %q\nwant %q", got, want)
	}
}

// TestCoverageCLI_Backfill: pkft write --index-new-rows makes a first write searched at its
// commit; the rows of a plain write into another empty table are not, until pkft compact
// --strategy uncovered rewrites them, after which state counts nothing uncovered, search finds
// every row with no notice, and a second run commits nothing. --index-new-rows with --write-only
// is refused with nothing written.
func TestCoverageCLI_Backfill(t *testing.T) {
	testenv.Native(t)
	indexed := zebraTable(t, nil)
	writeZebraRows(t, indexed, 0, 3, "--index-new-rows")
	if code, out, errs := pkftRun(t, "search", indexed, "--query", "zebra"); code != 0 || !strings.HasSuffix(out, "3 hit(s) in snapshot 2\n") || errs != "" {
		t.Errorf("search after write --index-new-rows: exit %d\n%s\nstderr %q", code, out, errs)
	}
	if _, err := pkftRunIn(t, `{"id":9,"content":"zebra"}`+"\n", "write", indexed, "--index-new-rows", "--write-only"); err == nil ||
		!strings.Contains(err.Error(), "--index-new-rows") {
		t.Errorf("write --index-new-rows --write-only: error %v, want a refusal naming --index-new-rows", err)
	}
	if code, out, _ := pkftRun(t, "search", indexed, "--query", "zebra"); code != 0 || !strings.HasSuffix(out, "3 hit(s) in snapshot 2\n") {
		t.Errorf("the refused write committed something:\n%s", out)
	}

	dir := zebraTable(t, nil)
	writeZebraRows(t, dir, 0, 3)
	if code, out, errs := pkftRun(t, "search", dir, "--query", "zebra"); code != 0 || !strings.HasSuffix(out, "0 hit(s) in snapshot 2\n") || !strings.Contains(errs, "moved-up: 3 rows") {
		t.Fatalf("search of the plain write: exit %d\n%s\nstderr %q", code, out, errs)
	}
	code, out, errs := pkftRun(t, "compact", dir, "--strategy", "uncovered", "--json", "--progress", "never")
	var res struct {
		SnapshotID int64 `json:"snapshotId"`
		Buckets    []struct {
			Rewritten   int   `json:"rewritten"`
			Upgraded    int   `json:"upgraded"`
			RowsWritten int64 `json:"rowsWritten"`
			Built       []any `json:"built"`
		} `json:"buckets"`
	}
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
		t.Fatalf("compact --strategy uncovered: exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	if res.SnapshotID != 3 || len(res.Buckets) != 1 || res.Buckets[0].Rewritten != 1 || res.Buckets[0].Upgraded != 0 ||
		res.Buckets[0].RowsWritten != 3 || len(res.Buckets[0].Built) != 1 {
		t.Errorf("compact --strategy uncovered: want snapshot 3 rewriting the one moved-up file's 3 rows and building its archive:\n%s", out)
	}
	if code, out, errs := pkftRun(t, "search", dir, "--query", "zebra"); code != 0 || !strings.HasSuffix(out, "3 hit(s) in snapshot 3\n") || errs != "" {
		t.Errorf("search after the backfill: exit %d\n%s\nstderr %q", code, out, errs)
	}
	code, out, errs = pkftRun(t, "state", dir, "--json")
	var st struct {
		Coverage *coverageJSON `json:"coverage"`
	}
	if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil {
		t.Fatalf("state --json: exit %d, %v\n%s", code, err, errs)
	}
	if st.Coverage == nil || st.Coverage.Rows != 3 || st.Coverage.UncoveredRows != 0 {
		t.Errorf("state after the backfill:\n%s", out)
	}
	code, out, errs = pkftRun(t, "compact", dir, "--strategy", "uncovered", "--json", "--progress", "never")
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || res.SnapshotID != 0 {
		t.Errorf("a second compact --strategy uncovered: exit %d, %v, want nothing committed\n%s\n%s", code, err, out, errs)
	}
}

// TestWriteReportsUncoveredRows: a write of new keys into a compacted table ends with a notice
// counting the rows it committed that no archive covers (moved up by the compaction at commit),
// at the write's last snapshot, with what covers them; --json carries the same coverage; each
// stdout line credits the archives its own snapshot built. search --require-coverage exits 3
// on that table (its hits printed) and 0 once compact --strategy uncovered indexed the rows.
func TestWriteReportsUncoveredRows(t *testing.T) {
	testenv.Native(t)
	dir := filepath.Join(t.TempDir(), "docs")
	schemaFile := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schemaFile, []byte(`{"columns":[{"name":"id","type":"BIGINT"},{"name":"content","type":"STRING"}],
		"primaryKeys":["id"],"options":{"bucket":"1","deletion-vectors.enabled":"true","pk-full-text.index.columns":"content"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := pkftRun(t, "create", dir, "--schema", schemaFile); code != exitOK {
		t.Fatal(errOut)
	}
	var rows strings.Builder
	for i := range 100 {
		fmt.Fprintf(&rows, `{"id":%d,"content":"row %d of the lake"}`+"\n", i, i)
	}
	write := func(in string, args ...string) (string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		if code := runWith(t.Context(), append([]string{"write", dir, "--quiet"}, args...), strings.NewReader(in), &out, &errb); code != exitOK {
			t.Fatalf("write: exit %d, %s", code, errb.String())
		}
		return out.String(), errb.String()
	}
	write(rows.String(), "--index-new-rows") // a compacted, fully covered table
	if code, _, errOut := pkftRun(t, "search", dir, "--query", "lake", "--require-coverage"); code != exitOK || errOut != "" {
		t.Fatalf("search --require-coverage of a covered table: exit %d, %q", code, errOut)
	}

	out, notice := write(`{"id":1000,"content":"a zebra"}` + "\n" + `{"id":1001,"content":"another zebra"}` + "\n")
	last := latestID(t, dir)
	want := fmt.Sprintf("notice: 2 rows in 1 file this write committed are not searchable at snapshot %d: no full-text archive covers them (moved-up: 2 rows in 1 file); "+
		"the compaction at commit moved them up without rewriting them: `pkft compact --strategy uncovered` indexes them", last)
	if !strings.HasPrefix(notice, want) || strings.Count(notice, "\n") != 1 {
		t.Errorf("write of new keys into a compacted table: stderr %q, want %q...", notice, want)
	}
	if !strings.Contains(out, fmt.Sprintf("committed snapshot %d: compaction at commit", last)) {
		t.Errorf("write printed %q, want its COMPACT snapshot %d", out, last)
	}

	// search --require-coverage: the hits, the notice, then status 3.
	code, hits, errOut := pkftRun(t, "search", dir, "--query", "lake", "--require-coverage")
	if code != exitUncovered || !strings.Contains(hits, "hit(s)") || !strings.Contains(errOut, "notice: 2 rows in 1 file are not covered") ||
		!strings.Contains(errOut, "pkft: --require-coverage: 2 rows in 1 file of the searched snapshot and partitions are not covered") {
		t.Errorf("search --require-coverage with uncovered rows: exit %d, stdout %q, stderr %q", code, hits, errOut)
	}
	if code, _, _ := pkftRun(t, "search", dir, "--query", "lake"); code != exitOK {
		t.Errorf("search without --require-coverage: exit %d, want 0 as documented", code)
	}

	// An update of an indexed key: the compaction at commit rewrites, and the archives it built
	// are credited to the COMPACT snapshot's line, none to the APPEND snapshot's.
	var res pkft.WriteResult
	jsonOut, notice := write(`{"id":5,"content":"row 5 rewritten"}`+"\n", "--json")
	if err := json.Unmarshal([]byte(jsonOut), &res); err != nil {
		t.Fatalf("%v: %s", err, jsonOut)
	}
	if res.Coverage == nil || notice != "" && res.Coverage.UncoveredRows == 0 {
		t.Errorf("write --json: coverage %+v, stderr %q", res.Coverage, notice)
	}
	out, _ = write(`{"id":6,"content":"row 6 rewritten"}` + "\n")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "0 archives built, 0 retired") || strings.Contains(lines[1], " 0 archives built") {
		t.Errorf("write of an update printed %q, want the archives on the COMPACT snapshot's line", out)
	}

	if code, _, errOut := pkftRun(t, "compact", dir, "--strategy", "uncovered"); code != exitOK {
		t.Fatalf("compact --strategy uncovered: exit %d, %s", code, errOut)
	}
	if code, _, errOut := pkftRun(t, "search", dir, "--query", "zebra", "--require-coverage"); code != exitOK || errOut != "" {
		t.Errorf("search --require-coverage after the backfill: exit %d, %q", code, errOut)
	}
}
