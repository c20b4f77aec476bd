package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/search"
	"github.com/paimon-pkft/pkft/internal/table"
)

// The table-level differential (table/differential, go<->java): seeded scripts, each a random
// schema with random honoured options and a random sequence of operations, run three ways on
// three Java-created copies of the table — Java does every step, Go does every step, and the
// two alternate by seed. After every step Java's read of each copy equals the model (every key
// has exactly its latest version), and the copies read the same rows; at the end Java's
// full-text searches return the same keys on every copy, and Java's state shows every archive
// and every sorted payload current.

// tableDiffDefaultN is the number of scripts in make compat (PKFT_TABLE_DIFF_N overrides it;
// PKFT_TABLE_DIFF_SEED is the first seed, 1 by default).
const tableDiffDefaultN = 200

// tableDiffRegressionSeeds reads testdata/table-differential-seeds.txt: the seeds that found a
// divergence, which run first on every run.
func tableDiffRegressionSeeds() ([]uint64, error) {
	data, err := os.ReadFile(filepath.Join("testdata", "table-differential-seeds.txt"))
	if err != nil {
		return nil, err
	}
	var out []uint64
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		seed, err := strconv.ParseUint(line, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("table-differential-seeds.txt: %w", err)
		}
		out = append(out, seed)
	}
	return out, nil
}

// tdValue is one nullable value column of the differential's schemas: its SQL type and a
// generator of a value in the runners' JSON form and as a Go value (the model's).
type tdValue struct {
	name, sqlType string
	gen           func(r *rand.Rand) (any, any)
}

func tdValues() []tdValue {
	return []tdValue{
		{"n_int", "INT", func(r *rand.Rand) (any, any) { v := int32(r.IntN(50) - 10); return v, v }},
		{"n_big", "BIGINT", func(r *rand.Rand) (any, any) { v := r.Int64N(1<<40) - 1<<39; return v, v }},
		{"n_dbl", "DOUBLE", func(r *rand.Rand) (any, any) {
			v := math.Round(r.NormFloat64()*1e4) / 100
			if v == 0 && math.Signbit(v) {
				// Negative zero: Go's JSON writes it as -0, which the runner's JSON parser reads
				// as the integer 0, so Java's copy stored 0 (seed 7340092). As -0.0 it is a
				// double, as the writer's value is.
				return json.Number("-0.0"), v
			}
			return v, v
		}},
		{"n_bool", "BOOLEAN", func(r *rand.Rand) (any, any) { v := r.IntN(2) == 0; return v, v }},
		{"n_date", "DATE", func(r *rand.Rand) (any, any) {
			d := int32(r.IntN(3000) + 17000)
			return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02"), d
		}},
		{"n_dec", "DECIMAL(10, 2)", func(r *rand.Rand) (any, any) {
			d := binrow.Decimal{Unscaled: big.NewInt(r.Int64N(2_000_000) - 1_000_000), Scale: 2}
			return d.String(), d
		}},
		{"n_str", "STRING", func(r *rand.Rand) (any, any) {
			v := []string{"red", "green", "blue", "Blue", "", "中文"}[r.IntN(6)]
			return v, v
		}},
	}
}

// tdScript is one script of the differential.
type tdScript struct {
	seed     uint64
	keyType  keyType
	keys     []string // the key type's own key columns
	fields   []field
	pks      []string
	partKeys []string
	options  map[string]string
	values   []tdValue
	fullText bool
	sorted   int // number of sorted definitions
	// engine is the merge engine ("deduplicate", "first-row" with ignore-delete, or
	// "aggregation", see pickAggregation; "partial-update"); seqField orders a key's records by
	// the column sq (descending with seqDesc); rowKindField carries each row's kind in the column
	// rk; removeOnDelete is aggregation.remove-record-on-delete.
	engine                          string
	seqField, seqDesc, rowKindField bool
	// timeField is record-level expiry's INT field ts, set to the script's time in every row.
	timeField      bool
	removeOnDelete bool
	// partial is the partial-update mode (puIgnoreDelete, ...; "" for other engines); group the
	// value columns of its sequence group (ordered by the column pg).
	partial string
	group   []string
	steps   []tdStep
}

// tdStep is one operation: a write of rows, a full or minor compaction, or a maintenance.
type tdStep struct {
	op   string // "write", "full", "minor", "maintain"
	rows []tdRow
}

// tdRow is one written row: its kind, the runners' JSON form (what Java's and Go's runners
// write) and its values as Go types by column (what the model orders and compares by).
type tdRow struct {
	kind string
	json row
	goV  map[string]any
}

// genTableScript generates the script of seed.
func genTableScript(seed uint64) *tdScript {
	r := rand.New(rand.NewPCG(seed, 0x7ab1e))
	kts := keyTypes()
	kt := kts[r.IntN(len(kts))]
	s := &tdScript{seed: seed, keyType: kt, options: map[string]string{}}
	for _, f := range kt.fields {
		if f.Name != "v" {
			s.keys = append(s.keys, f.Name)
			s.fields = append(s.fields, f)
		}
	}
	s.pks = slices.Clone(s.keys)
	if kt.name == "bucket-key-int" {
		s.options["bucket-key"] = "a"
	}
	// Partitions: 0-2 small-cardinality columns, part of the primary key.
	for _, p := range []field{{"p_s", "STRING NOT NULL"}, {"p_i", "INT NOT NULL"}}[:r.IntN(3)] {
		s.fields = append(s.fields, p)
		s.pks = append(s.pks, p.Name)
		s.partKeys = append(s.partKeys, p.Name)
	}
	s.fields = append(s.fields, field{"kid", "INT NOT NULL"}, field{"ver", "INT NOT NULL"})
	all := tdValues()
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	s.values = all[:2+r.IntN(len(all)-1)]
	for _, v := range s.values {
		s.fields = append(s.fields, field{v.name, v.sqlType})
	}
	s.options["bucket"] = strconv.Itoa(1 + r.IntN(4))
	fns := []string{"default"}
	for _, fn := range bucketFunctions[1:] {
		if fn.accepts(kt.name) && kt.name != "composite" {
			fns = append(fns, fn.name)
		}
	}
	if fn := fns[r.IntN(len(fns))]; fn != "default" || r.IntN(2) == 0 {
		s.options["bucket-function.type"] = fn
	}
	dv := r.IntN(10) < 7
	s.engine = "deduplicate"
	switch {
	case !dv && r.IntN(3) == 0:
		// first-row refuses deletion vectors; without ignore-delete it refuses retractions.
		s.engine = "first-row"
		s.options["merge-engine"] = "first-row"
		s.options["ignore-delete"] = "true"
	case r.IntN(5) == 0:
		s.seqField = true
		s.fields = append(s.fields, field{"sq", "INT"})
		s.options["sequence.field"] = "sq"
		if r.IntN(2) == 0 {
			s.seqDesc = true
			s.options["sequence.field.sort-order"] = "descending"
		}
	}
	s.pickPartialUpdate()
	if r.IntN(5) == 0 {
		s.rowKindField = true
		s.fields = append(s.fields, field{"rk", "STRING"})
		s.options["rowkind.field"] = "rk"
	}
	if r.IntN(6) == 0 {
		s.options["compaction.force-rewrite-all-files"] = "true"
	}
	if dv {
		s.options["deletion-vectors.enabled"] = "true"
		if r.IntN(2) == 0 {
			s.fullText = true
			s.fields = append(s.fields, field{"content", "STRING"})
			s.options[pkfulltext.ColumnsOption] = "content"
			if r.IntN(3) == 0 {
				s.options[pkfulltext.FieldOptionsKey("content")] = `{"tokenizer":"ngram","ngram.min-gram":"2","ngram.max-gram":"3"}`
			}
		}
		var btree, bitmap []string
		for _, v := range s.values {
			switch {
			case r.IntN(3) != 0:
			case v.name == "n_str" || v.name == "n_bool" || r.IntN(2) == 0:
				bitmap = append(bitmap, v.name)
			default:
				btree = append(btree, v.name)
			}
		}
		if len(btree) > 0 {
			s.options["pk-btree.index.columns"] = strings.Join(btree, ",")
		}
		if len(bitmap) > 0 {
			s.options["pk-bitmap.index.columns"] = strings.Join(bitmap, ",")
		}
		s.sorted = len(btree) + len(bitmap)
	}
	if s.engine == "deduplicate" && !s.seqField {
		s.pickAggregation()
	}
	if r.IntN(3) == 0 {
		s.options["index-file-in-data-file-dir"] = "true"
	}
	if r.IntN(2) == 0 {
		s.options["file.compression"] = []string{"zstd", "snappy", "gzip", "lz4", "none"}[r.IntN(5)]
	}
	if r.IntN(3) == 0 {
		s.options["metadata.stats-mode"] = []string{"full", "counts", "none", "truncate(16)"}[r.IntN(4)]
	}
	if r.IntN(3) == 0 {
		s.options["target-file-size"] = "4 kb"
	}
	s.addExtraOptions()
	if s.engine == "aggregation" && s.timeField {
		// The expiry's time field, the same in every row, by a function whose result does not
		// depend on the grouping of a key's records.
		s.options["fields.ts.aggregate-function"] = "last_value"
	}

	live := map[int]bool{}
	keyOf := map[int]tdRow{}
	// A partial-update script's retractions may keep their key: the model says which do.
	liveModel := newTDModel(s)
	nextKid, ver := 0, 0
	steps := 3 + r.IntN(3)
	for i := 0; i < steps; i++ {
		op := "write"
		if i > 0 {
			switch x := r.IntN(10); {
			case x < 6:
			case x < 8:
				op = "full"
			case x < 9:
				op = "minor"
			default:
				op = "maintain"
			}
		}
		if op != "write" {
			s.steps = append(s.steps, tdStep{op: op})
			continue
		}
		var rows []tdRow
		for n := 3 + r.IntN(25); n > 0; n-- {
			k, _ := tdKey(r, kt, s, nextKid)
			if dupKey(keyOf, k, s) {
				continue
			}
			keyOf[nextKid] = k
			ver++
			rows = append(rows, s.firstRecord(s.row(r, "+I", k, nextKid, ver)))
			live[nextKid] = true
			nextKid++
		}
		for kid := range nextKid {
			if !live[kid] || r.IntN(5) != 0 {
				continue
			}
			ver++
			x := r.IntN(6)
			if s.seqField {
				// A delete ordered before the live record by the sequence field loses to it
				// until a compaction to the top level drops the delete: updates only.
				x = 0
			}
			switch {
			case x < 3: // update
				rows = append(rows, s.row(r, "+I", keyOf[kid], kid, ver))
			case x < 5:
				rows = append(rows, s.row(r, "-D", keyOf[kid], kid, ver))
				live[kid] = s.engine == "first-row" || (s.engine == "aggregation" && !s.removeOnDelete) // ignored, aggregated
			default: // a retraction, which deduplicate treats as a delete
				rows = append(rows, s.row(r, "-U", keyOf[kid], kid, ver))
				live[kid] = s.engine == "first-row" || s.engine == "aggregation"
			}
		}
		if s.partial != "" {
			liveModel.apply(rows)
			for kid := range live {
				_, live[kid] = liveModel.ver[kid]
			}
		}
		s.steps = append(s.steps, tdStep{op: "write", rows: rows})
	}
	return s
}

// tdKey generates a new primary key (the key type's columns and the partition columns).
func tdKey(r *rand.Rand, kt keyType, s *tdScript, kid int) (tdRow, bool) {
	j, g := kt.gen(r)
	k := tdRow{json: row{}, goV: map[string]any{}}
	for i, f := range kt.fields {
		if f.Name == "v" {
			continue
		}
		k.json[f.Name], k.goV[f.Name] = j[f.Name], g[i]
	}
	for _, p := range s.partKeys {
		if p == "p_s" {
			v := []string{"eu", "us"}[r.IntN(2)]
			k.json[p], k.goV[p] = v, v
		} else {
			v := int32(1 + r.IntN(2))
			k.json[p], k.goV[p] = v, v
		}
	}
	return k, true
}

// dupKey reports whether k's primary key equals an earlier key's (random keys of narrow types
// repeat).
func dupKey(keys map[int]tdRow, k tdRow, s *tdScript) bool {
	str := func(x tdRow) string {
		parts := make([]string, len(s.pks))
		for i, p := range s.pks {
			parts[i] = fmt.Sprint(x.goV[p])
		}
		return strings.Join(parts, "\x00")
	}
	want := str(k)
	for _, o := range keys {
		if str(o) == want {
			return true
		}
	}
	return false
}

// row is one written row for key k: the key, kid and ver, and random values (null one time in
// six; deletes carry values too, as a Java job's -D rows do).
func (s *tdScript) row(r *rand.Rand, kind string, k tdRow, kid, ver int) tdRow {
	out := tdRow{kind: kind, json: row{"_rowKind": kind}, goV: map[string]any{}}
	if s.rowKindField {
		// The kind travels in the field only; the row itself is an insert.
		out.json["_rowKind"] = "+I"
		out.json["rk"], out.goV["rk"] = kind, kind
	}
	if s.seqField {
		out.json["sq"], out.goV["sq"] = nil, nil
		if r.IntN(6) != 0 {
			v := int32(r.IntN(20))
			out.json["sq"], out.goV["sq"] = v, v
		}
	}
	if s.timeField {
		ts := int32(time.Now().Unix())
		out.json["ts"], out.goV["ts"] = ts, ts
	}
	for c, v := range k.json {
		out.json[c] = v
	}
	maps.Copy(out.goV, k.goV)
	out.json["kid"], out.goV["kid"] = kid, int32(kid)
	out.json["ver"], out.goV["ver"] = ver, int32(ver)
	for _, v := range s.values {
		if r.IntN(6) == 0 {
			out.json[v.name], out.goV[v.name] = nil, nil
			continue
		}
		out.json[v.name], out.goV[v.name] = v.gen(r)
	}
	if s.fullText {
		t := tdTexts[r.IntN(len(tdTexts))] + " " + tdTexts[r.IntN(len(tdTexts))]
		out.json["content"], out.goV["content"] = t, t
	}
	if s.partial != "" {
		s.partialRow(r, out)
	}
	return out
}

// tdTexts are the words of the full-text column; tdQueries search them.
var tdTexts = []string{"paimon lake", "apache paimon", "river delta", "lake house", "go writer", "java reader", "delta lake river"}
var tdQueries = []string{"paimon", "lake", "river delta", "writer OR reader"}

// describe is the script as printed with a divergence.
func (s *tdScript) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d: key %s, fields %v, primary key %v, partitions %v, options %v\n", s.seed, s.keyType.name, s.fields, s.pks, s.partKeys, s.options)
	for i, st := range s.steps {
		fmt.Fprintf(&b, "  step %d: %s", i, st.op)
		if st.op == "write" {
			kinds := map[string]int{}
			for _, r := range st.rows {
				kinds[r.kind]++
			}
			fmt.Fprintf(&b, " %v", kinds)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// tdModel is the model of the script's merge engine: the visible version of every live kid.
type tdModel struct {
	s   *tdScript
	ver map[int]int
	// sq is the sequence field of the visible version (nil for null).
	sq map[int]*int32
	// vals are a partial-update script's merged values by kid (JSON forms; pg as int32).
	vals map[int]map[string]any
}

func newTDModel(s *tdScript) *tdModel {
	return &tdModel{s: s, ver: map[int]int{}, sq: map[int]*int32{}, vals: map[int]map[string]any{}}
}

func (m *tdModel) apply(rows []tdRow) {
	for _, r := range rows {
		kid, ver := r.json["kid"].(int), r.json["ver"].(int)
		retract := r.kind == "-D" || r.kind == "-U"
		// RowKindFilter: ignore-delete drops both retractions, ignore-update-before -U rows.
		if m.s.options["ignore-delete"] == "true" && retract || m.s.options["ignore-update-before"] == "true" && r.kind == "-U" {
			continue
		}
		_, live := m.ver[kid]
		switch {
		case m.s.engine == "partial-update":
			m.applyPartial(r)
		case m.s.engine == "first-row":
			// ignore-delete drops retractions; the first record of a key stays.
			if !retract && !live {
				m.ver[kid] = ver
			}
		case m.s.engine == "aggregation":
			m.applyAggregation(r, kid, ver)
		case m.s.seqField:
			// Records of a key ordered by sq (nulls first, then ascending or descending), then
			// by sequence number; the last one is visible.
			var sq *int32
			if v, ok := r.goV["sq"].(int32); ok {
				sq = &v
			}
			if !live || !m.before(sq, m.sq[kid]) {
				m.ver[kid], m.sq[kid] = ver, sq
			}
		case retract:
			delete(m.ver, kid)
		default:
			m.ver[kid] = ver
		}
	}
}

// before reports whether a record with sequence field a sorts before one with b (a later
// record with an equal field sorts after).
func (m *tdModel) before(a, b *int32) bool {
	switch {
	case a == nil:
		return b != nil
	case b == nil:
		return false
	case m.s.seqDesc:
		return *a > *b
	default:
		return *a < *b
	}
}

// tableDiffRun is the table differential's run: done closes when its scripts have run, or
// stopped at the first divergence; tables are the full-text copies of the scripts that passed.
type tableDiffRun struct {
	// impl is the implementation that takes Go's steps (go, or another writer, compactor and
	// maintainer), through its runner.
	impl string
	g    *maintainGroup
	// goP is the Go runner Go's steps run through (the first worker's; each other worker starts
	// one of its own with startGo); goErr why there is none.
	goP     *Process
	goErr   error
	startGo func(ctx context.Context) (*Process, error)
	tables  tdTables
	done    <-chan struct{}
}

// casesTableDifferential registers table/differential (go<->java) as a background row for every
// implementation taking the writer, compactor and maintainer roles (Go's steps through its
// runner; <impl><->java for another): its scripts, a third of the suite's time on their own, run
// beside the other case families, which leave a core idle while they wait for their runners.
// Each run's table runner sets its done (nil when the row does not run) for
// casesTableDifferentialConsumers.
func casesTableDifferential(ct *caseTable, runs *[]*tableDiffRun) {
	impls, runners := consumerRunners(ct)
	for _, impl := range producerImpls(impls, Writer, Compactor, Maintainer) {
		run := &tableDiffRun{impl: impl}
		*runs = append(*runs, run)
		// The scripts take longer than the ten minutes a case gets.
		ct.add(caseRow{Name: "table/differential", Direction: as(impl, "go<->java"), Doc: docTableDifferential,
			Sides:      []caseSide{side(impl, Writer, Compactor, Maintainer, Consumer), side("java", Writer, Compactor, Consumer)},
			Background: 30 * time.Minute, Done: &run.done,
			Start: func(t *testing.T) func(context.Context) error {
				run.g = startGroup(t)
				run.goP, run.goErr = producerRunner(t, runners, impl, tdGoCommands...)
				run.startGo = func(ctx context.Context) (*Process, error) {
					r := runners[impl]
					return r.impl.Start(ctx, r.root)
				}
				return func(ctx context.Context) error {
					summary, err := run.scripts(ctx)
					if err == nil {
						t.Log(summary)
					}
					return err
				}
			}})
	}
}

// scripts generates and runs the differential's scripts; the summary says what they covered.
func (run *tableDiffRun) scripts(ctx context.Context) (string, error) {
	if err := run.g.need(ctx, writeCommands...); err != nil {
		return "", err
	}
	n, first := tableDiffDefaultN, uint64(1)
	if v := os.Getenv("PKFT_TABLE_DIFF_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			return "", fmt.Errorf("PKFT_TABLE_DIFF_N=%q: %w", v, err)
		}
	}
	if v := os.Getenv("PKFT_TABLE_DIFF_SEED"); v != "" {
		var err error
		if first, err = strconv.ParseUint(v, 10, 64); err != nil {
			return "", fmt.Errorf("PKFT_TABLE_DIFF_SEED=%q: %w", v, err)
		}
	}
	seeds, err := tableDiffRegressionSeeds()
	if err != nil {
		return "", err
	}
	for i := range n {
		if seed := first + uint64(i); !slices.Contains(seeds, seed) {
			seeds = append(seeds, seed)
		}
	}
	// The rotating share (rotate_test.go), unless PKFT_TABLE_DIFF_N chose the scripts.
	if os.Getenv("PKFT_TABLE_DIFF_N") == "" {
		for i := range uint64(tableDiffRotating) {
			if seed := rotateSeed + i; !slices.Contains(seeds, seed) {
				seeds = append(seeds, seed)
			}
		}
	}
	ops, engines := map[string]int{}, map[string]int{}
	scripts := make([]*tdScript, len(seeds))
	for i, seed := range seeds {
		s := genTableScript(seed)
		for _, st := range s.steps {
			ops[st.op]++
		}
		engines[s.engine]++
		scripts[i] = s
	}
	if run.goErr != nil {
		return "", run.goErr
	}
	if err := runTableScripts(ctx, run.g, run.goP, run.startGo, scripts, tableDiffWorkers, &run.tables); err != nil {
		return "", err
	}
	optionsSeen := tdOptionsSeen(scripts)
	keys := slices.Sorted(maps.Keys(optionsSeen))
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s(%d)", k, len(optionsSeen[k]))
	}
	unset := "none"
	if missing := tdUnexercised(optionsSeen); len(missing) > 0 {
		unset = strings.Join(missing, ", ")
	}
	return fmt.Sprintf("table/differential: %d scripts, 0 divergences; %d distinct options exercised (values):%s; honoured keys no script set: %s; merge engines %v; operations %v",
		len(seeds), len(keys), b.String(), unset, engines, ops), nil
}

// casesTableDifferentialConsumers registers table/differential/{read,search}
// (go<->java-><consumer>): every consumer implementation reads and searches every full-text copy
// of every script of run as Java does, once the scripts are done.
func casesTableDifferentialConsumers(ct *caseTable, runs []*tableDiffRun) {
	impls, runners := consumerRunners(ct)
	root, err := RepoRoot()
	if err != nil {
		ct.errorf("%v", err)
		return
	}
	for _, run := range runs {
		casesTableDifferentialConsumersOf(ct, run, impls, runners, root)
	}
}

// casesTableDifferentialConsumersOf registers the consumer rows of one run of the differential.
func casesTableDifferentialConsumersOf(ct *caseTable, run *tableDiffRun, impls []Impl, runners map[string]*implRunner, root string) {
	var tables tdTables
	var wait sync.Once
	// The rows wait, before their time starts, for the background scripts.
	waitScripts := func() {
		wait.Do(func() {
			if run.done != nil {
				<-run.done
				tables.tables = run.tables.all()
			}
		})
	}
	for _, cons := range impls {
		for _, cmd := range []string{"read", "search"} {
			if cons.Name == GoName && cmd == "search" {
				// Go's search of every copy is compared with Java's, hit for hit with positions,
				// by the differential's own step (sameSearch); asking the Go runner again here
				// would add minutes to make compat and check nothing new. Its read of every copy
				// (every merge engine, sequence.field) is checked here.
				continue
			}
			ct.add(caseRow{Name: "table/differential/" + cmd, Direction: as(run.impl, "go<->java->") + cons.Name, Doc: docScenarioConsumers,
				Sides: []caseSide{side(cons.Name, Consumer)}, Needs: []string{"table/differential/" + as(run.impl, "go<->java")}, Before: waitScripts,
				Run: func(ctx context.Context, ce *caseEnv) error {
					recorded := tables.all()
					if len(recorded) == 0 {
						return errors.New("table/differential did not pass: no tables to read")
					}
					known := 0
					for _, tb := range recorded {
						err := consumerCase(ctx, ce.T, runners[cons.Name], cmd, tb, root)
						var o outcome
						switch {
						case errors.As(err, &o) && o.status == KnownUpstream:
							known++
						case err != nil:
							return fmt.Errorf("%s: %w", tb.id(), err)
						}
					}
					if known == len(recorded) {
						return outcome{KnownUpstream, fmt.Sprintf("every one of the %d tables shows a documented bug", known)}
					}
					report.AddNote(fmt.Sprintf("table/differential/%s (%s): %d full-text tables of the differential, %d of them the documented known-upstream bug of their options or key types",
						cmd, cons.Name, len(recorded), known))
					return nil
				}})
		}
	}
}

// tdTables collects the full-text copies of the differential with Java's answers, for the
// consumer cases.
type tdTables struct {
	mu     sync.Mutex
	tables []*consumerTable
}

func (t *tdTables) add(tb *consumerTable) {
	t.mu.Lock()
	t.tables = append(t.tables, tb)
	t.mu.Unlock()
}

func (t *tdTables) all() []*consumerTable {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := slices.Clone(t.tables)
	slices.SortFunc(out, func(a, b *consumerTable) int { return strings.Compare(a.name, b.name) })
	return out
}

// tdGoCommands are the Go runner's commands the differential's Go steps use.
var tdGoCommands = []string{"write", "compact", "minor-compact", "maintain"}

// tableDiffWorkers is how many scripts run at once, each worker with its own Java runner.
const tableDiffWorkers = 2

// runTableScripts runs the scripts on workers pairs of runner processes: Java's (g's and
// workers-1 more) and Go's (goP and workers-1 more from startGo; Go's steps run through pkft's
// runner, as another implementation's would). The first divergence in script order is returned
// with its script.
func runTableScripts(ctx context.Context, g *maintainGroup, goP *Process, startGo func(context.Context) (*Process, error), scripts []*tdScript, workers int, tables *tdTables) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(scripts))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gw := *g
			if w > 0 {
				p, err := StartJava(ctx)
				if err != nil {
					for i := range next {
						errs[i] = fmt.Errorf("start a second Java runner: %w", err)
					}
					return
				}
				defer p.Close()
				gw.proc = p
			}
			goW := goP
			if w > 0 {
				p, err := startGo(ctx)
				if err != nil {
					for i := range next {
						errs[i] = fmt.Errorf("start a second Go runner: %w", err)
					}
					return
				}
				defer p.Close()
				goW = p
			}
			for i := range next {
				if err := runTableScript(ctx, &gw, goW, scripts[i], tables); err != nil {
					errs[i] = fmt.Errorf("%w\n%s", err, scripts[i].describe())
					cancel()
				}
			}
		}()
	}
feed:
	for i := range scripts {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	// A divergence cancels the other worker's script: report the first error that is not that.
	var cancelled error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled):
			cancelled = cmp.Or(cancelled, err)
		default:
			return err
		}
	}
	return cmp.Or(cancelled, ctx.Err())
}

// runTableScript runs one script on its three copies; a full-text script's copies join tables
// with Java's answers.
func runTableScript(ctx context.Context, g *maintainGroup, goP *Process, s *tdScript, tables *tdTables) error {
	sides := []string{"java", "go", "alternating"}
	// Java creates the table once; the copies are copies of its directory (a table is its path).
	name := fmt.Sprintf("td-%d", s.seed)
	opts := map[string]string{}
	for k, v := range s.options {
		opts[k] = strings.ReplaceAll(v, tdExtDir, filepath.Join(g.dir, "table-differential", name+"-external"))
	}
	created, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "table-differential", name), name, s.fields, s.pks, s.partKeys, opts, nil)
	if err != nil {
		return fmt.Errorf("seed %d: create: %w", s.seed, err)
	}
	paths := map[string]string{}
	for _, side := range sides {
		paths[side] = created + "-" + side
		if err := os.CopyFS(paths[side], os.DirFS(created)); err != nil {
			return err
		}
	}
	model := newTDModel(s)
	read := map[string][]string{} // each copy's last read
	for i, st := range s.steps {
		changed := map[string]bool{}
		for _, side := range sides {
			who := side
			if side == "alternating" {
				who = []string{"java", "go"}[(s.seed+uint64(i))%2]
			}
			if who == "java" && st.op != "write" && st.op != "full" {
				continue // not a step of Java's: the copy is unchanged
			}
			changed[side] = true
			if err := s.runStep(ctx, g, goP, who, paths[side], st); err != nil {
				return fmt.Errorf("seed %d step %d (%s by %s on the %s copy): %w", s.seed, i, st.op, who, side, err)
			}
		}
		model.apply(st.rows)
		var javaRows []string
		for _, side := range sides {
			if !changed[side] {
				if side == "java" {
					javaRows = read[side]
				}
				continue
			}
			rows, err := s.checkModel(ctx, g, paths[side], model)
			if err != nil {
				return fmt.Errorf("seed %d step %d (%s), %s copy: %w", s.seed, i, st.op, side, err)
			}
			read[side] = rows
			if side == "java" {
				javaRows = rows
			} else if !slices.Equal(rows, javaRows) {
				return fmt.Errorf("seed %d step %d (%s): the %s copy reads other rows than the Java copy:\n  %s\nJava:\n  %s",
					s.seed, i, st.op, side, strings.Join(rows, "\n  "), strings.Join(javaRows, "\n  "))
			}
		}
	}
	if err := s.finalChecks(ctx, g, goP, sides, paths, read); err != nil {
		return err
	}
	if s.fullText {
		for _, side := range sides {
			tb, err := recordJavaAnswers(ctx, g, paths[side], "differential", filepath.Base(paths[side]), tdQueries)
			if err != nil {
				// A copy whose rows are all deleted is no table to read.
				if len(model.ver) == 0 {
					continue
				}
				return fmt.Errorf("seed %d, %s copy: %w", s.seed, side, err)
			}
			tables.add(tb)
		}
	}
	return nil
}

// runStep runs one step on a copy as who ("java" or "go") would: Java's writer and full
// compaction through the Java runner; Go's writer, full and minor compaction and maintenance
// through Go's runner (goP: write, compact, minor-compact, maintain). Java's writer maintains
// the indexes at every commit, so a minor compaction or a maintenance is no step of Java's.
func (s *tdScript) runStep(ctx context.Context, g *maintainGroup, goP *Process, who, path string, st tdStep) error {
	p := g.proc
	if who == "go" {
		p = goP
	}
	switch {
	case st.op == "write":
		rows := make([]row, len(st.rows))
		for i, r := range st.rows {
			rows[i] = r.json
		}
		return p.Call(ctx, "write", map[string]any{"path": path, "rows": rows}, nil)
	case st.op == "full":
		return p.Call(ctx, "compact", map[string]any{"path": path}, nil)
	case who == "java":
		return nil
	case st.op == "minor":
		return p.Call(ctx, "minor-compact", map[string]any{"path": path}, nil)
	case st.op == "maintain":
		if !s.fullText && s.sorted == 0 {
			return nil
		}
		return p.Call(ctx, "maintain", map[string]any{"path": path}, nil)
	}
	return fmt.Errorf("unknown step %q", st.op)
}

// checkModel reads the copy with Java and checks each live kid appears once with its latest
// version and nothing else appears; it returns the rows in a canonical form, ordered by kid.
func (s *tdScript) checkModel(ctx context.Context, g *maintainGroup, path string, model *tdModel) ([]string, error) {
	rows, err := javaRead(ctx, g.proc, path)
	if err != nil {
		return nil, err
	}
	got := map[int]int{}
	type keyed struct {
		kid int
		s   string
	}
	var out []keyed
	for _, r := range rows {
		kid, kok := r["kid"].(float64)
		ver, vok := r["ver"].(float64)
		if !kok || !vok {
			return nil, fmt.Errorf("Java read a row without kid/ver: %v", r)
		}
		if _, dup := got[int(kid)]; dup {
			return nil, fmt.Errorf("Java reads kid %d twice (a key in two buckets or levels): %v", int(kid), r)
		}
		got[int(kid)] = int(ver)
		b, _ := json.Marshal(r)
		out = append(out, keyed{int(kid), string(b)})
	}
	if !maps.Equal(got, model.ver) {
		var diff []string
		for kid, ver := range model.ver {
			if got[kid] != ver {
				diff = append(diff, fmt.Sprintf("kid %d: model ver %d, Java %d", kid, ver, got[kid]))
			}
		}
		for kid, ver := range got {
			if _, ok := model.ver[kid]; !ok {
				diff = append(diff, fmt.Sprintf("kid %d: not in the model, Java ver %d", kid, ver))
			}
		}
		slices.Sort(diff)
		return nil, fmt.Errorf("Java's read differs from the model: %s", strings.Join(diff, "; "))
	}
	if s.partial != "" {
		for _, r := range rows {
			if err := model.checkPartialValues(int(r["kid"].(float64)), r); err != nil {
				return nil, fmt.Errorf("Java's read differs from the model's partial-update merge: %w", err)
			}
		}
	}
	slices.SortFunc(out, func(a, b keyed) int { return a.kid - b.kid })
	res := make([]string, len(out))
	for i, k := range out {
		res[i] = k.s
	}
	return res, nil
}

// finalChecks: every copy's full-text archives and sorted payloads are current by Java's state
// (after a maintenance of the Go copy, which must find nothing to do), and on every copy Java's
// searches find only live rows, with their current text, and the same rows as Go's search. (The
// copies' hits differ: which rows are indexed depends on the layout, and Java's compaction picks
// by file sizes, which differ between Go's and Java's Parquet files.) live holds each copy's
// last read rows (JSON).
func (s *tdScript) finalChecks(ctx context.Context, g *maintainGroup, goP *Process, sides []string, paths map[string]string, live map[string][]string) error {
	if !s.fullText && s.sorted == 0 {
		return nil
	}
	for _, side := range sides {
		d, err := javaDump(ctx, g.proc, paths[side])
		if err != nil {
			return err
		}
		if s.fullText {
			if err := allCurrent(d); err != nil {
				return fmt.Errorf("seed %d, %s copy: Java's full-text state: %w", s.seed, side, err)
			}
		}
		if err := allSortedCurrent(d, s.sorted, false); err != nil {
			return fmt.Errorf("seed %d, %s copy: Java's sorted state: %w", s.seed, side, err)
		}
	}
	var res struct {
		Before int64 `json:"snapshotBefore"`
		After  int64 `json:"snapshotAfter"`
	}
	if err := goP.Call(ctx, "maintain", map[string]any{"path": paths["go"]}, &res); err != nil {
		return fmt.Errorf("seed %d: maintain of the Go copy: %w", s.seed, err)
	}
	if res.After != res.Before {
		return fmt.Errorf("seed %d: a maintenance after Go's steps still committed snapshot %d", s.seed, res.After)
	}
	if !s.fullText {
		return nil
	}
	for _, side := range sides {
		if err := s.sameSearch(ctx, g, paths[side], live[side]); err != nil {
			return fmt.Errorf("seed %d, %s copy: %w", s.seed, side, err)
		}
	}
	return nil
}

// sameSearch runs the queries on the copy at path with Java's read path and Go's search: every
// Java hit is a live row of rows (Java's last read, JSON) with its current text, and Go finds
// the same rows (bucket, file, position) in the same order with the same scores and texts.
func (s *tdScript) sameSearch(ctx context.Context, g *maintainGroup, path string, rows []string) error {
	text := map[string]any{}
	for _, line := range rows {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return err
		}
		text[tdKeyJSON(r, s.pks)] = r["content"]
	}
	tbl := table.Open(fileio.NewLocal(), path)
	for _, q := range tdQueries {
		var j javaRankedResult
		if err := g.proc.Call(ctx, "search", map[string]any{"path": path, "query": q, "limit": 1000, "ranked": true}, &j); err != nil {
			return fmt.Errorf("java search %q: %w", q, err)
		}
		res, err := search.Search(ctx, tbl, search.Request{Query: q, Limit: 1000}, search.Options{Engine: g.engine})
		if err != nil {
			return fmt.Errorf("go search %q: %w", q, err)
		}
		if len(res.Results) != len(j.Results) {
			return fmt.Errorf("search %q: Go finds %d rows, Java %d", q, len(res.Results), len(j.Results))
		}
		for i, jr := range j.Results {
			k := tdKeyJSON(jr.Key, s.pks)
			want, ok := text[k]
			jText, err := jr.TextString()
			if err != nil {
				return fmt.Errorf("search %q: Java's hit %d: %w", q, i, err)
			}
			if !ok || jText == nil || want != *jText {
				return fmt.Errorf("search %q: Java's hit %d, key %s with text %q, is not a live row with that text (live text %v)", q, i, k, deref(jText), want)
			}
			gr := res.Results[i]
			jBucket, jPos := rankedPosition(jr)
			if gr.Bucket != jBucket || gr.DataFile != jr.DataFile || gr.RowPosition != jPos ||
				math.Abs(float64(gr.Score)-float64(jr.Score)) > 1e-5*math.Max(math.Abs(float64(gr.Score)), math.Abs(float64(jr.Score))) {
				return fmt.Errorf("search %q: hit %d: Go row (bucket %d, %s, %d) score %v, Java row (bucket %d, %s, %d) score %v",
					q, i, gr.Bucket, gr.DataFile, gr.RowPosition, gr.Score, jBucket, jr.DataFile, jPos, jr.Score)
			}
		}
	}
	return nil
}

// tdKeyJSON is the primary key of a row (Java's JSON forms) as one comparable string.
func tdKeyJSON(r map[string]any, pks []string) string {
	k := make(map[string]any, len(pks))
	for _, p := range pks {
		k[p] = r[p]
	}
	b, _ := json.Marshal(k)
	return string(b)
}

// docTableDifferential describes table/differential.
const docTableDifferential = "the table-sized sibling of the maintainer differential: 200 seeded scripts " +
	"(`PKFT_TABLE_DIFF_N`, first seed `PKFT_TABLE_DIFF_SEED`; the seeds in " +
	"`compat/runner/testdata/table-differential-seeds.txt` run first, and once when the range " +
	"holds them too), each a random schema (a key of one of the `bucket/hash` key types, 0-2 " +
	"partition keys, nullable INT, BIGINT, DOUBLE, BOOLEAN, DATE, DECIMAL and STRING values) " +
	"with random honoured options (1-4 buckets, bucket function, deletion vectors, the " +
	"full-text column and analyzer, pk-btree and pk-bitmap columns, the deduplicate, first-row " +
	"(with `ignore-delete`) or partial-update merge engine (with `ignore-delete`, " +
	"`partial-update.remove-record-on-delete`, or a `fields.pg.sequence-group` over random " +
	"value columns, with or without `partial-update.remove-record-on-sequence-group`; nulls in " +
	"its rows mean \"unchanged\", and the model checks every merged value), `sequence.field` in " +
	"either `sequence.field.sort-order`, `rowkind.field`, `compaction.force-rewrite-all-files`," +
	" `index-file-in-data-file-dir`, compression, stats mode, a small `target-file-size`) and " +
	"3-5 operations (batches of inserts, updates, deletes and retractions; full and minor " +
	"compactions; maintenance). Each script runs on three copies of one Java-created table: " +
	"Java does every step, Go does every step (through its runner, `compat/go`: `write`, `compact`, " +
	"`minor-compact`, `maintain`, one runner per worker), and the two alternate by seed (Java has no step " +
	"for a minor compaction or a maintenance: its writer does both at every commit). After " +
	"every step Java's read of each copy holds exactly the model's latest version of every live" +
	" key (a key in two buckets shows twice) and the three copies read the same rows; at the " +
	"end Java's state shows every archive and every sorted payload of every copy current, a Go " +
	"maintenance finds nothing left to do, and on every copy Java's full-text searches find " +
	"only live rows with their current text, and exactly the rows (in order, with the scores) " +
	"Go's search finds. The copies' hits are not compared with each other: which rows are " +
	"indexed depends on the layout, and Java's universal compaction picks by file sizes, which " +
	"differ between Go's and Java's Parquet files (seed 19 showed it: Java's own write moved a " +
	"level-0 file up unindexed on the copy whose top level Go had written). A divergence prints" +
	" the seed, the script and the first diverging step. The distinct options and the merge " +
	"engines exercised are printed. One script in four of a deduplicate table without sequence " +
	"field uses the aggregation engine (kid and ver by `primary-key`, the value columns by " +
	"functions whose result does not depend on how the copies group a key's records, " +
	"`ignore-retract` where they have no retraction; one in three of those with " +
	"`aggregation.remove-record-on-delete`). A second layer of options, drawn from its own " +
	"generator, sets every honoured key the choices above leave unset one script in five " +
	"(external data and index paths, manifest and write-buffer options, rolling, compaction " +
	"picking, lookup, statistics, thin mode, the sorted indexes' format and fallback options, " +
	"`record-level.expire-time` over a time field every row fills with the script's time, so " +
	"that nothing expires within a run); `TestTableDifferentialVariesEveryHonouredKey` checks, " +
	"without a JVM, that the 200 default seeds set every honoured key but " +
	"`data-file.external-paths.specific-fs` (an s3 or oss strategy), and the case prints the " +
	"keys no script set. Gentle lookup compaction and `write-only` are drawn only for tables " +
	"that do not need lookup (their rows would wait on level 0, which such a table's batch read" +
	" skips). The scripts run on two workers with a JVM each, in the background from the " +
	"suite's start, beside the other case families: the case is a parallel subtest that starts " +
	"them before it pauses and reports them (with their own wall time) once the sequential " +
	"cases are done, and `table/differential/{read,search}` wait for them."
