package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/table"
)

// sortedScenarioFields are the columns of scenario/sorted-and-full-text: a partition, the key, a
// pk-btree column (price), a pk-bitmap column (tag) and the full-text column.
var sortedScenarioFields = []field{{"region", "STRING NOT NULL"}, {"id", "INT NOT NULL"}, {"price", "BIGINT"}, {"tag", "STRING"}, {"content", "STRING"}}

// sortedScenarioStep is one step of scenario/sorted-and-full-text: who writes, and whether a
// full compaction follows the write (the writers compact level 0 at commit either way).
type sortedScenarioStep struct {
	side string // "go" or "java"
	full bool
}

// casesSortedScenario registers scenario/sorted-and-full-text: a table with every index family Go
// maintains, written and compacted by Java then Go then Java (java->go->java), and by Go only
// (go->java); then every consumer implementation reads and searches each final table as Java
// does (scenario/sorted-and-full-text/{read,search}, DIRECTION->CONSUMER). Implementation p (go,
// or another writer and compactor) takes Go's steps through its runner.
func casesSortedScenario(ct *caseTable, gf *fixture[*maintainGroup], impls []Impl, runners map[string]*implRunner, p string) {
	steps := map[string][]sortedScenarioStep{
		"java->go->java": {{"java", true}, {"java", false}, {"go", false}, {"go", true}, {"go", false}, {"java", true}},
		"go->java":       {{"go", false}, {"go", false}, {"go", true}, {"go", false}, {"go", true}},
	}
	sides := map[string][]caseSide{
		"java->go->java": {side("java", Writer, Compactor, Consumer), side(p, Writer, Compactor, Consumer)},
		"go->java":       {side(p, Writer, Compactor, Consumer), side("java", Consumer)},
	}
	for _, direction := range []string{"java->go->java", "go->java"} {
		var tb *consumerTable
		dir := as(p, direction)
		ct.add(caseRow{Name: "scenario/sorted-and-full-text", Direction: dir, Doc: docScenarioSortedAndFullText,
			Sides: sides[direction],
			Uses:  []caseUse{serving(gf, append(slices.Clone(writeCommands), "predicate-read")...), runnerOf(runners, p, "write", "compact", "search")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				g := gf.in(ce)
				path, err := sortedAndFullText(ctx, g, ce.runner(p), direction, steps[direction])
				if err != nil {
					return err
				}
				tb, err = recordJavaAnswers(ctx, g, path, dir, filepath.Base(path), maintainQueries())
				return err
			}})
		consumerCasesOf(ct, impls, runners, "scenario/sorted-and-full-text", dir, "scenario/sorted-and-full-text/"+dir, docScenarioConsumers, func() *consumerTable { return tb })
	}
}

// sortedScenarioRows are new rows lo..hi of the scenario (prices with repeats and nulls, tags from
// a small set with nulls) in two regions.
func sortedScenarioRows(lo, hi int, seed uint64) []row {
	rows := pkTextRows(seed, lo, hi)
	r := rand.New(rand.NewPCG(seed, 11))
	for i, x := range rows {
		x["region"] = []string{"eu", "us"}[(lo+i)%2]
		setSortedValues(x, r)
	}
	return rows
}

func setSortedValues(x row, r *rand.Rand) {
	x["price"] = nil
	if r.IntN(8) != 0 {
		x["price"] = int64(r.IntN(40) - 5)
	}
	x["tag"] = nil
	if r.IntN(6) != 0 {
		x["tag"] = []string{"red", "green", "blue", "Blue", ""}[r.IntN(5)]
	}
}

// sortedAndFullText runs the steps on a new Java-created table and returns its path; after every
// step Java reads the model's rows, and by Java's state and Go's every full-text archive and
// every sorted payload is current; at the end every family has payloads, Java's searches equal
// Go's and Java's predicate reads over the indexed columns equal Go's (samePredicateReads).
func sortedAndFullText(ctx context.Context, g *maintainGroup, goP *Process, direction string, steps []sortedScenarioStep) (string, error) {
	name := "sorted-and-full-text-" + map[string]string{"java->go->java": "jgj", "go->java": "gj"}[direction]
	pks := []string{"region", "id"}
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content",
		"pk-btree.index.columns": "price", "pk-bitmap.index.columns": "tag"}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, name), name, sortedScenarioFields, pks, []string{"region"}, opts, nil)
	if err != nil {
		return "", err
	}
	m := newRowModel(pks)
	next := 0
	for i, st := range steps {
		r := rand.New(rand.NewPCG(uint64(i), 21))
		n := 15 + r.IntN(30)
		rows := sortedScenarioRows(next, next+n, 5000+uint64(i))
		next += n
		if len(m.rows) > 0 {
			changed := updatesAndDeletes(m, 6000+uint64(i), r.IntN(12), r.IntN(8))
			for _, x := range changed {
				if x["_rowKind"] == nil {
					setSortedValues(x, r)
				}
			}
			rows = append(rows, changed...)
		}
		if st.side == "java" {
			args := map[string]any{"path": path, "rows": rows}
			if st.full {
				args["compact"] = "full"
			}
			if err := g.proc.Call(ctx, "write", args, nil); err != nil {
				return "", fmt.Errorf("step %d (java): %w", i, err)
			}
		} else {
			if err := goWrite(ctx, goP, path, rows); err != nil {
				return "", fmt.Errorf("step %d (go): %w", i, err)
			}
			if st.full {
				if err := goCompact(ctx, goP, path); err != nil {
					return "", fmt.Errorf("step %d (go): %w", i, err)
				}
			}
		}
		m.apply(rows)
		if err := sortedRoundChecks(ctx, g, goP, path, m, i == len(steps)-1); err != nil {
			return "", fmt.Errorf("step %d (%s): %w", i, st.side, err)
		}
	}
	if err := g.sameSearchesVia(ctx, goP, path, maintainQueries(), []int{10}); err != nil {
		return "", err
	}
	return path, samePredicateReads(ctx, g, path)
}

// sortedScenarioPredicates are the filters of scenario/sorted-and-full-text's predicate reads:
// the btree column, the bitmap column, both, and the full-text column (not indexed).
var sortedScenarioPredicates = []string{
	"price = 7", "price >= 10 AND price < 20", "price IS NULL", "price <> 3",
	"tag = 'red'", "tag IN ('red', 'blue', 'Blue')", "tag IS NOT NULL", "tag = ''",
	"price > 30 OR tag = 'green'", "price < 0 AND tag IS NULL", "tag = 'blue' AND content IS NOT NULL",
}

// samePredicateReads compares Java's predicate reads (runner predicate-read: Paimon's batch read
// with the filter, planned through the sorted indexes) of the table with Go's scan with the same
// filter: the same rows, and the same files narrowed, read whole or left out. Some file must be
// narrowed by an index.
func samePredicateReads(ctx context.Context, g *maintainGroup, path string) error {
	s, err := table.Open(fileio.NewLocal(), path).LatestSchema(ctx)
	if err != nil {
		return err
	}
	narrowed := 0
	for _, expr := range sortedScenarioPredicates {
		n, _, _, err := sortedReadOne(ctx, g.proc, path, s, expr)
		if err != nil {
			return fmt.Errorf("predicate read %s: %w", expr, err)
		}
		narrowed += n
	}
	if narrowed == 0 {
		return errors.New("no predicate read was narrowed by a sorted index")
	}
	return nil
}

// sortedRoundChecks are the checks after each step: the model's rows, every archive current
// (roundChecks), and every sorted definition current by Java's state and Go's; final requires
// payloads of both sorted definitions somewhere in the table.
func sortedRoundChecks(ctx context.Context, g *maintainGroup, goP *Process, path string, m *rowModel, final bool) error {
	if err := roundChecks(ctx, g, goP, path, m, sortedScenarioFields, true); err != nil {
		return err
	}
	jd, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	if err := allSortedCurrent(jd, 2, final); err != nil {
		return fmt.Errorf("Java's state: %w", err)
	}
	gd, err := goDump(ctx, path)
	if err != nil {
		return err
	}
	if err := allSortedCurrent(gd, 2, final); err != nil {
		return fmt.Errorf("Go's state: %w", err)
	}
	return nil
}

// allSortedCurrent checks every bucket of d has definitions sorted definitions, each covering
// each of its eligible levels with exactly one payload, rejecting nothing and planning nothing;
// with requirePayloads, each definition must have a payload somewhere.
func allSortedCurrent(d *inspect.Dump, definitions int, requirePayloads bool) error {
	payloads := map[string]int{}
	columns := map[string]bool{}
	for _, b := range d.Buckets {
		where := fmt.Sprintf("partition %v bucket %d", b.Partition, b.Bucket)
		if len(b.Sorted) != definitions {
			return fmt.Errorf("%s: %d sorted definitions, want %d", where, len(b.Sorted), definitions)
		}
		for _, s := range b.Sorted {
			if s.Error != "" || len(s.Uncovered) > 0 || len(s.Rejected) > 0 || s.Plan != nil {
				return fmt.Errorf("%s: %s index on %s is not current: uncovered %v, rejected %v, plan %+v, error %q",
					where, s.IndexType, s.Column, s.Uncovered, s.Rejected, s.Plan, s.Error)
			}
			for _, grp := range s.Groups {
				if len(grp.Payloads) != 1 {
					return fmt.Errorf("%s: %s level %d has payloads %v", where, s.IndexType, grp.Level, grp.Payloads)
				}
				payloads[s.IndexType]++
				columns[s.Column] = true
			}
		}
	}
	if requirePayloads && len(columns) != definitions {
		return fmt.Errorf("only the columns %v of %d sorted definitions have payloads (%v)", slices.Sorted(maps.Keys(columns)), definitions, payloads)
	}
	return nil
}

// docScenarioSortedAndFullText describes scenario/sorted-and-full-text.
const docScenarioSortedAndFullText = "a partitioned two-bucket table with a pk-btree column (BIGINT, with nulls and repeats), a " +
	"pk-bitmap column (STRING) and the full-text column: Java writes and compacts, then Go " +
	"writes (compacting at commit) and fully compacts, then Java again; or Go does every step. " +
	"After every step Java's read and Go's equal the model, every archive is current by Java's " +
	"and Go's state, and every sorted definition of every bucket covers each eligible level " +
	"with exactly one payload and rejects nothing by Java's `PkSortedBucketIndexState` and " +
	"Go's; at the end both sorted families have payloads, Java's full-text searches equal Go's," +
	" and Java's predicate reads over the indexed columns (runner `predicate-read`: eleven " +
	"filters on the btree column, the bitmap column, both, and the unindexed full-text column) " +
	"equal Go's `Table.Scan` with `pkft.Where`: the same rows and the same files narrowed, read" +
	" whole or left out (some file narrowed by an index)."
