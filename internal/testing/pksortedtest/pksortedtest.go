// Package pksortedtest builds the metadata the sorted family's tests use: compaction-output data
// files and sorted payloads whose source meta lists given files.
package pksortedtest

import (
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// DataFile is compaction output named name with rows rows on level.
func DataFile(name string, rows int64, level int32) *meta.DataFileMeta {
	src := meta.FileSourceCompact
	return &meta.DataFileMeta{FileName: name, FileSize: 100, RowCount: rows, Level: level, FileSource: &src,
		KeyStats: meta.EmptyStats(), ValueStats: meta.EmptyStats()}
}

// Payload is a payload of indexType named name for fieldID whose source meta records level and
// files (in the given order) and whose row range covers the files' rows; its row count is rows
// and its index meta the single byte 1.
func Payload(tb testing.TB, indexType, name string, fieldID, level int32, rows int64, files ...*meta.DataFileMeta) *meta.IndexFileMeta {
	tb.Helper()
	var sources []pkindex.SourceFile
	var total int64
	for _, f := range files {
		s, err := pkindex.NewSourceFile(f.FileName, f.RowCount)
		if err != nil {
			tb.Fatal(err)
		}
		sources = append(sources, s)
		total += f.RowCount
	}
	sm, err := pkindex.NewSourceMeta(level, sources)
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := sm.Encode()
	if err != nil {
		tb.Fatal(err)
	}
	return &meta.IndexFileMeta{IndexType: indexType, FileName: name, FileSize: 1, RowCount: rows,
		GlobalIndex: &meta.GlobalIndexMeta{RowRangeEnd: total - 1, IndexFieldID: fieldID, IndexMeta: []byte{1}, SourceMeta: raw}}
}
