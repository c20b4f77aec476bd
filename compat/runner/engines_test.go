package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/impl/inspect"
	"github.com/paimon-pkft/pkft/impl/pkfulltext"
)

// testEngines runs the cases of the table options that change how Go's writer and compaction
// merge and rewrite records (issue 18): write/force-rewrite-all-files, write/first-row,
// write/sequence-field/<variant>, write/rowkind-field and write/record-level-expire (go->java,
// java-after-go).
func testEngines(t *testing.T) {
	g := startGroup(t)
	var expiring engineTable
	runCase(t, "write/record-level-expire", "go->java", func(ctx context.Context) error {
		if err := g.need(ctx, writeCommands...); err != nil {
			return err
		}
		return recordExpireWrites(ctx, g, &expiring)
	})
	runCase(t, "write/record-level-expire", "java-after-go", func(ctx context.Context) error {
		if err := g.need(ctx, writeCommands...); err != nil {
			return err
		}
		if expiring.path == "" {
			return errors.New("go->java did not pass: no Go-written table to continue")
		}
		more := expiringRows(expiring.model, 141, ids(400, 440))
		if err := g.proc.Call(ctx, "write", map[string]any{"path": expiring.path, "rows": more}, nil); err != nil {
			return err
		}
		applyExpiring(expiring.model, more)
		if err := g.proc.Call(ctx, "compact", map[string]any{"path": expiring.path}, nil); err != nil {
			return err
		}
		if err := checkJavaView(ctx, g, expiring.path, expiring.model, expiring.fields, true); err != nil {
			return fmt.Errorf("after Java's write and compaction: %w", err)
		}
		again := expiringRows(expiring.model, 142, ids(440, 460))
		if err := goWrite(ctx, g, expiring.path, again); err != nil {
			return err
		}
		applyExpiring(expiring.model, again)
		return checkJavaView(ctx, g, expiring.path, expiring.model, expiring.fields, true)
	})
	var kinds engineTable
	runCase(t, "write/rowkind-field", "go->java", func(ctx context.Context) error {
		if err := g.need(ctx, writeCommands...); err != nil {
			return err
		}
		return rowKindFieldWrites(ctx, g, &kinds)
	})
	runCase(t, "write/rowkind-field", "java-after-go", func(ctx context.Context) error {
		if err := g.need(ctx, writeCommands...); err != nil {
			return err
		}
		if kinds.path == "" {
			return errors.New("go->java did not pass: no Go-written table to continue")
		}
		more := kindsInField(append(updatesAndDeletes(kinds.model, 121, 20, 10), textRows(400, 430, 122)...), 123)
		if err := g.proc.Call(ctx, "write", map[string]any{"path": kinds.path, "rows": more}, nil); err != nil {
			return err
		}
		applyKindField(kinds.model, more)
		if err := g.proc.Call(ctx, "compact", map[string]any{"path": kinds.path}, nil); err != nil {
			return err
		}
		if err := checkJavaView(ctx, g, kinds.path, kinds.model, kinds.fields, true); err != nil {
			return fmt.Errorf("after Java's write and compaction: %w", err)
		}
		again := kindsInField(append(updatesAndDeletes(kinds.model, 124, 10, 10), textRows(430, 440, 125)...), 126)
		if err := goWrite(ctx, g, kinds.path, again); err != nil {
			return err
		}
		applyKindField(kinds.model, again)
		return checkJavaView(ctx, g, kinds.path, kinds.model, kinds.fields, true)
	})
	for _, v := range seqVariants() {
		runCase(t, "write/sequence-field/"+v.name, "go->java", func(ctx context.Context) error {
			if err := g.need(ctx, writeCommands...); err != nil {
				return err
			}
			return seqFieldWrites(ctx, g, v)
		})
		runCase(t, "write/sequence-field/"+v.name, "java-after-go", func(ctx context.Context) error {
			if err := g.need(ctx, writeCommands...); err != nil {
				return err
			}
			if v.path == "" {
				return errors.New("go->java did not pass: no Go-written table to continue")
			}
			return seqFieldAfterGo(ctx, g, v)
		})
	}
	var first engineTable
	runCase(t, "write/first-row", "go->java", func(ctx context.Context) error {
		if err := g.need(ctx, writeCommands...); err != nil {
			return err
		}
		return firstRowWrites(ctx, g, &first)
	})
	runCase(t, "write/first-row", "java-after-go", func(ctx context.Context) error {
		if err := g.need(ctx, writeCommands...); err != nil {
			return err
		}
		if first.path == "" {
			return errors.New("go->java did not pass: no Go-written table to continue")
		}
		more := append(updatesAndDeletes(first.model, 81, 20, 10), textRows(500, 540, 82)...)
		if err := g.proc.Call(ctx, "write", map[string]any{"path": first.path, "rows": more}, nil); err != nil {
			return err
		}
		applyFirstRow(first.model, more)
		if err := g.proc.Call(ctx, "compact", map[string]any{"path": first.path}, nil); err != nil {
			return err
		}
		if err := checkJavaView(ctx, g, first.path, first.model, first.fields, true); err != nil {
			return err
		}
		// Go writes once more after Java.
		again := append(updatesAndDeletes(first.model, 83, 20, 5), textRows(540, 560, 84)...)
		if err := goWrite(ctx, g, first.path, again); err != nil {
			return err
		}
		applyFirstRow(first.model, again)
		return checkJavaView(ctx, g, first.path, first.model, first.fields, true)
	})
	var force engineTable
	runCase(t, "write/force-rewrite-all-files", "go->java", func(ctx context.Context) error {
		if err := g.need(ctx, writeCommands...); err != nil {
			return err
		}
		return forceRewriteAllFiles(ctx, g, &force)
	})
	runCase(t, "write/force-rewrite-all-files", "java-after-go", func(ctx context.Context) error {
		if err := g.need(ctx, writeCommands...); err != nil {
			return err
		}
		if force.path == "" {
			return errors.New("go->java did not pass: no Go-written table to continue")
		}
		more := append(updatesAndDeletes(force.model, 71, 15, 10), textRows(400, 450, 72)...)
		if err := g.proc.Call(ctx, "write", map[string]any{"path": force.path, "rows": more}, nil); err != nil {
			return err
		}
		force.model.apply(more)
		if err := g.proc.Call(ctx, "compact", map[string]any{"path": force.path}, nil); err != nil {
			return err
		}
		return checkAllRewritten(ctx, g, force.path, force.model, force.fields)
	})
}

// engineTable is a Go-written table a java-after-go direction continues.
type engineTable struct {
	path   string
	fields []field
	model  *rowModel
}

// forceRewriteAllFiles is write/force-rewrite-all-files go->java: on a Java-created full-text
// table with deletion vectors, compaction.force-rewrite-all-files and every file large
// (compaction.small-file-ratio = 0, so without the option a file overlapping nothing would move
// up unchanged, keep file source APPEND and enter no archive), Go writes (the compaction at
// commit), writes updates, deletes and new rows, and compacts fully. After each step Java reads
// the model's rows, every data file above level 0 is a COMPACT file, Java's state shows every
// archive current and Java's search equals Go's.
func forceRewriteAllFiles(ctx context.Context, g *maintainGroup, out *engineTable) error {
	fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content",
		"compaction.force-rewrite-all-files": "true", "compaction.small-file-ratio": "0.0"}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "force-rewrite"), "force-rewrite", fields, []string{"id"}, nil, opts, nil)
	if err != nil {
		return err
	}
	m := newRowModel([]string{"id"})
	steps := []struct {
		name    string
		rows    []row
		compact bool
	}{
		{"the first write", textRows(0, 150, 61), false},
		{"the second write", nil, false},
		{"the full compaction", textRows(150, 200, 63), true},
	}
	for i, s := range steps {
		rows := s.rows
		if i == 1 {
			rows = append(updatesAndDeletes(m, 62, 30, 20), textRows(200, 300, 64)...)
		}
		if err := goWrite(ctx, g, path, rows); err != nil {
			return err
		}
		m.apply(rows)
		if s.compact {
			if _, err := goCompact(ctx, g, path); err != nil {
				return err
			}
		}
		if err := checkAllRewritten(ctx, g, path, m, fields); err != nil {
			return fmt.Errorf("after %s: %w", s.name, err)
		}
	}
	out.path, out.fields, out.model = path, fields, m
	return nil
}

// checkAllRewritten checks Java reads the model's rows, no data file above level 0 kept file
// source APPEND (each was rewritten, so each is in an archive), at least one such file exists,
// and the archives are current by Java's state with Java's searches equal to Go's.
func checkAllRewritten(ctx context.Context, g *maintainGroup, path string, m *rowModel, fields []field) error {
	d, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	if err := noAppendAboveLevel0(d); err != nil {
		return err
	}
	return checkJavaView(ctx, g, path, m, fields, true)
}

func noAppendAboveLevel0(d *inspect.Dump) error {
	compacted := 0
	for _, b := range d.Buckets {
		for _, f := range b.DataFiles {
			if f.Level == 0 {
				continue
			}
			if f.FileSource != "COMPACT" {
				return fmt.Errorf("bucket %d: %s at level %d has file source %s: it was moved up, not rewritten", b.Bucket, f.FileName, f.Level, f.FileSource)
			}
			compacted++
		}
	}
	if compacted == 0 {
		return errors.New("no data file above level 0: the case tests nothing")
	}
	return nil
}

// applyFirstRow applies rows to a first-row model with ignore-delete: retractions are dropped, and
// a key the model holds keeps its first row.
func applyFirstRow(m *rowModel, rows []row) {
	for _, r := range rows {
		if k := r["_rowKind"]; k == "-D" || k == "-U" {
			continue
		}
		k := m.key(r)
		if _, ok := m.rows[k]; ok {
			continue
		}
		c := row{}
		for f, v := range r {
			if f != "_rowKind" {
				c[f] = v
			}
		}
		m.rows[k] = c
	}
}

// firstRowWrites is write/first-row go->java: on a Java-created full-text table with
// merge-engine = first-row and ignore-delete (no deletion vectors, as Java requires for
// first-row), Go writes rows, then rows that re-insert and update existing keys (new text) with
// deletes, a batch holding one new key twice, and compacts fully. After each step Java's batch
// read (which skips level 0 on first-row tables) returns the first row of every key, every
// archive is current by Java's state and Java's searches equal Go's.
func firstRowWrites(ctx context.Context, g *maintainGroup, out *engineTable) error {
	fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	opts := map[string]string{"bucket": "2", "merge-engine": "first-row", "ignore-delete": "true", pkfulltext.ColumnsOption: "content"}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "first-row"), "first-row", fields, []string{"id"}, nil, opts, nil)
	if err != nil {
		return err
	}
	m := newRowModel([]string{"id"})
	for i, name := range []string{"the first write", "the re-inserts", "the duplicated batch", "the full compaction"} {
		var rows []row
		switch i {
		case 0:
			rows = textRows(0, 150, 91)
		case 1:
			rows = append(updatesAndDeletes(m, 92, 40, 20), textRows(150, 200, 93)...)
		case 2:
			rows = append(textRows(200, 230, 94), textRows(200, 230, 95)...)
			rows = append(rows, updatesAndDeletes(m, 96, 10, 0)...)
		case 3:
			rows = textRows(230, 260, 97)
		}
		if err := goWrite(ctx, g, path, rows); err != nil {
			return err
		}
		applyFirstRow(m, rows)
		if i == 3 {
			if _, err := goCompact(ctx, g, path); err != nil {
				return err
			}
		}
		// The first write's files move up unchanged (APPEND files feed no archive), as Java's do.
		if err := checkJavaViewOf(ctx, g, path, m, fields, true, i > 0); err != nil {
			return fmt.Errorf("after %s: %w", name, err)
		}
	}
	out.path, out.fields, out.model = path, fields, m
	return nil
}

// seqVariant is one table shape of write/sequence-field.
type seqVariant struct {
	name       string
	descending bool
	fullText   bool
	options    map[string]string
	path       string
	model      *seqModel
}

func seqVariants() []*seqVariant {
	return []*seqVariant{
		{name: "full-text-dv", fullText: true, options: map[string]string{"bucket": "2", "deletion-vectors.enabled": "true",
			pkfulltext.ColumnsOption: "content", "sequence.field": "ts"}},
		{name: "descending-no-dv", descending: true, options: map[string]string{"bucket": "2", "sequence.field": "ts",
			"sequence.field.sort-order": "descending"}},
		{name: "two-fields-dv", options: map[string]string{"bucket": "3", "deletion-vectors.enabled": "true",
			"sequence.field": "ts,content"}},
	}
}

var seqFields = []field{{"id", "INT NOT NULL"}, {"content", "STRING"}, {"ts", "BIGINT"}}

// seqModel is the rows a sequence-field table holds: for each key the record that sorts last by
// the sequence fields (nulls first, values reversed when descending), then by arrival.
type seqModel struct {
	*rowModel
	descending bool
	// fields are the sequence fields in order; arrival numbers each key's latest record.
	fields  []string
	arrival map[string]int
	next    int
	// retired keys were deleted by a retraction that won; they are never written again.
	retired map[string]bool
}

func newSeqModel(descending bool, fields ...string) *seqModel {
	return &seqModel{rowModel: newRowModel([]string{"id"}), descending: descending, fields: fields,
		arrival: map[string]int{}, retired: map[string]bool{}}
}

// compare orders two records of one key as UserDefinedSeqComparator does (arrival breaks ties).
func (m *seqModel) compare(a row, arrA int, b row, arrB int) int {
	for _, f := range m.fields {
		x, y := a[f], b[f]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return -1
		case y == nil:
			return 1
		}
		var c int
		switch xv := x.(type) {
		case int64:
			c = cmp.Compare(xv, y.(int64))
		case string:
			c = cmp.Compare(xv, y.(string))
		}
		if m.descending {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(arrA, arrB)
}

func (m *seqModel) apply(rows []row) {
	for _, r := range rows {
		k := m.key(r)
		m.next++
		if old, ok := m.rows[k]; ok && m.compare(r, m.next, old, m.arrival[k]) < 0 {
			continue
		}
		if kind := r["_rowKind"]; kind == "-D" || kind == "-U" {
			delete(m.rows, k)
			m.retired[k] = true
			continue
		}
		c := row{}
		for f, v := range r {
			if f != "_rowKind" {
				c[f] = v
			}
		}
		m.rows[k], m.arrival[k] = c, m.next
	}
}

// seqRows returns n records for random live keys of the model (some new ids from fresh) with
// random ts values (a tenth null) and text, and del retractions that win (ts at the winning end)
// for other live keys.
func (m *seqModel) seqRows(seed uint64, n, del int, fresh []int) []row {
	r := rand.New(rand.NewPCG(seed, 5))
	keys := make([]string, 0, len(m.rows))
	for k := range m.rows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	texts := pkTextRows(seed, 0, n+len(fresh))
	var out []row
	ts := func() any {
		if r.IntN(10) == 0 {
			return nil
		}
		return int64(r.IntN(100))
	}
	for i := 0; i < n && len(keys) > 0; i++ {
		id := m.rows[keys[r.IntN(len(keys))]]["id"]
		out = append(out, row{"id": id, "content": texts[i]["content"], "ts": ts(), "_rowKind": "+U"})
	}
	for i, id := range fresh {
		out = append(out, row{"id": id, "content": texts[n+i]["content"], "ts": ts()})
	}
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	win := int64(1 << 40)
	if m.descending {
		win = -win
	}
	for i := 0; i < del && i < len(keys); i++ {
		out = append(out, row{"id": m.rows[keys[i]]["id"], "content": nil, "ts": win, "_rowKind": "-D"})
	}
	return out
}

func ids(lo, hi int) []int {
	out := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// seqFieldWrites is write/sequence-field/<variant> go->java: on a Java-created table with
// sequence.field (ascending with deletion vectors and full-text, descending without deletion
// vectors, two fields), Go writes rows with random sequence values (nulls among them), then
// records of existing keys whose values may sort before or after the live ones, retractions
// that win, a batch with keys written several times, and compacts fully. After each step
// Java's read equals the model (for each key the record that sorts last); on the full-text
// table every archive is current and Java's searches equal Go's.
func seqFieldWrites(ctx context.Context, g *maintainGroup, v *seqVariant) error {
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "seq-"+v.name), "seq-"+v.name, seqFields, []string{"id"}, nil, v.options, nil)
	if err != nil {
		return err
	}
	m := newSeqModel(v.descending, "ts")
	if v.name == "two-fields-dv" {
		m.fields = []string{"ts", "content"}
	}
	for i, name := range []string{"the first write", "the second write", "the repeated keys", "the full compaction"} {
		var rows []row
		switch i {
		case 0:
			rows = m.seqRows(101, 0, 0, ids(0, 150))
		case 1:
			rows = m.seqRows(102, 60, 15, ids(150, 200))
		case 2:
			rows = m.seqRows(103, 90, 5, nil)
		case 3:
			rows = m.seqRows(104, 30, 0, nil)
		}
		if err := goWrite(ctx, g, path, rows); err != nil {
			return err
		}
		m.apply(rows)
		if i == 3 {
			if _, err := goCompact(ctx, g, path); err != nil {
				return err
			}
		}
		if err := checkJavaViewOf(ctx, g, path, m.rowModel, seqFields, v.fullText, i > 0); err != nil {
			return fmt.Errorf("after %s: %w", name, err)
		}
	}
	v.path, v.model = path, m
	return nil
}

// seqFieldAfterGo is java-after-go: Java writes records of existing keys with random sequence
// values and compacts fully, then Go writes again; after each Java's read equals the model.
func seqFieldAfterGo(ctx context.Context, g *maintainGroup, v *seqVariant) error {
	more := v.model.seqRows(111, 50, 5, ids(300, 320))
	if err := g.proc.Call(ctx, "write", map[string]any{"path": v.path, "rows": more}, nil); err != nil {
		return err
	}
	v.model.apply(more)
	if err := g.proc.Call(ctx, "compact", map[string]any{"path": v.path}, nil); err != nil {
		return err
	}
	if err := checkJavaView(ctx, g, v.path, v.model.rowModel, seqFields, v.fullText); err != nil {
		return fmt.Errorf("after Java's write and compaction: %w", err)
	}
	again := v.model.seqRows(112, 40, 0, ids(320, 330))
	if err := goWrite(ctx, g, v.path, again); err != nil {
		return err
	}
	v.model.apply(again)
	return checkJavaViewOf(ctx, g, v.path, v.model.rowModel, seqFields, v.fullText, true)
}

// kindsInField moves each row's kind into its op field (spelled in random case) and marks every
// row +I, so that only rowkind.field can make a row an update or a retraction.
func kindsInField(rows []row, seed uint64) []row {
	r := rand.New(rand.NewPCG(seed, 9))
	out := make([]row, len(rows))
	for i, x := range rows {
		c := row{}
		for k, v := range x {
			c[k] = v
		}
		kind, _ := c["_rowKind"].(string)
		if kind == "" {
			kind = "+I"
		}
		if r.IntN(3) == 0 {
			kind = strings.ToLower(kind)
		}
		c["op"], c["_rowKind"] = kind, "+I"
		out[i] = c
	}
	return out
}

// applyKindField applies rows whose kind is their op field to the model.
func applyKindField(m *rowModel, rows []row) {
	for _, x := range rows {
		c := row{}
		for k, v := range x {
			c[k] = v
		}
		c["_rowKind"] = strings.ToUpper(c["op"].(string))
		m.apply([]row{c})
	}
}

// rowKindFieldWrites is write/rowkind-field go->java: on a Java-created full-text table with
// deletion vectors and rowkind.field = op, Go writes rows, then updates, deletes and
// UPDATE_BEFOREs spelled only in op (in either case; every row's own kind is +I), and compacts
// fully. After each step Java reads the model's rows (op as written), every archive is current
// by Java's state and Java's searches equal Go's.
func rowKindFieldWrites(ctx context.Context, g *maintainGroup, out *engineTable) error {
	fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}, {"op", "STRING"}}
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content", "rowkind.field": "op"}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "rowkind-field"), "rowkind-field", fields, []string{"id"}, nil, opts, nil)
	if err != nil {
		return err
	}
	m := newRowModel([]string{"id"})
	for i, name := range []string{"the first write", "the updates and deletes", "the full compaction"} {
		var rows []row
		switch i {
		case 0:
			rows = kindsInField(textRows(0, 150, 131), 132)
		case 1:
			rows = kindsInField(append(updatesAndDeletes(m, 133, 40, 30), textRows(150, 200, 134)...), 135)
		case 2:
			rows = kindsInField(updatesAndDeletes(m, 136, 10, 10), 137)
		}
		if err := goWrite(ctx, g, path, rows); err != nil {
			return err
		}
		applyKindField(m, rows)
		if i == 2 {
			if _, err := goCompact(ctx, g, path); err != nil {
				return err
			}
		}
		if err := checkJavaViewOf(ctx, g, path, m, fields, true, i > 0); err != nil {
			return fmt.Errorf("after %s: %w", name, err)
		}
	}
	out.path, out.fields, out.model = path, fields, m
	return nil
}

// expireSeconds is the record-level.expire-time of write/record-level-expire.
const expireSeconds = 3600

// expiringRows returns new rows for fresh ids and updates and deletes of live keys of m, their ts
// (BIGINT) fresh in seconds or milliseconds, two hours old (expired), or null; every row's
// content is new text.
func expiringRows(m *rowModel, seed uint64, fresh []int) []row {
	r := rand.New(rand.NewPCG(seed, 11))
	now := time.Now().Unix()
	ts := func() any {
		switch r.IntN(6) {
		case 0:
			return nil
		case 1, 2:
			return now - 2*expireSeconds
		case 3:
			return now * 1000
		}
		return now
	}
	texts := pkTextRows(seed, 0, len(fresh)+60)
	var out []row
	for i, id := range fresh {
		out = append(out, row{"id": id, "content": texts[i]["content"], "ts": ts()})
	}
	keys := make([]string, 0, len(m.rows))
	for k := range m.rows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for i := 0; i < 60 && i < len(keys); i++ {
		kind := "+U"
		if i%4 == 0 {
			kind = "-D"
		}
		out = append(out, row{"id": m.rows[keys[i]]["id"], "content": texts[len(fresh)+i]["content"], "ts": ts(), "_rowKind": kind})
	}
	return out
}

// applyExpiring applies rows to the model as compaction under record-level expiry leaves them:
// a record whose ts is older than the expiry is dropped before merging (an expired update or
// delete leaves the key's earlier row).
func applyExpiring(m *rowModel, rows []row) {
	now := time.Now().Unix()
	for _, r := range rows {
		if v, ok := r["ts"].(int64); ok {
			if v >= 1_000_000_000_000 {
				v /= 1000
			}
			if now-expireSeconds > v {
				continue
			}
		}
		m.apply([]row{r})
	}
}

// recordExpireWrites is write/record-level-expire go->java: on a Java-created full-text table
// with deletion vectors, record-level.expire-time = 1 h and record-level.time-field = ts
// (BIGINT), Go writes rows of which some are two hours old, then updates and deletes of live keys
// (some of them expired) with new rows, and compacts fully. After each step Java reads the model
// (expired records never enter it, an expired update or delete leaves the earlier row), every
// archive is current by Java's state and Java's searches equal Go's.
func recordExpireWrites(ctx context.Context, g *maintainGroup, out *engineTable) error {
	fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}, {"ts", "BIGINT"}}
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content",
		"record-level.expire-time": fmt.Sprintf("%d s", expireSeconds), "record-level.time-field": "ts"}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "record-expire"), "record-expire", fields, []string{"id"}, nil, opts, nil)
	if err != nil {
		return err
	}
	m := newRowModel([]string{"id"})
	for i, name := range []string{"the first write", "the updates and deletes", "the full compaction"} {
		rows := expiringRows(m, uint64(150+i), ids(100*i, 100*i+100))
		if err := goWrite(ctx, g, path, rows); err != nil {
			return err
		}
		applyExpiring(m, rows)
		if i == 2 {
			if _, err := goCompact(ctx, g, path); err != nil {
				return err
			}
		}
		if err := checkJavaViewOf(ctx, g, path, m, fields, true, i > 0); err != nil {
			return fmt.Errorf("after %s: %w", name, err)
		}
	}
	out.path, out.fields, out.model = path, fields, m
	return nil
}
