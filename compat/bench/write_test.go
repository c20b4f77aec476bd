package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/compat/runner"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
)

// The write and compaction measurement: Go's writer and Java's on the same rows of a
// deletion-vector table of many buckets (both commits wait for the compaction at commit the table
// needs, Java's ForceUpLevel0Compaction), then a second write updating every other key, then a
// full compaction on each side. Both sides stream the rows from one file while they write (one
// row per line: id, a tab, the text; \N for a null text), so neither holds the rows in memory,
// and each first write runs in a fresh process whose peak RSS (VmHWM) is reported: a child of the
// bench for Go, a new JVM for Java (its peak reset after a warm-up write).

// writeBufferSize is the write-buffer-size of the measured tables: small enough that 1M rows
// of 64 buckets overflow it, so both writers spill (Java to its I/O manager, Go to its spill
// directory).
const writeBufferSize = 64 << 20

// rssAllowance is the fixed memory the RSS bound allows above 1.2x write-buffer-size, whatever
// the rows and buckets: the Go runtime, the engine library's and the binary's pages (about
// 35 MiB), the open Parquet writers of the flushes and of the compactions at commit (one per
// core) with their column buffers and arrow-go's zstd encoders (an 8 MiB history each, one per
// concurrent page compression: 16 MiB on 2 cores), the decoded lookups of the compactions at
// commit, and for the full-text table the engine's writer budget (50 MB, fixed by
// paimon-ftindex). It was 96 MiB until profiling found the zstd encoders (the components above
// add up to more than that).
const rssAllowance = 112 << 20

// writeVariants are the measured tables.
var writeVariants = []struct {
	name string
	opts map[string]string
}{
	{"dv", map[string]string{}},
	{"full-text-dv", map[string]string{pkfulltext.ColumnsOption: "content"}},
}

// rowsFile writes n corpus rows (ids first, first+step, ...) to path in the streamed form.
func rowsFile(path string, seed uint64, n, step int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i, r := range corpus.Generate(seed, n) {
		text := `\N`
		if !r.Null {
			text = strings.NewReplacer("\t", " ", "\n", " ").Replace(r.Text)
		}
		fmt.Fprintf(w, "%d\t%s\n", i*step, text)
	}
	return errors.Join(w.Flush(), f.Close())
}

// goWriteFile writes the rows of file into the table at path through pkft's Writer, streaming
// them from the file, and commits: row by row with Write([]any), or with arrow set as Arrow
// record batches of arrowBatchRows rows through WriteRecord.
func goWriteFile(ctx context.Context, path, file string, arrow bool) (write, commit time.Duration, rows int64, err error) {
	tbl, err := pkft.Open(ctx, path)
	if err != nil {
		return 0, 0, 0, err
	}
	w, err := tbl.NewWriter(ctx, pkft.WithCommitUser("pkft-bench"))
	if err != nil {
		return 0, 0, 0, err
	}
	f, err := os.Open(file)
	if err != nil {
		return 0, 0, 0, errors.Join(err, w.Abort(ctx))
	}
	defer f.Close()
	start := time.Now()
	var batch *arrowBatch
	if arrow {
		batch = newArrowBatch()
		defer batch.release()
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		id, text, _ := strings.Cut(sc.Text(), "\t")
		n, err := strconv.Atoi(id)
		if err != nil {
			return 0, 0, 0, errors.Join(err, w.Abort(ctx))
		}
		rows++
		if batch != nil {
			if err := batch.add(ctx, w, int32(n), text); err != nil {
				return 0, 0, 0, errors.Join(err, w.Abort(ctx))
			}
			continue
		}
		var v any = text
		if text == `\N` {
			v = nil
		}
		if err := w.Write(ctx, pkft.Insert, []any{int32(n), v}); err != nil {
			return 0, 0, 0, errors.Join(err, w.Abort(ctx))
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, 0, errors.Join(err, w.Abort(ctx))
	}
	if batch != nil {
		if err := batch.flush(ctx, w); err != nil {
			return 0, 0, 0, errors.Join(err, w.Abort(ctx))
		}
	}
	written := time.Now()
	if _, err := w.Commit(ctx); err != nil {
		return 0, 0, 0, err
	}
	return written.Sub(start), time.Since(written), rows, nil
}

// arrowBatchRows is the size of the record batches the Arrow write builds.
const arrowBatchRows = 8192

// arrowBatch builds record batches of {id, content} and writes each when full.
type arrowBatch struct {
	b *array.RecordBuilder
	n int
}

func newArrowBatch() *arrowBatch {
	return &arrowBatch{b: array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "content", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil))}
}

func (a *arrowBatch) add(ctx context.Context, w *pkft.Writer, id int32, text string) error {
	a.b.Field(0).(*array.Int32Builder).Append(id)
	if text == `\N` {
		a.b.Field(1).AppendNull()
	} else {
		a.b.Field(1).(*array.StringBuilder).Append(text)
	}
	if a.n++; a.n == arrowBatchRows {
		return a.flush(ctx, w)
	}
	return nil
}

func (a *arrowBatch) flush(ctx context.Context, w *pkft.Writer) error {
	if a.n == 0 {
		return nil
	}
	rec := a.b.NewRecordBatch()
	defer rec.Release()
	a.n = 0
	return w.WriteRecord(ctx, rec)
}

func (a *arrowBatch) release() { a.b.Release() }

// writeOut is the result of a measured first write (Java's bench-write, or the Go child's):
// the write calls' and the commit's time and the writer process's peak RSS.
type writeOut struct {
	Rows        int64 `json:"rows"`
	WriteNanos  int64 `json:"writeNanos"`
	CommitNanos int64 `json:"commitNanos"`
	Peak        int64 `json:"peakRssBytes"`
}

// javaWriteFresh starts a new JVM, warms its writer up with a write of warmFile into warm, and
// returns its bench-write of file into path (the JVM's peak RSS over it, from its RSS after the
// warm-up).
func javaWriteFresh(ctx context.Context, warm, warmFile, path, file string) (writeOut, error) {
	p, err := runner.StartJava(ctx, runner.WithOptimizingJIT())
	if err != nil {
		return writeOut{}, err
	}
	defer p.Close()
	if err := p.Call(ctx, "bench-write", map[string]any{"path": warm, "file": warmFile}, nil); err != nil {
		return writeOut{}, err
	}
	var out writeOut
	err = p.Call(ctx, "bench-write", map[string]any{"path": path, "file": file}, &out)
	return out, err
}

// childGoWrite runs the Go write of file into path (through WriteRecord with arrow set) in a
// child process of this test binary (TestMain runs it) and returns its result with the
// child's peak RSS.
// memLimit, when positive, is the child's GOMEMLIMIT (bytes).
func childGoWrite(ctx context.Context, path, file string, arrow bool, memLimit int64) (writeOut, error) {
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), "PKFT_BENCH_CHILD_TABLE="+path, "PKFT_BENCH_CHILD_FILE="+file, fmt.Sprintf("PKFT_BENCH_CHILD_ARROW=%t", arrow))
	if memLimit > 0 {
		cmd.Env = append(cmd.Env, fmt.Sprintf("GOMEMLIMIT=%d", memLimit))
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		return writeOut{}, fmt.Errorf("Go write child: %w\n%s%s", err, raw, stderr.String())
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, childPrefix); ok {
			var out writeOut
			return out, json.Unmarshal([]byte(v), &out)
		}
	}
	return writeOut{}, fmt.Errorf("Go write child printed no result:\n%s", raw)
}

// childPrefix starts the result line of the write child (TestMain).
const childPrefix = "pkft-bench-child: "

// TestMain runs the Go side of a measured first write when childGoWrite started this test binary
// as a child (PKFT_BENCH_CHILD_TABLE, PKFT_BENCH_CHILD_FILE): it writes, commits, prints the
// times and its peak RSS and exits; childGoBatches's child (PKFT_BENCH_CHILD_BATCHES,
// PKFT_BENCH_CHILD_FILES) likewise; a busy process of the contended mode (PKFT_BENCH_SPIN) spins
// until it is killed; otherwise it runs the tests.
func TestMain(m *testing.M) {
	if parent := os.Getenv(spinEnv); parent != "" {
		spinChild(parent)
	}
	if tablePath := os.Getenv("PKFT_BENCH_CHILD_BATCHES"); tablePath != "" {
		if err := benchBatchesChild(tablePath, strings.Split(os.Getenv("PKFT_BENCH_CHILD_FILES"), "\n")); err != nil {
			fmt.Fprintln(os.Stderr, "pkft bench batches child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	path, file := os.Getenv("PKFT_BENCH_CHILD_TABLE"), os.Getenv("PKFT_BENCH_CHILD_FILE")
	if path == "" || file == "" {
		os.Exit(m.Run())
	}
	if err := benchWriteChild(path, file, os.Getenv("PKFT_BENCH_CHILD_ARROW") == "true"); err != nil {
		fmt.Fprintln(os.Stderr, "pkft bench child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// benchWriteChild is the child's write of file into path and its result line.
func benchWriteChild(path, file string, arrow bool) error {
	w, c, n, err := goWriteFile(context.Background(), path, file, arrow)
	if err != nil {
		return err
	}
	peak, err := peakRSS()
	if err != nil {
		return err
	}
	b, err := json.Marshal(writeOut{Rows: n, WriteNanos: w.Nanoseconds(), CommitNanos: c.Nanoseconds(), Peak: peak})
	if err != nil {
		return err
	}
	fmt.Println(childPrefix + string(b))
	return nil
}

func measureWrite(t *testing.T, ctx context.Context, java *runner.Process, dir string, rows, buckets int) []WriteResult {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	first, update := filepath.Join(dir, "rows.tsv"), filepath.Join(dir, "updates.tsv")
	if err := rowsFile(first, 91, rows, 1); err != nil {
		t.Fatal(err)
	}
	// The second write updates every other key with other text.
	if err := rowsFile(update, 92, rows/2, 2); err != nil {
		t.Fatal(err)
	}
	create := func(path string, opts map[string]string) {
		all := map[string]string{
			"bucket":                   strconv.Itoa(buckets),
			"deletion-vectors.enabled": "true",
			"write-buffer-size":        fmt.Sprintf("%d mb", writeBufferSize>>20),
		}
		for k, v := range opts {
			all[k] = v
		}
		_, err := pkft.Create(ctx, path, pkft.TableDefinition{
			Columns:     []pkft.ColumnDefinition{{Name: "id", Type: "INT NOT NULL"}, {Name: "content", Type: "STRING"}},
			PrimaryKeys: []string{"id"},
			Options:     all,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Each fresh JVM warms its writer up on a table of its own first.
	warmRows := filepath.Join(dir, "warm.tsv")
	if err := rowsFile(warmRows, 90, min(rows, 50_000), 1); err != nil {
		t.Fatal(err)
	}
	freshJavaWrite := func(ctx context.Context, path, file string) (writeOut, error) {
		warm := path + "-warm"
		create(warm, writeVariants[1].opts)
		defer os.RemoveAll(warm)
		return javaWriteFresh(ctx, warm, warmRows, path, file)
	}
	// countRows fails the bench unless Java reads the table at p with every row written.
	countRows := func(p string) {
		t.Helper()
		var got struct {
			Rows int `json:"rows"`
		}
		if err := java.Call(ctx, "bench-count", map[string]any{"path": p}, &got); err != nil {
			t.Fatal(err)
		}
		if got.Rows != rows {
			t.Fatalf("%s: Java reads %d rows, want %d", filepath.Base(p), got.Rows, rows)
		}
	}
	var out []WriteResult
	for _, v := range writeVariants {
		res := WriteResult{Variant: v.name, Rows: rows, Buckets: buckets, WriteBufferSize: writeBufferSize, Allowance: rssAllowance}
		jp, gp := filepath.Join(dir, v.name+"-java"), filepath.Join(dir, v.name+"-go")
		create(jp, v.opts)
		create(gp, v.opts)

		// The first writes, each in a fresh process: a new JVM, and a child of this test binary.
		jw, err := freshJavaWrite(ctx, jp, first)
		if err != nil {
			t.Fatal(err)
		}
		if jw.Rows != int64(rows) {
			t.Fatalf("Java wrote %d rows, want %d", jw.Rows, rows)
		}
		res.JavaWrite, res.JavaRSS = float64(jw.WriteNanos+jw.CommitNanos)/1e9, jw.Peak
		gw, err := childGoWrite(ctx, gp, first, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		res.GoWrite, res.GoRSS = float64(gw.WriteNanos+gw.CommitNanos)/1e9, gw.Peak
		// The same write with the Go runtime's memory limit at the bound (GOMEMLIMIT, the Go
		// counterpart of a JVM's -Xmx), into a table of its own.
		lp := filepath.Join(dir, v.name+"-limited")
		create(lp, v.opts)
		lw, err := childGoWrite(ctx, lp, first, false, res.RSSBound())
		if err != nil {
			t.Fatal(err)
		}
		res.LimitedWrite, res.LimitedRSS = float64(lw.WriteNanos+lw.CommitNanos)/1e9, lw.Peak
		// The same rows through WriteRecord, into a table of their own.
		ap := filepath.Join(dir, v.name+"-arrow")
		create(ap, v.opts)
		aw, err := childGoWrite(ctx, ap, first, true, 0)
		if err != nil {
			t.Fatal(err)
		}
		res.ArrowWrite, res.ArrowRSS = float64(aw.WriteNanos+aw.CommitNanos)/1e9, aw.Peak
		res.GoCommit, res.JavaCommit = float64(gw.CommitNanos)/1e9, float64(jw.CommitNanos)/1e9
		if err := java.Call(ctx, "bench-write", map[string]any{"path": jp, "file": update}, nil); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := goWriteFile(ctx, gp, update, false); err != nil {
			t.Fatal(err)
		}
		// Three full compactions on each side, each of a copy of the table as the second write
		// left it, Java's and Go's in turn.
		for k := range compactRuns {
			jk, gk := fmt.Sprintf("%s-compact%d", jp, k), fmt.Sprintf("%s-compact%d", gp, k)
			for _, c := range [][2]string{{jp, jk}, {gp, gk}} {
				if err := os.CopyFS(c[1], os.DirFS(c[0])); err != nil {
					t.Fatal(err)
				}
			}
			var jc struct {
				Nanos int64 `json:"nanos"`
			}
			if err := java.Call(ctx, "bench-compact", map[string]any{"path": jk}, &jc); err != nil {
				t.Fatal(err)
			}
			tbl, err := pkft.Open(ctx, gk)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if _, err := tbl.Compact(ctx, pkft.WithCommitUser("pkft-bench")); err != nil {
				t.Fatal(err)
			}
			res.Compactions = append(res.Compactions, CompactRun{Go: time.Since(start).Seconds(), Java: float64(jc.Nanos) / 1e9})
			for _, p := range []string{jk, gk} {
				if k == compactRuns-1 {
					countRows(p) // the compacted tables hold the rows written
				}
				if err := os.RemoveAll(p); err != nil {
					t.Fatal(err)
				}
			}
		}
		res.GoCompact, res.JavaCompact = res.Compactions[0].Go, res.Compactions[0].Java
		res.CompactRecords = rows + rows/2
		// Both tables hold the same rows: Java counts the Go table's rows as its own.
		for _, p := range []string{jp, gp, lp, ap} {
			countRows(p)
		}
		t.Logf("write %s: Go %.2fs (commit %.2fs, peak RSS %s; with GOMEMLIMIT %.2fs, %s), Arrow %.2fs (peak RSS %s), Java %.2fs (commit %.2fs, peak RSS %s); compact Go/Java %s",
			v.name, res.GoWrite, res.GoCommit, size(res.GoRSS), res.LimitedWrite, size(res.LimitedRSS), res.ArrowWrite, size(res.ArrowRSS), res.JavaWrite, res.JavaCommit, size(res.JavaRSS), compactRunsText(res.Compactions))
		out = append(out, res)
		for _, p := range []string{jp, gp, lp, ap} {
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}
