package pkft

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/paimon-pkft/pkft/internal/convert"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/search"
	"github.com/paimon-pkft/pkft/internal/types"
)

// DefaultLimit is the number of hits a search returns unless [WithLimit] says otherwise.
const DefaultLimit = 10

type searchConfig struct {
	column      string
	limit       int
	partitions  []map[string]string
	snapshotID  int64
	parallelism int
	bounds      QueryBounds
}

// Default query bounds (see [QueryBounds]).
const (
	DefaultMaxQueryBytes = search.DefaultMaxQueryBytes
	DefaultMaxQueryTerms = search.DefaultMaxQueryTerms
	DefaultMaxQueryDepth = search.DefaultMaxQueryDepth
)

// ErrQueryBound reports a query refused because it exceeds one of its [QueryBounds]; the
// message names the bound.
var ErrQueryBound = search.ErrQueryBound

// ErrInvalidQuery reports a JSON query that is not valid JSON or not a query of the engine's
// query language: an unknown query type or field, a missing required field, a value of the
// wrong kind. The message names the offending type or field.
var ErrInvalidQuery = search.ErrInvalidQuery

// CheckQuery checks query as [Table.Search] does before it reads anything: within its bounds
// and, for a JSON query, a query of the engine's language (paimon-ftindex 0.1.0: match,
// multi_match, match_phrase or phrase, boolean and boost, with their fields), every type and
// field known. Unknown fields, which the engine would ignore, are refused. So a query is judged
// the same whether or not the table has archives.
func CheckQuery(query string, b QueryBounds) error {
	return search.CheckQuery(query, search.Bounds(b))
}

// EngineQuery returns the engine query that query becomes: a JSON query unchanged, plain words
// as the match query {"match":{"query":"..."}} (terms analyzed as the archive's analyzer
// does, any of them matching; no phrases). A blank query is an error.
func EngineQuery(query string) (string, error) {
	return search.EngineQuery(query)
}

// QueryBounds limit the size and shape of a search query; a query beyond them is refused before
// any archive is searched (the engine's cost grows much faster than linearly with the number of
// terms, and Java Paimon, which has no such bounds, passes every query through). A zero field
// takes its default; a negative one disables that bound.
type QueryBounds struct {
	// MaxBytes bounds the query's length in bytes (default [DefaultMaxQueryBytes]).
	MaxBytes int
	// MaxTerms bounds the number of words of the query: runs of letters, digits and marks in
	// the plain words or the JSON query's strings, each Han, Kana or Hangul character counting
	// as one (default [DefaultMaxQueryTerms]).
	MaxTerms int
	// MaxDepth bounds the nesting of objects and arrays of a JSON query (default
	// [DefaultMaxQueryDepth]; one level of boolean query takes three).
	MaxDepth int
}

// WithQueryBounds sets the query bounds of a search (default: the Default* bounds).
func WithQueryBounds(b QueryBounds) SearchOption {
	return searchOption(func(c *searchConfig) { c.bounds = b })
}

// Hit is one search result: a row of the table and its score.
//
// Values are typed by their column: BOOLEAN bool, TINYINT int8, SMALLINT int16, INT int32,
// BIGINT int64, FLOAT float32, DOUBLE float64, CHAR and VARCHAR string, BINARY and VARBINARY
// []byte, DATE and TIMESTAMP time.Time (UTC), DECIMAL string (exact, plain notation); null is
// nil.
type Hit struct {
	// Key holds the row's primary key values, in the order of SearchResult.KeyColumns.
	Key []any `json:"key"`
	// Text is the value of the searched column; nil when null.
	Text *string `json:"text"`
	// Score is the engine's score for the row; hits are ordered by it, best first.
	Score float32 `json:"score"`
	// Partition is the row's partition, in the order of SearchResult.PartitionKeys (empty for
	// unpartitioned tables).
	Partition Partition `json:"partition"`
	Bucket    int32     `json:"bucket"`
	// DataFile and RowPosition locate the physical row.
	DataFile    string `json:"dataFile"`
	RowPosition int64  `json:"rowPosition"`

	// keyJSON are the key values in Java's form, set by Search; rawKey in internal/binrow's.
	keyJSON []any
	rawKey  []any
}

// MarshalJSON writes the hit with its key values in Java's form.
func (h Hit) MarshalJSON() ([]byte, error) {
	type plain Hit
	p := plain(h)
	if h.keyJSON != nil {
		p.Key = h.keyJSON
	}
	return json.Marshal(p)
}

// SearchResult is the outcome of [Table.Search].
type SearchResult struct {
	// SnapshotID is the snapshot searched; 0 when the table has no snapshot.
	SnapshotID int64 `json:"snapshotId"`
	// Column is the column searched.
	Column string `json:"column"`
	// KeyColumns are the primary key columns, in the order of Hit.Key.
	KeyColumns []string `json:"keyColumns"`
	// PartitionKeys are the partition columns, in the order of Hit.Partition.
	PartitionKeys []string `json:"partitionKeys"`
	// Hits are the results, best first (ties broken by partition, bucket, data file and row
	// position, as Paimon's read path breaks them).
	Hits []Hit `json:"hits"`
	// Coverage counts the data files and rows of the searched snapshot and partitions, and those
	// no current archive covers — rows this search did not see — by reason. Its UncoveredRows
	// are physical rows (the data files' row counts, deleted and superseded rows included); 0
	// means every row of the searched partitions was searched. Zero for a table without a
	// snapshot.
	Coverage Coverage `json:"coverage"`

	// keyTypes are the types of KeyColumns, set by Search (RecordBatch uses them).
	keyTypes []types.DataType
}

// Search runs query against the table's full-text archives and returns the best hits, as
// Paimon's full-text read path does: the current archives of the snapshot are searched with
// deletion vectors applied, and the hits of all archives are merged by score. Only rows of
// files a compaction rewrote above level 0 are indexed, as in Paimon: rows on level 0, in files a
// compaction moved up unchanged, or on levels without a current archive (not maintained yet, or
// with duplicate archives of concurrent maintainers) are not searched. SearchResult.Coverage
// counts those rows, by reason, in the snapshot and partitions searched.
//
// query is either plain words, searched as a match query (rows containing any of the words),
// or the engine's JSON query as Paimon passes it, for example
// {"match_phrase":{"query":"lake format"}} or
// {"boolean":{"must":[{"match":{"query":"lake"}}],"must_not":[{"match":{"query":"snapshot"}}]}}.
// The query must keep within its [QueryBounds]. The search stops when ctx ends (a deadline or a
// cancellation), also while the engine is searching an archive: the engine's call is abandoned
// and finishes in the background.
func (t *Table) Search(ctx context.Context, query string, opts ...SearchOption) (*SearchResult, error) {
	cfg := searchConfig{limit: DefaultLimit}
	for _, o := range opts {
		if o == nil {
			continue
		}
		o.applySearch(&cfg)
	}
	if cfg.limit <= 0 {
		return nil, fmt.Errorf("search %s: limit must be positive, got %d", t.path, cfg.limit)
	}
	if err := search.CheckQuery(query, search.Bounds(cfg.bounds)); err != nil {
		return nil, fmt.Errorf("search %s: %w", t.path, err)
	}
	s, err := t.latestSchema(ctx)
	if err != nil {
		return nil, err
	}
	def, err := search.ResolveDefinition(s, cfg.column)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", t.path, err)
	}
	req := search.Request{Query: query, Column: cfg.column, Limit: cfg.limit}
	if len(cfg.partitions) > 0 {
		if len(s.PartitionKeys) == 0 {
			return nil, fmt.Errorf("search %s: the table is not partitioned", t.path)
		}
		filters := make([]search.PartitionFilter, len(cfg.partitions))
		for i, spec := range cfg.partitions {
			if filters[i], err = search.MatchPartition(s, spec); err != nil {
				return nil, fmt.Errorf("search %s: %w", t.path, err)
			}
		}
		req.Partition = func(p []byte) (bool, error) {
			for _, f := range filters {
				if ok, err := f(p); err != nil || ok {
					return ok, err
				}
			}
			return false, nil
		}
	}
	if cfg.snapshotID != 0 {
		snap, err := t.t.Snapshots.Snapshot(ctx, cfg.snapshotID)
		if err != nil {
			return nil, fmt.Errorf("search %s: snapshot %d: %w", t.path, cfg.snapshotID, err)
		}
		req.Snapshot = snap
	}
	engine, err := t.loadEngine(ctx)
	if err != nil {
		return nil, err
	}
	resp, err := search.Search(ctx, t.t, req, search.Options{Engine: engine, Parallelism: cfg.parallelism,
		Bounds: search.Bounds(cfg.bounds), Readers: t.readers})
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", t.path, err)
	}
	out := &SearchResult{SnapshotID: resp.SnapshotID, Column: def.Column, KeyColumns: s.PrimaryKeys,
		PartitionKeys: s.PartitionKeys, Hits: make([]Hit, 0, len(resp.Results)), Coverage: Coverage{Uncovered: []UncoveredFiles{}}}
	if c := coverageOf(resp.Coverage); c != nil {
		out.Coverage = *c
	}
	if out.KeyColumns == nil {
		out.KeyColumns = []string{}
	}
	if out.PartitionKeys == nil {
		out.PartitionKeys = []string{}
	}
	keyTypes := columnTypes(s, s.PrimaryKeys)
	out.keyTypes = keyTypes
	parts := partitionsOf(s)
	for _, r := range resp.Results {
		h := Hit{Text: r.Text, Score: r.Score, Bucket: r.Bucket, DataFile: r.DataFile, RowPosition: r.RowPosition,
			Key: convert.ToGoValues(r.Key, keyTypes), keyJSON: javaValues(r.Key, keyTypes), rawKey: r.Key}
		h.Partition = parts.values(r.Partition)
		out.Hits = append(out.Hits, h)
	}
	return out, nil
}

func columnTypes(s *schema.TableSchema, names []string) []types.DataType {
	out := make([]types.DataType, len(names))
	for i, n := range names {
		if f, ok := s.FieldByName(n); ok {
			out[i] = f.Type
		}
	}
	return out
}

// javaValues renders key values as Java's dump renders values; bytes stay bytes (base64 in
// JSON, as Java prints row values).
func javaValues(vs []any, ts []types.DataType) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		if _, ok := v.([]byte); ok || i >= len(ts) {
			out[i] = v
			continue
		}
		if n, ok := v.(int64); ok && (ts[i].Root == types.RootDate || ts[i].Root == types.RootInt) {
			v = int32(n)
		}
		out[i] = inspect.PartitionValue(ts[i], v)
	}
	return out
}
