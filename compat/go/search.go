package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/compat/protocol"
)

// engineQuery is the engine query of q as the Java runner sends it: q itself when it is a JSON
// object, else the match query of its words.
func engineQuery(q string) (string, error) {
	if strings.TrimSpace(q) == "" {
		return "", argErrorf("args.query must not be blank")
	}
	if strings.HasPrefix(strings.TrimSpace(q), "{") {
		return q, nil
	}
	var match struct {
		Match struct {
			Query string `json:"query"`
		} `json:"match"`
	}
	match.Match.Query = q
	b, err := json.Marshal(match)
	return string(b), err
}

// cmdSearch searches the table's primary-key full-text archives at the latest snapshot with
// Table.Search. Result: {snapshotId, column, query, results: [{key, text, score}]}, results by
// score descending, ties by primary key ascending; with ranked, in pkft's (Paimon's) ranked
// order, each with its position: bucket, dataFile, rowPosition.
func (st *searchTables) cmdSearch(ctx context.Context, args protocol.SearchRequest) (protocol.SearchResponse, error) {
	var none protocol.SearchResponse
	query, err := engineQuery(args.Query)
	if err != nil {
		return none, err
	}
	limit := 10
	if args.Limit != 0 {
		limit = int(args.Limit)
	}
	ranked := args.Ranked != nil && *args.Ranked
	t, err := st.table(ctx, args.Path)
	if err != nil {
		return none, err
	}
	column := args.Column
	if column == "" {
		if column, err = indexColumn(t); err != nil {
			return none, err
		}
	}
	sch, err := t.Schema(ctx)
	if err != nil {
		return none, err
	}
	res, err := t.Search(ctx, query, pkft.WithColumn(column), pkft.WithLimit(limit))
	if err != nil {
		return none, err
	}
	results := make([]protocol.SearchResponseResult, 0, len(res.Hits))
	for _, h := range res.Hits {
		text, err := json.Marshal(h.Text)
		if err != nil {
			return none, err
		}
		r := protocol.SearchResponseResult{Key: protocol.Object{}, Text: text, Score: float64(h.Score)}
		for i, k := range res.KeyColumns {
			c, ok := sch.Column(k)
			if !ok || i >= len(h.Key) {
				return none, argErrorf("the search's key column %s is not in the schema", k)
			}
			if r.Key[k], err = renderGo(c.Type, h.Key[i]); err != nil {
				return none, err
			}
		}
		if ranked {
			r.Bucket, r.DataFile, r.RowPosition = new(int64(h.Bucket)), h.DataFile, new(h.RowPosition)
		}
		results = append(results, r)
	}
	if !ranked {
		sort.SliceStable(results, func(a, b int) bool {
			if results[a].Score != results[b].Score {
				return results[a].Score > results[b].Score
			}
			for _, k := range res.KeyColumns {
				if c := compareRendered(results[a].Key[k], results[b].Key[k]); c != 0 {
					return c < 0
				}
			}
			return false
		})
	}
	return protocol.SearchResponse{SnapshotID: res.SnapshotID, Column: column, Query: query, Results: results}, nil
}

// cmdListIndex lists every primary-key full-text archive of the latest snapshot with its status
// as Table.State classifies it (current: it serves its level; stale otherwise). Result:
// {archives: [{partition, bucket, fileName, status}]}.
func cmdListIndex(ctx context.Context, args protocol.ListIndexRequest) (protocol.ListIndexResponse, error) {
	var none protocol.ListIndexResponse
	t, err := openTable(ctx, args.Path)
	if err != nil {
		return none, err
	}
	defer t.Close()
	st, err := t.State(ctx)
	if err != nil {
		return none, err
	}
	archives := []protocol.ListIndexResponseArchive{}
	archive := func(p pkft.Partition, bucket int32, fileName, status string) (protocol.ListIndexResponseArchive, error) {
		a := protocol.ListIndexResponseArchive{Bucket: int64(bucket), FileName: fileName, Status: status}
		return a, reshape(p, &a.Partition, true)
	}
	for _, b := range st.Buckets {
		if b.State == nil {
			continue
		}
		if b.State.Error != "" {
			return none, &stateError{b.Partition, b.Bucket, b.State.Error}
		}
		levels := make([]int, 0, len(b.State.Current))
		for l := range b.State.Current {
			levels = append(levels, int(l))
		}
		sort.Ints(levels)
		for _, l := range levels {
			a, err := archive(b.Partition, b.Bucket, b.State.Current[int32(l)], "current")
			if err != nil {
				return none, err
			}
			archives = append(archives, a)
		}
		for _, f := range b.State.Stale {
			a, err := archive(b.Partition, b.Bucket, f, "stale")
			if err != nil {
				return none, err
			}
			archives = append(archives, a)
		}
	}
	return protocol.ListIndexResponse{Archives: archives}, nil
}

// stateError is a bucket whose full-text state cannot be computed.
type stateError struct {
	partition pkft.Partition
	bucket    int32
	msg       string
}

func (e *stateError) Error() string {
	return "partition " + e.partition.String() + " bucket " + itoa(e.bucket) + ": full-text state: " + e.msg
}

func itoa(n int32) string { b, _ := json.Marshal(n); return string(b) }

// searchTables is the table handle the runner's searches share, opened with
// pkft.KeepArchivesOpen: the harness sends every query of a table one after another, and a
// handle that keeps its archives open answers each after the first without opening them again,
// as a Go service answering queries would. Archives are immutable, and each search reads the
// table's latest snapshot, so the handle stays right while other processes write the table. One
// handle is kept (the last table searched), so the open archives stay bounded.
type searchTables struct {
	path string
	t    *pkft.Table
}

// table returns the shared handle of the table at path, closing the previous table's.
func (st *searchTables) table(ctx context.Context, path string) (*pkft.Table, error) {
	if st.t != nil && st.path == path {
		return st.t, nil
	}
	if path == "" {
		return nil, argErrorf("args.path (the table directory) is required")
	}
	if err := st.close(); err != nil {
		return nil, err
	}
	t, err := pkft.Open(ctx, path, append(openOptions(ctx, path), pkft.KeepArchivesOpen())...)
	if err != nil {
		return nil, err
	}
	st.path, st.t = path, t
	return t, nil
}

// close releases the handle.
func (st *searchTables) close() error {
	if st.t == nil {
		return nil
	}
	err := st.t.Close()
	st.path, st.t = "", nil
	if err != nil {
		return fmt.Errorf("close the table searched: %w", err)
	}
	return nil
}
