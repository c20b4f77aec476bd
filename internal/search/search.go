package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/paimon-pkft/pkft/internal/dv"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pqvalue"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// Request is one full-text search of a table.
type Request struct {
	// Query is either plain words, searched as a match query (any word matches), or the engine's
	// JSON query exactly as Paimon passes it (a JSON object, e.g. {"match_phrase":{"query":"a b"}}).
	Query string
	// Column is the text column to search; it must be the column named by
	// pk-full-text.index.columns. Empty selects that column.
	Column string
	// Limit is the number of results wanted (top-k); it must be positive.
	Limit int
	// Snapshot pins the snapshot to search; nil searches the latest one.
	Snapshot *snapshot.Snapshot
	// Partition selects partitions; nil searches all.
	Partition PartitionFilter
}

// Options configure how a search runs.
type Options struct {
	// Engine opens archives; nil uses the native engine (paimon-ftindex), loaded when the first
	// archive is opened.
	Engine fulltext.Engine
	// Parallelism bounds how many archives are searched at once; 0 uses the table option
	// global-index.thread-num (default 32), as Java's read thread pool does.
	Parallelism int
	// Bounds limit the query's size and shape (zero fields: the defaults); a query beyond them
	// is refused before any archive is opened.
	Bounds Bounds
	// Readers, when set, keeps the archives open between searches of the table (see
	// ReaderCache); nil opens and closes every archive within its search.
	Readers *ReaderCache
}

// Result is one hit: the row, its score and what the table holds for it.
type Result struct {
	// Partition holds the partition values in partition-key order (nil for unpartitioned tables).
	Partition []any
	Bucket    int32
	// DataFile and RowPosition locate the physical row.
	DataFile    string
	RowPosition int64
	Score       float32
	// Key holds the primary key values in the schema's primary-key order.
	Key []any
	// Text is the indexed column's value; nil when null.
	Text *string
}

// Response is the outcome of a search.
type Response struct {
	// SnapshotID is the snapshot searched; 0 when the table has no snapshot.
	SnapshotID int64
	// Results are the hits, best first.
	Results []Result
	// Coverage counts the data files and rows of the searched partitions of the snapshot that no
	// current archive covers, by reason (Plan.Coverage, from the classification the search
	// planned with): the rows the search did not see. Nil when the table has no snapshot.
	Coverage *inspect.CoverageDump
}

// Values in Result.Partition and Result.Key use the Go forms of internal/binrow: bool, int8, int16,
// int32 (INT; DATE as days since the epoch; TIME as milliseconds of the day), int64, float32,
// float64, string, []byte, binrow.Decimal and binrow.Timestamp.

// EngineQuery turns a request query into the query string the engine receives: a JSON object
// is passed unchanged (Java passes FullTextSearch#query to the engine verbatim); anything else
// is taken as plain words and wrapped into a match query (lake format becomes
// {"match":{"query":"lake format"}}), the match query Paimon's own tests build. Blank queries
// are an error.
func EngineQuery(q string) (string, error) {
	trimmed := strings.TrimSpace(q)
	if trimmed == "" {
		return "", errors.New("full-text query must not be empty")
	}
	if strings.HasPrefix(trimmed, "{") {
		return q, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	type match struct {
		Query string `json:"query"`
	}
	if err := enc.Encode(map[string]match{"match": {Query: q}}); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// Search runs req against t: it plans the snapshot's current archives (PlanSnapshot), searches
// each with the request's limit and the live rows of its sources (BucketSearch), merges the
// rankings of all archives of all buckets (TopKByScore), and reads the primary key and the text
// of each hit from its data file. It also counts, in the same snapshot and partitions, the rows
// no current archive covers (Response.Coverage). A table without a snapshot yields an empty
// response.
func Search(ctx context.Context, t *table.Table, req Request, opts Options) (*Response, error) {
	if req.Limit <= 0 {
		return nil, fmt.Errorf("limit must be positive: %d", req.Limit)
	}
	if err := CheckQuery(req.Query, opts.Bounds); err != nil {
		return nil, err
	}
	query, err := EngineQuery(req.Query)
	if err != nil {
		return nil, err
	}
	restorer, err := restore.NewRestorer(ctx, t)
	if err != nil {
		return nil, err
	}
	latest := restorer.Schema
	def, err := ResolveDefinition(latest, req.Column)
	if err != nil {
		return nil, err
	}
	if err := checkSearchMode(latest.Options); err != nil {
		return nil, err
	}
	par := opts.Parallelism
	if par <= 0 {
		if par, err = threadNum(latest.Options); err != nil {
			return nil, err
		}
	}
	snap := req.Snapshot
	if snap == nil {
		if snap, err = t.Latest(ctx); errors.Is(err, table.ErrNoSnapshot) {
			return &Response{}, nil
		} else if err != nil {
			return nil, err
		}
	}
	contents, err := t.Read(ctx, snap)
	if err != nil {
		return nil, err
	}
	plan, err := PlanSnapshot(contents, def, req.Partition)
	if err != nil {
		return nil, err
	}
	engine := opts.Engine
	if engine == nil {
		engine = &native.Lazy{}
	}
	s := &searcher{t: t, latest: latest, def: def, engine: engine, restorer: restorer, readers: opts.Readers, snapshotID: plan.SnapshotID, partitions: req.Partition,
		schemas: map[int64]*schema.TableSchema{latest.ID: latest}, buckets: map[*Split]*restore.RestoredBucket{}}
	positions, err := s.search(ctx, plan, query, req.Limit, par)
	if err != nil {
		return nil, err
	}
	results, err := s.materialize(ctx, plan, positions, par)
	if err != nil {
		return nil, err
	}
	return &Response{SnapshotID: plan.SnapshotID, Results: results, Coverage: plan.Coverage}, nil
}

func threadNum(opts map[string]string) (int, error) {
	v, ok := opts[optionThreadNum]
	if !ok {
		return defaultThreadNum, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("option %s must be a positive integer, got %q", optionThreadNum, v)
	}
	return n, nil
}

// searcher holds what one Search resolves once.
type searcher struct {
	t        *table.Table
	latest   *schema.TableSchema
	def      Definition
	engine   fulltext.Engine
	restorer *restore.Restorer
	schemas  map[int64]*schema.TableSchema
	buckets  map[*Split]*restore.RestoredBucket
	// readers caches open archives across searches (nil: none); snapshotID is the snapshot
	// searched.
	readers    *ReaderCache
	snapshotID int64
	partitions PartitionFilter // the partitions searched (nil: all)
}

// pathsOf resolves the data and index paths of split's bucket (Java
// IndexFileHandler#pkFullTextIndex and the data file path factory of the bucket).
func (s *searcher) pathsOf(split *Split) (*restore.RestoredBucket, error) {
	if rb, ok := s.buckets[split]; ok {
		return rb, nil
	}
	if split.bucket == nil {
		return nil, fmt.Errorf("bucket %d: split was not planned from a snapshot", split.Bucket)
	}
	rb, err := s.restorer.RestoreBucket(split.bucket)
	if err != nil {
		return nil, err
	}
	s.buckets[split] = rb
	return rb, nil
}

func (s *searcher) search(ctx context.Context, plan *Plan, query string, limit, par int) ([]Position, error) {
	var reqs []*archiveRequest
	// Archive paths are resolved here, before the searches run concurrently.
	indexPaths := map[*Split]paths.IndexPathFactory{}
	planned := map[readerKey]bool{}
	for _, split := range plan.Splits {
		if len(split.Payloads) == 0 {
			continue
		}
		bp, err := s.pathsOf(split)
		if err != nil {
			return nil, fmt.Errorf("bucket %d: %w", split.Bucket, err)
		}
		indexPaths[split] = bp.IndexPaths
		for _, p := range split.Payloads {
			planned[readerKey{archivePath(bp.IndexPaths, p), p.FileSize}] = true
		}
		deletions, err := s.deletionVectors(ctx, split, bp.IndexPaths)
		if err != nil {
			return nil, err
		}
		r, err := prepare(split, deletions)
		if err != nil {
			return nil, fmt.Errorf("bucket %d: %w", split.Bucket, err)
		}
		reqs = append(reqs, r...)
	}
	if s.readers != nil {
		if err := s.readers.retain(s.snapshotID, planned, s.partitions); err != nil {
			return nil, fmt.Errorf("close full-text archives no longer listed: %w", err)
		}
	}
	if len(reqs) == 0 {
		return nil, nil
	}
	bs := &BucketSearch{Parallelism: par, Open: func(ctx context.Context, split *Split, payload *meta.IndexFileMeta) (fulltext.Reader, error) {
		open := func(ctx context.Context) (fulltext.Reader, error) {
			return openArchive(ctx, s.t.FileIO, s.engine, indexPaths[split], payload)
		}
		if s.readers == nil {
			return open(ctx)
		}
		return s.readers.acquire(ctx, archivePath(indexPaths[split], payload), payload.FileSize, split.Partition, open)
	}}
	rankings, err := bs.run(ctx, reqs, query, limit)
	if err != nil {
		return nil, err
	}
	return TopKByScore(rankings, limit)
}

// deletionVectors reads the deletion vectors of split's data files from the bucket's
// deletion-vector index files (Java DeletionVector.factory over the split's deletion files).
func (s *searcher) deletionVectors(ctx context.Context, split *Split, ipf paths.IndexPathFactory) (map[string]dv.DeletionVector, error) {
	wanted := map[string]bool{}
	for _, f := range split.DataFiles {
		wanted[f.FileName] = true
	}
	out := map[string]dv.DeletionVector{}
	for _, f := range split.DeletionFiles {
		var ranges []dv.Range
		for _, r := range f.DVRanges {
			if wanted[r.DataFileName] {
				ranges = append(ranges, dv.Range{DataFile: r.DataFileName, Offset: r.Offset, Length: r.Length, Cardinality: r.Cardinality})
			}
		}
		if len(ranges) == 0 {
			continue
		}
		ext := ""
		if f.ExternalPath != nil {
			ext = *f.ExternalPath
		}
		got, err := dv.ReadAll(ctx, s.t.FileIO, ipf.ToPathOf(f.FileName, ext), ranges)
		if err != nil {
			return nil, err
		}
		for name, d := range got {
			if _, dup := out[name]; dup {
				return nil, fmt.Errorf("data file %s has deletion vectors in more than one index file", name)
			}
			out[name] = d
		}
	}
	return out, nil
}

// openArchive opens a payload's archive through the engine; the returned reader closes the
// file too.
func openArchive(ctx context.Context, fio fileio.FileIO, engine fulltext.Engine, ipf paths.IndexPathFactory, payload *meta.IndexFileMeta) (fulltext.Reader, error) {
	path := archivePath(ipf, payload)
	f, err := fio.OpenReaderAt(ctx, path)
	if err != nil {
		return nil, err
	}
	size := payload.FileSize
	if size > f.Size() {
		f.Close()
		return nil, fmt.Errorf("%s holds %d bytes, its index meta records %d", path, f.Size(), size)
	}
	r, err := engine.OpenReader(ctx, f, size)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &fileReader{Reader: r, file: f}, nil
}

// archivePath is where payload's archive is (its external path when it has one).
func archivePath(ipf paths.IndexPathFactory, payload *meta.IndexFileMeta) string {
	ext := ""
	if payload.ExternalPath != nil {
		ext = *payload.ExternalPath
	}
	return ipf.ToPathOf(payload.FileName, ext)
}

// fileReader closes the archive file with the engine reader.
type fileReader struct {
	fulltext.Reader
	file fileio.ReadAtFile
}

func (r *fileReader) Close() error {
	err := r.Reader.Close()
	if cerr := r.file.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *searcher) schema(ctx context.Context, id int64) (*schema.TableSchema, error) {
	if sc, ok := s.schemas[id]; ok {
		return sc, nil
	}
	sc, err := s.t.Schema(ctx, id)
	if err != nil {
		return nil, err
	}
	s.schemas[id] = sc
	return sc, nil
}

// materialize reads the primary key and text of every position, up to par data files (at most
// GOMAXPROCS) at once, and returns the results in the order of positions.
func (s *searcher) materialize(ctx context.Context, plan *Plan, positions []Position, par int) ([]Result, error) {
	type fileKey struct {
		partition string
		bucket    int32
		file      string
	}
	splits := map[fileKey]*Split{}
	files := map[fileKey]*meta.DataFileMeta{}
	for _, split := range plan.Splits {
		for _, f := range split.DataFiles {
			k := fileKey{string(rowBytes(split.Partition)), split.Bucket, f.FileName}
			splits[k], files[k] = split, f
		}
	}
	byFile := map[fileKey][]int{}
	var order []fileKey
	for i := range positions {
		p := &positions[i]
		k := fileKey{string(rowBytes(p.Partition)), p.Bucket, p.DataFile}
		if files[k] == nil {
			return nil, fmt.Errorf("search position references unknown data file %s in bucket %d", p.DataFile, p.Bucket)
		}
		if p.RowPosition >= files[k].RowCount {
			return nil, fmt.Errorf("search row position %d is outside data file %s", p.RowPosition, p.DataFile)
		}
		if _, ok := byFile[k]; !ok {
			order = append(order, k)
		}
		byFile[k] = append(byFile[k], i)
	}
	keyFields := make([]int, len(s.latest.PrimaryKeys))
	for i, name := range s.latest.PrimaryKeys {
		f, ok := s.latest.FieldByName(name)
		if !ok {
			return nil, fmt.Errorf("primary key %s is not a field of the table", name)
		}
		keyFields[i] = f.ID
	}
	// What each file needs is resolved here (the searcher's maps are not shared); the files are
	// then read at once, bounded by par, as the archives were searched.
	type fileRead struct {
		path, name string
		cols       []column
		idx        []int
		partition  []any
		rows       [][]any
	}
	reads := make([]*fileRead, 0, len(order))
	for _, k := range order {
		split, file := splits[k], files[k]
		idx := byFile[k]
		slices.SortFunc(idx, func(a, b int) int { return compareInt64(positions[a].RowPosition, positions[b].RowPosition) })
		fileSchema, err := s.schema(ctx, file.SchemaID)
		if err != nil {
			return nil, err
		}
		cols := make([]column, 0, len(keyFields)+1)
		for _, id := range append(slices.Clone(keyFields), int(s.def.FieldID)) {
			if f, ok := fileSchema.FieldByID(id); ok {
				cols = append(cols, column{name: f.Name, typ: f.Type})
			} else {
				cols = append(cols, column{})
			}
		}
		bp, err := s.pathsOf(split)
		if err != nil {
			return nil, err
		}
		ext := ""
		if file.ExternalPath != nil {
			ext = *file.ExternalPath
		}
		partition, err := decodePartition(s.latest, split.Partition)
		if err != nil {
			return nil, err
		}
		reads = append(reads, &fileRead{path: bp.DataPaths.ToPath(file.FileName, ext), name: file.FileName, cols: cols, idx: idx, partition: partition})
	}
	// Reading rows is Go code bound by the CPU (page decompression and decoding): beyond
	// GOMAXPROCS files at once only more pages are held in memory at once, for the collector to
	// scan, while no file is read sooner. The files share their readers' buffers (pool).
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(min(par, runtime.GOMAXPROCS(0)), 1))
	pool := &pqvalue.BufferPool{}
	for _, fr := range reads {
		g.Go(func() error {
			rows, err := s.readFile(gctx, pool, fr.path, fr.name, fr.cols, fr.idx, positions)
			fr.rows = rows
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	results := make([]Result, len(positions))
	for _, fr := range reads {
		for j, i := range fr.idx {
			p := positions[i]
			row := fr.rows[j]
			r := Result{Partition: slices.Clone(fr.partition), Bucket: p.Bucket, DataFile: p.DataFile, RowPosition: p.RowPosition, Score: p.Score, Key: row[:len(keyFields)]}
			switch v := row[len(keyFields)].(type) {
			case nil:
			case string:
				r.Text = &v
			case []byte:
				t := string(v)
				r.Text = &t
			default:
				return nil, fmt.Errorf("text column of %s holds %T", fr.name, v)
			}
			results[i] = r
		}
	}
	return results, nil
}

func (s *searcher) readFile(ctx context.Context, pool *pqvalue.BufferPool, path, name string, cols []column, idx []int, positions []Position) ([][]any, error) {
	f, err := s.t.FileIO.OpenReaderAt(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open data file %s: %w", name, err)
	}
	defer f.Close()
	rowsWanted := make([]int64, len(idx))
	for j, i := range idx {
		rowsWanted[j] = positions[i].RowPosition
	}
	return readRowsIn(ctx, pool, f, f.Size(), name, cols, rowsWanted)
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
