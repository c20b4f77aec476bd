// Package pqvalue holds what the key-value file reader (kvfile) and the search row reader share
// to read Parquet: opening a file with buffered column streams, the value conversions
// (timestamps in their units and as INT96, two's complement decimals), and turning a panic of the
// Parquet decoder into an error.
package pqvalue

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/big"

	_ "github.com/paimon-pkft/pkft/internal/pqlz4" // Java's LZ4 (Hadoop) pages

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TimestampUnit is the unit of an INT64 timestamp column: its logical type's, or what Paimon
// writes for the precision of t (millis up to 3, micros up to 6, else nanos).
func TimestampUnit(descr *pqschema.Column, t types.DataType) pqschema.TimeUnitType {
	if lt, ok := descr.LogicalType().(*pqschema.TimestampLogicalType); ok {
		return lt.TimeUnit()
	}
	switch {
	case t.Precision <= 3:
		return pqschema.TimeUnitMillis
	case t.Precision <= 6:
		return pqschema.TimeUnitMicros
	}
	return pqschema.TimeUnitNanos
}

// Timestamp splits an epoch value in unit into Paimon's millisecond and nano-of-millisecond
// parts, rounding the milliseconds down (so the nano part is never negative).
func Timestamp(v int64, unit pqschema.TimeUnitType) binrow.Timestamp {
	var per int64
	switch unit {
	case pqschema.TimeUnitMicros:
		per = 1000
	case pqschema.TimeUnitNanos:
		per = 1_000_000
	default:
		return binrow.Timestamp{Millis: v}
	}
	ms, rem := v/per, v%per
	if rem < 0 {
		ms--
		rem += per
	}
	return binrow.Timestamp{Millis: ms, NanoOfMilli: int32(rem * (1_000_000 / per))}
}

// Int96Timestamp decodes a legacy INT96 timestamp (nanoseconds of the day, then the Julian day,
// both little-endian).
func Int96Timestamp(v parquet.Int96) binrow.Timestamp {
	nanosOfDay := int64(binary.LittleEndian.Uint64(v[:8]))
	julian := int64(binary.LittleEndian.Uint32(v[8:]))
	return Timestamp((julian-2440588)*86_400_000_000_000+nanosOfDay, pqschema.TimeUnitNanos)
}

// FromTwosComplement decodes a big-endian two's complement integer (a Parquet decimal's
// unscaled value).
func FromTwosComplement(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}

// Guard runs fn and turns a panic of the Parquet decoder on corrupt input into an error.
func Guard(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("corrupt parquet data: %v", p)
		}
	}()
	return fn()
}

// OpenReader opens the Parquet file held by r (size bytes) with buffered column streams of
// 256 KiB, so that a column is streamed rather than loaded whole. A decoder panic on a corrupt
// footer is returned as an error.
func OpenReader(r io.ReaderAt, size int64) (*file.Reader, error) {
	return OpenReaderWith(r, size, memory.NewGoAllocator())
}

// OpenReaderWith is OpenReader with the readers' page and decompression buffers taken from mem
// (a BufferPool, to reuse them across files).
func OpenReaderWith(r io.ReaderAt, size int64, mem memory.Allocator) (*file.Reader, error) {
	return openReader(r, size, mem, false, columnReadAhead)
}

// OpenRowReader is OpenReaderWith for reading single rows (nil mem: the Go allocator): a
// PLAIN-encoded data page of over 1 MiB is decompressed only as far as the rows read from it, the
// rest of its bytes read and dropped undecoded when the reader leaves it (arrow-go's page
// streaming). Reading whole columns gains nothing from it. Its column readers buffer only
// rowReadAhead bytes of their own: r is expected to read ahead itself (search's page windows
// do), so that the many column chunks a row read opens do not each allocate a large buffer.
func OpenRowReader(r io.ReaderAt, size int64, mem memory.Allocator) (*file.Reader, error) {
	if mem == nil {
		mem = memory.NewGoAllocator()
	}
	return openReader(r, size, mem, true, rowReadAhead)
}

// columnReadAhead is the read-ahead of a column reader reading whole columns; rowReadAhead the
// one of a row reader's, the size of the page header arrow-go peeks at first.
const (
	columnReadAhead = 256 << 10
	rowReadAhead    = 16 << 10
)

func openReader(r io.ReaderAt, size int64, mem memory.Allocator, streamPages bool, readAhead int64) (*file.Reader, error) {
	props := parquet.NewReaderProperties(mem)
	props.BufferedStreamEnabled = true
	props.BufferSize = readAhead
	props.PageStreamingEnabled = streamPages
	var pf *file.Reader
	err := Guard(func() error {
		var err error
		pf, err = file.NewParquetReader(io.NewSectionReader(r, 0, size), file.WithReadProps(props))
		return err
	})
	return pf, err
}
