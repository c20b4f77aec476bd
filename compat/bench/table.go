package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
	"github.com/paimon-pkft/pkft/internal/testing/paimonparquet"
	"github.com/paimon-pkft/pkft/internal/types"
)

// Analyzer is a named analyzer configuration of the indexed column, as the table's
// fields.content.pk-full-text.index.options JSON object (nil: the engine's defaults).
type Analyzer struct {
	Name    string
	Options map[string]string
}

// Analyzers are the configurations the builds are measured with.
var Analyzers = []Analyzer{
	{Name: "default"},
	{Name: "ngram", Options: map[string]string{"tokenizer": "ngram", "ngram.min-gram": "2", "ngram.max-gram": "3"}},
}

// TableSpec describes a generated table: Rows rows spread over Buckets buckets, each bucket's
// rows in FilesPerBucket compacted data files at level 1, with no archive yet.
type TableSpec struct {
	Rows           int
	Buckets        int
	FilesPerBucket int
	Analyzer       Analyzer
	// Marker, when set, appends the word Marker(i) to row i's text of every data file (a word
	// the corpus does not hold; "" leaves the row as it is): selective queries for the tables of
	// conformance cases. The bench leaves it nil.
	Marker func(i int) string
	// PageSize is the data page size limit of the data files in bytes (0: 1 MiB, parquet-java's
	// default); PageIndex gives them the page index parquet-java writes by default.
	PageSize  int64
	PageIndex bool
}

// MarkerWord is the n-th marker word: "zq" and the letters of n in base 26, letters only, so
// no analyzer splits it and the corpus holds none of them (a Marker for selective queries).
func MarkerWord(n int) string {
	b := []byte("zq")
	for {
		b = append(b, byte('a'+n%26))
		n /= 26
		if n == 0 {
			return string(b)
		}
	}
}

// TableOptions are the table options of a generated table: deletion vectors, the full-text
// index on content, and the analyzer's options.
func (s TableSpec) TableOptions() (map[string]string, error) {
	opts := map[string]string{
		"bucket":                   fmt.Sprint(s.Buckets),
		"deletion-vectors.enabled": "true",
		pkfulltext.ColumnsOption:   paimonparquet.DefaultTextName,
	}
	if len(s.Analyzer.Options) > 0 {
		b, err := json.Marshal(s.Analyzer.Options)
		if err != nil {
			return nil, err
		}
		opts[pkfulltext.FieldOptionsKey(paimonparquet.DefaultTextName)] = string(b)
	}
	return opts, nil
}

// fileRows is how many rows file f of bucket b holds.
func (s TableSpec) fileRows(b, f int) int {
	per := s.Rows / s.Buckets
	if b == s.Buckets-1 {
		per = s.Rows - (s.Buckets-1)*per
	}
	n := per / s.FilesPerBucket
	if f == s.FilesPerBucket-1 {
		n = per - (s.FilesPerBucket-1)*n
	}
	return n
}

// FileTexts returns the text of file f of bucket b: row i's text, or null. It must be called with
// increasing i; the same (b, f) always yields the same texts, so an engine fed from memory
// indexes exactly what a build reads from the data file.
func (s TableSpec) FileTexts(b, f int) func(i int) ([]byte, bool) {
	t := &texts{seed: uint64(b*s.FilesPerBucket + f + 1), chunk: -1}
	if s.Marker == nil {
		return t.text
	}
	return func(i int) ([]byte, bool) {
		text, null := t.text(i)
		if m := s.Marker(i); !null && m != "" {
			text = append(append(slices.Clone(text), ' '), m...)
		}
		return text, null
	}
}

// texts streams corpus texts (internal/testing/corpus, multilingual) for one data file, about 5% of
// them null, generating one chunk of the corpus at a time.
type texts struct {
	seed  uint64
	chunk int
	cur   []corpus.Row
}

const textChunk = 8192

func (p *texts) text(i int) ([]byte, bool) {
	if k := i / textChunk; k != p.chunk {
		p.chunk = k
		p.cur = corpus.Generate(p.seed*1_000_003+uint64(k), textChunk)
	}
	if x := uint64(i)*0x9e3779b97f4a7c15 ^ p.seed; (x>>40)%20 == 0 {
		return nil, true
	}
	j := i % textChunk
	for p.cur[j].Null {
		j = (j + 1) % textChunk
	}
	return []byte(p.cur[j].Text), false
}

// schemaJSON is schema-0 of a generated table: (id INT NOT NULL, content STRING, payload INT),
// the layout internal/testing/paimonparquet writes.
func schemaJSON(options map[string]string) ([]byte, error) {
	type field struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
		Type string `json:"type"`
	}
	return json.MarshalIndent(map[string]any{
		"version": 3, "id": 0,
		"fields":         []field{{0, "id", "INT NOT NULL"}, {1, paimonparquet.DefaultTextName, "STRING"}, {2, "payload", "INT"}},
		"highestFieldId": 2, "partitionKeys": []string{}, "primaryKeys": []string{"id"},
		"options": options, "timeMillis": time.Now().UnixMilli(),
	}, "", "  ")
}

// WriteTable writes the table of spec at dir: the schema, every bucket's data files (Paimon's
// Parquet defaults: zstd, dictionary) and snapshot 1, a compaction committing them. It returns
// each bucket's data files in name order.
func WriteTable(ctx context.Context, dir string, spec TableSpec) ([][]*meta.DataFileMeta, error) {
	if spec.Buckets <= 0 || spec.FilesPerBucket <= 0 || spec.Rows < spec.Buckets*spec.FilesPerBucket {
		return nil, fmt.Errorf("table spec %+v: need at least one row per data file", spec)
	}
	options, err := spec.TableOptions()
	if err != nil {
		return nil, err
	}
	sch, err := schemaJSON(options)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "schema"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "schema", "schema-0"), sch, 0o644); err != nil {
		return nil, err
	}
	tb := table.Open(fileio.NewLocal(), dir)
	keyType := types.Row(types.Field(0, "id", types.Int()))
	key := func(v int64) ([]byte, error) {
		r, err := binrow.NewBinaryRow(keyType, []any{int32(v)})
		if err != nil {
			return nil, err
		}
		return r.Serialize(), nil
	}
	out := make([][]*meta.DataFileMeta, spec.Buckets)
	var entries []meta.ManifestEntry
	var first int64
	for b := range spec.Buckets {
		if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("bucket-%d", b)), 0o755); err != nil {
			return nil, err
		}
		for f := range spec.FilesPerBucket {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			n := spec.fileRows(b, f)
			name := fmt.Sprintf("data-bench-%d-%d.parquet", b, f)
			o := paimonparquet.Options{Compression: compress.Codecs.Zstd, Dictionary: true, RowGroupRows: 1_000_000, FirstRow: first,
				PageSize: spec.PageSize, PageIndex: spec.PageIndex}
			st, err := paimonparquet.WriteFile(filepath.Join(dir, fmt.Sprintf("bucket-%d", b), name), n, spec.FileTexts(b, f), o)
			if err != nil {
				return nil, fmt.Errorf("write %s: %w", name, err)
			}
			minKey, err := key(first + 1)
			if err != nil {
				return nil, err
			}
			maxKey, err := key(first + int64(n))
			if err != nil {
				return nil, err
			}
			zero := int64(0)
			src := meta.FileSourceCompact
			// _CREATION_TIME as Java's writer records it (the local wall clock read as UTC): Java's
			// commit reads it when its compaction at commit replaces the file.
			_, offset := time.Now().Zone()
			created := time.Now().UnixMilli() + int64(offset)*1000
			fm := &meta.DataFileMeta{FileName: name, FileSize: st.FileBytes, RowCount: int64(n), MinKey: minKey,
				MaxKey: maxKey, KeyStats: meta.EmptyStats(), ValueStats: meta.EmptyStats(),
				MinSequenceNumber: first, MaxSequenceNumber: first + int64(n) - 1, Level: 1, ExtraFiles: []string{},
				DeleteRowCount: &zero, FileSource: &src, CreationTime: &created}
			out[b] = append(out[b], fm)
			entries = append(entries, meta.ManifestEntry{Kind: meta.FileKindAdd, Partition: meta.EmptyBinaryRow(),
				Bucket: int32(b), TotalBuckets: int32(spec.Buckets), File: *fm})
			first += int64(n)
		}
	}
	write := func(name string, encode func(w *bytes.Buffer) error) (int64, error) {
		var buf bytes.Buffer
		if err := encode(&buf); err != nil {
			return 0, err
		}
		if err := tb.FileIO.WriteFileAtomic(ctx, tb.ManifestPath(name), buf.Bytes()); err != nil {
			return 0, err
		}
		return int64(buf.Len()), nil
	}
	size, err := write("manifest-bench-0", func(w *bytes.Buffer) error {
		return manifest.WriteManifestFile(w, entries, manifest.WriteOptions{})
	})
	if err != nil {
		return nil, err
	}
	baseSize, err := write("manifest-list-bench-0", func(w *bytes.Buffer) error {
		return manifest.WriteManifestList(w, []meta.ManifestFileMeta{{FileName: "manifest-bench-0", FileSize: size,
			NumAddedFiles: int64(len(entries)), PartitionStats: meta.EmptyStats()}}, manifest.WriteOptions{})
	})
	if err != nil {
		return nil, err
	}
	deltaSize, err := write("manifest-list-bench-1", func(w *bytes.Buffer) error { return manifest.WriteManifestList(w, nil, manifest.WriteOptions{}) })
	if err != nil {
		return nil, err
	}
	snap := &snapshot.Snapshot{Version: snapshot.CurrentVersion, ID: 1, BaseManifestList: "manifest-list-bench-0",
		BaseManifestListSize: &baseSize, DeltaManifestList: "manifest-list-bench-1", DeltaManifestListSize: &deltaSize,
		CommitUser: "bench", CommitIdentifier: 1<<63 - 1, CommitKind: snapshot.CommitCompact, TimeMillis: time.Now().UnixMilli(),
		TotalRecordCount: int64(spec.Rows)}
	if err := tb.Snapshots.Commit(ctx, snap); err != nil {
		return nil, err
	}
	return out, nil
}
