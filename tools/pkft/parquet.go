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
// whole file at once) and returns the rows written.
func writeParquet(ctx context.Context, w *pkft.Writer, path string) (int, error) {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: parquetBatchRows}, memory.DefaultAllocator)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	defer rr.Release()
	rows := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		if err := w.WriteRecord(ctx, rec); err != nil {
			return rows, fmt.Errorf("%s: rows %d..%d: %w", path, rows, rows+int(rec.NumRows())-1, err)
		}
		rows += int(rec.NumRows())
	}
	if err := rr.Err(); err != nil {
		return rows, fmt.Errorf("read %s: %w", path, err)
	}
	return rows, nil
}
