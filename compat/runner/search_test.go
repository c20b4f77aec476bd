package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"time"

	"github.com/paimon-pkft/pkft/compat/protocol"
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
			Uses:  []caseUse{serving(gf, maintainCommands...)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				g := gf.in(ce)
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
			Uses: []caseUse{serving(gf, maintainCommands...)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				g := gf.in(ce)
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
type javaRankedResult = protocol.SearchResponse

// rankedPosition is a ranked hit's bucket and row position, -1 for one it lacks.
func rankedPosition(h protocol.SearchResponseResult) (int32, int64) {
	bucket, pos := int32(-1), int64(-1)
	if h.Bucket != nil {
		bucket = int32(*h.Bucket)
	}
	if h.RowPosition != nil {
		pos = *h.RowPosition
	}
	return bucket, pos
}

// sameSearches runs every query with every limit through Java's read path and Go's search on
// the table at path and compares the results (sameRanked); at least half the queries must hit
// something.
func (g *maintainGroup) sameSearches(ctx context.Context, path string, queries []string, limits []int) error {
	tbl := table.Open(g.fileIO(), path)
	sch, err := tbl.LatestSchema(ctx)
	if err != nil {
		return err
	}
	return g.sameRanked(ctx, path, queries, limits, func(q string, limit int) (int64, []rankedHit, error) {
		res, err := search.Search(ctx, tbl, search.Request{Query: q, Limit: limit}, search.Options{Engine: g.engine})
		if err != nil {
			return 0, nil, err
		}
		hits := make([]rankedHit, len(res.Results))
		for i, r := range res.Results {
			key := r.Key
			hits[i] = rankedHit{bucket: r.Bucket, dataFile: r.DataFile, rowPosition: r.RowPosition, score: r.Score, text: r.Text, key: key,
				sameKey: func(java map[string]any) bool {
					if len(key) != len(sch.PrimaryKeys) {
						return false
					}
					for k, name := range sch.PrimaryKeys {
						if !sameKeyValue(key[k], java[name]) {
							return false
						}
					}
					return true
				}}
		}
		return res.SnapshotID, hits, nil
	})
}

// sameSearchesVia is sameSearches with Go's side through its runner goP (the protocol's search,
// ranked).
func (g *maintainGroup) sameSearchesVia(ctx context.Context, goP *Process, path string, queries []string, limits []int) error {
	return g.sameRanked(ctx, path, queries, limits, func(q string, limit int) (int64, []rankedHit, error) {
		var res javaRankedResult
		if err := goP.Call(ctx, "search", map[string]any{"path": path, "query": q, "limit": limit, "ranked": true}, &res); err != nil {
			return 0, nil, err
		}
		hits := make([]rankedHit, len(res.Results))
		for i, r := range res.Results {
			key := r.Key
			text, err := r.TextString()
			if err != nil {
				return 0, nil, err
			}
			bucket, pos := rankedPosition(r)
			hits[i] = rankedHit{bucket: bucket, dataFile: r.DataFile, rowPosition: pos, score: float32(r.Score), text: text, key: key,
				sameKey: func(java map[string]any) bool { return len(key) > 0 && reflect.DeepEqual(map[string]any(key), java) }}
		}
		return res.SnapshotID, hits, nil
	})
}

// rankedHit is one hit of Go's search, in process or through its runner: the row, its score and
// text, its key (for messages) and how to compare that key with Java's.
type rankedHit struct {
	bucket      int32
	dataFile    string
	rowPosition int64
	score       float32
	text        *string
	key         any
	sameKey     func(java map[string]any) bool
}

// sameRanked runs every query with every limit through Java's read path (ranked) and goSearch:
// the same snapshot, the same rows (bucket, data file, row position) with the same keys and texts
// in the same order, scores within 1e-5 relative; at least half the queries must hit something.
func (g *maintainGroup) sameRanked(ctx context.Context, path string, queries []string, limits []int, goSearch func(q string, limit int) (int64, []rankedHit, error)) error {
	nonEmpty := 0
	for _, q := range queries {
		for _, limit := range limits {
			var j javaRankedResult
			if err := g.proc.Call(ctx, "search", map[string]any{"path": path, "query": q, "limit": limit, "ranked": true}, &j); err != nil {
				return fmt.Errorf("java search %s: %w", q, err)
			}
			snap, hits, err := goSearch(q, limit)
			if err != nil {
				return fmt.Errorf("go search %s: %w", q, err)
			}
			where := fmt.Sprintf("query %s limit %d", q, limit)
			if snap != j.SnapshotID {
				return fmt.Errorf("%s: Go searched snapshot %d, Java %d", where, snap, j.SnapshotID)
			}
			if len(hits) != len(j.Results) {
				return fmt.Errorf("%s: Go found %d rows, Java %d", where, len(hits), len(j.Results))
			}
			for i, h := range hits {
				jr := j.Results[i]
				jBucket, jPos := rankedPosition(jr)
				if h.bucket != jBucket || h.dataFile != jr.DataFile || h.rowPosition != jPos {
					return fmt.Errorf("%s: hit %d: Go row (bucket %d, %s, %d) score %v, Java row (bucket %d, %s, %d) score %v",
						where, i, h.bucket, h.dataFile, h.rowPosition, h.score, jBucket, jr.DataFile, jPos, jr.Score)
				}
				a, b := float64(h.score), float64(jr.Score)
				if math.Abs(a-b) > 1e-5*math.Max(math.Abs(a), math.Abs(b)) {
					return fmt.Errorf("%s: hit %d: Go score %v, Java %v", where, i, a, b)
				}
				jText, err := jr.TextString()
				if err != nil {
					return fmt.Errorf("%s: hit %d: Java's %w", where, i, err)
				}
				if (h.text == nil) != (jText == nil) || (h.text != nil && *h.text != *jText) {
					return fmt.Errorf("%s: hit %d: Go text %v, Java %v", where, i, deref(h.text), deref(jText))
				}
				if !h.sameKey(jr.Key) {
					return fmt.Errorf("%s: hit %d: Go key %v, Java %v", where, i, h.key, jr.Key)
				}
			}
			if limit == limits[len(limits)-1] && len(hits) > 0 {
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
const docSearchTable = "on eight tables (Java's archives, Go's archives, mixed; default, ngram and jieba analyzers; " +
	"deletes under deletion vectors; Parquet and Avro data files) the 24 engine queries with limits 7 and 1000: Go's " +
	"`search.Search` and Paimon's full-text read path return the same physical rows (bucket, " +
	"data file, position), keys and texts in Paimon's ranked order (`PrimaryKeySearchRanker`: " +
	"score, then partition, bucket, file, position), scores within 1e-5 relative."
