// Package bench measures pkft against Java Paimon and against the archive engine's own limit, on
// the same generated tables in one run (make bench): archive builds of one level, bucket restore
// decisions (state and plan) at growing numbers of files, table maintenance with one and two
// workers, and the memory of a large build. The measurement itself is TestBench; this package
// holds the table generator and the report (ratio table, JSON, PNG chart).
package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is everything one make bench run measured.
type Report struct {
	// Started is when the run began; Quick is set for the reduced sizes (PKFT_BENCH_QUICK=1).
	Started time.Time `json:"started"`
	Quick   bool      `json:"quick"`
	// CPUs is runtime.NumCPU of the measuring process.
	CPUs int `json:"cpus"`
	// JavaRunner names the Java full-text indexer the runner carries.
	JavaRunner string `json:"javaRunner,omitempty"`
	// Busy is how many busy processes the contended mode ran (0: it did not run).
	Busy int `json:"busyProcesses,omitempty"`

	Builds   []BuildResult   `json:"builds"`
	States   []StateResult   `json:"states"`
	Maintain *MaintainResult `json:"maintain,omitempty"`
	Memory   *MemoryResult   `json:"memory,omitempty"`
	Writes   []WriteResult   `json:"writes,omitempty"`
	// WritesContended are the write and compaction measured again with Busy busy processes.
	WritesContended []WriteResult   `json:"writesContended,omitempty"`
	Shards          []ShardResult   `json:"shards,omitempty"`
	Searches        []SearchResult  `json:"searches,omitempty"`
	Backfill        *BackfillResult `json:"backfill,omitempty"`
	Batches         []BatchResult   `json:"batches,omitempty"`
	Sidecars        []SidecarResult `json:"sidecars,omitempty"`
	// Notes are findings printed under the table.
	Notes []string `json:"notes,omitempty"`
}

// BuildResult is one archive build of a level: the engine fed from memory, Go's build from the
// level's Parquet files and Java's PkFullTextIndexFile build of the same files. Times are the
// best of the timed runs.
type BuildResult struct {
	Rows      int     `json:"rows"`
	Analyzer  string  `json:"analyzer"`
	TextBytes int64   `json:"textBytes"`
	Engine    float64 `json:"engineSeconds"`
	Go        float64 `json:"goSeconds"`
	Java      float64 `json:"javaSeconds"`
	// GoRSS and JavaRSS are the peak RSS of each process during its timed builds (bytes; 0 when
	// not measured). GoHeap is the peak Go heap during Go's builds.
	GoRSS   int64 `json:"goPeakRssBytes,omitempty"`
	JavaRSS int64 `json:"javaPeakRssBytes,omitempty"`
	GoHeap  int64 `json:"goPeakHeapBytes,omitempty"`
	Runs    int   `json:"runs"`
}

// GoVsJava is Java's build time over Go's: above 1, Go is faster.
func (b BuildResult) GoVsJava() float64 { return ratio(b.Java, b.Go) }

// GoVsEngine is Go's rate as a fraction of the engine's own (engine time over Go time).
func (b BuildResult) GoVsEngine() float64 { return ratio(b.Engine, b.Go) }

// StateResult is one bucket restore decision (state + plan) over Files active data files and
// Payloads archives, per operation: wall time, and the CPU time of the whole process (every
// thread, the garbage collector's included), which a shared machine disturbs less.
type StateResult struct {
	Files    int     `json:"files"`
	Payloads int     `json:"payloads"`
	Go       float64 `json:"goSeconds"`
	Java     float64 `json:"javaSeconds"`
	GoCPU    float64 `json:"goCpuSeconds"`
	JavaCPU  float64 `json:"javaCpuSeconds"`
}

// MaintainResult is the maintenance of a table of Buckets buckets and Rows rows (one level each,
// no archive yet): Go's Maintain with one and two workers, and Java's batch writer committing
// what its full-text maintainers build (the runner's minor-compact).
type MaintainResult struct {
	Rows     int     `json:"rows"`
	Buckets  int     `json:"buckets"`
	Go1      float64 `json:"go1WorkerSeconds"`
	Go2      float64 `json:"go2WorkersSeconds"`
	Java     float64 `json:"javaSeconds"`
	Archives int     `json:"archives"`
}

// SearchResult is one query class at one limit on the search table (Rows rows, Buckets buckets,
// one archive per level, after a commit of deletes; see measureSearch): the median and p99
// latency (seconds) of its queries' timed runs, one query at a time, Go's search and Paimon's
// full-text read path (rows read included on both sides); the throughput of all queries with
// 4 at once (queries/s, the same for every class); Go's bytes read per query of the class
// (through the FileIO) and the hits per query. Go's search opens every archive per search, as
// Paimon's read path does; the GoKept figures are the same handle keeping its archives open
// between searches (pkft.KeepArchivesOpen).
type SearchResult struct {
	Class   string `json:"class"`
	Limit   int    `json:"limit"`
	Rows    int    `json:"rows"`
	Buckets int    `json:"buckets"`
	Queries int    `json:"queries"`
	Hits    int    `json:"hits"`
	SearchFigures
	GoBytesRead int64 `json:"goBytesReadPerQuery"`
	// Contended are the same figures measured with Report.Busy busy processes running (the
	// contended mode; nil when it did not run), Go and Java in alternating rounds.
	Contended *SearchFigures `json:"contended,omitempty"`
}

// SearchFigures are one load's latencies (seconds) and throughputs (queries/s) of a search class.
type SearchFigures struct {
	GoMedian   float64 `json:"goMedianSeconds"`
	GoP99      float64 `json:"goP99Seconds"`
	JavaMedian float64 `json:"javaMedianSeconds"`
	JavaP99    float64 `json:"javaP99Seconds"`
	GoQPS      float64 `json:"goQueriesPerSecond"`
	// GoKeptMedian, GoKeptP99 and GoKeptQPS: Go with its archives kept open.
	GoKeptMedian float64 `json:"goKeptMedianSeconds"`
	GoKeptP99    float64 `json:"goKeptP99Seconds"`
	GoKeptQPS    float64 `json:"goKeptQueriesPerSecond"`
	JavaQPS      float64 `json:"javaQueriesPerSecond"`
}

// ShardResult is the maintenance of one copy of a 64-bucket table (one level without an archive
// per bucket) by Shards concurrent workers, each maintaining its shard of the buckets
// (pkft.WithShard) with one worker and committing on its own: the wall time until the last one
// committed, the commits, the conflicts their commits met and the publication retries.
type ShardResult struct {
	Shards    int     `json:"shards"`
	Seconds   float64 `json:"seconds"`
	Archives  int     `json:"archives"`
	Commits   int     `json:"commits"`
	Conflicts int     `json:"conflicts"`
	Retries   int     `json:"retries"`
}

// MemoryResult is the memory of Go's build of the largest level.
type MemoryResult struct {
	Rows     int   `json:"rows"`
	PeakRSS  int64 `json:"peakRssBytes"`
	PeakHeap int64 `json:"peakGoHeapBytes"`
	JavaRSS  int64 `json:"javaPeakRssBytes"`
}

// WriteResult is one table's write and full compaction, Go's and Java's on the same rows: the
// first write of Rows rows into Buckets buckets with its commit (which waits for the compaction
// at commit of the deletion-vector table), and after a second write updating every other key,
// the full compaction of every bucket (CompactRecords records merged). Times in seconds. Each
// first write runs in a fresh process of its own (a child of the bench for Go, a new JVM for
// Java): GoRSS and JavaRSS are those processes' peak RSS (bytes), the runtime's own memory
// included.
type WriteResult struct {
	Variant         string  `json:"variant"`
	Rows            int     `json:"rows"`
	Buckets         int     `json:"buckets"`
	WriteBufferSize int64   `json:"writeBufferSizeBytes"`
	Allowance       int64   `json:"rssAllowanceBytes"`
	GoWrite         float64 `json:"goWriteSeconds"`
	JavaWrite       float64 `json:"javaWriteSeconds"`
	GoRSS           int64   `json:"goWriteRssBytes"`
	JavaRSS         int64   `json:"javaWriteRssBytes"`
	// ArrowWrite and ArrowRSS are Go's write of the same rows through WriteRecord (record
	// batches of 8,192 rows) into another table; GoCommit and JavaCommit the commits' share of
	// GoWrite and JavaWrite.
	ArrowWrite float64 `json:"goArrowWriteSeconds"`
	ArrowRSS   int64   `json:"goArrowWriteRssBytes"`
	GoCommit   float64 `json:"goCommitSeconds"`
	// LimitedWrite and LimitedRSS are Go's write of the same rows with GOMEMLIMIT at RSSBound.
	LimitedWrite   float64 `json:"goLimitedWriteSeconds"`
	LimitedRSS     int64   `json:"goLimitedWriteRssBytes"`
	JavaCommit     float64 `json:"javaCommitSeconds"`
	CompactRecords int     `json:"compactRecords"`
	GoCompact      float64 `json:"goCompactSeconds"`
	JavaCompact    float64 `json:"javaCompactSeconds"`
	// Compactions are the full compactions, each of a fresh copy of the table as the second write
	// left it, Java's and Go's in turn (compactRuns of them); GoCompact and JavaCompact are the
	// first.
	Compactions []CompactRun `json:"compactions,omitempty"`
}

// compactRuns is how many full compactions the write section measures on each side.
const compactRuns = 3

// CompactRun is one full compaction on each side, in seconds.
type CompactRun struct {
	Go   float64 `json:"goSeconds"`
	Java float64 `json:"javaSeconds"`
}

// compactRunsText renders the runs' Go/Java rate ratios, "1.31x 1.28x 1.40x".
func compactRunsText(runs []CompactRun) string {
	var parts []string
	for _, c := range runs {
		parts = append(parts, fmt.Sprintf("%.2fx", ratio(c.Java, c.Go)))
	}
	return strings.Join(parts, " ")
}

// BackfillResult is one run of the backfill measurement: the table's live data bytes and those of
// its moved-up files, then for each compaction the bytes of the data files and index files it
// wrote, its wall time, and the rows left uncovered after it.
type BackfillResult struct {
	Rows            int     `json:"rows"`
	Buckets         int     `json:"buckets"`
	UncoveredRows   int64   `json:"uncoveredRows"`
	UncoveredBytes  int64   `json:"uncoveredDataBytes"`
	TableBytes      int64   `json:"tableDataBytes"`
	UncoveredData   int64   `json:"uncoveredStrategyDataBytes"`
	UncoveredIndex  int64   `json:"uncoveredStrategyIndexBytes"`
	UncoveredTime   float64 `json:"uncoveredStrategySeconds"`
	UncoveredSearch int     `json:"uncoveredStrategyUncoveredAfter"`
	FullData        int64   `json:"fullRewriteDataBytes"`
	FullIndex       int64   `json:"fullRewriteIndexBytes"`
	FullTime        float64 `json:"fullRewriteSeconds"`
	FullSearch      int     `json:"fullRewriteUncoveredAfter"`
}

// BatchResult is one series of small batches into a much-written table: Batches batches of
// BatchRows rows (Fraction of the table's rows; inserts, updates and deletes) written and
// committed one after another, each through a writer of its own, into a full-text
// deletion-vector table of TableRows rows in Buckets buckets that Go's and Java's writers filled
// in turn over FillCommits commits (LevelFiles: its data files per level after the fill). Go and
// Java each write the same batches into a copy of their own, in one process each (a child of the
// bench, a fresh JVM); GoRSS and JavaRSS are those processes' peak RSS over both series.
type BatchResult struct {
	Fraction    float64   `json:"fraction"`
	BatchRows   int       `json:"batchRows"`
	Batches     int       `json:"batches"`
	TableRows   int       `json:"tableRows"`
	Buckets     int       `json:"buckets"`
	FillCommits int       `json:"fillCommits"`
	LevelFiles  string    `json:"levelFiles"`
	Go          BatchSide `json:"go"`
	Java        BatchSide `json:"java"`
	GoRSS       int64     `json:"goPeakRssBytes"`
	JavaRSS     int64     `json:"javaPeakRssBytes"`
}

// BatchSide is one side's figures of a series: rows over the time of the writes and commits,
// the p50 and p99 of the commit calls (seconds), and per commit: the process's CPU time
// (seconds), its reads as /proc/self/io counts them (Rchar: bytes through read calls, page
// cache included; ReadBytes: bytes fetched from the storage device), and for Go the data files
// opened and the bytes read through its FileIO (counted by internal/testing/countio; Java's
// FileIO is not counted, so its Opens and FileIOBytes are 0).
type BatchSide struct {
	Rows          int64   `json:"rows"`
	RowsPerSecond float64 `json:"rowsPerSecond"`
	CommitP50     float64 `json:"commitP50Seconds"`
	CommitP99     float64 `json:"commitP99Seconds"`
	CPU           float64 `json:"cpuSecondsPerCommit"`
	Rchar         int64   `json:"rcharPerCommit"`
	ReadBytes     int64   `json:"readBytesPerCommit"`
	Opens         float64 `json:"dataFileOpensPerCommit"`
	FileIOBytes   int64   `json:"fileIOBytesPerCommit"`
}

// SidecarResult is the idle cost and catch-up of Go's watcher (pkft.Table.Watch, what pkft
// maintain --watch runs) on a full-text deletion-vector table of Buckets buckets and Rows rows,
// in the bench process, polling every PollInterval seconds: per idle poll (a poll that finds no
// new snapshot; the mean over Polls of them) the process's CPU time, the bytes read and the files
// opened through its FileIO; then a Java commit of CommitRows rows and the time from the end of
// that commit until the watcher's round made the archives current (CatchUp), the round's own
// time (Round, from the timer that started it to its end) and the archives it built. FirstRound
// is the round that built every bucket's archive at the start (the table is the generator's:
// one level-1 data file per bucket, no archive).
type SidecarResult struct {
	Buckets      int     `json:"buckets"`
	Rows         int     `json:"rows"`
	PollInterval float64 `json:"pollIntervalSeconds"`
	Polls        int     `json:"idlePolls"`
	CPUPerPoll   float64 `json:"cpuSecondsPerIdlePoll"`
	BytesPerPoll float64 `json:"bytesReadPerIdlePoll"`
	OpensPerPoll float64 `json:"filesOpenedPerIdlePoll"`
	FirstRound   float64 `json:"firstRoundSeconds"`
	CommitRows   int     `json:"commitRows"`
	CatchUp      float64 `json:"catchUpSeconds"`
	Round        float64 `json:"catchUpRoundSeconds"`
	Built        int     `json:"catchUpArchivesBuilt"`
	// Uncovered are the rows no current archive covers after the catch-up round (rows Java's
	// compaction at commit moved up without rewriting them, which no maintainer indexes).
	Uncovered int64 `json:"uncoveredRowsAfterCatchUp"`
}

// RSSBound is the bound Go's write RSS is held to: 1.2x write-buffer-size plus the allowance.
func (w WriteResult) RSSBound() int64 { return w.WriteBufferSize*6/5 + w.Allowance }

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// Table renders the report as the ratio tables make bench prints and docs/performance.md shows.
func (r *Report) Table() string {
	var sb strings.Builder
	w := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', tabwriter.AlignRight)
	if len(r.Builds) > 0 {
		fmt.Fprintln(&sb, "Archive build of one level (best of runs; rates in rows/s):")
		fmt.Fprintln(w, "rows\tanalyzer\tengine\tGo\tJava\tGo/engine\tGo/Java\tGo RSS\tJava RSS\t")
		for _, b := range r.Builds {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%.2fx\t%.2fx\t%s\t%s\t\n", count(b.Rows), b.Analyzer,
				rate(b.Rows, b.Engine), rate(b.Rows, b.Go), rate(b.Rows, b.Java), b.GoVsEngine(), b.GoVsJava(),
				size(b.GoRSS), size(b.JavaRSS))
		}
		w.Flush()
		fmt.Fprintln(&sb)
	}
	if len(r.States) > 0 {
		fmt.Fprintln(&sb, "Bucket restore decision (state + plan), per bucket; CPU is the process's CPU time:")
		fmt.Fprintln(w, "files\tpayloads\tGo\tJava\tGo CPU\tJava CPU\tJava/Go CPU\tGo growth\tJava growth\t")
		for i, s := range r.States {
			gg, jg := "", ""
			if i > 0 {
				prev := r.States[i-1]
				gg = fmt.Sprintf("%.1fx", ratio(s.GoCPU, prev.GoCPU))
				jg = fmt.Sprintf("%.1fx", ratio(s.JavaCPU, prev.JavaCPU))
			}
			fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t%s\t%.1fx\t%s\t%s\t\n", count(s.Files), s.Payloads, dur(s.Go), dur(s.Java),
				dur(s.GoCPU), dur(s.JavaCPU), ratio(s.JavaCPU, s.GoCPU), gg, jg)
		}
		w.Flush()
		fmt.Fprintln(&sb)
	}
	if m := r.Maintain; m != nil {
		fmt.Fprintf(&sb, "Table maintenance, %d buckets, %s rows, %d archives built:\n", m.Buckets, count(m.Rows), m.Archives)
		fmt.Fprintln(w, "Go 1 worker\tGo 2 workers\tJava\t2 vs 1 worker\tJava/Go(2)\t")
		fmt.Fprintf(w, "%s\t%s\t%s\t%.2fx\t%.2fx\t\n", dur(m.Go1), dur(m.Go2), dur(m.Java), ratio(m.Go1, m.Go2), ratio(m.Java, m.Go2))
		w.Flush()
		fmt.Fprintln(&sb)
	}
	if len(r.Searches) > 0 {
		s0 := r.Searches[0]
		fmt.Fprintf(&sb, "Search, %d buckets, %s rows (latency one query at a time; QPS with 4 at once: Go %.0f, Go with archives kept open %.0f, Java %.0f):\n",
			s0.Buckets, count(s0.Rows), s0.GoQPS, s0.GoKeptQPS, s0.JavaQPS)
		fmt.Fprintln(w, "class\tlimit\thits/query\tGo median\tGo p99\tGo kept median\tGo kept p99\tJava median\tJava p99\tGo/Java median\tGo kept/Java\tGo bytes/query\t")
		for _, x := range r.Searches {
			fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.2fx\t%.2fx\t%s\t\n", x.Class, x.Limit, x.Hits/max(x.Queries, 1),
				dur(x.GoMedian), dur(x.GoP99), dur(x.GoKeptMedian), dur(x.GoKeptP99), dur(x.JavaMedian), dur(x.JavaP99),
				ratio(x.GoMedian, x.JavaMedian), ratio(x.GoKeptMedian, x.JavaMedian), size(x.GoBytesRead))
		}
		w.Flush()
		fmt.Fprintln(&sb)
		if c := s0.Contended; c != nil {
			fmt.Fprintf(&sb, "Search, quiet and with %d busy processes (same priority, started by the bench; Go and Java in alternating rounds); QPS with 4 at once, busy: Go %.0f, Go kept %.0f, Java %.0f:\n",
				r.Busy, c.GoQPS, c.GoKeptQPS, c.JavaQPS)
			fmt.Fprintln(w, "class\tlimit\tquiet Go\tquiet Java\tquiet Go/Java\tbusy Go\tbusy Go p99\tbusy Go kept\tbusy Java\tbusy Java p99\tbusy Go/Java\tbusy Go kept/Java\t")
			for _, x := range r.Searches {
				c := x.Contended
				if c == nil {
					continue
				}
				fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%.2fx\t%s\t%s\t%s\t%s\t%s\t%.2fx\t%.2fx\t\n", x.Class, x.Limit,
					dur(x.GoMedian), dur(x.JavaMedian), ratio(x.GoMedian, x.JavaMedian),
					dur(c.GoMedian), dur(c.GoP99), dur(c.GoKeptMedian), dur(c.JavaMedian), dur(c.JavaP99),
					ratio(c.GoMedian, c.JavaMedian), ratio(c.GoKeptMedian, c.JavaMedian))
			}
			w.Flush()
			fmt.Fprintln(&sb)
		}
	}
	if len(r.Shards) > 0 {
		fmt.Fprintf(&sb, "Sharded maintenance of %d buckets (n concurrent workers, one bucket at a time each, one commit each):\n", r.Shards[0].Archives)
		fmt.Fprintln(w, "shards\twall\tspeed-up\tcommits\tconflicts\tretries\t")
		for _, x := range r.Shards {
			fmt.Fprintf(w, "%d\t%s\t%.2fx\t%d\t%d\t%d\t\n", x.Shards, dur(x.Seconds), ratio(r.Shards[0].Seconds, x.Seconds), x.Commits, x.Conflicts, x.Retries)
		}
		w.Flush()
		fmt.Fprintln(&sb)
	}
	if len(r.Writes) > 0 {
		fmt.Fprintln(&sb, "Write (one commit, with the compaction at commit; peak RSS of a fresh writer process) and full compaction, the same rows on each side:")
		writeTable(&sb, w, r.Writes)
	}
	if len(r.WritesContended) > 0 {
		fmt.Fprintf(&sb, "The same with %d busy processes (same priority, started by the bench):\n", r.Busy)
		writeTable(&sb, w, r.WritesContended)
	}
	if b := r.Backfill; b != nil {
		fmt.Fprintf(&sb, "Index backfill, %d buckets, %s rows, %s of them (%s of %s data) uncovered (moved up unchanged):\n",
			b.Buckets, count(b.Rows), count(int(b.UncoveredRows)), bytesText(b.UncoveredBytes), bytesText(b.TableBytes))
		fmt.Fprintln(w, "compaction\tdata written\tindex written\ttime\trows uncovered after\t")
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t\n", "--strategy uncovered", bytesText(b.UncoveredData), bytesText(b.UncoveredIndex), dur(b.UncoveredTime), b.UncoveredSearch)
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t\n", "full, force-rewrite-all-files", bytesText(b.FullData), bytesText(b.FullIndex), dur(b.FullTime), b.FullSearch)
		w.Flush()
		fmt.Fprintf(&sb, "the uncovered strategy wrote %.1fx less data in %.1fx less time\n\n", ratio(float64(b.FullData), float64(b.UncoveredData)), ratio(b.FullTime, b.UncoveredTime))
	}
	if len(r.Batches) > 0 {
		b0 := r.Batches[0]
		fmt.Fprintf(&sb, "Small batches into a much-written table (%s rows, %d buckets, filled by Go and Java in turn over %d commits; data files per level %s), each batch one writer and one commit; peak RSS Go %s, Java %s:\n",
			count(b0.TableRows), b0.Buckets, b0.FillCommits, b0.LevelFiles, size(b0.GoRSS), size(b0.JavaRSS))
		fmt.Fprintln(w, "batch\tbatches\tGo rows/s\tJava rows/s\tGo/Java\tGo commit p50\tp99\tJava commit p50\tp99\tGo CPU/commit\tJava CPU/commit\tGo opens/commit\tGo FileIO read/commit\tGo rchar/commit\tJava rchar/commit\tJava read_bytes/commit\t")
		for _, x := range r.Batches {
			fmt.Fprintf(w, "%s (%.1f%%)\t%d\t%.0f\t%.0f\t%.2fx\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s\t%s\t%s\t%s\t\n", count(x.BatchRows), x.Fraction*100, x.Batches,
				x.Go.RowsPerSecond, x.Java.RowsPerSecond, ratio(x.Go.RowsPerSecond, x.Java.RowsPerSecond),
				dur(x.Go.CommitP50), dur(x.Go.CommitP99), dur(x.Java.CommitP50), dur(x.Java.CommitP99), dur(x.Go.CPU), dur(x.Java.CPU),
				x.Go.Opens, bytesSize(x.Go.FileIOBytes), bytesSize(x.Go.Rchar), bytesSize(x.Java.Rchar), bytesSize(x.Java.ReadBytes))
		}
		w.Flush()
		fmt.Fprintln(&sb)
	}
	if len(r.Sidecars) > 0 {
		fmt.Fprintf(&sb, "Sidecar (Go's watcher, polling every %s): idle cost per poll that finds no new snapshot, and catch-up after a Java commit:\n", dur(r.Sidecars[0].PollInterval))
		fmt.Fprintln(w, "buckets\trows\tidle polls\tCPU/poll\tbytes read/poll\tfiles opened/poll\tfirst round\tcommit rows\tcatch-up\tits round\tarchives built\tuncovered rows\t")
		for _, x := range r.Sidecars {
			fmt.Fprintf(w, "%d\t%s\t%d\t%s\t%.0f B\t%.1f\t%s\t%d\t%s\t%s\t%d\t%d\t\n", x.Buckets, count(x.Rows), x.Polls, dur(x.CPUPerPoll), x.BytesPerPoll,
				x.OpensPerPoll, dur(x.FirstRound), x.CommitRows, dur(x.CatchUp), dur(x.Round), x.Built, x.Uncovered)
		}
		w.Flush()
		fmt.Fprintln(&sb)
	}
	if m := r.Memory; m != nil {
		fmt.Fprintf(&sb, "Memory of Go's %s-row build: peak RSS %s (Java %s), peak Go heap %s\n",
			count(m.Rows), size(m.PeakRSS), size(m.JavaRSS), size(m.PeakHeap))
	}
	for _, n := range r.Notes {
		fmt.Fprintln(&sb, "note: "+n)
	}
	return sb.String()
}

// writeTable renders write results as rows of w, flushed into sb.
func writeTable(sb *strings.Builder, w *tabwriter.Writer, writes []WriteResult) {
	fmt.Fprintln(w, "table\trows\tbuckets\twrite Go\tGo Arrow\tJava\tGo/Java\tArrow/Java\tGo RSS\tGo RSS (limit)\tArrow RSS\tJava RSS\tGo bound\tcompact Go\tcompact Java\tGo/Java\tcompactions Go/Java\t")
	for _, x := range writes {
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s\t%.2fx\t%.2fx\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2fx\t%s\t\n", x.Variant, count(x.Rows), x.Buckets,
			rate(x.Rows, x.GoWrite), rate(x.Rows, x.ArrowWrite), rate(x.Rows, x.JavaWrite), ratio(x.JavaWrite, x.GoWrite), ratio(x.JavaWrite, x.ArrowWrite),
			size(x.GoRSS), size(x.LimitedRSS), size(x.ArrowRSS), size(x.JavaRSS), size(x.RSSBound()),
			rate(x.CompactRecords, x.GoCompact), rate(x.CompactRecords, x.JavaCompact), ratio(x.JavaCompact, x.GoCompact), compactRunsText(x.Compactions))
	}
	w.Flush()
	fmt.Fprintln(sb)
}

// bytesSize renders a byte count, small ones exactly; "-" when not measured (negative).
func bytesSize(b int64) string {
	switch {
	case b < 0:
		return "-"
	case b < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func rate(rows int, seconds float64) string {
	if seconds <= 0 {
		return "-"
	}
	r := float64(rows) / seconds
	if r >= 1e6 {
		return fmt.Sprintf("%.2fM", r/1e6)
	}
	return fmt.Sprintf("%.0fk", r/1e3)
}

func dur(s float64) string {
	switch {
	case s <= 0:
		return "-"
	case s < 1e-3:
		return fmt.Sprintf("%.0fµs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.1fms", s*1e3)
	}
	return fmt.Sprintf("%.2fs", s)
}

func size(b int64) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

// FileBase is the name the report's files take: bench, or bench-quick for the small sizes, so
// that a quick run does not replace the full report.
func (r *Report) FileBase() string {
	if r.Quick {
		return "bench-quick"
	}
	return "bench"
}

// Write writes FileBase().json and FileBase().png into dir.
func (r *Report) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, r.FileBase()+".json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	if len(r.Builds) == 0 && len(r.States) == 0 && r.Maintain == nil {
		return nil // a run of the write section only has no chart panel
	}
	f, err := os.Create(filepath.Join(dir, r.FileBase()+".png"))
	if err != nil {
		return err
	}
	if err := r.Chart(f); err != nil {
		f.Close()
		return fmt.Errorf("draw chart: %w", err)
	}
	return f.Close()
}

// bytesText is b in KiB below one MiB, else in MiB with one decimal.
func bytesText(b int64) string {
	if b < 1<<20 {
		return fmt.Sprintf("%.0f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}
