package search_test

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/paimon-pkft/pkft/compat/bench"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/search"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// readLog is a FileIO that records the byte ranges read from each file opened for random access.
type readLog struct {
	fileio.FileIO
	mu     sync.Mutex
	ranges map[string][][2]int64
}

func (l *readLog) OpenReaderAt(ctx context.Context, path string) (fileio.ReadAtFile, error) {
	f, err := l.FileIO.OpenReaderAt(ctx, path)
	if err != nil {
		return nil, err
	}
	return &loggedFile{ReadAtFile: f, log: l, path: path}, nil
}

type loggedFile struct {
	fileio.ReadAtFile
	log  *readLog
	path string
}

func (f *loggedFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.ReadAtFile.ReadAt(p, off)
	if n > 0 {
		f.log.mu.Lock()
		f.log.ranges[f.path] = append(f.log.ranges[f.path], [2]int64{off, off + int64(n)})
		f.log.mu.Unlock()
	}
	return n, err
}

// pagesMarker marks one row in 1,000 of every data file with a word the corpus does not hold.
func pagesMarker(i int) string {
	if i%1000 == 7 {
		return "zqpagemarker"
	}
	return ""
}

// TestSearchReadsOnlyHitPages checks, through the FileIO, that a search over a table of 16
// buckets (data files of many small pages, with the page index parquet-java writes) reads no
// data page of a data file that holds no hit: the rows of the hits are read through the offset
// index, the pages in between are not.
func TestSearchReadsOnlyHitPages(t *testing.T) {
	lib := testenv.Native(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "pages")
	const buckets, rows = 16, 16 * 4000
	spec := bench.TableSpec{Rows: rows, Buckets: buckets, FilesPerBucket: 1, Analyzer: bench.Analyzers[0], Marker: pagesMarker, PageSize: 4 << 10, PageIndex: true}
	if _, err := bench.WriteTable(ctx, dir, spec); err != nil {
		t.Fatal(err)
	}
	engine := native.Engine{Lib: lib}
	if _, err := tableops.Maintain(ctx, table.Open(fileio.NewLocal(), dir), engine); err != nil {
		t.Fatal(err)
	}
	log := &readLog{FileIO: fileio.NewLocal(), ranges: map[string][][2]int64{}}
	resp, err := search.Search(ctx, table.Open(log, dir), search.Request{Query: "zqpagemarker", Limit: 1000}, search.Options{Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	want := 0 // the marked rows whose text is not null
	for b := range buckets {
		text := spec.FileTexts(b, 0)
		for i := range rows / buckets {
			if v, null := text(i); !null && strings.HasSuffix(string(v), " zqpagemarker") {
				want++
			}
		}
	}
	if len(resp.Results) != want || want == 0 {
		t.Fatalf("%d hits, want %d", len(resp.Results), want)
	}
	hits := map[string][]int64{} // data file name -> hit rows
	for _, r := range resp.Results {
		hits[r.DataFile] = append(hits[r.DataFile], r.RowPosition)
	}
	var dataFiles, pagesRead, pagesTotal int
	for path, ranges := range log.ranges {
		name := filepath.Base(path)
		if !strings.HasPrefix(name, "data-") {
			continue
		}
		dataFiles++
		rowsHit := hits[name]
		if len(rowsHit) == 0 {
			t.Errorf("%s holds no hit and was read", name)
			continue
		}
		pf, err := file.OpenParquetFile(path, false)
		if err != nil {
			t.Fatal(err)
		}
		pir := pf.GetPageIndexReader()
		for rg := 0; rg < pf.NumRowGroups(); rg++ {
			rgi, err := pir.RowGroup(rg)
			if err != nil || rgi == nil {
				t.Fatalf("%s: row group %d has no page index: %v", name, rg, err)
			}
			for col := 0; col < pf.MetaData().Schema.NumColumns(); col++ {
				oi, err := rgi.GetOffsetIndex(col)
				if err != nil || oi == nil {
					t.Fatalf("%s: column %d has no offset index: %v", name, col, err)
				}
				locs := oi.GetPageLocations()
				if chunk := pf.MetaData().RowGroups[rg].Columns[col].MetaData; chunk == nil ||
					!readsAny(ranges, chunk.DataPageOffset, chunk.DataPageOffset+chunk.TotalCompressedSize) {
					continue // a column the search does not read
				}
				for p, loc := range locs {
					pagesTotal++
					from, to := loc.Offset, loc.Offset+int64(loc.CompressedPageSize)
					firstRow, endRow := loc.FirstRowIndex, pf.MetaData().RowGroups[rg].GetNumRows()
					if p+1 < len(locs) {
						endRow = locs[p+1].FirstRowIndex
					}
					if !readsAny(ranges, from, to) {
						continue
					}
					pagesRead++
					if !holdsAny(rowsHit, firstRow, endRow) {
						t.Errorf("%s column %s: page %d (rows %d-%d, bytes %d-%d) holds no hit but was read", name,
							pf.MetaData().Schema.Column(col).Name(), p, firstRow, endRow-1, from, to)
					}
				}
			}
		}
		pf.Close()
	}
	if dataFiles != buckets {
		t.Errorf("%d data files read, want the %d holding hits", dataFiles, buckets)
	}
	if pagesRead == 0 || pagesTotal < 4*pagesRead {
		t.Errorf("%d of %d data pages of the columns read were read: the table does not have the many pages per hit the test needs", pagesRead, pagesTotal)
	}
	t.Logf("%d hits in %d data files: %d of the %d data pages of the columns read were read", len(resp.Results), dataFiles, pagesRead, pagesTotal)
}

func readsAny(ranges [][2]int64, from, to int64) bool {
	for _, r := range ranges {
		if r[0] < to && from < r[1] {
			return true
		}
	}
	return false
}

func holdsAny(rows []int64, from, to int64) bool {
	sort.Slice(rows, func(i, j int) bool { return rows[i] < rows[j] })
	i := sort.Search(len(rows), func(i int) bool { return rows[i] >= from })
	return i < len(rows) && rows[i] < to
}
