package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/manifest"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// maintainCommands are the runner commands the maintenance and search cases need.
var maintainCommands = []string{"create-table", "write", "compact", "read", "dump", "alter-table", "search"}

// maintainGroup is the state the maintenance and search cases share: one JVM, the native
// engine, and the tables, each built on first use.
type maintainGroup struct {
	proc     *Process
	startErr error
	engine   fulltext.Engine
	engErr   error
	dir      string
	// fio is the file system the group's tables live on; nil is the local one.
	fio fileio.FileIO

	tables map[string]*maintainTable
	// searchTables are the tables the search cases run on, in order.
	searchTables []*searchTable
}

// maintainTable is one Java-written table Go maintains.
type maintainTable struct {
	name string
	def  *corpusTable
	// builds reports whether Go's first maintenance must commit a snapshot (levels without an
	// archive); false when Java's archives are current already.
	builds bool
	// more are Java's steps of java-after-go: a write without compaction (Java's writer
	// maintains only the buckets it writes), then a full compaction.
	more []tableStep

	path string
	// goDone is set once go->java passed: the table holds Go's maintenance snapshot.
	goDone bool
	// goArchives are the full-text archives of the table after Go's maintenance, by bucket.
	goArchives map[string][]archiveAt
}

// archiveAt is one current archive of a bucket: its name, level and sources.
type archiveAt struct {
	name    string
	level   string
	sources []string
}

// searchTable is one table the search cases run on, set up by the maintenance cases.
type searchTable struct {
	name string
	path string
	err  error
}

// casesMaintain registers table/maintain/<table> (go->java, java-after-go), table/maintain-shape
// (go<->java), table/concurrent-commit (java+go) and search/<table> (go<->java) with one JVM.
func casesMaintain(ct *caseTable) {
	corpus := maintainCorpus()
	gf := maintainFixture(corpus)
	impls, runners := consumerRunners(ct)
	// Every implementation taking the maintainer role gets table/maintain/<table> and
	// table/maintain-shape (and, below, table/concurrent-commit/duplicate-archives) on tables of its
	// own; go shares its group with the cases after them.
	groups := map[string]*fixture[*maintainGroup]{}
	for _, p := range producerImpls(impls, Maintainer) {
		pc, pf := corpus, gf
		if p != GoName {
			pc = maintainCorpus()
			pf = maintainFixture(pc)
		}
		groups[p] = pf
		casesMaintainBy(ct, pf, pc, runners, p)
	}
	concurrent := []caseSide{side("java", Writer, Compactor), side("go", Maintainer)}
	// write, compact, write-no-retry and compact-replans run Go in-process: they hold Go's commit
	// between prepare and publish (a hook injected into Go itself), which no runner command does.
	for _, v := range []string{"write", "compact", "write-no-retry"} {
		ct.add(caseRow{Name: "table/concurrent-commit/" + v, Direction: "java+go", Doc: docTableConcurrentCommitWriteCompactWriteNoRetry,
			Sides: concurrent,
			Uses:  []caseUse{serving(gf, maintainCommands...)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return gf.in(ce).concurrentCommit(ctx, v)
			}})
	}
	ct.add(caseRow{Name: "table/concurrent-commit/compact-replans", Direction: "java+go", Doc: docTableConcurrentCommitCompactReplans,
		Sides: []caseSide{side("java", Writer), side("go", Compactor)},
		Uses:  []caseUse{serving(gf, maintainCommands...)},
		Run: func(ctx context.Context, ce *caseEnv) error {
			return gf.in(ce).compactReplans(ctx)
		}})
	for _, p := range producerImpls(impls, Maintainer) {
		pf := groups[p]
		ct.add(caseRow{Name: "table/concurrent-commit/duplicate-archives", Direction: as(p, "java+go"), Doc: docTableConcurrentCommitDuplicateArchives,
			Sides: []caseSide{side("java", Writer, Compactor), side(p, Maintainer)},
			Uses:  []caseUse{serving(pf, maintainCommands...), runnerOf(runners, p, "maintain")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return pf.in(ce).duplicateArchives(ctx, ce.runner(p))
			}})
	}
	ct.add(caseRow{Name: "table/concurrent-commit/real-processes", Direction: "go+java", Doc: docTableConcurrentCommitRealProcesses,
		Sides: []caseSide{side("go", Writer, Maintainer), side("java", Consumer)},
		Uses:  []caseUse{serving(gf, maintainCommands...)},
		Run: func(ctx context.Context, ce *caseEnv) error {
			return gf.in(ce).realProcesses(ctx, realProcessRounds)
		}})
	ct.add(caseRow{Name: "sidecar/follows-writers", Direction: "java+go", Doc: docSidecarFollowsWriters,
		Sides: []caseSide{side("java", Writer, Consumer), side("go", Maintainer, Compactor)},
		Uses:  []caseUse{serving(gf, maintainCommands...)},
		Run: func(ctx context.Context, ce *caseEnv) error {
			return gf.in(ce).sidecarFollowsWriters(ctx)
		}})
	casesSearchTables(ct, gf, corpus)
}

// maintainFixture is a group whose tables are corpus.
func maintainFixture(corpus []*maintainTable) *fixture[*maintainGroup] {
	return newFixture(func(t *testing.T) *maintainGroup {
		g := startGroup(t)
		for _, mt := range corpus {
			g.tables[mt.name] = mt
		}
		return g
	})
}

// casesMaintainBy registers table/maintain/<table> (go->java, java-after-go) and
// table/maintain-shape (go<->java) for implementation p, through p's runner, on the group gf
// of corpus; the directions name p where Go's rows name go.
func casesMaintainBy(ct *caseTable, gf *fixture[*maintainGroup], corpus []*maintainTable, runners map[string]*implRunner, p string) {
	for _, mt := range corpus {
		ct.add(caseRow{Name: "table/maintain/" + mt.name, Direction: as(p, "go->java"), Doc: docTableMaintainTable,
			Sides: []caseSide{side(p, Maintainer, Consumer), side("java", Consumer)},
			Uses:  []caseUse{serving(gf, maintainCommands...), runnerOf(runners, p, "maintain", "search")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return gf.in(ce).goThenJava(ctx, mt, ce.runner(p))
			}})
		ct.add(caseRow{Name: "table/maintain/" + mt.name, Direction: as(p, "java-after-go"), Doc: docTableMaintainTable,
			Sides: []caseSide{side("java", Writer, Compactor, Consumer), side(p, Maintainer, Consumer)}, Needs: []string{"table/maintain/" + mt.name + "/" + as(p, "go->java")},
			Uses: []caseUse{serving(gf, maintainCommands...), continuing(func() error {
				if !mt.goDone {
					return fmt.Errorf("table/maintain/%s/%s did not pass: no table %s maintained to continue", mt.name, as(p, "go->java"), p)
				}
				return nil
			}), runnerOf(runners, p, "maintain", "search")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return gf.in(ce).javaAfterGo(ctx, mt, ce.runner(p))
			}})
	}
	ct.add(caseRow{Name: "table/maintain-shape", Direction: as(p, "go<->java"), Doc: docTableMaintainShape,
		Sides: []caseSide{side(p, Maintainer, Compactor), side("java", Compactor, Consumer)},
		Uses:  []caseUse{serving(gf, append(slices.Clone(maintainCommands), "minor-compact")...), runnerOf(runners, p, "maintain")},
		Run: func(ctx context.Context, ce *caseEnv) error {
			return gf.in(ce).maintainShape(ctx, ce.runner(p))
		}})
}

// fileIO is the file system of the group's tables.
func (g *maintainGroup) fileIO() fileio.FileIO {
	if g.fio == nil {
		return fileio.NewLocal()
	}
	return g.fio
}

// need fails unless the JVM and the engine are available and the runner serves cmds.
func (g *maintainGroup) need(ctx context.Context, cmds ...string) error {
	if g.startErr != nil {
		return g.startErr
	}
	if g.engErr != nil {
		return g.engErr
	}
	switch ok, err := HasCommands(ctx, g.proc, cmds...); {
	case err != nil:
		return err
	case !ok:
		return unavailable{testenv.RequireJavaFullTextEnv, fmt.Errorf("the Java runner lacks one of %v: rebuild it (make runner)", cmds)}
	}
	return nil
}

// indexLater returns steps followed by the schema change that sets pk-full-text.index.columns
// (and the column's analyzer options when set): Java writes and compacts without the index, so
// its levels have no archive.
func indexLater(steps []tableStep, column, fieldOptions string) []tableStep {
	set := map[string]string{pkfulltext.ColumnsOption: column}
	if fieldOptions != "" {
		set[pkfulltext.FieldOptionsKey(column)] = fieldOptions
	}
	return append(steps, tableStep{alter: map[string]any{"setOptions": set}})
}

func partitionedFields() []field {
	return []field{{"region", "STRING NOT NULL"}, {"dt", "DATE NOT NULL"}, {"id", "INT NOT NULL"}, {"content", "STRING"}}
}

// maintainCorpus returns fresh definitions of the tables Go maintains:
//
//   - partitioned: STRING and DATE partitions, 2 buckets, deletion vectors with updates and
//     deletes after a compaction; the index option set after the data (no archive anywhere);
//   - two-levels-ngram: compacted files on two non-zero levels of one bucket,
//     index-file-in-data-file-dir, the ngram analyzer from the column's options set late;
//   - jieba-mixed: the jieba table of the full-text corpus (one bucket with Java's archives,
//     one with levels that have none);
//   - avro: file.format = avro, one bucket, deletion vectors, the index option set after the
//     data (Go's maintenance reads the text of Java's Avro data files);
//   - java-current: the default full-text corpus table (every archive Java's and current)
//     plus a small write: nothing to build.
func maintainCorpus() []*maintainTable {
	idContent := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	jieba := ftCorpusTable(ftJiebaTable)
	jieba.name = "jieba-mixed"
	current := ftCorpusTable(ftDefaultTable)
	current.name = "java-current"
	current.steps = append(current.steps, tableStep{rows: ftPartitionRows(105, 60, 62)})
	return []*maintainTable{
		{
			name: "partitioned", builds: true,
			def: &corpusTable{
				name: "partitioned", fields: partitionedFields(),
				primaryKeys: []string{"region", "dt", "id"}, partitionKeys: []string{"region", "dt"},
				options: map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"},
				steps: indexLater([]tableStep{
					{rows: ftPartitionRows(501, 0, 50)},
					{rows: ftPartitionRows(502, 35, 70)},
					{},
					{rows: append(ftPartitionRows(503, 0, 6), deletes(ftPartitionRows(504, 10, 14))...)},
				}, "content", ""),
				exercises: hasDVRanges,
			},
			more: []tableStep{
				{rows: append(ftPartitionRows(505, 66, 72), deletes(ftPartitionRows(506, 20, 22))...)},
				{},
			},
		},
		{
			name: "two-levels-ngram", builds: true,
			def: &corpusTable{
				name: "two-levels-ngram", fields: idContent, primaryKeys: []string{"id"},
				options: map[string]string{
					"bucket": "1", "deletion-vectors.enabled": "true", "target-file-size": "16 kb",
					"index-file-in-data-file-dir": "true",
				},
				steps:     indexLater(ftTwoLevelSteps(400), "content", `{"tokenizer":"ngram","ngram.min-gram":"2","ngram.max-gram":"3"}`),
				exercises: hasTwoLevels,
			},
			more: []tableStep{{rows: ftTextRows(507, "content", 200_000, 200_012)}, {}},
		},
		{
			name: "jieba-mixed", builds: true, def: jieba,
			more: []tableStep{{rows: ftTextRows(508, "content", 2000, 2006)}, {}},
		},
		{
			// Java indexes, then compacts with the index option removed (no maintainer runs), and
			// the option comes back: the archives are stale and must be retired.
			name: "stale-archives", builds: true,
			def: &corpusTable{
				name: "stale-archives", fields: idContent, primaryKeys: []string{"id"},
				options: map[string]string{
					"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content",
					// Not the default codec: the maintenance commit writes its metadata with it too.
					"manifest.compression": "snappy",
				},
				steps: []tableStep{
					{rows: ftTextRows(511, "content", 0, 60), compact: true},
					{rows: ftTextRows(516, "content", 30, 70), compact: true},
					{alter: map[string]any{"removeOptions": []string{pkfulltext.ColumnsOption}}},
					{rows: append(ftTextRows(512, "content", 40, 90), deletes(ftTextRows(513, "content", 5, 8))...), compact: true},
					{rows: ftTextRows(514, "content", 0, 4)},
					{alter: map[string]any{"setOptions": map[string]string{pkfulltext.ColumnsOption: "content"}}},
				},
				exercises: hasStaleArchives,
			},
			more: []tableStep{{rows: ftTextRows(515, "content", 3000, 3003)}, {}},
		},
		{
			// file.format = avro: Go's maintenance reads the text column of Java's Avro data
			// files (the index option set after the data, so no archive exists yet).
			name: "avro", builds: true,
			def: &corpusTable{
				name: "avro", fields: idContent, primaryKeys: []string{"id"},
				options: map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "file.format": "avro"},
				steps: indexLater([]tableStep{
					{rows: ftTextRows(521, "content", 0, 60)},
					{rows: ftTextRows(522, "content", 40, 90)},
					{},
					{rows: append(ftTextRows(523, "content", 0, 6), deletes(ftTextRows(524, "content", 20, 24))...)},
				}, "content", ""),
				exercises: func(path string, d *inspect.Dump) error {
					if err := dataFilesIn(d, ".avro"); err != nil {
						return err
					}
					return hasDVRanges(path, d)
				},
			},
			more: []tableStep{{rows: ftTextRows(525, "content", 100, 106)}, {}},
		},
		{
			name: "java-current", builds: false, def: current,
			more: []tableStep{{rows: ftPartitionRows(509, 70, 73)}, {}},
		},
	}
}

// build writes mt with Java in the group's directory (once).
func (g *maintainGroup) build(ctx context.Context, mt *maintainTable) error {
	if mt.path != "" {
		return nil
	}
	c := mt.def
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "maintain", mt.name), mt.name, c.fields, c.primaryKeys, c.partitionKeys, c.options, c.steps)
	if err != nil {
		return err
	}
	d, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	if c.exercises != nil {
		if err := c.exercises(path, d); err != nil {
			return fmt.Errorf("the table no longer exercises what it is for: %w", err)
		}
	}
	// Java's dump computes the state with the snapshot's schema, which lacks the index option
	// when it was set after the last commit: ask Go's plan too.
	missing := levelsWithoutArchive(d)
	_, plans, err := tableops.PlanMaintenance(ctx, table.Open(fileio.NewLocal(), path))
	if err != nil {
		return err
	}
	for _, p := range plans {
		missing += len(p.BuildLevels)
	}
	switch {
	case mt.builds && missing == 0:
		return errors.New("no level without an archive: Go has nothing to build")
	case !mt.builds && missing > 0:
		return fmt.Errorf("%d levels without an archive, want none", missing)
	}
	mt.path = path
	return nil
}

// hasStaleArchives checks the table keeps full-text archives whose sources are no longer live.
func hasStaleArchives(path string, _ *inspect.Dump) error {
	ctx := context.Background()
	_, plans, err := tableops.PlanMaintenance(ctx, table.Open(fileio.NewLocal(), path))
	if err != nil {
		return err
	}
	for _, p := range plans {
		if len(p.Retire) > 0 {
			return nil
		}
	}
	return errors.New("no stale archive to retire")
}

// levelsWithoutArchive counts, by Java's state, the eligible levels without a current archive.
func levelsWithoutArchive(d *inspect.Dump) int {
	n := 0
	for _, b := range d.Buckets {
		if b.State == nil {
			continue
		}
		for lv := range b.State.Eligible {
			if _, ok := b.State.Current[lv]; !ok {
				n++
			}
		}
	}
	return n
}

// allCurrent checks, by Java's own bucket state and plan, that every bucket has a current
// archive on each eligible level, nothing stale and nothing to build.
func allCurrent(d *inspect.Dump) error {
	for _, b := range d.Buckets {
		where := fmt.Sprintf("partition %v bucket %d", b.Partition, b.Bucket)
		if b.State == nil || b.State.Error != "" {
			return fmt.Errorf("%s: no full-text state: %+v", where, b.State)
		}
		if len(b.State.Stale) > 0 || b.Plan != nil {
			return fmt.Errorf("%s: stale archives %v, plan %+v", where, b.State.Stale, b.Plan)
		}
		for lv := range b.State.Eligible {
			if _, ok := b.State.Current[lv]; !ok {
				return fmt.Errorf("%s: level %s has eligible files %v and no current archive", where, lv, b.State.Eligible[lv])
			}
		}
		if len(b.State.Current) != len(b.State.Eligible) {
			return fmt.Errorf("%s: current archives %v for eligible levels %v", where, b.State.Current, b.State.Eligible)
		}
	}
	return nil
}

// currentArchives lists the current archives of each bucket of d by Java's state, with their
// sources (from the dump's source meta).
func currentArchives(d *inspect.Dump) map[string][]archiveAt {
	out := map[string][]archiveAt{}
	for _, b := range d.Buckets {
		if b.State == nil {
			continue
		}
		files := map[string]inspect.IndexFileDump{}
		for _, f := range b.IndexFiles {
			files[f.FileName] = f
		}
		key := bucketKeyOf(b)
		for lv, name := range b.State.Current {
			a := archiveAt{name: name, level: lv}
			if f, ok := files[name]; ok && f.GlobalIndex != nil && f.GlobalIndex.SourceMeta != nil {
				for _, s := range f.GlobalIndex.SourceMeta.Files {
					a.sources = append(a.sources, s.FileName)
				}
			}
			out[key] = append(out[key], a)
		}
	}
	return out
}

func bucketKeyOf(b inspect.BucketDump) string {
	return fmt.Sprintf("%v/%d", b.Partition, b.Bucket)
}

// javaRead is every row Java reads from the table at path, sorted by primary key.
func javaRead(ctx context.Context, p *Process, path string) ([]map[string]any, error) {
	var rows javaRows
	if err := p.Call(ctx, "read", map[string]any{"path": path}, &rows); err != nil {
		return nil, err
	}
	return rows.Rows, nil
}

// sameState checks Java's dump of the table equals Go's and is the snapshot wantID.
func (g *maintainGroup) sameState(ctx context.Context, path string, wantID int64) (*inspect.Dump, error) {
	j, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return nil, err
	}
	gd, err := goDumpOn(ctx, g.fileIO(), path)
	if err != nil {
		return nil, err
	}
	if j.SnapshotID != wantID {
		return nil, fmt.Errorf("Java dumps snapshot %d, want %d", j.SnapshotID, wantID)
	}
	if d := diffDumps(j, gd); d != "" {
		return nil, fmt.Errorf("dumps differ (-java +go):\n%s", d)
	}
	return j, nil
}

// latestState is sameState on the table's latest snapshot.
func (g *maintainGroup) latestState(ctx context.Context, tbl *table.Table, path string) (*inspect.Dump, error) {
	latest, err := tbl.Latest(ctx)
	if err != nil {
		return nil, err
	}
	return g.sameState(ctx, path, latest.ID)
}

// maintainQueries are the queries the maintenance cases search with (the search cases run more).
func maintainQueries() []string {
	qs := engineQueries()
	return []string{qs[0], qs[1], qs[8], qs[16], qs[18], qs[20]}
}

// goThenJava is table/maintain/<table> go->java: Go maintains the Java-written table through its
// runner goP (the protocol's maintain); Java's dump of Go's snapshot equals Go's and shows every
// archive current by Java's own state; Java reads the same rows; Java's search equals Go's;
// maintaining again commits nothing.
func (g *maintainGroup) goThenJava(ctx context.Context, mt *maintainTable, goP *Process) error {
	if err := g.build(ctx, mt); err != nil {
		return err
	}
	rowsBefore, err := javaRead(ctx, g.proc, mt.path)
	if err != nil {
		return err
	}
	tbl := table.Open(fileio.NewLocal(), mt.path)
	before, err := tbl.Latest(ctx)
	if err != nil {
		return err
	}
	var res maintained
	if err := goP.Call(ctx, "maintain", map[string]any{"path": mt.path}, &res); err != nil {
		return fmt.Errorf("go maintain: %w", err)
	}
	wantID := before.ID
	switch {
	case mt.builds && res.committed() == 0:
		return errors.New("Go's maintenance committed nothing on levels without archives")
	case !mt.builds && res.committed() != 0:
		return fmt.Errorf("Go's maintenance committed snapshot %d on a table whose archives are current", res.committed())
	case res.committed() != 0:
		wantID = res.committed()
		if wantID != before.ID+1 {
			return fmt.Errorf("Go committed snapshot %d on %d, want the next", wantID, before.ID)
		}
	}
	j, err := g.sameState(ctx, mt.path, wantID)
	if err != nil {
		return err
	}
	if res.committed() != 0 && j.CommitKind != "APPEND" {
		return fmt.Errorf("Java sees commit kind %s of Go's maintenance, want APPEND", j.CommitKind)
	}
	if err := allCurrent(j); err != nil {
		return fmt.Errorf("Java's state of Go's snapshot: %w", err)
	}
	// Every archive Go built is current by Java's state.
	current := map[string]bool{}
	for _, as := range currentArchives(j) {
		for _, a := range as {
			current[a.name] = true
		}
	}
	if mt.builds && len(res.Built) == 0 {
		return errors.New("Go's maintenance committed a snapshot and reports no archive built")
	}
	for _, f := range res.Built {
		if !current[f] {
			return fmt.Errorf("Go's archive %s is not current by Java's state", f)
		}
	}
	rowsAfter, err := javaRead(ctx, g.proc, mt.path)
	if err != nil {
		return err
	}
	if d := cmp.Diff(rowsBefore, rowsAfter); d != "" {
		return fmt.Errorf("rows Java reads changed across Go's maintenance (-before +after):\n%s", d)
	}
	if err := g.sameSearchesVia(ctx, goP, mt.path, maintainQueries(), []int{10}); err != nil {
		return err
	}
	// Maintaining a current table commits nothing.
	var again maintained
	if err := goP.Call(ctx, "maintain", map[string]any{"path": mt.path}, &again); err != nil {
		return fmt.Errorf("go maintain again: %w", err)
	}
	latest, err := tbl.Latest(ctx)
	if err != nil {
		return err
	}
	if again.committed() != 0 || latest.ID != wantID {
		return fmt.Errorf("maintaining the current table again moved the latest snapshot from %d to %d", wantID, latest.ID)
	}
	mt.goArchives = currentArchives(j)
	mt.goDone = true
	// The search cases search this state.
	g.addSearchTable(mt.name+"-go", mt.path)
	return nil
}

// addSearchTable copies the table at path for the search cases.
func (g *maintainGroup) addSearchTable(name, path string) {
	st := &searchTable{name: name, path: filepath.Join(g.dir, "search", name, filepath.Base(path))}
	st.err = copyDir(path, st.path)
	g.searchTables = append(g.searchTables, st)
}

// javaAfterGo is table/maintain/<table> java-after-go: Java writes into the Go-maintained table
// (its writers maintain the buckets they write), then compacts every bucket; after each commit
// Java's state shows every archive current, Go's archives are kept where their level did not
// change and replaced by Java's where it did, Go's dump equals Java's and the searches agree.
func (g *maintainGroup) javaAfterGo(ctx context.Context, mt *maintainTable, goP *Process) error {
	prev := mt.goArchives
	replaced, kept := 0, 0
	for i, s := range mt.more {
		var err error
		if s.rows == nil {
			err = g.proc.Call(ctx, "compact", map[string]any{"path": mt.path}, nil)
		} else {
			err = g.proc.Call(ctx, "write", map[string]any{"path": mt.path, "rows": s.rows}, nil)
		}
		if err != nil {
			return fmt.Errorf("Java step %d: %w", i, err)
		}
		tbl := table.Open(fileio.NewLocal(), mt.path)
		latest, err := tbl.Latest(ctx)
		if err != nil {
			return err
		}
		j, err := g.sameState(ctx, mt.path, latest.ID)
		if err != nil {
			return fmt.Errorf("after Java step %d: %w", i, err)
		}
		if err := allCurrent(j); err != nil {
			return fmt.Errorf("after Java step %d: Java's state: %w", i, err)
		}
		now := currentArchives(j)
		for key, as := range prev {
			for _, a := range as {
				var same *archiveAt
				for k, b := range now[key] {
					if b.level == a.level {
						same = &now[key][k]
					}
				}
				switch {
				case same == nil:
					replaced++ // the level is gone
				case slices.Equal(same.sources, a.sources) && same.name != a.name:
					return fmt.Errorf("after Java step %d: %s level %s: Java replaced archive %s by %s over the same files", i, key, a.level, a.name, same.name)
				case slices.Equal(same.sources, a.sources):
					kept++
				case same.name == a.name:
					return fmt.Errorf("after Java step %d: %s level %s: archive %s is current over other files", i, key, a.level, a.name)
				default:
					replaced++
				}
			}
		}
		prev = now
		if err := g.sameSearchesVia(ctx, goP, mt.path, maintainQueries(), []int{10}); err != nil {
			return fmt.Errorf("after Java step %d: %w", i, err)
		}
	}
	if replaced == 0 {
		return errors.New("Java replaced no archive: the full compaction changed no level")
	}
	if kept == 0 {
		return errors.New("Java kept none of the archives: its write changed every level, nothing shows it keeps a current archive")
	}
	// Go (its runner's maintain) finds nothing to do on Java's result.
	var res maintained
	if err := goP.Call(ctx, "maintain", map[string]any{"path": mt.path}, &res); err != nil {
		return fmt.Errorf("go maintain after Java: %w", err)
	}
	if res.committed() != 0 {
		return fmt.Errorf("Go committed snapshot %d after Java kept every archive current", res.committed())
	}
	return nil
}

// copyDir copies the directory tree src to dst.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// listFiles returns every regular file under dir, relative to it.
func listFiles(dir string) (map[string]bool, error) {
	out := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			out[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	return out, err
}

// referenced returns the base names of every file a snapshot of the table references: the
// snapshot files, their manifest lists, manifests, index manifests, live data files and index
// files.
func referenced(ctx context.Context, tbl *table.Table) (map[string]bool, error) {
	ids, err := tbl.Snapshots.IDs(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, id := range ids {
		s, err := tbl.Snapshots.Snapshot(ctx, id)
		if err != nil {
			return nil, err
		}
		out["snapshot-"+strconv.FormatInt(id, 10)] = true
		out[s.BaseManifestList] = true
		out[s.DeltaManifestList] = true
		if s.ChangelogManifestList != nil {
			out[*s.ChangelogManifestList] = true
		}
		if s.IndexManifest != nil {
			out[*s.IndexManifest] = true
		}
		if s.Statistics != nil {
			out[*s.Statistics] = true
		}
		c, err := tbl.Read(ctx, s)
		if err != nil {
			return nil, err
		}
		for _, m := range append(slices.Clone(c.BaseManifests), c.DeltaManifests...) {
			out[m.FileName] = true
		}
		for _, e := range c.Entries {
			out[e.File.FileName] = true
		}
		for _, e := range c.IndexEntries {
			out[e.IndexFile.FileName] = true
		}
	}
	return out, nil
}

// noGoLeaks checks that every file under path that Go generated is referenced by a snapshot:
// files there before (l0) and files that appeared while Java committed (between the listings l1
// and l2) are not Go's.
func noGoLeaks(ctx context.Context, tbl *table.Table, path string, l0, l1, l2 map[string]bool) error {
	l3, err := listFiles(path)
	if err != nil {
		return err
	}
	refs, err := referenced(ctx, tbl)
	if err != nil {
		return err
	}
	var leaked []string
	for f := range l3 {
		if l0[f] || (l2[f] && !l1[f]) {
			continue // there before, or Java's
		}
		base := filepath.Base(f)
		if base == "LATEST" || base == "EARLIEST" || refs[base] {
			continue
		}
		leaked = append(leaked, f)
	}
	sort.Strings(leaked)
	if len(leaked) > 0 {
		return fmt.Errorf("files Go generated and no snapshot references: %v", leaked)
	}
	return nil
}

// concurrentTable writes a fresh two-bucket table without the index option, then sets it: every
// level lacks an archive.
func (g *maintainGroup) concurrentTable(ctx context.Context, name string) (string, error) {
	steps := indexLater([]tableStep{
		{rows: ftTextRows(601, "content", 0, 80)},
		{rows: ftTextRows(602, "content", 60, 100)},
		{},
		{rows: append(ftTextRows(603, "content", 0, 5), deletes(ftTextRows(604, "content", 30, 33))...)},
	}, "content", "")
	return createJavaTable(ctx, g.proc, filepath.Join(g.dir, "concurrent", name), "concurrent-"+name,
		[]field{{"id", "INT NOT NULL"}, {"content", "STRING"}}, []string{"id"}, nil,
		map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"}, steps)
}

// concurrentCommit is table/concurrent-commit/<v> (java+go): Go maintains a table whose levels
// lack archives; held just before publishing, Java commits to the same table (v "write": one
// row, which Java's writer compacts and indexes in the bucket it writes, and Go rebases the other
// bucket's archives onto it; v "compact": a full compaction of every bucket, after which Go has
// nothing left to commit; v "write-no-retry": the write, with Go allowed no retry, so it aborts
// with ErrCommitConflict). Go must notice the commit, rebase or give up, and leave no file
// it generated behind but those its published snapshot references; Java reads every row of
// both commits, and Java's state shows every archive current, Go's included.
func (g *maintainGroup) concurrentCommit(ctx context.Context, v string) error {
	path, err := g.concurrentTable(ctx, v)
	if err != nil {
		return err
	}
	rowsBefore, err := javaRead(ctx, g.proc, path)
	if err != nil {
		return err
	}
	tbl := table.Open(fileio.NewLocal(), path)
	base, err := tbl.Latest(ctx)
	if err != nil {
		return err
	}
	l0, err := listFiles(path)
	if err != nil {
		return err
	}
	// One row: Java's writer compacts and indexes one bucket, the other keeps Go's plan.
	javaRows := ftTextRows(605, "content", 1000, 1001)
	var l1, l2 map[string]bool
	calls := 0
	var javaSnap int64
	hook := func(ctx context.Context, next *snapshot.Snapshot) error {
		calls++
		if calls > 1 {
			return nil
		}
		var err error
		if l1, err = listFiles(path); err != nil {
			return err
		}
		if next.ID != base.ID+1 {
			return fmt.Errorf("Go prepares snapshot %d on %d", next.ID, base.ID)
		}
		if v != "compact" {
			err = g.proc.Call(ctx, "write", map[string]any{"path": path, "rows": javaRows}, nil)
		} else {
			err = g.proc.Call(ctx, "compact", map[string]any{"path": path}, nil)
		}
		if err != nil {
			return fmt.Errorf("Java's concurrent %s: %w", v, err)
		}
		latest, err := tbl.Latest(ctx)
		if err != nil {
			return err
		}
		javaSnap = latest.ID
		if javaSnap < next.ID {
			return fmt.Errorf("Java's %s committed nothing", v)
		}
		l2, err = listFiles(path)
		return err
	}
	opts := []tableops.MaintainOption{tableops.WithParallelism(2), tableops.WithBeforePublish(hook)}
	if v == "write-no-retry" {
		opts = append(opts, tableops.WithMaxRetries(0))
	}
	res, err := tableops.Maintain(ctx, tbl, g.engine, opts...)
	if err != nil && !errors.Is(err, tableops.ErrCommitConflict) {
		return fmt.Errorf("go maintain: %w", err)
	}
	if calls == 0 || l2 == nil {
		return errors.New("Go never reached publication")
	}
	committed := err == nil && res.Snapshot != nil
	switch {
	case v == "write" && !committed:
		return fmt.Errorf("Go committed nothing after Java's write to one bucket (%v): the other bucket still lacks archives", err)
	case v == "compact" && committed:
		return fmt.Errorf("Go committed snapshot %d after Java's compaction built every archive", res.Snapshot.ID)
	case v == "write-no-retry" && !errors.Is(err, tableops.ErrCommitConflict):
		return fmt.Errorf("Go without retries ended with %v, want %v", err, tableops.ErrCommitConflict)
	}
	if committed && (res.Attempts < 2 || res.Snapshot.ID <= javaSnap) {
		return fmt.Errorf("Go committed snapshot %d in %d attempts over Java's %d: the concurrent commit went unnoticed", res.Snapshot.ID, res.Attempts, javaSnap)
	}
	// Files: everything generated by Go is referenced by a snapshot or gone.
	if err := noGoLeaks(ctx, tbl, path, l0, l1, l2); err != nil {
		return err
	}
	// Java reads every row of both commits.
	rows, err := javaRead(ctx, g.proc, path)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, r := range rowsBefore {
		want[fmt.Sprint(r["id"])] = true
	}
	if v != "compact" {
		for _, r := range javaRows {
			want[fmt.Sprint(r["id"])] = true
		}
	}
	got := map[string]bool{}
	for _, r := range rows {
		got[fmt.Sprint(r["id"])] = true
	}
	if !cmp.Equal(got, want) {
		return fmt.Errorf("Java reads keys %d, want %d (both commits)", len(got), len(want))
	}
	j, err := g.latestState(ctx, tbl, path)
	if err != nil {
		return err
	}
	if err := allCurrent(j); err != nil {
		// Without Go's commit, levels Java's commit did not touch keep lacking archives.
		if committed {
			return fmt.Errorf("Java's state after Go's commit: %w", err)
		}
	}
	if committed {
		current := map[string]bool{}
		for _, as := range currentArchives(j) {
			for _, a := range as {
				current[a.name] = true
			}
		}
		for _, b := range res.Buckets {
			for _, f := range b.Built {
				if !current[f.FileName] {
					return fmt.Errorf("Go's archive %s is not current by Java's state", f.FileName)
				}
			}
		}
	}
	return nil
}

// maintainShape is table/maintain-shape (go<->java) on fresh builds of the tables of
// maintainCorpus whose levels lack archives (partitioned with two buckets; two levels with
// index-file-in-data-file-dir and ngram; jieba with one bucket already indexed by Java).
func (g *maintainGroup) maintainShape(ctx context.Context, goP *Process) error {
	var errs []error
	for _, mt := range maintainCorpus() {
		if !mt.builds {
			continue
		}
		c := mt.def
		src, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "shape", mt.name, "src"), mt.name, c.fields, c.primaryKeys, c.partitionKeys, c.options, c.steps)
		if err == nil {
			err = g.compareShapes(ctx, goP, src, filepath.Join(g.dir, "shape", mt.name))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", mt.name, err))
		}
	}
	return errors.Join(errs...)
}

// javaMinorCompact is the runner's minor-compact result.
type javaMinorCompact = protocol.MinorCompactResponse

// compareShapes compares, on two copies of the table at src under dir, the commit of Java's batch
// writer running a compaction that picks nothing (minor-compact), which commits what its
// full-text maintainers built while preparing the commit with waitCompaction (an APPEND snapshot
// of index changes only), with the commit of Go's Maintain. The two snapshots must be equal up
// to file names, uuids, users and times: snapshot fields, manifest lists, and index manifests
// (archives compared by type, bucket, row count and global index meta), and so must Java's dumps
// of the two tables. Then neither side commits anything more.
func (g *maintainGroup) compareShapes(ctx context.Context, goP *Process, src, dir string) error {
	javaPath := filepath.Join(dir, "java", filepath.Base(src))
	goPath := filepath.Join(dir, "go", filepath.Base(src))
	if err := copyDir(src, javaPath); err != nil {
		return err
	}
	if err := copyDir(src, goPath); err != nil {
		return err
	}
	var jres javaMinorCompact
	if err := g.proc.Call(ctx, "minor-compact", map[string]any{"path": javaPath}, &jres); err != nil {
		return err
	}
	indexChanges := 0
	for _, m := range jres.Messages {
		for k, v := range m {
			list, _ := v.([]any)
			switch {
			case k == "newIndexFiles" || k == "deletedIndexFiles":
				indexChanges += len(list)
			case k != "bucket" && len(list) > 0:
				return fmt.Errorf("Java's minor compaction changed data files (%s: %v): not an index-only commit", k, list)
			}
		}
	}
	if indexChanges == 0 || jres.SnapshotAfter != jres.SnapshotBefore+1 {
		return fmt.Errorf("Java committed snapshot %d on %d with %d index changes: want one index-only commit", jres.SnapshotAfter, jres.SnapshotBefore, indexChanges)
	}
	gtbl := table.Open(fileio.NewLocal(), goPath)
	var res maintained
	if err := goP.Call(ctx, "maintain", map[string]any{"path": goPath}, &res); err != nil {
		return fmt.Errorf("go maintain: %w", err)
	}
	if res.committed() == 0 {
		return errors.New("Go's maintenance committed nothing")
	}
	jtbl := table.Open(fileio.NewLocal(), javaPath)
	js, err := jtbl.Latest(ctx)
	if err != nil {
		return err
	}
	gs, err := gtbl.Latest(ctx)
	if err != nil {
		return err
	}
	var diffs []string
	if d := cmp.Diff(shapeOf(js), shapeOf(gs)); d != "" {
		diffs = append(diffs, "snapshot (-java +go):\n"+d)
	}
	jc, err := jtbl.Read(ctx, js)
	if err != nil {
		return err
	}
	gc, err := gtbl.Read(ctx, gs)
	if err != nil {
		return err
	}
	for _, pair := range [][2]string{
		{js.BaseManifestList, gs.BaseManifestList},
		{js.DeltaManifestList, gs.DeltaManifestList},
		{deref(js.IndexManifest).(string), deref(gs.IndexManifest).(string)},
	} {
		jcodec, err := avroCodec(filepath.Join(javaPath, "manifest", pair[0]))
		if err != nil {
			return err
		}
		gcodec, err := avroCodec(filepath.Join(goPath, "manifest", pair[1]))
		if err != nil {
			return err
		}
		if jcodec != gcodec {
			diffs = append(diffs, fmt.Sprintf("Java writes %s with Avro codec %s, Go writes %s with %s", pair[0], jcodec, pair[1], gcodec))
		}
	}
	if d := cmp.Diff(jc.BaseManifests, gc.BaseManifests); d != "" {
		diffs = append(diffs, "base manifest list (-java +go):\n"+d)
	}
	if d := cmp.Diff(jc.DeltaManifests, gc.DeltaManifests); d != "" {
		diffs = append(diffs, "delta manifest list (-java +go):\n"+d)
	}
	if d := cmp.Diff(indexShape(jc.IndexEntries), indexShape(gc.IndexEntries)); d != "" {
		diffs = append(diffs, "index manifest (-java +go):\n"+d)
	}
	// The order: Java's index manifest must be in the order the HashMap model derives from the
	// previous manifest and Java's change (which checks the model on this run's random names),
	// and Go's in the order Java would write for Go's names and change.
	stbl := table.Open(fileio.NewLocal(), src)
	ss, err := stbl.Latest(ctx)
	if err != nil {
		return err
	}
	sc, err := stbl.Read(ctx, ss)
	if err != nil {
		return err
	}
	for _, side := range []struct {
		name    string
		entries []meta.IndexManifestEntry
	}{{"Java", jc.IndexEntries}, {"Go", gc.IndexEntries}} {
		want, err := javaIndexOrder(sc.IndexEntries, side.entries)
		if err != nil {
			return fmt.Errorf("%s's index manifest: %w", side.name, err)
		}
		if d := cmp.Diff(indexOrder(want), indexOrder(side.entries)); d != "" {
			diffs = append(diffs, side.name+"'s index manifest order (-Java's HashMap order +written):\n"+d)
		}
	}
	jd, err := javaDump(ctx, g.proc, javaPath)
	if err != nil {
		return err
	}
	gd, err := javaDump(ctx, g.proc, goPath)
	if err != nil {
		return err
	}
	if d := diffDumps(normalizeArchives(jd), normalizeArchives(gd)); d != "" {
		diffs = append(diffs, "Java's dumps (-java's commit +go's commit):\n"+d)
	}
	if err := allCurrent(jd); err != nil {
		diffs = append(diffs, "Java's state of Java's commit: "+err.Error())
	}
	if len(diffs) > 0 {
		return errors.New(strings.Join(diffs, "\n"))
	}
	// Nothing left to do: neither side commits again.
	var again javaMinorCompact
	if err := g.proc.Call(ctx, "minor-compact", map[string]any{"path": javaPath}, &again); err != nil {
		return err
	}
	if again.SnapshotAfter != again.SnapshotBefore {
		return fmt.Errorf("Java's second minor compaction committed snapshot %d on %d", again.SnapshotAfter, again.SnapshotBefore)
	}
	var goAgain maintained
	if err := goP.Call(ctx, "maintain", map[string]any{"path": goPath}, &goAgain); err != nil {
		return fmt.Errorf("go maintain again: %w", err)
	}
	if goAgain.committed() != 0 {
		return fmt.Errorf("Go's second maintenance committed snapshot %d", goAgain.committed())
	}
	return nil
}

// avroCodec reads the avro.codec entry of the header of the Avro file at path ("null" when
// absent).
func avroCodec(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	key := []byte("\x14avro.codec") // the key with its zigzag length prefix (10)
	i := strings.Index(string(data), string(key))
	if i < 0 {
		return "null", nil
	}
	rest := data[i+len(key):]
	var n, shift uint64
	k := 0
	for ; k < len(rest); k++ {
		n |= uint64(rest[k]&0x7f) << shift
		shift += 7
		if rest[k] < 0x80 {
			break
		}
	}
	size := int(int64(n>>1) ^ -int64(n&1))
	if size < 0 || k+1+size > len(rest) {
		return "", fmt.Errorf("%s: malformed avro.codec", path)
	}
	return string(rest[k+1 : k+1+size]), nil
}

// shapeOf is s without what differs between two writers making the same commit: uuid, user,
// time and the names and sizes of the files it writes.
func shapeOf(s *snapshot.Snapshot) snapshot.Snapshot {
	c := *s
	c.UUID, c.CommitUser, c.TimeMillis = nil, "", 0
	c.BaseManifestList, c.DeltaManifestList, c.IndexManifest = "", "", nil
	c.BaseManifestListSize, c.DeltaManifestListSize = nil, nil
	if c.ChangelogManifestList != nil {
		c.ChangelogManifestList = new(string)
	}
	return c
}

// indexEntryShape is an index manifest entry without the archive's name and size.
type indexEntryShape struct {
	Kind      meta.FileKind
	Partition string
	Bucket    int32
	IndexType string
	FileName  string
	RowCount  int64
	Global    string
}

// indexShape lists entries with full-text archive names and sizes left out, sorted, to compare
// the contents of two commits. Their orders differ legitimately: IndexManifestFileHandler#write
// groups the entries by index type in HashSet order and, within a type, in the HashMap order of
// file names (GlobalIndexCombiner) or bucket identifiers (BucketedCombiner), so new archives,
// named with random UUIDs, land anywhere; compareShapes checks each side's order against the
// order Java derives for its own names (javaIndexOrder).
func indexShape(entries []meta.IndexManifestEntry) []indexEntryShape {
	var out []indexEntryShape
	for _, e := range entries {
		s := indexEntryShape{
			Kind: e.Kind, Partition: fmt.Sprintf("%x", e.Partition), Bucket: e.Bucket,
			IndexType: e.IndexFile.IndexType, FileName: e.IndexFile.FileName, RowCount: e.IndexFile.RowCount,
		}
		if gi := e.IndexFile.GlobalIndex; gi != nil {
			s.Global = fmt.Sprintf("range [%d,%d] field %d extra %v meta %q source %x", gi.RowRangeStart, gi.RowRangeEnd, gi.IndexFieldID, gi.ExtraFieldIDs, gi.IndexMeta, gi.SourceMeta)
		}
		if e.IndexFile.IndexType == pkfulltext.IndexType {
			s.FileName = archiveLabel(e.IndexFile)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

// javaIndexOrder is the index manifest IndexManifestFileHandler#write makes from prev and a
// change that turns it into cur: a DELETE for every global-index file of prev missing from cur
// and for every bucket whose deletion-vector or hash file disappeared, an ADD for every file of
// cur not in prev (a replaced deletion-vector file is an ADD alone, as Java commits it), ADDs in
// cur's order, which only matters for keys sharing a HashMap bin.
func javaIndexOrder(prev, cur []meta.IndexManifestEntry) ([]meta.IndexManifestEntry, error) {
	type bucketKey struct {
		partition string
		bucket    int32
		indexType string
	}
	key := func(e *meta.IndexManifestEntry) bucketKey {
		return bucketKey{string(e.Partition), e.Bucket, e.IndexFile.IndexType}
	}
	bucketed := func(e *meta.IndexManifestEntry) bool {
		return e.IndexFile.IndexType == meta.IndexTypeDeletionVectors || e.IndexFile.IndexType == meta.IndexTypeHash
	}
	prevFiles, curFiles, curBuckets := map[string]bool{}, map[string]bool{}, map[bucketKey]bool{}
	for i := range prev {
		prevFiles[prev[i].IndexFile.FileName] = true
	}
	for i := range cur {
		curFiles[cur[i].IndexFile.FileName] = true
		curBuckets[key(&cur[i])] = true
	}
	var changes []meta.IndexManifestEntry
	for _, e := range prev {
		if (bucketed(&e) && !curBuckets[key(&e)]) || (!bucketed(&e) && !curFiles[e.IndexFile.FileName]) {
			e.Kind = meta.FileKindDelete
			changes = append(changes, e)
		}
	}
	for _, e := range cur {
		if !prevFiles[e.IndexFile.FileName] {
			changes = append(changes, e)
		}
	}
	return manifest.CombineIndexManifest(prev, changes, false)
}

// indexOrder lists entries by type, bucket and file name, archives labelled by level.
func indexOrder(entries []meta.IndexManifestEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		name := e.IndexFile.FileName
		if e.IndexFile.IndexType == pkfulltext.IndexType {
			name = archiveLabel(e.IndexFile)
		}
		out[i] = fmt.Sprintf("%s %x/%d %s", e.IndexFile.IndexType, e.Partition, e.Bucket, name)
	}
	return out
}

// archiveLabel names a full-text archive by what it covers.
func archiveLabel(f meta.IndexFileMeta) string {
	if f.GlobalIndex == nil {
		return "archive without meta"
	}
	sm, err := pkindex.DecodeSourceMeta(f.GlobalIndex.SourceMeta)
	if err != nil {
		return "archive with bad source meta"
	}
	return fmt.Sprintf("archive of level %d", sm.DataLevel())
}

// normalizeArchives renames every full-text archive of d by its level and zeroes its size, so
// that dumps of the same commit by two writers compare.
func normalizeArchives(d *inspect.Dump) *inspect.Dump {
	c := *d
	c.Buckets = slices.Clone(d.Buckets)
	for i := range c.Buckets {
		b := &c.Buckets[i]
		rename := map[string]string{}
		b.IndexFiles = slices.Clone(b.IndexFiles)
		for k := range b.IndexFiles {
			f := &b.IndexFiles[k]
			if f.IndexType != pkfulltext.IndexType {
				continue
			}
			label := "archive"
			if f.GlobalIndex != nil && f.GlobalIndex.SourceMeta != nil {
				label = fmt.Sprintf("archive of level %d", f.GlobalIndex.SourceMeta.DataLevel)
			}
			rename[f.FileName] = label
			f.FileName, f.FileSize = label, 0
		}
		sort.Slice(b.IndexFiles, func(x, y int) bool {
			return b.IndexFiles[x].IndexType+b.IndexFiles[x].FileName < b.IndexFiles[y].IndexType+b.IndexFiles[y].FileName
		})
		if b.State != nil {
			s := *b.State
			s.Current = map[string]string{}
			for lv, n := range b.State.Current {
				s.Current[lv] = rename[n]
			}
			s.Stale = nil
			for _, n := range b.State.Stale {
				s.Stale = append(s.Stale, rename[n])
			}
			b.State = &s
		}
		if b.Plan != nil {
			p := *b.Plan
			p.Input = nil
			for _, n := range b.Plan.Input {
				p.Input = append(p.Input, rename[n])
			}
			b.Plan = &p
		}
	}
	return &c
}

// maintained is a runner's answer to maintain.
type maintained protocol.MaintainResponse

// committed is the snapshot the maintenance committed, 0 when it committed none.
func (m maintained) committed() int64 {
	if m.SnapshotAfter == m.SnapshotBefore {
		return 0
	}
	return m.SnapshotAfter
}

// docTableMaintainTable describes table/maintain/<table>.
const docTableMaintainTable = "on Java-written tables with levels that have no archive (the index option set after the " +
	"data; partitioned by STRING and DATE with two buckets and deletes under deletion vectors; " +
	"two non-zero levels with `index-file-in-data-file-dir` and ngram; jieba with one bucket " +
	"already indexed by Java; Java's archives gone stale while the option was removed and the " +
	"data compacted; Java's Avro data files, `file.format = avro`) and on one whose archives are " +
	"all Java's and current, Go's `Maintain` " +
	"commits one APPEND snapshot (or, when current, nothing); Java's dump of it equals Go's and" +
	" Java's own bucket state shows every archive current, Java reads the same rows and Java's " +
	"search equals Go's; maintaining again commits nothing. Then Java writes (its writers " +
	"maintain the buckets they touch) and compacts: after each commit Java keeps Go's archives " +
	"whose level did not change, replaces the others, and every archive is current by Java's " +
	"state."

// docTableMaintainShape describes table/maintain-shape.
const docTableMaintainShape = "on two copies of a table whose levels lack archives, Java's batch writer runs a compaction" +
	" that picks nothing (the runner's `minor-compact`), so its commit carries only what " +
	"`BucketedPrimaryKeyIndexMaintainer` built while preparing it (an APPEND snapshot of index " +
	"changes), and Go's `Maintain` commits on the other: snapshot fields, manifest lists and " +
	"index manifest entries are equal up to file names, uuids, users and times, and so are " +
	"Java's dumps."

// docTableConcurrentCommitWriteCompactWriteNoRetry describes table/concurrent-commit/{write,compact,write-no-retry}.
const docTableConcurrentCommitWriteCompactWriteNoRetry = "held just before publishing, Go lets Java commit a one-row write (Go rebases and commits " +
	"the other bucket), a full compaction (Go replans and has nothing left to commit), or the " +
	"write with no retry allowed (Go aborts with `ErrCommitConflict`); no file Go generated is " +
	"left unreferenced, Java reads the rows of both commits and its state shows Go's archives " +
	"current. Go runs in-process: the case holds Go's own commit between prepare and publish " +
	"(`tableops.WithBeforePublish`) and sets its retries, a hook injected into Go itself."

// docTableConcurrentCommitCompactReplans describes table/concurrent-commit/compact-replans.
const docTableConcurrentCommitCompactReplans = "Go fully compacts a 16-bucket table; held just before publishing, Java commits twice into " +
	"one bucket (a write with a full compaction of that bucket, then updates): Go compacts that" +
	" bucket again from the new snapshot, and only that one, and commits all 16 in one COMPACT " +
	"snapshot; Java reads every row of both sides and its state shows every archive current. " +
	"Go runs in-process: the case holds Go's own commit between prepare and publish " +
	"(`tableops.WithBeforePublish`), a hook injected into Go itself."

// docTableConcurrentCommitDuplicateArchives describes table/concurrent-commit/duplicate-archives.
const docTableConcurrentCommitDuplicateArchives = "a Java writer restored before Go's `Maintain` commits its own archive of every level Go " +
	"just indexed (Java's commit checks no index files): `pkft state` classifies each such " +
	"level exactly as Java does (every candidate stale) and names it \"duplicate archives " +
	"(concurrent maintainers)\"; `pkft maintain` repairs all of them in one commit and Java's " +
	"state shows every level current."

// docTableConcurrentCommitRealProcesses describes table/concurrent-commit/real-processes.
const docTableConcurrentCommitRealProcesses = "30 rounds in which two `pkft write` processes, one `pkft compact` and a Java writer commit" +
	" to one full-text table at the same time; then a `pkft compact` and a `pkft maintain`. " +
	"Java reads exactly the model of the writes that reported success; no file is left " +
	"unreferenced but the metadata Java keeps from its own lost attempts; Java's state shows " +
	"every archive current. The counts of commits, conflicts, replaced snapshots and re-planned" +
	" buckets go into the matrix notes."

// docSidecarFollowsWriters describes sidecar/follows-writers.
const docSidecarFollowsWriters = "a Java writer with `write-only = true` commits 20 times to a 2-bucket full-text table " +
	"(inserts, updates, deletes) while a second JVM fully compacts it after every other write " +
	"with `pk-full-text.index.columns` removed from its options (a compactor that maintains no " +
	"archive: each of its commits leaves the compacted levels without a current archive and the" +
	" old ones stale); `pkft maintain --watch` runs throughout. Within 90 s of the last commit " +
	"its metrics must say 0 snapshots behind with no round running (measured: well under a " +
	"second on an idle machine); then Java's state shows every archive current, Java reads the " +
	"model's rows, no file the sidecar wrote is unreferenced, and SIGTERM stops it with status " +
	"0."
