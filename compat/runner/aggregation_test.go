package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/pkfulltext"
)

// The aggregation merge engine's conformance tables (issue 18): write/aggregation (go->java,
// java-after-go) and write/same-files/aggregation[-remove-on-delete] (go<->java). The functions
// are chosen so that a key's result does not depend on how the writers and compactions group
// its records (Java's own layout decides that), which lets one sequential model stand for both.

// aggFields are the columns of the aggregation tables.
func aggFields() []field {
	return []field{{"id", "INT NOT NULL"}, {"content", "STRING"}, {"total", "BIGINT"}, {"cnt", "INT"}, {"hi", "INT"},
		{"lo", "DATE"}, {"tags", "STRING"}, {"first", "STRING"}}
}

// aggOptions are the options of an aggregation table with a full-text column on deletion
// vectors: content last_value, total and cnt sum (retractions subtract), hi max, lo min, tags
// distinct listagg with '|' and first first_non_null_value, the last four ignoring
// retractions. With removeOnDelete (which conflicts with ignore-retract) a DELETE removes the
// key and hi, lo, tags and first are last_value (the table default).
func aggOptions(removeOnDelete bool) map[string]string {
	o := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content",
		"merge-engine": "aggregation", "fields.content.aggregate-function": "last_value",
		"fields.total.aggregate-function": "sum", "fields.cnt.aggregate-function": "sum"}
	if removeOnDelete {
		o["aggregation.remove-record-on-delete"] = "true"
		o["fields.default-aggregate-function"] = "last_value"
		return o
	}
	for k, v := range map[string]string{"hi": "max", "lo": "min", "tags": "listagg", "first": "first_non_null_value"} {
		o["fields."+k+".aggregate-function"] = v
		o["fields."+k+".ignore-retract"] = "true"
	}
	o["fields.tags.list-agg-delimiter"] = "|"
	o["fields.tags.distinct"] = "true"
	return o
}

// aggModel is the rows an aggregation table holds: each key's fields folded in arrival order.
type aggModel struct {
	*rowModel
	removeOnDelete bool
	// retired keys were removed by a DELETE; they are never written again.
	retired map[string]bool
}

func newAggModel(removeOnDelete bool) *aggModel {
	return &aggModel{rowModel: newRowModel([]string{"id"}), removeOnDelete: removeOnDelete, retired: map[string]bool{}}
}

func (m *aggModel) apply(rows []row) {
	for _, r := range rows {
		k := m.key(r)
		kind, _ := r["_rowKind"].(string)
		if m.removeOnDelete && kind == "-D" {
			delete(m.rows, k)
			m.retired[k] = true
			continue
		}
		retract := kind == "-D" || kind == "-U"
		acc, ok := m.rows[k]
		if !ok {
			acc = row{"id": r["id"]}
		}
		for _, f := range aggFields()[1:] {
			acc[f.Name] = m.fold(f.Name, acc[f.Name], r[f.Name], retract)
		}
		m.rows[k] = acc
	}
}

// fold is one field's function over the accumulator and an input, as aggOptions configures it.
func (m *aggModel) fold(name string, acc, in any, retract bool) any {
	num := func(v any) int64 {
		switch x := v.(type) {
		case int:
			return int64(x)
		case int64:
			return x
		}
		return 0
	}
	switch {
	case name == "total" || name == "cnt":
		if in == nil {
			return acc
		}
		n := num(in)
		if retract {
			n = -n
		}
		if acc == nil {
			if name == "cnt" {
				return int(n)
			}
			return n
		}
		if name == "cnt" {
			return int(num(acc) + n)
		}
		return num(acc) + n
	case name == "content" || m.removeOnDelete:
		if retract {
			return nil
		}
		return in
	case retract || in == nil:
		return acc
	case acc == nil:
		return in
	}
	switch name {
	case "hi":
		return max(acc.(int), in.(int))
	case "lo":
		return min(acc.(string), in.(string)) // ISO dates order as strings
	case "tags":
		have := strings.Split(acc.(string), "|")
		out := acc.(string)
		for _, t := range strings.Split(in.(string), "|") {
			if !slices.Contains(have, t) {
				have = append(have, t)
				out += "|" + t
			}
		}
		return out
	}
	return acc // first
}

// aggRows are new rows lo..hi-1, then for some live keys an update (-U with values, +U) and
// for others a retraction (-D or -U alone, with values).
func aggRows(m *aggModel, seed uint64, lo, hi, update, del int) []row {
	r := rand.New(rand.NewPCG(seed, 0xa66))
	texts := pkTextRows(seed, 0, hi-lo+update+1)
	words := []string{"red", "green", "blue", "amber"}
	values := func(id any, i int) row {
		out := row{"id": id, "content": texts[i]["content"]}
		for _, c := range []struct {
			name string
			gen  func() any
		}{
			{"total", func() any { return r.Int64N(1<<40) - 1<<39 }},
			{"cnt", func() any { return r.IntN(100) - 20 }},
			{"hi", func() any { return r.IntN(1000) }},
			{"lo", func() any { return time.Unix(int64(17000+r.IntN(3000))*86400, 0).UTC().Format("2006-01-02") }},
			{"tags", func() any {
				a, b := words[r.IntN(len(words))], words[r.IntN(len(words))]
				if a == b {
					return a
				}
				return a + "|" + b
			}},
			{"first", func() any { return words[r.IntN(len(words))] }},
		} {
			if r.IntN(5) == 0 {
				out[c.name] = nil
			} else {
				out[c.name] = c.gen()
			}
		}
		return out
	}
	var out []row
	for id := lo; id < hi; id++ {
		v := values(id, id-lo)
		v["_rowKind"] = "+I"
		out = append(out, v)
	}
	keys := make([]string, 0, len(m.rows))
	for k := range m.rows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for i := 0; i < update+del && i < len(keys); i++ {
		id := m.rows[keys[i]]["id"]
		before := values(id, hi-lo+i%max(update, 1))
		switch {
		case i < update:
			before["_rowKind"] = "-U"
			after := values(id, hi-lo+i)
			after["_rowKind"] = "+U"
			out = append(out, before, after)
		case i%3 == 0:
			before["_rowKind"] = "-U"
			out = append(out, before)
		default:
			before["_rowKind"] = "-D"
			out = append(out, before)
		}
	}
	return out
}

// aggregationWrites is write/aggregation go->java: on a Java-created full-text table with
// merge-engine = aggregation on deletion vectors (see aggOptions), Go writes new rows, then
// updates (-U and +U with values) and lone retractions of existing keys with new rows, a batch
// holding a new key twice, and compacts fully. After each step Java reads the model's rows
// (every field aggregated as Java's AggregateMergeFunction does), every archive is current by
// Java's state and Java's searches equal Go's.
func aggregationWrites(ctx context.Context, g *maintainGroup, e *engineTable) error {
	e.fields = aggFields()
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "aggregation"), "aggregation", e.fields, []string{"id"}, nil, aggOptions(false), nil)
	if err != nil {
		return err
	}
	m := newAggModel(false)
	e.model, e.fullText, e.apply = m.rowModel, true, m.apply
	e.more = func(n uint64) []row {
		lo := 400 + 40*int(n)
		return aggRows(m, 170+n, lo, lo+40, 20, 10)
	}
	e.path = path
	err = e.steps(ctx, g, []string{"the first write", "the updates and retractions", "the duplicated batch", "the full compaction"}, func(i int) []row {
		switch i {
		case 0:
			return aggRows(m, 161, 0, 150, 0, 0)
		case 1:
			return aggRows(m, 162, 150, 200, 40, 20)
		case 2:
			return append(aggRows(m, 163, 200, 230, 10, 5), aggRows(m, 164, 200, 230, 0, 0)...)
		}
		return aggRows(m, 165, 230, 260, 10, 10)
	})
	if err != nil {
		e.path = ""
	}
	return err
}

// aggregationSameFiles are the write/same-files variants of the aggregation engine: aggregation
// (aggOptions) and aggregation-remove-on-delete (with aggregation.remove-record-on-delete).
func aggregationSameFiles() []sameFilesVariant {
	variant := func(name string, removeOnDelete bool) sameFilesVariant {
		opts := aggOptions(removeOnDelete)
		// The universal compaction picks by file sizes (size amplification, the size ratio of
		// the forced level-0 pick), and files of these wide rows of few records are mostly
		// Parquet's per-column overhead, where Go's and Java's files differ a little: with a
		// huge size ratio every commit's compaction takes every run (the level-0 records merge
		// with the top level's through the lookup merge), whatever the sizes. write/aggregation
		// and table/differential cover the lookups into higher levels.
		opts["compaction.max-size-amplification-percent"] = "100000"
		opts["compaction.size-ratio"] = "100000"
		return sameFilesVariant{name, aggFields(), opts, func() (*rowModel, func([]row), func(int) []row) {
			m := newAggModel(removeOnDelete)
			next := 0
			return m.rowModel, m.apply, func(step int) []row {
				n, upd, del := 120, 0, 0
				if step > 0 {
					n, upd, del = 15, 10, 6
				}
				next += n
				return aggRows(m, uint64(1500+step), next-n, next, upd, del)
			}
		}}
	}
	return []sameFilesVariant{variant("aggregation", false), variant("aggregation-remove-on-delete", true)}
}

// pickAggregation makes one script in four of a deduplicate table without a sequence field an
// aggregation table (from its own random source, so the other scripts of a seed stay as they
// were): kid and ver take the primary-key function (the last record's value, retraction or not,
// so the model's visible version is the last record's), every other column a function whose
// result does not depend on how writes and compactions group a key's records (the copies'
// layouts differ), with ignore-retract where the function has no retraction; one aggregation
// script in three sets aggregation.remove-record-on-delete (which forbids ignore-retract: sums
// and last_value only), and then a DELETE removes the key for good.
func (s *tdScript) pickAggregation() {
	r := rand.New(rand.NewPCG(s.seed, 0xa66e))
	if r.IntN(4) != 0 {
		return
	}
	s.engine = "aggregation"
	o := s.options
	o["merge-engine"] = "aggregation"
	s.removeOnDelete = r.IntN(3) == 0
	if s.removeOnDelete {
		o["aggregation.remove-record-on-delete"] = "true"
	}
	def := ""
	if r.IntN(2) == 0 {
		def = "last_value"
		o["fields.default-aggregate-function"] = def
	}
	set := func(col, fn string, ignoreRetract bool) {
		if fn != def {
			o["fields."+col+".aggregate-function"] = fn
		}
		if ignoreRetract && !s.removeOnDelete {
			o["fields."+col+".ignore-retract"] = "true"
		}
	}
	set("kid", "primary-key", false)
	set("ver", "primary-key", false)
	if s.rowKindField {
		set("rk", "last_value", false)
	}
	// Each column's choices; a function with an ignore-retract flag has no retraction.
	type choice struct {
		fn     string
		ignore bool
	}
	lv := choice{"last_value", false}
	sum, mx, mn := choice{"sum", false}, choice{"max", true}, choice{"min", true}
	choices := map[string][]choice{
		"n_int":  {sum, mx, mn, lv},
		"n_big":  {sum, mx, mn, lv},
		"n_dbl":  {mx, mn, lv},
		"n_bool": {{"bool_and", true}, {"bool_or", true}, lv},
		"n_date": {mx, mn, lv, {"first_non_null_value", true}},
		"n_dec":  {sum, mx, mn},
		"n_str":  {lv, {"first_value", true}, mn},
		// The text is never blank, so listagg's joins do not depend on the grouping either.
		"content": {lv, {"last_non_null_value", true}, {"listagg", true}},
	}
	cols := make([]string, 0, len(s.values)+1)
	for _, v := range s.values {
		cols = append(cols, v.name)
	}
	if s.fullText {
		cols = append(cols, "content")
	}
	for _, col := range cols {
		cs := choices[col]
		if s.removeOnDelete {
			cs = slices.DeleteFunc(slices.Clone(cs), func(c choice) bool { return c.ignore })
		}
		c := cs[r.IntN(len(cs))]
		set(col, c.fn, c.ignore)
		if c.fn == "listagg" {
			o["fields."+col+".list-agg-delimiter"] = []string{" ", " | ", ","}[r.IntN(3)]
			if r.IntN(2) == 0 {
				o["fields."+col+".distinct"] = "true"
			}
		}
	}
}

// applyAggregation is the model of an aggregation script's record: ver is the last record's
// (primary-key function); with remove-record-on-delete a DELETE removes the key.
func (m *tdModel) applyAggregation(r tdRow, kid, ver int) {
	if m.s.removeOnDelete && r.kind == "-D" {
		delete(m.ver, kid)
		return
	}
	m.ver[kid] = ver
}

// aggExactFields are the columns of write/aggregation-exact: functions whose result depends on
// how a key's records are grouped (a retraction from an empty product keeps it empty,
// last_non_null_value's retraction empties it only when the retracted value is not null,
// first_value keeps a leading null, listagg skips blanks).
func aggExactFields() []field {
	return []field{{"id", "INT NOT NULL"}, {"content", "STRING"}, {"prod", "BIGINT"}, {"iprod", "INT"}, {"fv", "STRING"}, {"tags", "STRING"}, {"lnn", "INT"}}
}

// aggregationExact is write/aggregation-exact (go<->java): Java creates a full-text table with
// deletion vectors and merge-engine = aggregation: content by the default last_non_null_value,
// product on a BIGINT and an INT (retractions divide), first_value and listagg (with blanks
// among the values, ignoring retractions) and last_non_null_value on an INT; the table is
// copied and eight steps of new rows (with aggregationSameFiles' compaction options), updates (-U, +U) and lone retractions go through Java's
// writer into one copy and Go's into the other, then each side compacts its copy fully. After
// every step both copies hold the same file shapes and Java reads the same rows from both:
// Java's own aggregation is the referee, for functions whose results depend on the grouping
// of a key's records by the write buffer and the compactions.
func aggregationExact(ctx context.Context, g *maintainGroup, goP *Process) error {
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content",
		"merge-engine": "aggregation", "fields.prod.aggregate-function": "product", "fields.iprod.aggregate-function": "product",
		"fields.fv.aggregate-function": "first_value", "fields.fv.ignore-retract": "true",
		"fields.tags.aggregate-function": "listagg", "fields.tags.ignore-retract": "true", "fields.tags.list-agg-delimiter": ", ",
		// As in aggregationSameFiles: every commit's compaction takes every run.
		"compaction.max-size-amplification-percent": "100000", "compaction.size-ratio": "100000"}
	base, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "aggregation-exact"), "aggregation-exact", aggExactFields(), []string{"id"}, nil, opts, nil)
	if err != nil {
		return err
	}
	javaCopy, goCopy := base+"-java", base+"-go"
	for _, p := range []string{javaCopy, goCopy} {
		if err := copyTable(base, p); err != nil {
			return err
		}
	}
	rows := func(step int) []row {
		r := rand.New(rand.NewPCG(uint64(step), 0xe7ac))
		texts := pkTextRows(uint64(1600+step), 0, 60)
		value := func(id, i int) row {
			out := row{"id": id, "content": texts[i]["content"]}
			pick := func(vals ...any) any { return vals[r.IntN(len(vals))] }
			out["prod"] = pick(nil, 1, 2, 3, -1, 5)
			out["iprod"] = pick(nil, 1, 2, -2, 4)
			out["fv"] = pick(nil, "red", "green", "")
			out["tags"] = pick(nil, "", " ", "x", "y", "x, y")
			out["lnn"] = pick(nil, 0, 7, 9)
			return out
		}
		var out []row
		n := 8 + r.IntN(8)
		for i := range n {
			v := value(r.IntN(40), i)
			v["_rowKind"] = []string{"+I", "+I", "+I", "-U", "-D"}[r.IntN(5)]
			if v["_rowKind"] == "-U" && r.IntN(2) == 0 {
				after := value(v["id"].(int), n+i)
				after["_rowKind"] = "+U"
				out = append(out, v, after)
				continue
			}
			out = append(out, v)
		}
		return out
	}
	compare := func(step string) error {
		if err := sameShapes(ctx, g, javaCopy, goCopy); err != nil {
			return fmt.Errorf("%s: %w", step, err)
		}
		jr, err := javaRead(ctx, g.proc, javaCopy)
		if err != nil {
			return err
		}
		gr, err := javaRead(ctx, g.proc, goCopy)
		if err != nil {
			return err
		}
		byID := func(rows []map[string]any) map[string]any {
			out := map[string]any{}
			for _, r := range rows {
				out[fmt.Sprint(r["id"])] = normalize(r)
			}
			return out
		}
		if d := gocmp.Diff(byID(jr), byID(gr)); d != "" {
			return fmt.Errorf("%s: Java reads other rows from Go's copy than from Java's (-java +go):\n%s", step, d)
		}
		if len(jr) == 0 {
			return fmt.Errorf("%s: no rows: the case tests nothing", step)
		}
		return nil
	}
	for step := range 8 {
		r := rows(step)
		if err := writeBoth(ctx, g, goP, javaCopy, goCopy, step, r); err != nil {
			return err
		}
		if err := compare(fmt.Sprintf("step %d", step)); err != nil {
			return err
		}
	}
	if err := compactBoth(ctx, g, goP, javaCopy, goCopy); err != nil {
		return err
	}
	return compare("the full compactions")
}
