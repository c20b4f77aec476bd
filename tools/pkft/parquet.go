package main

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-pkft/pkft"
)

// parquetBatchRows is the most rows read from a Parquet file at once.
const parquetBatchRows = 8192

// writeParquet streams the Parquet file at path into w record batch by record batch (never the
// whole file at once) and returns the rows written and the file's size; batch is called with
// the rows written so far after each batch.
func writeParquet(ctx context.Context, w *pkft.Writer, path string, batch func(rows int)) (int, int64, error) {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return 0, 0, fmt.Errorf("open %s: %w", path, err)
	}
	size := pf.MetaData().GetSourceFileSize()
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: parquetBatchRows}, memory.DefaultAllocator)
	if err != nil {
		return 0, 0, fmt.Errorf("read %s: %w", path, err)
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("read %s: %w", path, err)
	}
	defer rr.Release()
	rows := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		if err := w.WriteRecord(ctx, rec); err != nil {
			return rows, size, fmt.Errorf("%s: rows %d..%d: %w", path, rows, rows+int(rec.NumRows())-1, err)
		}
		rows += int(rec.NumRows())
		batch(rows)
	}
	if err := rr.Err(); err != nil {
		return rows, size, fmt.Errorf("read %s: %w", path, err)
	}
	return rows, size, nil
}
