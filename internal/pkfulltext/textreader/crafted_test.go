package textreader

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/paimon-pkft/pkft/internal/testing/paimonparquet"
)

// withFooter rewrites a Parquet file's footer (PAR1, data, footer, its length, PAR1) after edit
// changed the metadata: the data pages stay as they are.
func withFooter(t *testing.T, data []byte, edit func(*metadata.FileMetaData)) []byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	start := len(data) - 8 - n
	fm, err := metadata.NewFileMetaData(data[start:len(data)-8], nil)
	if err != nil {
		t.Fatal(err)
	}
	edit(fm)
	var buf bytes.Buffer
	buf.Write(data[:start])
	m, err := fm.WriteTo(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(m)))
	buf.WriteString("PAR1")
	return buf.Bytes()
}

// drainErr opens data declared with rows rows and reads them all, returning the first error
// (the read is bounded: a reader that stops making progress fails the test).
func drainErr(t *testing.T, data []byte, rows int64) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := Open(ctx, bytes.NewReader(data), int64(len(data)), spec("data-crafted.parquet", rows))
	if err != nil {
		return err
	}
	defer r.Close()
	for range rows {
		if _, err := r.Next(ctx); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatal("the reader made no progress")
			}
			return err
		}
	}
	return nil
}

// TestCraftedRowGroupCounts: row counts in the footer that the column chunks do not hold are
// errors naming the row group: counts summing past MaxInt64, and a row group claiming more rows
// than its text column chunk has (its chunk ends early).
func TestCraftedRowGroupCounts(t *testing.T) {
	const rows, perGroup = 300, 100
	data := bytesOf(t, paimonparquet.Options{RowGroupRows: perGroup, Dictionary: true}, rows, func(i int) ([]byte, bool) {
		return []byte(strings.Repeat("w", i%7+1)), false
	})
	if err := drainErr(t, data, rows); err != nil {
		t.Fatalf("the file as written: %v", err)
	}

	overflow := withFooter(t, data, func(fm *metadata.FileMetaData) {
		fm.RowGroups[0].NumRows = math.MaxInt64
		fm.RowGroups[1].NumRows = 1
	})
	if err := drainErr(t, overflow, rows); err == nil || !strings.Contains(err.Error(), "row group 1 has invalid row count 1") {
		t.Errorf("row counts summing past MaxInt64: %v, want row group 1 named invalid", err)
	}

	for _, rg := range []int{0, 1, 2} {
		long := withFooter(t, data, func(fm *metadata.FileMetaData) {
			fm.RowGroups[rg].NumRows += 5
		})
		err := drainErr(t, long, rows+5)
		want := "column chunk of row group " + string(rune('0'+rg)) + " ended with 5 of its rows undecoded"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("row group %d claiming 5 rows more than its chunk: %v, want %q", rg, err, want)
		}
	}
}

// TestCraftedCorruptPageNamesItsRowGroup: a text column chunk whose compressed page is corrupt
// fails the read with an error naming that chunk's row group.
func TestCraftedCorruptPageNamesItsRowGroup(t *testing.T) {
	const rows, perGroup = 300, 100
	data := bytesOf(t, paimonparquet.Options{RowGroupRows: perGroup, Dictionary: true, Compression: compress.Codecs.Snappy}, rows, func(i int) ([]byte, bool) {
		return []byte(strings.Repeat("w", i%7+1)), false
	})
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	fm, err := metadata.NewFileMetaData(data[len(data)-8-n:len(data)-8], nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rg := range []int{0, 1, 2} {
		var end int64 = -1
		for _, c := range fm.RowGroups[rg].Columns {
			if md := c.MetaData; slices.Equal(md.PathInSchema, []string{paimonparquet.DefaultTextName}) {
				start := md.DataPageOffset
				if md.DictionaryPageOffset != nil && *md.DictionaryPageOffset < start {
					start = *md.DictionaryPageOffset
				}
				end = start + md.TotalCompressedSize
			}
		}
		if end < 8 {
			t.Fatalf("row group %d: no text column chunk", rg)
		}
		corrupt := slices.Clone(data)
		for i := end - 6; i < end; i++ {
			corrupt[i] ^= 0xff
		}
		err := drainErr(t, corrupt, rows)
		want := fmt.Sprintf("row group %d", rg)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), fmt.Sprintf("row group %d", rg+1)) {
			t.Errorf("a corrupt page in row group %d: %v, want an error naming %s", rg, err, want)
		}
	}
}

// TestCraftedShortLengthsNamesItsRowGroup: a DELTA_LENGTH_BYTE_ARRAY page whose lengths header
// counts one value fewer than its definition levels have non-null rows decodes one value short
// without an error from the decoder; the read fails naming that page's row group.
func TestCraftedShortLengthsNamesItsRowGroup(t *testing.T) {
	const rows, perGroup = 300, 100
	data := bytesOf(t, paimonparquet.Options{RowGroupRows: perGroup, TextEncoding: parquet.Encodings.DeltaLengthByteArray}, rows, func(i int) ([]byte, bool) {
		return []byte(strings.Repeat("w", i%7+1)), false
	})
	if err := drainErr(t, data, rows); err != nil {
		t.Fatalf("the file as written: %v", err)
	}
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	fm, err := metadata.NewFileMetaData(data[len(data)-8-n:len(data)-8], nil)
	if err != nil {
		t.Fatal(err)
	}
	// The lengths' DELTA_BINARY_PACKED header: block size 128, 4 miniblocks, 100 values
	// (varints).
	lengths := []byte{0x80, 0x01, 0x04, 0x64}
	for _, rg := range []int{0, 1, 2} {
		var chunk []byte
		var at int64
		for _, c := range fm.RowGroups[rg].Columns {
			if md := c.MetaData; slices.Equal(md.PathInSchema, []string{paimonparquet.DefaultTextName}) {
				at = md.DataPageOffset
				chunk = data[at : at+md.TotalCompressedSize]
			}
		}
		i := bytes.Index(chunk, lengths)
		if i < 0 || bytes.Count(chunk, lengths) != 1 {
			t.Fatalf("row group %d: the text column's lengths header not found once in % x", rg, chunk[:min(len(chunk), 64)])
		}
		crafted := slices.Clone(data)
		crafted[at+int64(i)+3] = 0x63 // 99 values
		err := drainErr(t, crafted, rows)
		want := fmt.Sprintf("row group %d: 99 values for 100 non-null rows", rg)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("lengths of row group %d one short: %v, want %q", rg, err, want)
		}
	}
}
