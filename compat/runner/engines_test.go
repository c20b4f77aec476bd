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
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
)

// casesEngines registers the cases of the table options that change how Go's writer and compaction
// merge and rewrite records (issue 18): write/force-rewrite-all-files, write/first-row,
// write/aggregation, write/aggregation-exact (go<->java),
// write/sequence-field/<variant>, write/rowkind-field and write/record-level-expire (go->java,
// java-after-go), and write/same-files/<variant> (go<->java).
func casesEngines(ct *caseTable) {
	impls, runners := consumerRunners(ct)
	forProducers(impls, []Role{Writer, Compactor}, groupFixture(), groupFixture, func(p string, gf *fixture[*maintainGroup]) {
		engineCase(ct, gf, runners, p, "write/force-rewrite-all-files", docWriteForceRewriteAllFiles, forceRewriteAllFiles)
		engineCase(ct, gf, runners, p, "write/first-row", docWriteFirstRow, firstRowWrites)
		engineCase(ct, gf, runners, p, "write/aggregation", docWriteAggregation, aggregationWrites)
		ct.add(caseRow{Name: "write/aggregation-exact", Direction: as(p, "go<->java"), Doc: docWriteAggregationExact,
			Sides: []caseSide{side(p, Writer, Compactor), side("java", Writer, Consumer)},
			Uses:  []caseUse{serving(gf, writeCommands...), runnerOf(runners, p, "write", "compact")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return aggregationExact(ctx, gf.in(ce), ce.runner(p))
			}})
		engineCase(ct, gf, runners, p, "write/partial-update", docWritePartialUpdate, partialUpdateWrites)
		for _, v := range seqVariants() {
			engineCase(ct, gf, runners, p, "write/sequence-field/"+v.name, docWriteSequenceFieldVariant, v.writes)
		}
		engineCase(ct, gf, runners, p, "write/rowkind-field", docWriteRowkindField, rowKindFieldWrites)
		engineCase(ct, gf, runners, p, "write/record-level-expire", docWriteRecordLevelExpire, recordExpireWrites)
		for _, v := range append(sameFilesVariants(), aggregationSameFiles()...) {
			ct.add(caseRow{Name: "write/same-files/" + v.name, Direction: as(p, "go<->java"), Doc: docWriteSameFilesVariant,
				Sides: []caseSide{side(p, Writer, Compactor), side("java", Writer, Compactor, Consumer)},
				Uses:  []caseUse{serving(gf, writeCommands...), runnerOf(runners, p, "write", "compact")},
				Run: func(ctx context.Context, ce *caseEnv) error {
					return sameFiles(ctx, gf.in(ce), ce.runner(p), v)
				}})
		}
	})
}

// engineCase registers one table of casesEngines registers go->java runs writes (Go writes and compacts a
// Java-created table, filling e), java-after-go continues the same table: Java writes e.more(1)
// and compacts fully, then Go writes e.more(2), each followed by e.check.
func engineCase(ct *caseTable, gf *fixture[*maintainGroup], runners map[string]*implRunner, p, name, doc string, writes func(context.Context, *maintainGroup, *engineTable) error) {
	var e engineTable
	ct.add(caseRow{Name: name, Direction: as(p, "go->java"), Doc: doc,
		Sides: []caseSide{side(p, Writer, Compactor, Consumer), side("java", Consumer)},
		Uses:  []caseUse{serving(gf, writeCommands...), runnerOf(runners, p, "write", "compact")},
		Run: func(ctx context.Context, ce *caseEnv) error {
			e.goP = ce.runner(p)
			return writes(ctx, gf.in(ce), &e)
		}})
	ct.add(caseRow{Name: name, Direction: as(p, "java-after-go"), Doc: doc, Needs: []string{name + "/" + as(p, "go->java")},
		Sides: []caseSide{side("java", Writer, Compactor, Consumer), side(p, Writer, Compactor, Consumer)},
		Uses:  []caseUse{serving(gf, writeCommands...)},
		Run: func(ctx context.Context, ce *caseEnv) error {
			g := gf.in(ce)
			if e.path == "" || e.goP == nil {
				return fmt.Errorf("%s/%s did not pass: no table %s wrote to continue", name, as(p, "go->java"), p)
			}
			more := e.more(1)
			if err := g.proc.Call(ctx, "write", map[string]any{"path": e.path, "rows": more}, nil); err != nil {
				return err
			}
			e.apply(more)
			if err := g.proc.Call(ctx, "compact", map[string]any{"path": e.path}, nil); err != nil {
				return err
			}
			if err := e.check(ctx, g, true); err != nil {
				return fmt.Errorf("after Java's write and compaction: %w", err)
			}
			again := e.more(2)
			if err := goWrite(ctx, e.goP, e.path, again); err != nil {
				return err
			}
			e.apply(again)
			if err := e.check(ctx, g, true); err != nil {
				return fmt.Errorf("after %s's write after Java: %w", p, err)
			}
			return nil
		}})
}

// engineTable is a Go-written table of casesEngines and what its java-after-go direction needs.
type engineTable struct {
	path   string
	fields []field
	// goP is Go's runner, through which Go writes and compacts the table.
	goP   *Process
	model *rowModel
	// apply applies written rows to the model; more returns the rows of the n-th later write.
	apply func(rows []row)
	more  func(n uint64) []row
	// fullText: the table has a full-text index; rewritten: no file above level 0 may keep file
	// source APPEND.
	fullText, rewritten bool
	// extra, when set, is a further check of the table after the others.
	extra func(ctx context.Context) error
}

// check checks Java reads the model's rows, on a full-text table that every archive is current
// by Java's state and Java's searches equal Go's (needArchive: at least one archive exists), and
// with rewritten that every file above level 0 is a COMPACT file.
func (e *engineTable) check(ctx context.Context, g *maintainGroup, needArchive bool) error {
	if e.rewritten {
		d, err := javaDump(ctx, g.proc, e.path)
		if err != nil {
			return err
		}
		if err := noAppendAboveLevel0(d); err != nil {
			return err
		}
	}
	if err := checkJavaViewOf(ctx, g, e.goP, e.path, e.model, e.fields, e.fullText, needArchive); err != nil || e.extra == nil || !needArchive {
		return err
	}
	return e.extra(ctx)
}

// steps runs go->java on a Java-created table: for each named step Go writes rows(i) and the
// model takes them; the last step also compacts fully; then the view is checked (an archive is
// needed from the second step on: the first write's files move up unchanged, as Java's do).
func (e *engineTable) steps(ctx context.Context, g *maintainGroup, names []string, rows func(i int) []row) error {
	for i, name := range names {
		r := rows(i)
		if err := goWrite(ctx, e.goP, e.path, r); err != nil {
			return err
		}
		e.apply(r)
		if i == len(names)-1 {
			if err := goCompact(ctx, e.goP, e.path); err != nil {
				return err
			}
		}
		if err := e.check(ctx, g, i > 0 || e.rewritten); err != nil {
			return fmt.Errorf("after %s: %w", name, err)
		}
	}
	return nil
}

// forceRewriteAllFiles is write/force-rewrite-all-files go->java: on a Java-created full-text
// table with deletion vectors, compaction.force-rewrite-all-files and every file large
// (compaction.small-file-ratio = 0, so without the option a file overlapping nothing would move
// up unchanged, keep file source APPEND and enter no archive), Go writes (the compaction at
// commit), writes updates, deletes and new rows, and compacts fully. After each step Java reads
// the model's rows, every data file above level 0 is a COMPACT file, Java's state shows every
// archive current and Java's search equals Go's.
func forceRewriteAllFiles(ctx context.Context, g *maintainGroup, e *engineTable) error {
	e.fields = []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content",
		"compaction.force-rewrite-all-files": "true", "compaction.small-file-ratio": "0.0"}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "force-rewrite"), "force-rewrite", e.fields, []string{"id"}, nil, opts, nil)
	if err != nil {
		return err
	}
	m := newRowModel([]string{"id"})
	e.model, e.fullText, e.rewritten, e.apply = m, true, true, m.apply
	e.more = func(n uint64) []row {
		lo := 300 + 50*int(n)
		return append(updatesAndDeletes(m, 70+n, 15, 10), textRows(lo, lo+50, 72+n)...)
	}
	e.path = path
	err = e.steps(ctx, g, []string{"the first write", "the second write", "the full compaction"}, func(i int) []row {
		switch i {
		case 0:
			return textRows(0, 150, 61)
		case 1:
			return append(updatesAndDeletes(m, 62, 30, 20), textRows(200, 300, 64)...)
		}
		return textRows(150, 200, 63)
	})
	if err != nil {
		e.path = ""
	}
	return err
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
func firstRowWrites(ctx context.Context, g *maintainGroup, e *engineTable) error {
	e.fields = []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	opts := map[string]string{"bucket": "2", "merge-engine": "first-row", "ignore-delete": "true", pkfulltext.ColumnsOption: "content"}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "first-row"), "first-row", e.fields, []string{"id"}, nil, opts, nil)
	if err != nil {
		return err
	}
	m := newRowModel([]string{"id"})
	e.model, e.fullText = m, true
	e.apply = func(rows []row) { applyFirstRow(m, rows) }
	e.more = func(n uint64) []row {
		lo := 460 + 40*int(n)
		return append(updatesAndDeletes(m, 80+n, 20, 10), textRows(lo, lo+40, 82+n)...)
	}
	e.path = path
	err = e.steps(ctx, g, []string{"the first write", "the re-inserts", "the duplicated batch", "the full compaction"}, func(i int) []row {
		switch i {
		case 0:
			return textRows(0, 150, 91)
		case 1:
			return append(updatesAndDeletes(m, 92, 40, 20), textRows(150, 200, 93)...)
		case 2:
			rows := append(textRows(200, 230, 94), textRows(200, 230, 95)...)
			return append(rows, updatesAndDeletes(m, 96, 10, 0)...)
		}
		return textRows(230, 260, 97)
	})
	if err != nil {
		e.path = ""
	}
	return err
}

// seqVariant is one table shape of write/sequence-field.
type seqVariant struct {
	name       string
	descending bool
	fullText   bool
	options    map[string]string
	// seqFields are the sequence fields the model orders by.
	seqFields []string
}

func seqVariants() []*seqVariant {
	return []*seqVariant{
		{name: "full-text-dv", fullText: true, seqFields: []string{"ts"}, options: map[string]string{"bucket": "2",
			"deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content", "sequence.field": "ts"}},
		{name: "descending-no-dv", descending: true, seqFields: []string{"ts"}, options: map[string]string{"bucket": "2",
			"sequence.field": "ts", "sequence.field.sort-order": "descending"}},
		{name: "two-fields-dv", seqFields: []string{"ts", "content"}, options: map[string]string{"bucket": "3",
			"deletion-vectors.enabled": "true", "sequence.field": "ts,content"}},
	}
}

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

// writes is write/sequence-field/<variant> go->java: on a Java-created table with
// sequence.field (ascending with deletion vectors and full-text, descending without deletion
// vectors, two fields), Go writes rows with random sequence values (nulls among them), then
// records of existing keys whose values may sort before or after the live ones, retractions
// that win, a batch with keys written several times, and compacts fully. After each step
// Java's read equals the model (for each key the record that sorts last); on the full-text
// table every archive is current and Java's searches equal Go's.
func (v *seqVariant) writes(ctx context.Context, g *maintainGroup, e *engineTable) error {
	e.fields = []field{{"id", "INT NOT NULL"}, {"content", "STRING"}, {"ts", "BIGINT"}}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "seq-"+v.name), "seq-"+v.name, e.fields, []string{"id"}, nil, v.options, nil)
	if err != nil {
		return err
	}
	m := newSeqModel(v.descending, v.seqFields...)
	e.model, e.fullText, e.apply = m.rowModel, v.fullText, m.apply
	e.more = func(n uint64) []row {
		lo := 300 + 20*int(n)
		return m.seqRows(110+n, 50, 5, ids(lo, lo+20))
	}
	e.path = path
	err = e.steps(ctx, g, []string{"the first write", "the second write", "the repeated keys", "the full compaction"}, func(i int) []row {
		switch i {
		case 0:
			return m.seqRows(101, 0, 0, ids(0, 150))
		case 1:
			return m.seqRows(102, 60, 15, ids(150, 200))
		case 2:
			return m.seqRows(103, 90, 5, nil)
		}
		return m.seqRows(104, 30, 0, nil)
	})
	if err != nil {
		e.path = ""
	}
	return err
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
func rowKindFieldWrites(ctx context.Context, g *maintainGroup, e *engineTable) error {
	e.fields = []field{{"id", "INT NOT NULL"}, {"content", "STRING"}, {"op", "STRING"}}
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content", "rowkind.field": "op"}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "rowkind-field"), "rowkind-field", e.fields, []string{"id"}, nil, opts, nil)
	if err != nil {
		return err
	}
	m := newRowModel([]string{"id"})
	e.model, e.fullText = m, true
	e.apply = func(rows []row) { applyKindField(m, rows) }
	e.more = func(n uint64) []row {
		lo := 380 + 30*int(n)
		return kindsInField(append(updatesAndDeletes(m, 120+n, 20, 10), textRows(lo, lo+30, 122+n)...), 124+n)
	}
	e.path = path
	err = e.steps(ctx, g, []string{"the first write", "the updates and deletes", "the full compaction"}, func(i int) []row {
		switch i {
		case 0:
			return kindsInField(textRows(0, 150, 131), 132)
		case 1:
			return kindsInField(append(updatesAndDeletes(m, 133, 40, 30), textRows(150, 200, 134)...), 135)
		}
		return kindsInField(updatesAndDeletes(m, 136, 10, 10), 137)
	})
	if err != nil {
		e.path = ""
	}
	return err
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
func recordExpireWrites(ctx context.Context, g *maintainGroup, e *engineTable) error {
	e.fields = []field{{"id", "INT NOT NULL"}, {"content", "STRING"}, {"ts", "BIGINT"}}
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content",
		"record-level.expire-time": fmt.Sprintf("%d s", expireSeconds), "record-level.time-field": "ts"}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "record-expire"), "record-expire", e.fields, []string{"id"}, nil, opts, nil)
	if err != nil {
		return err
	}
	m := newRowModel([]string{"id"})
	e.model, e.fullText = m, true
	e.apply = func(rows []row) { applyExpiring(m, rows) }
	e.more = func(n uint64) []row {
		lo := 360 + 40*int(n)
		return expiringRows(m, 140+n, ids(lo, lo+40))
	}
	e.path = path
	err = e.steps(ctx, g, []string{"the first write", "the updates and deletes", "the full compaction"}, func(i int) []row {
		return expiringRows(m, uint64(150+i), ids(100*i, 100*i+100))
	})
	if err != nil {
		e.path = ""
	}
	return err
}

// sameFilesVariant is one table of write/same-files: its fields and options, and a fresh model
// with the rows of each step.
type sameFilesVariant struct {
	name    string
	fields  []field
	options map[string]string
	model   func() (m *rowModel, apply func([]row), rows func(step int) []row)
}

func sameFilesVariants() []sameFilesVariant {
	idText := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	withTS := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}, {"ts", "BIGINT"}}
	dvText := func(extra map[string]string) map[string]string {
		o := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content"}
		for k, v := range extra {
			o[k] = v
		}
		return o
	}
	// textSteps are the rows of the plain variants: new rows, updates and deletes of live keys.
	textSteps := func(m *rowModel, kinds bool) func(int) []row {
		next := 0
		return func(step int) []row {
			r := rand.New(rand.NewPCG(uint64(step), 29))
			n := 120
			if step > 0 {
				n = 5 + r.IntN(30)
			}
			rows := textRows(next, next+n, uint64(1000+step))
			next += n
			if step > 0 {
				rows = append(rows, updatesAndDeletes(m, uint64(1100+step), 3+r.IntN(12), r.IntN(6))...)
			}
			if kinds {
				rows = kindsInField(rows, uint64(1200+step))
			}
			return rows
		}
	}
	return []sameFilesVariant{
		{"force-rewrite-all-files", idText, dvText(map[string]string{"compaction.force-rewrite-all-files": "true", "compaction.small-file-ratio": "0.0"}),
			func() (*rowModel, func([]row), func(int) []row) {
				m := newRowModel([]string{"id"})
				return m, m.apply, textSteps(m, false)
			}},
		{"first-row", idText, map[string]string{"bucket": "2", "merge-engine": "first-row", "ignore-delete": "true", pkfulltext.ColumnsOption: "content"},
			func() (*rowModel, func([]row), func(int) []row) {
				m := newRowModel([]string{"id"})
				return m, func(rows []row) { applyFirstRow(m, rows) }, textSteps(m, false)
			}},
		{"sequence-field", withTS, dvText(map[string]string{"sequence.field": "ts"}),
			func() (*rowModel, func([]row), func(int) []row) {
				m := newSeqModel(false, "ts")
				next := 0
				return m.rowModel, m.apply, func(step int) []row {
					if step == 0 {
						next = 120
						return m.seqRows(1300, 0, 0, ids(0, 120))
					}
					next += 10
					return m.seqRows(uint64(1300+step), 20, 3, ids(next-10, next))
				}
			}},
		{"rowkind-field", []field{{"id", "INT NOT NULL"}, {"content", "STRING"}, {"op", "STRING"}}, dvText(map[string]string{"rowkind.field": "op"}),
			func() (*rowModel, func([]row), func(int) []row) {
				m := newRowModel([]string{"id"})
				return m, func(rows []row) { applyKindField(m, rows) }, textSteps(m, true)
			}},
		{"record-level-expire", withTS, dvText(map[string]string{"record-level.expire-time": fmt.Sprintf("%d s", expireSeconds), "record-level.time-field": "ts"}),
			func() (*rowModel, func([]row), func(int) []row) {
				m := newRowModel([]string{"id"})
				next := 0
				return m, func(rows []row) { applyExpiring(m, rows) }, func(step int) []row {
					n := 120
					if step > 0 {
						n = 15
					}
					next += n
					return expiringRows(m, uint64(1400+step), ids(next-n, next))
				}
			}},
		partialUpdateGroupVariant(),
	}
}

// sameFiles is write/same-files/<variant> (go<->java): Java creates the table, writes and fully
// compacts a first batch and writes a second; the table is copied, and six steps of rows are
// written by Java's writer into one copy and by Go's into the other (each commit with its
// compaction at commit), then each copy is fully compacted by its own side. After every step
// both copies hold the same file shapes (level, rows, deletion-vector cardinality, file source)
// and Java reads the model's rows from both.
func sameFiles(ctx context.Context, g *maintainGroup, goP *Process, v sameFilesVariant) error {
	pks := []string{"id"}
	base, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "same-files", v.name), "same-"+v.name, v.fields, pks, nil, v.options, nil)
	if err != nil {
		return err
	}
	m, apply, rows := v.model()
	first := rows(0)
	if err := g.proc.Call(ctx, "write", map[string]any{"path": base, "rows": first, "compact": "full"}, nil); err != nil {
		return err
	}
	apply(first)
	second := rows(1)
	if err := g.proc.Call(ctx, "write", map[string]any{"path": base, "rows": second}, nil); err != nil {
		return err
	}
	apply(second)
	javaCopy, goCopy := base+"-java", base+"-go"
	for _, p := range []string{javaCopy, goCopy} {
		if err := copyTable(base, p); err != nil {
			return err
		}
	}
	compare := func(step string) error {
		if err := sameShapes(ctx, g, javaCopy, goCopy); err != nil {
			return fmt.Errorf("%s: %w", step, err)
		}
		for _, p := range []string{javaCopy, goCopy} {
			if err := sameAsModel(ctx, g, p, m, v.fields); err != nil {
				return fmt.Errorf("%s: %s: %w", step, filepath.Base(p), err)
			}
		}
		return nil
	}
	for step := 2; step < 8; step++ {
		r := rows(step)
		if err := writeBoth(ctx, g, goP, javaCopy, goCopy, step, r); err != nil {
			return err
		}
		apply(r)
		if err := compare(fmt.Sprintf("step %d", step)); err != nil {
			return err
		}
	}
	if err := compactBoth(ctx, g, goP, javaCopy, goCopy); err != nil {
		return err
	}
	return compare("the full compactions")
}

// writeBoth writes the rows of one step with Java's writer into javaCopy and Go's into goCopy.
func writeBoth(ctx context.Context, g *maintainGroup, goP *Process, javaCopy, goCopy string, step int, rows []row) error {
	if err := g.proc.Call(ctx, "write", map[string]any{"path": javaCopy, "rows": rows}, nil); err != nil {
		return fmt.Errorf("step %d: java write: %w", step, err)
	}
	if err := goWrite(ctx, goP, goCopy, rows); err != nil {
		return fmt.Errorf("step %d: %w", step, err)
	}
	return nil
}

// compactBoth compacts javaCopy fully with Java and goCopy with Go.
func compactBoth(ctx context.Context, g *maintainGroup, goP *Process, javaCopy, goCopy string) error {
	if err := g.proc.Call(ctx, "compact", map[string]any{"path": javaCopy}, nil); err != nil {
		return err
	}
	return goCompact(ctx, goP, goCopy)
}

// sameShapes checks the copies Java's writer and Go's wrote hold the same file shapes (level,
// rows, deletion-vector cardinality, file source).
func sameShapes(ctx context.Context, g *maintainGroup, javaCopy, goCopy string) error {
	jd, err := javaDump(ctx, g.proc, javaCopy)
	if err != nil {
		return err
	}
	gd, err := javaDump(ctx, g.proc, goCopy)
	if err != nil {
		return err
	}
	if d := gocmp.Diff(shapesOf(jd, true), shapesOf(gd, true)); d != "" {
		return fmt.Errorf("Java's writer and Go's leave other files (-java +go):\n%s", d)
	}
	return nil
}

// docWriteForceRewriteAllFiles describes write/force-rewrite-all-files.
const docWriteForceRewriteAllFiles = "a Java-created full-text table with deletion vectors, `compaction.force-rewrite-all-files " +
	"= true` and every file large (`compaction.small-file-ratio = 0`): Go writes (its " +
	"compaction at commit), writes updates, deletes and new rows, and compacts fully; after " +
	"each step no data file above level 0 has file source APPEND (each was rewritten, not moved" +
	" up, so each is in an archive), Java reads the model's rows, every archive is current by " +
	"Java's state and Java's searches equal Go's; then Java writes and compacts after Go with " +
	"the same checks."

// docWriteFirstRow describes write/first-row.
const docWriteFirstRow = "a Java-created full-text table with `merge-engine = first-row` and `ignore-delete` (no " +
	"deletion vectors, as Java requires): Go writes rows, re-inserts and updates of existing " +
	"keys with deletes, a batch holding new keys twice, and compacts fully; after each step " +
	"Java's batch read (which skips level 0 on first-row tables) returns the first row of every" +
	" key, every archive is current by Java's state and Java's searches equal Go's; then Java " +
	"writes and compacts after Go, and Go writes after Java."

// docWriteAggregation describes write/aggregation.
const docWriteAggregation = "a Java-created full-text table with deletion vectors and `merge-engine = aggregation`: " +
	"`last_value` on the text, `sum` on a BIGINT and an INT (retractions subtract), `max` on an" +
	" INT, `min` on a DATE, distinct `listagg` with `|` and `first_non_null_value` on STRINGs " +
	"(those four with `ignore-retract`): Go writes rows, updates (`-U` and `+U`, both with " +
	"values) and lone retractions of existing keys with new rows, a batch holding new keys " +
	"twice, and compacts fully; after each step Java reads a model folding every key's records " +
	"field by field, every archive is current by Java's state and Java's searches equal Go's; " +
	"then Java writes and compacts after Go, and Go writes after Java."

// docWriteAggregationExact describes write/aggregation-exact.
const docWriteAggregationExact = "Java's aggregation as the referee for functions whose results depend on how a key's " +
	"records are grouped: a Java-created full-text aggregation table with deletion vectors (the" +
	" text by the default `last_non_null_value`, `product` on a BIGINT and an INT, " +
	"`first_value` and `listagg` with blanks among the values, both with `ignore-retract`, and " +
	"`last_non_null_value` on an INT) is copied; eight steps of new rows, updates and lone " +
	"retractions (of keys old and new) go through Java's writer into one copy and Go's into the" +
	" other, every commit's compaction taking every run; then each side compacts its copy " +
	"fully. After every step both copies hold the same file shapes and Java reads the same rows" +
	" from both."

// docWritePartialUpdate describes write/partial-update.
const docWritePartialUpdate = "a Java-created full-text table with deletion vectors, `merge-engine = partial-update` and " +
	"`partial-update.remove-record-on-delete`: Go writes full rows, then partial updates (one " +
	"field or several, nulls meaning \"unchanged\"; some keys twice in a batch), `-D` records " +
	"(the row is removed) and `-U` records (ignored), new rows, and compacts fully; after each " +
	"step Java reads a model that overwrites only non-null fields, every archive is current by " +
	"Java's state and Java's searches equal Go's, and a search for the text of keys whose later" +
	" updates left the text column null finds exactly them (the archives index the merged " +
	"text); then Java writes and compacts after Go, and Go writes after Java."

// docWriteSequenceFieldVariant describes write/sequence-field/<variant>.
const docWriteSequenceFieldVariant = "Java-created tables with `sequence.field` (`full-text-dv`: ascending, deletion vectors and" +
	" full-text; `descending-no-dv`: `sequence.field.sort-order = descending` without deletion " +
	"vectors; `two-fields-dv`: two fields): Go writes rows with random sequence values (nulls " +
	"among them), records of existing keys whose values sort before or after the live ones, " +
	"retractions that win, a batch writing keys several times, and compacts fully; after each " +
	"step Java's read equals a model keeping, per key, the record that sorts last by the " +
	"sequence fields (nulls first) then by arrival; on the full-text table every archive is " +
	"current and Java's searches equal Go's; then Java writes and compacts after Go, and Go " +
	"writes after Java."

// docWriteRowkindField describes write/rowkind-field.
const docWriteRowkindField = "a Java-created full-text table with deletion vectors and `rowkind.field = op`: Go writes " +
	"rows, then updates, deletes and UPDATE_BEFOREs spelled only in `op` (in either case; every" +
	" row's own kind is `+I`), and compacts fully; after each step Java reads the model's rows," +
	" every archive is current by Java's state and Java's searches equal Go's; then Java writes" +
	" and compacts after Go, and Go writes after Java."

// docWriteRecordLevelExpire describes write/record-level-expire.
const docWriteRecordLevelExpire = "a Java-created full-text table with deletion vectors, `record-level.expire-time = 3600 s` " +
	"and `record-level.time-field = ts` (BIGINT): Go writes rows whose ts is fresh (in seconds " +
	"or milliseconds), two hours old or null, then updates and deletes of live keys (some " +
	"expired) with new rows, and compacts fully; after each step Java reads the model (expired " +
	"records never enter it; an expired update or delete leaves the earlier row), every archive" +
	" is current by Java's state and Java's searches equal Go's; then Java writes and compacts " +
	"after Go, and Go writes after Java."

// docWriteSameFilesVariant describes write/same-files/<variant>.
const docWriteSameFilesVariant = "for `force-rewrite-all-files`, `first-row`, `sequence-field`, `rowkind-field`, " +
	"`record-level-expire`, `aggregation` and `aggregation-remove-on-delete` tables (the " +
	"options of the cases above; the second aggregation table with " +
	"`aggregation.remove-record-on-delete`, sums and `last_value`, and both with compaction " +
	"size options under which every commit's compaction takes every run, since the picks by " +
	"file size differ on these small wide files), and `partial-update-sequence-group` (a " +
	"full-text partial-update table with `fields.ts.sequence-group = content` and " +
	"`partial-update.remove-record-on-sequence-group = ts`, whose size thresholds are set so " +
	"that both writers pick by run counts only): Java writes and fully compacts a first batch " +
	"and writes a second, the table is copied, six steps of rows go through Java's writer into " +
	"one copy and Go's into the other (each commit with its compaction at commit), then each " +
	"side fully compacts its copy; after every step both copies hold the same file shapes " +
	"(level, rows, deletion-vector cardinality, file source: moved up or rewritten) and Java " +
	"reads the model's rows from both."
