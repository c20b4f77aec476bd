package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
)

// casesAtCommit registers, for every implementation taking the writer and compactor roles (go's
// rows below), the cases of the compaction its writer runs at commit, as Java's writer does
// on tables that need lookup (deletion vectors): write/visible-at-commit/<variant> (go->java),
// write/lookup-dvs (go<->java), scenario/alternating-no-full (go+java) and
// scenario/sorted-and-full-text (java->go->java, go->java).
func casesAtCommit(ct *caseTable) {
	impls, runners := consumerRunners(ct)
	forProducers(impls, []Role{Writer, Compactor}, groupFixture(), groupFixture, func(p string, gf *fixture[*maintainGroup]) {
		for _, v := range visibleVariants() {
			ct.add(caseRow{Name: "write/visible-at-commit/" + v.name, Direction: as(p, "go->java"), Doc: docWriteVisibleAtCommitVariant,
				Sides: []caseSide{side(p, Writer, Compactor, Consumer), side("java", Consumer)},
				Uses:  []caseUse{serving(gf, writeCommands...), runnerOf(runners, p, "write", "search")},
				Run: func(ctx context.Context, ce *caseEnv) error {
					return visibleAtCommit(ctx, gf.in(ce), ce.runner(p), v)
				}})
		}
		ct.add(caseRow{Name: "write/lookup-dvs", Direction: as(p, "go<->java"), Doc: docWriteLookupDvs,
			Sides: []caseSide{side(p, Writer, Compactor, Consumer), side("java", Writer, Consumer)},
			Uses:  []caseUse{serving(gf, writeCommands...), runnerOf(runners, p, "write")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return lookupDVs(ctx, gf.in(ce), ce.runner(p))
			}})
		var noFull *consumerTable
		ct.add(caseRow{Name: "scenario/alternating-no-full", Direction: as(p, "go+java"), Doc: docScenarioAlternatingNoFull,
			Sides: []caseSide{side(p, Writer, Compactor, Consumer), side("java", Writer, Consumer)},
			Uses:  []caseUse{serving(gf, writeCommands...), runnerOf(runners, p, "write", "compact", "search")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				g := gf.in(ce)
				// Only the compactions the commits run; Go's own read checked too.
				path, err := alternating(ctx, g, ce.runner(p), alternatingScenario{name: "alternating-no-full", seeds: 77, minRows: 10, rowSeedBase: 3000}, alternatingRounds)
				if err != nil {
					return err
				}
				noFull, err = recordJavaAnswers(ctx, g, path, as(p, "go+java"), filepath.Base(path), maintainQueries())
				return err
			}})
		consumerCasesOf(ct, impls, runners, "scenario/alternating-no-full", as(p, "go+java"), "scenario/alternating-no-full/"+as(p, "go+java"), docScenarioConsumers, func() *consumerTable { return noFull })
		for _, codec := range javaCodecs {
			ct.add(caseRow{Name: "write/java-codec/" + codec, Direction: as(p, "java->go"), Doc: docWriteJavaCodecCodec,
				Sides: []caseSide{side("java", Writer), side(p, Consumer, Writer, Compactor)},
				Uses:  []caseUse{serving(gf, writeCommands...), runnerOf(runners, p, "write", "compact", "search")},
				Run: func(ctx context.Context, ce *caseEnv) error {
					return javaCodecTable(ctx, gf.in(ce), ce.runner(p), codec)
				}})
		}
		casesSortedScenario(ct, gf, impls, runners, p)
	})
}

// visibleVariant is one table shape of write/visible-at-commit.
type visibleVariant struct {
	name     string
	fields   []field
	pks      []string
	partKeys []string
	options  map[string]string
	rows     func(lo, hi int, seed uint64) []row
	fullText bool
}

func visibleVariants() []visibleVariant {
	part := []field{{"region", "STRING NOT NULL"}, {"dt", "DATE NOT NULL"}, {"id", "INT NOT NULL"}, {"content", "STRING"}}
	idText := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	dv := func(buckets string, fullText bool) map[string]string {
		o := map[string]string{"bucket": buckets, "deletion-vectors.enabled": "true"}
		if fullText {
			o[pkfulltext.ColumnsOption] = "content"
		}
		return o
	}
	return []visibleVariant{
		{"full-text-partitioned-3-buckets", part, []string{"region", "dt", "id"}, []string{"region", "dt"}, dv("3", true), partTextRows, true},
		{"full-text-1-bucket", idText, []string{"id"}, nil, dv("1", true), textRows, true},
		{"dv-partitioned-3-buckets", part, []string{"region", "dt", "id"}, []string{"region", "dt"}, dv("3", false), partTextRows, false},
		{"dv-1-bucket", idText, []string{"id"}, nil, dv("1", false), textRows, false},
	}
}

// visibleAtCommit is write/visible-at-commit: on a Java-created table with deletion vectors,
// rounds of Go writes (inserts, updates and deletes) with no pkft compact in between; after each
// one Java's batch read returns the model's rows, and on full-text tables Java's state shows
// every archive current and Java's searches equal Go's.
func visibleAtCommit(ctx context.Context, g *maintainGroup, goP *Process, v visibleVariant) error {
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "visible-"+v.name), "visible-"+v.name, v.fields, v.pks, v.partKeys, v.options, nil)
	if err != nil {
		return err
	}
	m := newRowModel(v.pks)
	next := 0
	for round := range 5 {
		r := rand.New(rand.NewPCG(uint64(round), 17))
		n := 15 + r.IntN(30)
		rows := v.rows(next, next+n, uint64(500+round))
		next += n
		if len(m.rows) > 0 {
			rows = append(rows, updatesAndDeletes(m, uint64(600+round), r.IntN(12), r.IntN(8))...)
		}
		if err := goWrite(ctx, goP, path, rows); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		m.apply(rows)
		if err := sameAsModel(ctx, g, path, m, v.fields); err != nil {
			return fmt.Errorf("round %d: straight after the Go write: %w", round, err)
		}
		if !v.fullText {
			continue
		}
		jd, err := javaDump(ctx, g.proc, path)
		if err != nil {
			return err
		}
		if err := allCurrent(jd); err != nil {
			return fmt.Errorf("round %d: Java's state: %w", round, err)
		}
	}
	if v.fullText {
		return g.sameSearchesVia(ctx, goP, path, maintainQueries(), []int{10})
	}
	return nil
}

// fileShapes lists, per bucket of a dump, its live data files as (level, row count, rows its
// deletion vector deletes), sorted: what two writers that made the same decisions leave.
func fileShapes(d *inspect.Dump) map[string][]string { return shapesOf(d, false) }

// shapesOf is fileShapes, with each file's source (APPEND when moved up, COMPACT when
// rewritten) when withSource.
func shapesOf(d *inspect.Dump, withSource bool) map[string][]string {
	out := map[string][]string{}
	for _, b := range d.Buckets {
		deleted := map[string]int64{}
		for _, f := range b.IndexFiles {
			for _, r := range f.DeletionVectors {
				if r.Cardinality != nil {
					deleted[r.DataFile] = *r.Cardinality
				}
			}
		}
		key := fmt.Sprintf("%v/%d", b.Partition, b.Bucket)
		for _, f := range b.DataFiles {
			shape := fmt.Sprintf("L%d rows=%d dv=%d", f.Level, f.RowCount, deleted[f.FileName])
			if withSource {
				shape += " " + f.FileSource
			}
			out[key] = append(out[key], shape)
		}
		slices.Sort(out[key])
	}
	return out
}

// copyTable copies the table directory src to dst.
func copyTable(src, dst string) error {
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return fmt.Errorf("copy table: %w", err)
	}
	return nil
}

// lookupDVs is write/lookup-dvs: one Java-written table with a compacted top level and a level
// below it is copied twice; the same write sequence is applied by Java's writer to one copy and by
// Go's to the other: after every write both copies hold the same file shapes (levels, row counts,
// deletion-vector cardinalities per file) and the model's rows. Then Java writes and fully
// compacts after Go, and Go writes after Java: both copies read the model's rows.
func lookupDVs(ctx context.Context, g *maintainGroup, goP *Process) error {
	fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	pks := []string{"id"}
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content"}
	base, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "lookup-dvs"), "lookup-dvs", fields, pks, nil, opts, nil)
	if err != nil {
		return err
	}
	m := newRowModel(pks)
	first := textRows(0, 120, 41)
	if err := g.proc.Call(ctx, "write", map[string]any{"path": base, "rows": first, "compact": "full"}, nil); err != nil {
		return err
	}
	m.apply(first)
	second := append(textRows(120, 160, 42), updatesAndDeletes(m, 43, 15, 5)...)
	if err := g.proc.Call(ctx, "write", map[string]any{"path": base, "rows": second}, nil); err != nil {
		return err
	}
	m.apply(second)
	javaCopy, goCopy := base+"-java", base+"-go"
	if err := copyTable(base, javaCopy); err != nil {
		return err
	}
	if err := copyTable(base, goCopy); err != nil {
		return err
	}
	next := 160
	// The case must exercise lookups: deletion vectors on files of a level the writes did not
	// rewrite, and files below the top level.
	var sawDV, sawLower bool
	for step := range 6 {
		r := rand.New(rand.NewPCG(uint64(step), 23))
		n := 5 + r.IntN(25)
		rows := append(textRows(next, next+n, uint64(700+step)), updatesAndDeletes(m, uint64(800+step), 3+r.IntN(12), r.IntN(6))...)
		next += n
		if err := g.proc.Call(ctx, "write", map[string]any{"path": javaCopy, "rows": rows}, nil); err != nil {
			return fmt.Errorf("step %d: java write: %w", step, err)
		}
		if err := goWrite(ctx, goP, goCopy, rows); err != nil {
			return fmt.Errorf("step %d: %w", step, err)
		}
		m.apply(rows)
		jd, err := javaDump(ctx, g.proc, javaCopy)
		if err != nil {
			return err
		}
		gd, err := javaDump(ctx, g.proc, goCopy)
		if err != nil {
			return err
		}
		shapes := fileShapes(jd)
		if d := cmp.Diff(shapes, fileShapes(gd)); d != "" {
			return fmt.Errorf("step %d: Java's writer and Go's leave other files (-java +go):\n%s", step, d)
		}
		for _, files := range shapes {
			for _, f := range files {
				sawDV = sawDV || !strings.HasSuffix(f, " dv=0")
				sawLower = sawLower || !strings.HasPrefix(f, "L5 ")
			}
		}
		for _, p := range []string{javaCopy, goCopy} {
			if err := sameAsModel(ctx, g, p, m, fields); err != nil {
				return fmt.Errorf("step %d: %s: %w", step, filepath.Base(p), err)
			}
		}
	}
	if !sawDV || !sawLower {
		return fmt.Errorf("the writes left no deletion vector (%v) or no file below the top level (%v): the case does not exercise lookup compaction", sawDV, sawLower)
	}
	// Each side continues the other's table.
	last := append(textRows(next, next+30, 900), updatesAndDeletes(m, 901, 10, 5)...)
	if err := g.proc.Call(ctx, "write", map[string]any{"path": goCopy, "rows": last, "compact": "full"}, nil); err != nil {
		return fmt.Errorf("java after go: %w", err)
	}
	if err := goWrite(ctx, goP, javaCopy, last); err != nil {
		return fmt.Errorf("go after java: %w", err)
	}
	m.apply(last)
	for _, p := range []string{javaCopy, goCopy} {
		if err := sameAsModel(ctx, g, p, m, fields); err != nil {
			return fmt.Errorf("%s after the other side: %w", filepath.Base(p), err)
		}
		if err := goReadsAsJava(ctx, g, goP, p); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(p), err)
		}
	}
	return nil
}

// goReadsAsJava checks Go's batch read of the table through its runner goP (the protocol's read:
// Table.Scan, rows rendered and sorted as the Java runner's) returns the rows Java's read does.
func goReadsAsJava(ctx context.Context, g *maintainGroup, goP *Process, path string) error {
	jrows, err := javaRead(ctx, g.proc, path)
	if err != nil {
		return err
	}
	grows, err := javaRead(ctx, goP, path)
	if err != nil {
		return fmt.Errorf("go read: %w", err)
	}
	if len(jrows) == 0 {
		return errors.New("Java reads no row: the comparison compares nothing")
	}
	if d := cmp.Diff(jrows, grows); d != "" {
		return fmt.Errorf("Go's read differs from Java's (-java +go):\n%s", d)
	}
	return nil
}

// jsonScalar puts a JSON-decoded or Go value into one comparable form: numbers as their
// integer text when integral.
func jsonScalar(v any) any {
	switch x := v.(type) {
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
	case int32:
		return int64(x)
	case int64:
		return x
	}
	return v
}

// docWriteVisibleAtCommitVariant describes write/visible-at-commit/<variant>.
const docWriteVisibleAtCommitVariant = "on Java-created deletion-vector tables with and without full-text, partitioned and not, 1 " +
	"and 3 buckets, five Go writes of inserts, updates and deletes with no `pkft compact`: " +
	"after each commit Java's batch read returns exactly the model's rows, and on full-text " +
	"tables Java's state shows every archive current and Java's searches equal Go's."

// docWriteLookupDvs describes write/lookup-dvs.
const docWriteLookupDvs = "a Java-written table with a compacted top level and a level below it, copied twice; six " +
	"write steps applied by Java's writer to one copy and by Go's to the other: after every " +
	"step both hold the same file shapes (level, rows, deletion-vector cardinality per file) " +
	"and the model's rows (the case fails if no step left a deletion vector or a file below the" +
	" top level); then Java writes and fully compacts after Go and Go writes after Java, and " +
	"both read the model's rows, Go's read as Java's."

// docScenarioAlternatingNoFull describes scenario/alternating-no-full.
const docScenarioAlternatingNoFull = "20 rounds alternating Go and Java writes with only the compactions their commits run: " +
	"after every round Java's read and Go's own read equal the model and every archive is " +
	"current by Java's and Go's state; then Java's searches equal Go's."

// docWriteJavaCodecCodec describes write/java-codec/<codec>.
const docWriteJavaCodecCodec = "for every `file.compression` the registry honours (lz4, snappy, gzip, zstd, none) Java " +
	"writes a full-text table in three commits; Go reads it as Java does, writes to it and " +
	"compacts it (reading Java's files); Java reads the model's rows and searches as Go. Java's" +
	" `lz4` is Hadoop's `Lz4Codec` framing (Parquet's deprecated LZ4 codec), which arrow-go " +
	"leaves unimplemented: `internal/pqlz4` registers a reader for it (found by " +
	"`table/differential` seed 39, where Go's search of a Java-written lz4 table failed)."
