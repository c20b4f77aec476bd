package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/compat/bench"
	"github.com/paimon-pkft/pkft/internal/fileio/s3io"
	"github.com/paimon-pkft/pkft/internal/openconfig"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/testing/testtables"
)

// s3RangeRows is the size of s3/range-reads' archive (PKFT_S3_RANGE_ROWS overrides it).
const s3RangeRows = 1_000_000

// s3RangeMarker is the word s3/range-reads appends to row i: one of rows/16 letter-only words,
// each in 16 consecutive rows, so a query for one is selective.
func s3RangeMarker(i int) string { return bench.MarkerWord(i / 16) }

// s3RangeQueries are the selective queries of s3/range-reads: one marker word, and either of two.
var s3RangeQueries = []struct {
	query string
	limit int
}{
	{s3RangeMarker(777_777), 10},
	{`{"boolean":{"should":[{"match":{"query":"` + s3RangeMarker(123_456) + `"}},{"match":{"query":"` + s3RangeMarker(4_096) + `"}}]}}`, 20},
}

// s3RangeReads is s3/range-reads (go): a one-bucket table of s3RangeRows rows with one archive
// (generated locally by compat/bench's table writer and maintained by Go) is uploaded to S3;
// each selective search through pkft's facade on the s3:// path must read less than 10% of the
// archive's bytes, as counted by the S3 FileIO (every byte its GETs received, read-ahead
// included).
func (g *maintainGroup) s3RangeReads(ctx context.Context, env *s3Env, goP *Process) error {
	rows := s3RangeRows
	if v := os.Getenv("PKFT_S3_RANGE_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("PKFT_S3_RANGE_ROWS=%q: want a positive row count", v)
		}
		rows = n
	}
	local := filepath.Join(g.dir, "range-reads")
	start := time.Now()
	if _, err := bench.WriteTable(ctx, local, bench.TableSpec{Rows: rows, Buckets: 1, FilesPerBucket: 1, Analyzer: bench.Analyzers[0], Marker: s3RangeMarker}); err != nil {
		return err
	}
	var res maintained
	if err := goP.Call(ctx, "maintain", map[string]any{"path": local}, &res); err != nil {
		return fmt.Errorf("go maintain: %w", err)
	}
	if res.committed() == 0 {
		return errors.New("Go built no archive on the generated table")
	}
	built := time.Since(start)
	path := "s3://" + s3Bucket + "/range/docs"
	if err := testtables.Upload(ctx, env.fs, local, path); err != nil {
		return err
	}
	var archiveBytes int64
	isArchive := map[string]bool{}
	for _, f := range res.Built {
		isArchive[f] = true
	}
	if len(isArchive) != 1 {
		return fmt.Errorf("Go built %d archives, want the one of the table's level", len(isArchive))
	}
	// The archive's size, from the file the runner wrote under the local table.
	if err := filepath.WalkDir(local, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isArchive[d.Name()] {
			return err
		}
		info, err := d.Info()
		if err == nil {
			archiveBytes += info.Size()
		}
		return err
	}); err != nil {
		return err
	}
	if archiveBytes == 0 {
		return fmt.Errorf("the archive %v Go built is not under %s", res.Built, local)
	}
	var mu sync.Mutex
	readOf := map[string]int64{}
	cfg := env.cfg
	cfg.ReadObserver = func(p string, n int64) {
		mu.Lock()
		readOf[p] += n
		mu.Unlock()
	}
	counted := s3io.New(cfg)
	tbl, err := pkft.Open(ctx, path, openconfig.WithFileIO(counted))
	if err != nil {
		return err
	}
	var notes []string
	for _, q := range s3RangeQueries {
		mu.Lock()
		clear(readOf)
		mu.Unlock()
		hits, err := tbl.Search(ctx, q.query, pkft.WithLimit(q.limit))
		if err != nil {
			return fmt.Errorf("search %s on S3: %w", q.query, err)
		}
		if len(hits.Hits) == 0 {
			return fmt.Errorf("search %s on S3 found nothing: the query no longer exercises the archive", q.query)
		}
		mu.Lock()
		var fromArchive, total int64
		for p, n := range readOf {
			total += n
			if isArchive[paths.Name(p)] {
				fromArchive += n
			}
		}
		mu.Unlock()
		if fromArchive == 0 {
			return fmt.Errorf("search %s read nothing of the archive: the count does not see its reads", q.query)
		}
		if fromArchive*10 >= archiveBytes {
			return fmt.Errorf("search %s read %d of the archive's %d bytes (%.1f%%), want under 10%%", q.query, fromArchive, archiveBytes, 100*float64(fromArchive)/float64(archiveBytes))
		}
		notes = append(notes, fmt.Sprintf("%s limit %d: %d hits, %d of %d archive bytes (%.2f%%), %d bytes in all",
			q.query, q.limit, len(hits.Hits), fromArchive, archiveBytes, 100*float64(fromArchive)/float64(archiveBytes), total))
	}
	report.AddNote(fmt.Sprintf("s3/range-reads: %d rows (table generated and maintained in %s); %s", rows, built.Round(time.Second), strings.Join(notes, "; ")))
	return nil
}
