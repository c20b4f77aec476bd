package search

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/bleveengine"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
	"github.com/paimon-pkft/pkft/internal/types"
)

// goldenCase is one prepared golden table.
type goldenCase struct {
	name   string
	table  string
	choose func(bucket, level int32) levelChoice
	// ascii limits the query words to ASCII ones: the table's analyzer is not the model's
	// whitespace split for other scripts (CJK words are segmented).
	ascii bool
}

func goldenCases() []goldenCase {
	return []goldenCase{
		{name: "full-compaction", table: "full-compaction"},
		{name: "partitioned-dv", table: "partitioned-dv"},
		{name: "composite-key", table: "composite-key"},
		{name: "two-levels", table: "two-levels"},
		// Avro data files: rows are decoded in order, so each file's positions must be read ascending.
		{name: "ft-avro", table: "ft-avro", ascii: true},
		// Level 4 gets an archive whose metadata no longer matches its files: it is stale, and its
		// rows (which the archive does hold) must not be found.
		{name: "two-levels-stale", table: "two-levels", choose: func(_, level int32) levelChoice {
			if level == 4 {
				return staleLevel
			}
			return buildLevel
		}},
		// Level 5 has no archive: its rows are not searched, without an error.
		{name: "two-levels-missing", table: "two-levels", choose: func(_, level int32) levelChoice {
			if level == 5 {
				return skipLevel
			}
			return buildLevel
		}},
	}
}

func TestSearchGoldenTablesBleve(t *testing.T) {
	runGolden(t, bleveengine.Engine{})
}

func TestSearchGoldenTablesNative(t *testing.T) {
	lib := testenv.Native(t)
	runGolden(t, native.Engine{Lib: lib})
}

// runGolden prepares every golden case with engine and checks its searches (checkQueries).
func runGolden(t *testing.T, engine fulltext.Engine) {
	for _, gc := range goldenCases() {
		t.Run(gc.name, func(t *testing.T) {
			f := newFixture(t, gc.table, engine, gc.choose)
			checkQueries(t, f, engine, gc.table, gc.ascii)
		})
	}
}

// checkQueries searches f with one-word match queries drawn from the golden table's own rows and
// checks the results against a brute-force model: the live rows (deletion vectors applied) of the
// data files a current archive covers whose text has the word, with the primary key Java reads
// for that row; and a smaller limit must return the prefix of the full ranking.
func checkQueries(t *testing.T, f *fixture, engine fulltext.Engine, name string, ascii bool) {
	t.Helper()
	ctx := context.Background()
	model := f.liveCoveredRows(t)
	javaRows := readJavaRows(t, name)
	words := queryWords(javaRows, ascii)
	if len(words) == 0 {
		t.Fatal("no query words")
	}
	for _, word := range words {
		full, err := Search(ctx, f.t, Request{Query: word, Limit: 100_000}, Options{Engine: engine})
		if err != nil {
			t.Fatalf("search %q: %v", word, err)
		}
		if full.SnapshotID != f.snap.ID {
			t.Fatalf("searched snapshot %d, want %d", full.SnapshotID, f.snap.ID)
		}
		want := matching(model, word)
		got := map[string]string{}
		for _, r := range full.Results {
			if r.Text == nil {
				t.Fatalf("%q: result %s has no text", word, resultKey(r))
			}
			got[resultKey(r)] = *r.Text
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q: got %d rows %v\nwant %d rows %v", word, len(got), got, len(want), want)
		}
		f.checkOrder(t, word, full.Results)
		checkKeys(t, f, word, full.Results, javaRows)

		// A smaller limit returns the prefix of the full ranking.
		top, err := Search(ctx, f.t, Request{Query: word, Limit: 3, Snapshot: f.snap}, Options{Engine: engine})
		if err != nil {
			t.Fatal(err)
		}
		n := min(3, len(full.Results))
		if len(top.Results) != n {
			t.Fatalf("%q limit 3: %d results, want %d", word, len(top.Results), n)
		}
		for i := range top.Results {
			a, b := top.Results[i], full.Results[i]
			if resultKey(a) != resultKey(b) || a.Score != b.Score {
				t.Fatalf("%q limit 3: result %d is %s (%v), want %s (%v)", word, i, resultKey(a), a.Score, resultKey(b), b.Score)
			}
		}
	}
}

// checkOrder checks the merged order: scores never increase, and equal scores are ordered by
// partition bytes, bucket, file name and row position.
func (f *fixture) checkOrder(t *testing.T, word string, results []Result) {
	t.Helper()
	pt := f.schema.PartitionType()
	for i := 1; i < len(results); i++ {
		a, b := results[i-1], results[i]
		pa, pb := f.position(t, pt, a), f.position(t, pt, b)
		if bestFirst(&pa, &pb) >= 0 {
			t.Fatalf("%q: results %d and %d out of order: %+v then %+v", word, i-1, i, pa, pb)
		}
	}
}

func (f *fixture) position(t *testing.T, pt types.DataType, r Result) Position {
	t.Helper()
	part := []byte(nil)
	if len(f.schema.PartitionKeys) > 0 {
		row, err := binrow.NewBinaryRow(pt, r.Partition)
		if err != nil {
			t.Fatal(err)
		}
		part = row.Serialize()
	}
	return Position{Partition: part, Bucket: r.Bucket, DataFile: r.DataFile, RowPosition: r.RowPosition, Score: r.Score}
}

// readJavaRows reads the rows Java read from the golden table at generation time.
func readJavaRows(t *testing.T, name string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "compat", "golden", "java", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatal(err)
	}
	return exp.Rows
}

// queryWords picks the four most and the four least frequent words of the table's texts (only
// ASCII ones when ascii is set).
func queryWords(rows []map[string]any, ascii bool) []string {
	count := map[string]int{}
	for _, r := range rows {
		if s, ok := r[textColumn].(string); ok {
			for _, w := range tokens(s) {
				if ascii && strings.ContainsFunc(w, func(r rune) bool { return r >= utf8.RuneSelf }) {
					continue
				}
				count[w]++
			}
		}
	}
	words := make([]string, 0, len(count))
	for w := range count {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		if count[words[i]] != count[words[j]] {
			return count[words[i]] > count[words[j]]
		}
		return words[i] < words[j]
	})
	if len(words) <= 8 {
		return words
	}
	return append(slices.Clone(words[:4]), words[len(words)-4:]...)
}

// checkKeys checks every result against the row Java read with the same text: the text must be a
// live row's (a deleted row's old text is in no Java row), and its primary key must be that row's.
func checkKeys(t *testing.T, f *fixture, word string, results []Result, javaRows []map[string]any) {
	t.Helper()
	byText := map[string][]map[string]any{}
	for _, r := range javaRows {
		if s, ok := r[textColumn].(string); ok {
			byText[s] = append(byText[s], r)
		}
	}
	for _, r := range results {
		rows := byText[*r.Text]
		if len(rows) != 1 {
			t.Fatalf("%q: %d Java rows have the text %q of result %s", word, len(rows), *r.Text, resultKey(r))
		}
		if len(r.Key) != len(f.schema.PrimaryKeys) {
			t.Fatalf("%q: result key %v, want %d values", word, r.Key, len(f.schema.PrimaryKeys))
		}
		for i, name := range f.schema.PrimaryKeys {
			fd, _ := f.schema.FieldByName(name)
			got := goValue(t, fd.Type, r.Key[i])
			want := javaValue(t, fd.Type, rows[0][name])
			if got != want {
				t.Fatalf("%q: result %s key %s = %s, Java reads %s", word, resultKey(r), name, got, want)
			}
		}
		for i, name := range f.schema.PartitionKeys {
			fd, _ := f.schema.FieldByName(name)
			if got, want := goValue(t, fd.Type, r.Partition[i]), javaValue(t, fd.Type, rows[0][name]); got != want {
				t.Fatalf("%q: result %s partition %s = %s, Java reads %s", word, resultKey(r), name, got, want)
			}
		}
	}
}

func goValue(t testing.TB, typ types.DataType, v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case binrow.Decimal:
		return x.String()
	case binrow.Timestamp:
		return strconv.FormatInt(time.UnixMilli(x.Millis).UTC().Add(time.Duration(x.NanoOfMilli)).UnixNano(), 10)
	case int32:
		if typ.Root == types.RootDate {
			return time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02")
		}
	}
	return fmt.Sprint(v)
}

func javaValue(t *testing.T, typ types.DataType, v any) string {
	t.Helper()
	switch x := v.(type) {
	case nil:
		return "null"
	case float64:
		return strconv.FormatInt(int64(x), 10)
	case string:
		if typ.Root == types.RootTimestamp || typ.Root == types.RootTimestampLTZ {
			for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
				if ts, err := time.Parse(layout, x); err == nil {
					return strconv.FormatInt(ts.UnixNano(), 10)
				}
			}
			t.Fatalf("cannot parse Java timestamp %q", x)
		}
		return x
	}
	return fmt.Sprint(v)
}

// TestSearchAfterMaintain searches golden tables whose archives Go's maintenance commit
// (tableops.Maintain) built and committed: every level is then current, so every live row of
// every eligible data file is searched.
func TestSearchAfterMaintain(t *testing.T) {
	engine := native.Engine{Lib: testenv.Native(t)}
	ctx := context.Background()
	for _, name := range []string{"partitioned-dv", "two-levels", "composite-key"} {
		t.Run(name, func(t *testing.T) {
			f, _ := prepareTable(t, name)
			res, err := tableops.Maintain(ctx, f.t, engine)
			if err != nil {
				t.Fatal(err)
			}
			if res.Snapshot == nil {
				t.Fatal("maintenance committed nothing")
			}
			f.snap = res.Snapshot
			contents, err := f.t.Read(ctx, f.snap)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range contents.Buckets {
				for _, df := range b.DataFiles {
					if pkindex.ShouldReadDataFile(df) {
						f.covered[f.fileKey(b.Partition, b.Bucket, df.FileName)] = true
					}
				}
			}
			if len(f.covered) == 0 {
				t.Fatal("no eligible data files")
			}
			checkQueries(t, f, engine, name, false)
		})
	}
}
