package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/predicate"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/arrowrows"
	"github.com/paimon-pkft/pkft/internal/types"

	"github.com/paimon-pkft/pkft/internal/fileio"
)

// sortedReadCommands are the runner commands index/sorted/predicate-read uses.
var sortedReadCommands = append(slices.Clone(tableCommands), "predicate-read")

// sortedReadPredicates are the filters of index/sorted/predicate-read: every leaf on the btree
// (price, day) and bitmap (tag) columns, AND/OR mixes, predicates with a part on the unindexed
// qty and the key id, an IN of more than 20 literals (Paimon keeps it one In leaf; fewer become
// an OR of equalities), and filters selecting nothing.
var sortedReadPredicates = []string{
	"price = 5",
	"price <> 5",
	"price < 4",
	"price <= 4",
	"price > 9",
	"price >= 9",
	"price IN (1, 3, 12)",
	"price NOT IN (0, 2, 4, 6, 8, 10, 12)",
	"price IS NULL",
	"price IS NOT NULL",
	"price IN (" + strings.Repeat("1, 2, ", 10) + "3, 4, 5)",
	"tag = 'paid'",
	"tag <> 'paid'",
	"tag IN ('new', 'sent')",
	"tag IS NULL",
	"tag IS NOT NULL",
	"day >= '2024-01-20'",
	"day = '2024-01-05' OR day = '2024-01-25'",
	"price >= 3 AND tag = 'paid'",
	"price = 2 OR tag = 'sent'",
	"(price < 3 OR price > 10) AND (tag = 'new' OR tag IS NULL)",
	"price IS NULL AND tag IS NOT NULL",
	"price = 2 OR qty = 7",
	"price > 4 AND qty < 40",
	"qty > 50",
	"id >= 30 AND price = 5",
	"price = 99",
	"price = 5 AND tag = 'nosuch'",
}

// sortedReadTable is the Java-written table of index/sorted/predicate-read: pk-btree on price
// and day, pk-bitmap on tag, an unindexed qty, two buckets, deletion vectors; written and
// compacted in several commits (with deletes) so that payloads exist on more than one level and
// deletion vectors mark deleted rows in indexed files, the last commit leaving a level-0 file.
func sortedReadTable(ctx context.Context, p *Process, dir string) (string, error) {
	steps := sortedReadSteps()
	var tsteps []tableStep
	for _, st := range steps[:len(steps)-1] {
		tsteps = append(tsteps, tableStep{rows: st.rows, compact: st.compact})
	}
	path, err := createJavaTable(ctx, p, filepath.Join(dir, "sorted-read"), "sorted-read",
		sortedReadFields, []string{"id"}, nil, sortedReadOptions(), tsteps)
	if err != nil {
		return "", err
	}
	// A write-only commit (no compaction) leaves its rows in level 0, which the batch read skips.
	err = p.Call(ctx, "write", map[string]any{"path": path, "rows": steps[len(steps)-1].rows,
		"dynamicOptions": map[string]string{"write-only": "true"}}, nil)
	return path, err
}

var sortedReadFields = []field{{"id", "INT NOT NULL"}, {"price", "INT"}, {"tag", "STRING"}, {"day", "DATE"}, {"qty", "BIGINT"}}

func sortedReadOptions() map[string]string {
	return map[string]string{
		"bucket": "2", "deletion-vectors.enabled": "true",
		"pk-btree.index.columns": "price,day", "pk-bitmap.index.columns": "tag",
		"num-sorted-run.compaction-trigger": "2",
	}
}

// sortedReadStep is one commit of the predicate-read table; the last is write-only.
type sortedReadStep struct {
	rows    []row
	compact bool
}

// sortedReadSteps are the commits of the predicate-read table, the same for the Java and the Go
// writer.
func sortedReadSteps() []sortedReadStep {
	day0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := func(from, to, round int) []row {
		var out []row
		for i := from; i < to; i++ {
			r := row{"id": i, "price": (i*7 + round) % 13, "tag": []string{"new", "paid", "sent"}[i%3],
				"day": day0.AddDate(0, 0, (i+round)%30).Format("2006-01-02"), "qty": (i*37 + round) % 100}
			if i%11 == 0 {
				r["price"] = nil
			}
			if i%17 == 0 {
				r["tag"] = nil
			}
			out = append(out, r)
		}
		return out
	}
	deletes := func(from, to int) []row {
		var out []row
		for i := from; i < to; i++ {
			out = append(out, row{"id": i, "_rowKind": "-D"})
		}
		return out
	}
	return []sortedReadStep{
		{rows: rows(0, 80, 0), compact: true},
		{rows: rows(60, 110, 1)},
		{rows: deletes(5, 15)},
		{rows: rows(100, 130, 2)},
		{rows: append(deletes(40, 45), rows(20, 35, 3)...)},
		{rows: rows(125, 140, 4)},
		{rows: append(rows(0, 3, 5), deletes(60, 62)...)},
	}
}

// sortedReadGoTable writes the predicate-read table with Go through its runner goP: create-table,
// the same commits through its write (pkft's writer, compacting at commit as Java's writer does;
// the first commit then fully compacted by its compact, the last write-only).
func sortedReadGoTable(ctx context.Context, goP *Process, dir string) (string, error) {
	return sortedReadGoTableWith(ctx, goP, filepath.Join(dir, as(goP.Name(), "sorted-read-go")), nil)
}

// sortedReadGoTableWith is sortedReadGoTable in the warehouse dir (table default.sorted_read)
// with the table options extra added.
func sortedReadGoTableWith(ctx context.Context, goP *Process, warehouse string, extra map[string]string) (string, error) {
	opts := sortedReadOptions()
	maps.Copy(opts, extra)
	var created struct {
		Path string `json:"path"`
	}
	if err := goP.Call(ctx, "create-table", map[string]any{"warehouse": warehouse, "database": "default", "table": "sorted_read",
		"fields": sortedReadFields, "primaryKeys": []string{"id"}, "partitionKeys": []string{}, "options": opts}, &created); err != nil {
		return "", fmt.Errorf("go create-table: %w", err)
	}
	path := created.Path
	steps := sortedReadSteps()
	for i, st := range steps {
		args := map[string]any{"path": path, "rows": st.rows}
		if i == len(steps)-1 {
			args["dynamicOptions"] = map[string]string{"write-only": "true"}
		}
		if err := goP.Call(ctx, "write", args, nil); err != nil {
			return "", fmt.Errorf("step %d: go write: %w", i, err)
		}
		if st.compact {
			if err := goCompact(ctx, goP, path); err != nil {
				return "", fmt.Errorf("step %d: %w", i, err)
			}
		}
	}
	return path, nil
}

// javaPredicateRead is the runner's predicate-read answer.
type javaPredicateRead struct {
	Rows      []map[string]json.RawMessage `json:"rows"`
	Splits    []javaSplitFile              `json:"splits"`
	Predicate string                       `json:"predicate"`
}

type javaSplitFile struct {
	Bucket int32      `json:"bucket"`
	File   string     `json:"file"`
	How    string     `json:"how"`
	Ranges [][2]int64 `json:"ranges"`
}

// sortedPredicateRead is index/sorted/predicate-read (java->go; go->java with goP, Go's runner:
// Go writes and compacts the same table through it, its payloads built by Go's sorted maintainer): for every filter of
// sortedReadPredicates, Go's scan of the table (pkft.Where) returns exactly the rows
// of Paimon's batch read with the same filter (ReadBuilder#withFilter, the read's
// executeFilter), and reads the same files the same way: the files Paimon's PrimaryKeyBatchScan
// turned into IndexedSplits are the files Go narrowed, with the same row ranges; the files it
// read whole Go read whole; the files in no split (pruned by statistics or no row selected) Go
// did not read. The table must exercise the family: a narrowed file, a file read whole next to
// an index filter, a level-0 file and deletion vectors.
func sortedPredicateRead(ctx context.Context, jt *javaTables, goP *Process) error {
	var path string
	var err error
	goWrites := goP != nil
	if goWrites {
		path, err = sortedReadGoTable(ctx, goP, jt.dir)
	} else {
		path, err = sortedReadTable(ctx, jt.proc, jt.dir)
	}
	if err != nil {
		return err
	}
	direction := "java->go"
	if goWrites {
		direction = "go->java"
	}
	_, err = sortedPredicateReadTable(ctx, jt, path, "index/sorted/predicate-read ("+direction+")")
	return err
}

// sortedReadBudgetOptions turn the btree's fallback scans off for the whole table and give the
// bitmap column a one-byte budget through its column's index options.
var sortedReadBudgetOptions = map[string]string{
	"btree-index.fallback-scan-max-size": "0",
	"fields.tag.pk-bitmap.index.options": `{"fallback-scan-max-size":"1 b"}`,
}

// sortedPredicateReadBudget is index/sorted/predicate-read-budget (go->java): the predicate-read
// table written by Go with sortedReadBudgetOptions; for every filter Go's rows and file reads
// equal Paimon's, whose lazy btree and bitmap readers leave the range filters unanswered within
// those budgets: the ranges on price, day and tag narrow no file (Paimon's plan and Go's), while
// equality still does.
func sortedPredicateReadBudget(ctx context.Context, jt *javaTables, goP *Process) error {
	path, err := sortedReadGoTableWith(ctx, goP, filepath.Join(jt.dir, as(goP.Name(), "sorted-read-budget")), sortedReadBudgetOptions)
	if err != nil {
		return err
	}
	byFilter, err := sortedPredicateReadTable(ctx, jt, path, "index/sorted/predicate-read-budget (go->java)")
	if err != nil {
		return err
	}
	for _, expr := range []string{"price < 4", "price >= 9", "day >= '2024-01-20'"} {
		if byFilter[expr] != 0 {
			return fmt.Errorf("%s: %d files narrowed although the fallback scans are off", expr, byFilter[expr])
		}
	}
	if byFilter["price = 5"] == 0 || byFilter["tag = 'paid'"] == 0 {
		return fmt.Errorf("equality no longer narrows within the budgets: price = 5 %d files, tag = 'paid' %d", byFilter["price = 5"], byFilter["tag = 'paid'"])
	}
	return nil
}

// sortedPredicateReadTable compares Go's and Paimon's reads of the table at path for every
// filter of sortedReadPredicates and returns, per filter, how many files Paimon narrowed.
func sortedPredicateReadTable(ctx context.Context, jt *javaTables, path, name string) (map[string]int, error) {
	s, err := table.Open(fileio.NewLocal(), path).LatestSchema(ctx)
	if err != nil {
		return nil, err
	}
	byFilter := map[string]int{}
	var errs []error
	var narrowed, wholeIndexed, absent int
	for _, expr := range sortedReadPredicates {
		n, w, a, err := sortedReadOne(ctx, jt.proc, path, s, expr)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", expr, err))
		}
		byFilter[expr] = n
		narrowed, wholeIndexed, absent = narrowed+n, wholeIndexed+w, absent+a
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := sortedReadExercised(ctx, path); err != nil {
		return nil, err
	}
	if narrowed == 0 || wholeIndexed == 0 || absent == 0 {
		return nil, fmt.Errorf("the case no longer exercises the read side: %d narrowed files, %d files read whole under an index filter, %d files not read", narrowed, wholeIndexed, absent)
	}
	report.AddNote(fmt.Sprintf("%s: %d filters; %d file reads narrowed by the sorted index, %d read whole under an index filter, %d not read (pruned or no row selected), as Java planned them",
		name, len(sortedReadPredicates), narrowed, wholeIndexed, absent))
	return byFilter, nil
}

// sortedReadOne compares Go's and Java's reads with one filter; it returns how many files Java
// narrowed, read whole under an index filter, and left out.
func sortedReadOne(ctx context.Context, p *Process, path string, s *schema.TableSchema, expr string) (narrowed, wholeIndexed, absent int, err error) {
	pr, err := predicate.Parse(expr, s.Fields)
	if err != nil {
		return 0, 0, 0, err
	}
	var j javaPredicateRead
	if err := p.Call(ctx, "predicate-read", map[string]any{"path": path, "predicate": predicateJSON(pr)}, &j); err != nil {
		return 0, 0, 0, err
	}
	var scanned pkft.ScanReport
	got, sch, err := arrowrows.Scan(ctx, path, pkft.Where(expr), pkft.WithScanReport(&scanned))
	if err != nil {
		return 0, 0, 0, err
	}
	want, err := arrowrows.CanonicalJSONRows(sch, j.Rows)
	if err != nil {
		return 0, 0, 0, err
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		return 0, 0, 0, fmt.Errorf("Go's rows differ from Java's read with %s (-java +go):\n%s", j.Predicate, d)
	}
	type read struct {
		How    string
		Ranges [][2]int64
	}
	javaFiles := map[string]read{}
	for _, f := range j.Splits {
		javaFiles[fmt.Sprintf("%d/%s", f.Bucket, f.File)] = read{f.How, f.Ranges}
	}
	goFiles := map[string]read{}
	indexed := false
	for _, f := range scanned.Files {
		switch f.How {
		case "narrowed":
			goFiles[fmt.Sprintf("%d/%s", f.Bucket, f.File)] = read{"narrowed", f.Ranges}
			indexed = true
		case "whole":
			goFiles[fmt.Sprintf("%d/%s", f.Bucket, f.File)] = read{"whole", nil}
			indexed = indexed || f.Reason != ""
		default:
			absent++
			indexed = indexed || f.How == "no-rows"
		}
	}
	if d := cmp.Diff(javaFiles, goFiles); d != "" {
		return 0, 0, 0, fmt.Errorf("Go reads other files than Java's plan for %s (-java +go; a file in neither was not read):\n%s", j.Predicate, d)
	}
	for _, f := range javaFiles {
		switch {
		case f.How == "narrowed":
			narrowed++
		case indexed:
			wholeIndexed++
		}
	}
	return narrowed, wholeIndexed, absent, nil
}

// sortedReadExercised checks the table has a level-0 file (which the batch read skips) and
// deletion vectors.
func sortedReadExercised(ctx context.Context, path string) error {
	d, err := goDump(ctx, path)
	if err != nil {
		return err
	}
	level0, dvs := false, false
	for _, b := range d.Buckets {
		for _, f := range b.DataFiles {
			level0 = level0 || f.Level == 0
		}
		for _, f := range b.IndexFiles {
			dvs = dvs || f.IndexType == "DELETION_VECTORS"
		}
	}
	if !level0 || !dvs {
		return fmt.Errorf("the table no longer exercises the read side: level-0 file %v, deletion vectors %v", level0, dvs)
	}
	return nil
}

// predicateJSON is p in the runner's predicate-read form, literals as the write command reads
// them.
func predicateJSON(p *predicate.Predicate) map[string]any {
	if p.Kind != predicate.Leaf {
		op := "and"
		if p.Kind == predicate.Or {
			op = "or"
		}
		children := make([]any, len(p.Children))
		for i, c := range p.Children {
			children[i] = predicateJSON(c)
		}
		return map[string]any{"op": op, "children": children}
	}
	lits := make([]any, len(p.Literals))
	for i, l := range p.Literals {
		lits[i] = l
		if p.Type.Root == types.RootDate {
			lits[i] = time.Unix(int64(l.(int32))*86400, 0).UTC().Format("2006-01-02")
		}
	}
	return map[string]any{"op": p.Op.String(), "field": p.Name, "literals": lits}
}
