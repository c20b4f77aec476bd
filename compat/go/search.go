package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/paimon-pkft/pkft"
)

// searchArgs are search's arguments.
type searchArgs struct {
	Path   string `json:"path"`
	Query  string `json:"query"`
	Column string `json:"column"`
	Limit  *int   `json:"limit"`
	Ranked bool   `json:"ranked"`
}

// engineQuery is the engine query of q as the Java runner sends it: q itself when it is a JSON
// object, else the match query of its words.
func engineQuery(q string) (string, error) {
	if strings.TrimSpace(q) == "" {
		return "", argErrorf("args.query must not be blank")
	}
	if strings.HasPrefix(strings.TrimSpace(q), "{") {
		return q, nil
	}
	b, err := json.Marshal(map[string]any{"match": map[string]string{"query": q}})
	return string(b), err
}

// cmdSearch searches the table's primary-key full-text archives at the latest snapshot with
// Table.Search. Result: {snapshotId, column, query, results: [{key, text, score}]}, results by
// score descending, ties by primary key ascending; with ranked, in pkft's (Paimon's) ranked
// order, each with its position: bucket, dataFile, rowPosition.
func (st *searchTables) cmdSearch(ctx context.Context, raw json.RawMessage) (any, error) {
	var args searchArgs
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	query, err := engineQuery(args.Query)
	if err != nil {
		return nil, err
	}
	limit := 10
	if args.Limit != nil {
		limit = *args.Limit
	}
	t, err := st.table(ctx, args.Path)
	if err != nil {
		return nil, err
	}
	column := args.Column
	if column == "" {
		if column, err = indexColumn(t); err != nil {
			return nil, err
		}
	}
	sch, err := t.Schema(ctx)
	if err != nil {
		return nil, err
	}
	res, err := t.Search(ctx, query, pkft.WithColumn(column), pkft.WithLimit(limit))
	if err != nil {
		return nil, err
	}
	type result struct {
		Key         map[string]any `json:"key"`
		Text        *string        `json:"text"`
		Score       float32        `json:"score"`
		Bucket      *int32         `json:"bucket,omitempty"`
		DataFile    string         `json:"dataFile,omitempty"`
		RowPosition *int64         `json:"rowPosition,omitempty"`
	}
	results := make([]result, 0, len(res.Hits))
	for _, h := range res.Hits {
		r := result{Key: map[string]any{}, Text: h.Text, Score: h.Score}
		for i, k := range res.KeyColumns {
			c, ok := sch.Column(k)
			if !ok || i >= len(h.Key) {
				return nil, argErrorf("the search's key column %s is not in the schema", k)
			}
			if r.Key[k], err = renderGo(c.Type, h.Key[i]); err != nil {
				return nil, err
			}
		}
		if args.Ranked {
			b, pos := h.Bucket, h.RowPosition
			r.Bucket, r.DataFile, r.RowPosition = &b, h.DataFile, &pos
		}
		results = append(results, r)
	}
	if !args.Ranked {
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
	return map[string]any{"snapshotId": res.SnapshotID, "column": column, "query": query, "results": results}, nil
}

// cmdListIndex lists every primary-key full-text archive of the latest snapshot with its status
// as Table.State classifies it (current: it serves its level; stale otherwise). Result:
// {archives: [{partition, bucket, fileName, status}]}.
func cmdListIndex(ctx context.Context, raw json.RawMessage) (any, error) {
	t, err := openPathArgs(ctx, raw)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	st, err := t.State(ctx)
	if err != nil {
		return nil, err
	}
	type archive struct {
		Partition pkft.Partition `json:"partition"`
		Bucket    int32          `json:"bucket"`
		FileName  string         `json:"fileName"`
		Status    string         `json:"status"`
	}
	archives := []archive{}
	for _, b := range st.Buckets {
		if b.State == nil {
			continue
		}
		if b.State.Error != "" {
			return nil, &stateError{b.Partition, b.Bucket, b.State.Error}
		}
		levels := make([]int, 0, len(b.State.Current))
		for l := range b.State.Current {
			levels = append(levels, int(l))
		}
		sort.Ints(levels)
		for _, l := range levels {
			archives = append(archives, archive{b.Partition, b.Bucket, b.State.Current[int32(l)], "current"})
		}
		for _, f := range b.State.Stale {
			archives = append(archives, archive{b.Partition, b.Bucket, f, "stale"})
		}
	}
	return map[string]any{"archives": archives}, nil
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
