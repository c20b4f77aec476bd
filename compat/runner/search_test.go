package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/search"
	"github.com/paimon-pkft/pkft/internal/table"
)

// searchLimits are the limits every search case runs each query with: a top-k smaller than most
// hit lists (ranking and ties across archives and buckets) and one larger than any.
var searchLimits = []int{7, 1000}

// casesSearchTables registers search/<table> (go<->java): on Java-written tables with Java's archives
// and on the tables the maintenance cases left with Go's archives (copied right after Go's
// maintenance), every engine query with each limit returns, from Go's search.Search and from
// Paimon's full-text read path (the runner's search, in Paimon's ranked order), the same rows
// (bucket, data file, row position, primary key, text) in the same order with scores equal
// within 1e-5 relative.
func casesSearchTables(ct *caseTable, gf *fixture[*maintainGroup], corpus []*maintainTable) {
	// Java-written tables with Java's archives, built here.
	for _, name := range []string{ftDefaultTable, ftNgramTable} {
		c := ftCorpusTable(name)
		st := &searchTable{name: name}
		ct.add(caseRow{Name: "search/" + name, Direction: "go<->java", Doc: docSearchTable,
			Sides: []caseSide{side("java", Writer, Compactor, Consumer), side("go", Consumer)},
			Run: func(ctx context.Context, t *testing.T) error {
				g := gf.get(t)
				if err := g.need(ctx, maintainCommands...); err != nil {
					return err
				}
				path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "search-java", name), name, c.fields, c.primaryKeys, c.partitionKeys, c.options, c.steps)
				if err != nil {
					return err
				}
				d, err := javaDump(ctx, g.proc, path)
				if err != nil {
					return err
				}
				if err := c.exercises(path, d); err != nil {
					return fmt.Errorf("the table no longer exercises what it is for: %w", err)
				}
				st.path = path
				return g.sameSearches(ctx, path, engineQueries(), searchLimits)
			}})
	}
	// Tables with Go's archives, from the maintenance cases.
	for _, mt := range corpus {
		name := mt.name + "-go"
		ct.add(caseRow{Name: "search/" + name, Direction: "go<->java", Doc: docSearchTable,
			Sides: []caseSide{side("go", Maintainer, Consumer), side("java", Consumer)}, Needs: []string{"table/maintain/" + mt.name + "/go->java"},
			Run: func(ctx context.Context, t *testing.T) error {
				g := gf.get(t)
				if err := g.need(ctx, maintainCommands...); err != nil {
					return err
				}
				for _, st := range g.searchTables {
					if st.name == name {
						if st.err != nil {
							return st.err
						}
						return g.sameSearches(ctx, st.path, engineQueries(), searchLimits)
					}
				}
				return errors.New("table/maintain/" + mt.name + " did not pass: no Go-maintained table to search")
			}})
	}
}

// javaRankedResult is the runner's search result with ranked: true.
type javaRankedResult struct {
	SnapshotID int64 `json:"snapshotId"`
	Results    []struct {
		Key         map[string]any `json:"key"`
		Text        *string        `json:"text"`
		Score       float32        `json:"score"`
		Bucket      int32          `json:"bucket"`
		DataFile    string         `json:"dataFile"`
		RowPosition int64          `json:"rowPosition"`
	} `json:"results"`
}

// sameSearches runs every query with every limit through Java's read path and Go's search on
// the table at path and compares the results; at least half the queries must hit something.
func (g *maintainGroup) sameSearches(ctx context.Context, path string, queries []string, limits []int) error {
	tbl := table.Open(g.fileIO(), path)
	sch, err := tbl.LatestSchema(ctx)
	if err != nil {
		return err
	}
	nonEmpty := 0
	for _, q := range queries {
		for _, limit := range limits {
			var j javaRankedResult
			if err := g.proc.Call(ctx, "search", map[string]any{"path": path, "query": q, "limit": limit, "ranked": true}, &j); err != nil {
				return fmt.Errorf("java search %s: %w", q, err)
			}
			res, err := search.Search(ctx, tbl, search.Request{Query: q, Limit: limit}, search.Options{Engine: g.engine})
			if err != nil {
				return fmt.Errorf("go search %s: %w", q, err)
			}
			where := fmt.Sprintf("query %s limit %d", q, limit)
			if res.SnapshotID != j.SnapshotID {
				return fmt.Errorf("%s: Go searched snapshot %d, Java %d", where, res.SnapshotID, j.SnapshotID)
			}
			if len(res.Results) != len(j.Results) {
				return fmt.Errorf("%s: Go found %d rows, Java %d", where, len(res.Results), len(j.Results))
			}
			for i, gr := range res.Results {
				jr := j.Results[i]
				if gr.Bucket != jr.Bucket || gr.DataFile != jr.DataFile || gr.RowPosition != jr.RowPosition {
					return fmt.Errorf("%s: hit %d: Go row (bucket %d, %s, %d) score %v, Java row (bucket %d, %s, %d) score %v",
						where, i, gr.Bucket, gr.DataFile, gr.RowPosition, gr.Score, jr.Bucket, jr.DataFile, jr.RowPosition, jr.Score)
				}
				a, b := float64(gr.Score), float64(jr.Score)
				if math.Abs(a-b) > 1e-5*math.Max(math.Abs(a), math.Abs(b)) {
					return fmt.Errorf("%s: hit %d: Go score %v, Java %v", where, i, a, b)
				}
				if (gr.Text == nil) != (jr.Text == nil) || (gr.Text != nil && *gr.Text != *jr.Text) {
					return fmt.Errorf("%s: hit %d: Go text %v, Java %v", where, i, deref(gr.Text), deref(jr.Text))
				}
				if len(gr.Key) != len(sch.PrimaryKeys) {
					return fmt.Errorf("%s: hit %d: Go key %v for primary key %v", where, i, gr.Key, sch.PrimaryKeys)
				}
				for k, name := range sch.PrimaryKeys {
					if !sameKeyValue(gr.Key[k], jr.Key[name]) {
						return fmt.Errorf("%s: hit %d: Go key %v, Java %v", where, i, gr.Key, jr.Key)
					}
				}
			}
			if limit == limits[len(limits)-1] && len(res.Results) > 0 {
				nonEmpty++
			}
		}
	}
	if nonEmpty < len(queries)/2 {
		return fmt.Errorf("only %d of %d queries hit anything: the table no longer exercises the search", nonEmpty, len(queries))
	}
	return nil
}

// sameSearchesVia is sameSearches with Go's side through its runner goP (the protocol's search,
// ranked): every query with every limit returns, from Java's read path and from Go's runner, the
// same rows (bucket, data file, row position), keys and texts in the same order, on the same
// snapshot, scores within 1e-5 relative; at least half the queries must hit something.
func (g *maintainGroup) sameSearchesVia(ctx context.Context, goP *Process, path string, queries []string, limits []int) error {
	nonEmpty := 0
	for _, q := range queries {
		for _, limit := range limits {
			args := map[string]any{"path": path, "query": q, "limit": limit, "ranked": true}
			var j, gr javaRankedResult
			if err := g.proc.Call(ctx, "search", args, &j); err != nil {
				return fmt.Errorf("java search %s: %w", q, err)
			}
			if err := goP.Call(ctx, "search", args, &gr); err != nil {
				return fmt.Errorf("go search %s: %w", q, err)
			}
			where := fmt.Sprintf("query %s limit %d", q, limit)
			if gr.SnapshotID != j.SnapshotID {
				return fmt.Errorf("%s: Go searched snapshot %d, Java %d", where, gr.SnapshotID, j.SnapshotID)
			}
			if len(gr.Results) != len(j.Results) {
				return fmt.Errorf("%s: Go found %d rows, Java %d", where, len(gr.Results), len(j.Results))
			}
			for i, h := range gr.Results {
				jr := j.Results[i]
				if h.Bucket != jr.Bucket || h.DataFile != jr.DataFile || h.RowPosition != jr.RowPosition {
					return fmt.Errorf("%s: hit %d: Go row (bucket %d, %s, %d) score %v, Java row (bucket %d, %s, %d) score %v",
						where, i, h.Bucket, h.DataFile, h.RowPosition, h.Score, jr.Bucket, jr.DataFile, jr.RowPosition, jr.Score)
				}
				a, b := float64(h.Score), float64(jr.Score)
				if math.Abs(a-b) > 1e-5*math.Max(math.Abs(a), math.Abs(b)) {
					return fmt.Errorf("%s: hit %d: Go score %v, Java %v", where, i, a, b)
				}
				if (h.Text == nil) != (jr.Text == nil) || (h.Text != nil && *h.Text != *jr.Text) {
					return fmt.Errorf("%s: hit %d: Go text %v, Java %v", where, i, deref(h.Text), deref(jr.Text))
				}
				if len(h.Key) == 0 || !reflect.DeepEqual(h.Key, jr.Key) {
					return fmt.Errorf("%s: hit %d: Go key %v, Java %v", where, i, h.Key, jr.Key)
				}
			}
			if limit == limits[len(limits)-1] && len(gr.Results) > 0 {
				nonEmpty++
			}
		}
	}
	if nonEmpty < len(queries)/2 {
		return fmt.Errorf("only %d of %d queries hit anything: the table no longer exercises the search", nonEmpty, len(queries))
	}
	return nil
}

// sameKeyValue compares a key value of Go's search (internal/binrow forms) with the value Java's
// read renders in JSON (numbers, strings; DATE as yyyy-mm-dd).
func sameKeyValue(goValue, javaValue any) bool {
	switch v := goValue.(type) {
	case int32:
		switch jv := javaValue.(type) {
		case float64:
			return float64(v) == jv
		case string:
			return time.Unix(int64(v)*86400, 0).UTC().Format("2006-01-02") == jv
		}
		return false
	case int64:
		jv, ok := javaValue.(float64)
		return ok && float64(v) == jv
	case string:
		jv, ok := javaValue.(string)
		return ok && v == jv
	}
	return fmt.Sprint(goValue) == fmt.Sprint(javaValue)
}

// docSearchTable describes search/<table>.
const docSearchTable = "on six tables (Java's archives, Go's archives, mixed; default, ngram and jieba analyzers; " +
	"deletes under deletion vectors) the 24 engine queries with limits 7 and 1000: Go's " +
	"`search.Search` and Paimon's full-text read path return the same physical rows (bucket, " +
	"data file, position), keys and texts in Paimon's ranked order (`PrimaryKeySearchRanker`: " +
	"score, then partition, bucket, file, position), scores within 1e-5 relative."
