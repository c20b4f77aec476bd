package runner

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
)

// writeCommands are the runner commands the write cases use.
var writeCommands = []string{"create-table", "write", "compact", "read", "dump", "search", "bucket"}

// casesWrite registers, for every implementation taking the writer role, bucket/hash (go<->java)
// and, for every implementation taking the writer and compactor roles (casesWriteBy),
// scenario/java-reads-go-archives/<variant> (go->java, java-after-go),
// scenario/go-compacts-java-archives (java->go->java), stats/filtered-read and
// scenario/alternating (go+java).
func casesWrite(ct *caseTable) {
	gf := groupFixture()
	impls, runners := consumerRunners(ct)
	forProducers(impls, []Role{Writer}, gf, groupFixture, func(p string, gf *fixture[*maintainGroup]) {
		ct.add(caseRow{Name: "bucket/hash", Direction: as(p, "go<->java"), Doc: docBucketHash,
			Sides: []caseSide{side(p, Writer), side("java", Writer)},
			Uses:  []caseUse{runnerOf(runners, p, "bucket"), serving(gf, writeCommands...)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return bucketHash(ctx, gf.in(ce), ce.runner(p))
			}})
	})
	for _, p := range producerImpls(impls, Writer, Compactor) {
		if p == GoName {
			casesWriteBy(ct, gf, impls, runners, p)
		} else {
			casesWriteBy(ct, groupFixture(), impls, runners, p) // its own tables and JVM
		}
	}
}

// casesWriteBy registers the writer and compactor cases of casesWrite for implementation p (go,
// or any other whose supports file declares both roles), through p's runner; the directions name
// p where Go's rows name go.
func casesWriteBy(ct *caseTable, gf *fixture[*maintainGroup], impls []Impl, runners map[string]*implRunner, p string) {
	for _, v := range goWriteVariants() {
		ct.add(caseRow{Name: "scenario/java-reads-go-archives/" + v.name, Direction: as(p, "go->java"), Doc: docScenarioJavaReadsGoArchivesVariant,
			Sides: []caseSide{side(p, Writer, Compactor, Consumer), side("java", Consumer)},
			Uses:  []caseUse{serving(gf, writeCommands...), runnerOf(runners, p, "write", "compact")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return goWritesJavaReads(ctx, gf.in(ce), v, ce.runner(p))
			}})
		var tb *consumerTable
		afterGo := "scenario/java-reads-go-archives/" + v.name + "/" + as(p, "java-after-go")
		ct.add(caseRow{Name: "scenario/java-reads-go-archives/" + v.name, Direction: as(p, "java-after-go"), Doc: docScenarioJavaReadsGoArchivesVariant,
			Sides: []caseSide{side("java", Writer, Compactor, Consumer), side(p, Consumer)}, Needs: []string{"scenario/java-reads-go-archives/" + v.name + "/" + as(p, "go->java")},
			Uses: []caseUse{serving(gf, writeCommands...), continuing(func() error {
				if v.path == "" {
					return fmt.Errorf("scenario/java-reads-go-archives/%s/%s did not pass: no table %s wrote to continue", v.name, as(p, "go->java"), p)
				}
				return nil
			}), runnerOf(runners, p, "search")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				g := gf.in(ce)
				if err := javaAfterGoWrite(ctx, g, ce.runner(p), v); err != nil {
					return err
				}
				if v.fullText {
					var err error
					tb, err = recordJavaAnswers(ctx, g, v.path, as(p, "go+java"), filepath.Base(v.path), maintainQueries())
					return err
				}
				return nil
			}})
		if v.fullText {
			consumerCasesOf(ct, impls, runners, "scenario/java-reads-go-archives/"+v.name, as(p, "go+java"), afterGo, docScenarioConsumers, func() *consumerTable { return tb })
		}
	}
	var compacted *consumerTable
	ct.add(caseRow{Name: "scenario/go-compacts-java-archives", Direction: as(p, "java->go->java"), Doc: docScenarioGoCompactsJavaArchives,
		Sides: []caseSide{side("java", Writer, Compactor, Consumer), side(p, Compactor, Consumer)},
		Uses:  []caseUse{serving(gf, writeCommands...), runnerOf(runners, p, "compact")},
		Run: func(ctx context.Context, ce *caseEnv) error {
			g := gf.in(ce)
			path, err := goCompactsJavaArchives(ctx, g, ce.runner(p))
			if err != nil {
				return err
			}
			compacted, err = recordJavaAnswers(ctx, g, path, as(p, "java->go->java"), filepath.Base(path), maintainQueries())
			return err
		}})
	consumerCasesOf(ct, impls, runners, "scenario/go-compacts-java-archives", as(p, "java->go->java"), "scenario/go-compacts-java-archives/"+as(p, "java->go->java"), docScenarioConsumers, func() *consumerTable { return compacted })
	for _, v := range filteredReadVariants {
		name := "stats/filtered-read"
		if v.name != "" {
			name += "/" + v.name
		}
		ct.add(caseRow{Name: name, Direction: as(p, "go->java"), Doc: docStatsFilteredRead,
			Sides: []caseSide{side(p, Writer, Compactor), side("java", Consumer)},
			Uses:  []caseUse{serving(gf, append(slices.Clone(writeCommands), "filtered-read")...), runnerOf(runners, p, "write", "compact")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return filteredRead(ctx, gf.in(ce), ce.runner(p), v.name, v.options)
			}})
	}
	var alt *consumerTable
	ct.add(caseRow{Name: "scenario/alternating", Direction: as(p, "go+java"), Doc: docScenarioAlternating,
		Sides: []caseSide{side(p, Writer, Compactor, Consumer), side("java", Writer, Compactor, Consumer)},
		Uses:  []caseUse{serving(gf, writeCommands...), runnerOf(runners, p, "write", "compact", "search")},
		Run: func(ctx context.Context, ce *caseEnv) error {
			g := gf.in(ce)
			path, err := alternating(ctx, g, ce.runner(p), alternatingScenario{name: "alternating", full: true, seeds: 99, minRows: 20, rowSeedBase: 1000}, alternatingRounds)
			if err != nil {
				return err
			}
			alt, err = recordJavaAnswers(ctx, g, path, as(p, "go+java"), filepath.Base(path), maintainQueries())
			return err
		}})
	consumerCasesOf(ct, impls, runners, "scenario/alternating", as(p, "go+java"), "scenario/alternating/"+as(p, "go+java"), docScenarioConsumers, func() *consumerTable { return alt })
}

// alternatingRounds is the number of rounds of scenario/alternating.
const alternatingRounds = 20

// ---------------------------------------------------------------------------------------------
// bucket/hash

// keyType is one primary-key shape of bucket/hash: its columns and a generator of a random key
// in the runner's JSON form and in Go's form.
type keyType struct {
	name   string
	fields []field
	gen    func(r *rand.Rand) (row, []any)
}

func keyTypes() []keyType {
	one := func(name, sqlType string, gen func(r *rand.Rand) (any, any)) keyType {
		return keyType{name: name, fields: []field{{"k", sqlType + " NOT NULL"}, {"v", "STRING"}},
			gen: func(r *rand.Rand) (row, []any) {
				j, g := gen(r)
				return row{"k": j, "v": "x"}, []any{g, "x"}
			}}
	}
	decimal := func(r *rand.Rand, precision, scale int) (any, any) {
		digits := 1 + r.IntN(precision)
		u := new(big.Int)
		for i := 0; i < digits; i++ {
			u.Mul(u, big.NewInt(10))
			u.Add(u, big.NewInt(int64(r.IntN(10))))
		}
		if r.IntN(2) == 0 {
			u.Neg(u)
		}
		d := binrow.Decimal{Unscaled: u, Scale: scale}
		return d.String(), d
	}
	timestamp := func(precision int) func(r *rand.Rand) (any, any) {
		return func(r *rand.Rand) (any, any) {
			secs := r.Int64N(4_000_000_000) - 1_000_000_000
			nanos := r.IntN(1_000_000_000)
			unit := 1
			for i := precision; i < 9; i++ {
				unit *= 10
			}
			nanos -= nanos % unit
			t := time.Unix(secs, int64(nanos)).UTC()
			ms := secs*1000 + int64(nanos/1_000_000)
			return t.Format("2006-01-02T15:04:05.999999999"), binrow.Timestamp{Millis: ms, NanoOfMilli: int32(nanos % 1_000_000)}
		}
	}
	randText := func(r *rand.Rand) string {
		alphabet := []rune("abcxyz019 é中文😀")
		n := r.IntN(24)
		var sb strings.Builder
		for i := 0; i < n; i++ {
			sb.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		return sb.String()
	}
	compositeFields := []field{{"a", "INT NOT NULL"}, {"b", "STRING NOT NULL"}, {"c", "DATE NOT NULL"}, {"v", "STRING"}}
	composite := func(r *rand.Rand) (row, []any) {
		a, b, c := int32(r.Uint32()), randText(r), int32(r.IntN(30000))
		return row{"a": a, "b": b, "c": time.Unix(int64(c)*86400, 0).UTC().Format("2006-01-02"), "v": "x"}, []any{a, b, c, "x"}
	}
	return []keyType{
		one("tinyint", "TINYINT", func(r *rand.Rand) (any, any) { v := int8(r.IntN(256) - 128); return v, v }),
		one("smallint", "SMALLINT", func(r *rand.Rand) (any, any) { v := int16(r.IntN(65536) - 32768); return v, v }),
		one("int", "INT", func(r *rand.Rand) (any, any) { v := int32(r.Uint32()); return v, v }),
		one("bigint", "BIGINT", func(r *rand.Rand) (any, any) { v := int64(r.Uint64()); return v, v }),
		one("boolean", "BOOLEAN", func(r *rand.Rand) (any, any) { v := r.IntN(2) == 0; return v, v }),
		one("float", "FLOAT", func(r *rand.Rand) (any, any) {
			v := float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(20)-10)))
			return v, v
		}),
		one("double", "DOUBLE", func(r *rand.Rand) (any, any) {
			v := r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
			return v, v
		}),
		one("decimal-compact", "DECIMAL(10, 2)", func(r *rand.Rand) (any, any) { return decimal(r, 10, 2) }),
		one("decimal-18", "DECIMAL(18, 0)", func(r *rand.Rand) (any, any) { return decimal(r, 18, 0) }),
		one("decimal-noncompact", "DECIMAL(38, 10)", func(r *rand.Rand) (any, any) { return decimal(r, 38, 10) }),
		one("string", "STRING", func(r *rand.Rand) (any, any) { s := randText(r); return s, s }),
		one("varbinary", "VARBINARY(64)", func(r *rand.Rand) (any, any) {
			b := make([]byte, r.IntN(20))
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			return base64.StdEncoding.EncodeToString(b), b
		}),
		one("date", "DATE", func(r *rand.Rand) (any, any) {
			d := int32(r.IntN(80000) - 20000)
			return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02"), d
		}),
		one("timestamp-0", "TIMESTAMP(0)", timestamp(0)),
		one("timestamp-3", "TIMESTAMP(3)", timestamp(3)),
		one("timestamp-6", "TIMESTAMP(6)", timestamp(6)),
		one("timestamp-9", "TIMESTAMP(9)", timestamp(9)),
		{name: "composite", fields: compositeFields, gen: composite},
		// The bucket key a subset of the primary key (bucket-key = a).
		{name: "bucket-key-int", fields: compositeFields, gen: composite},
	}
}

// bucketFunctions are the bucket-function.type values of bucket/hash and, for each, the key types
// Paimon's function accepts (mod: a single INT or BIGINT field; hive: every type but
// TIMESTAMP). For the other key types both sides must refuse the function.
var bucketFunctions = []struct {
	name    string
	accepts func(keyType string) bool
}{
	{"default", func(string) bool { return true }},
	{"mod", func(k string) bool { return k == "int" || k == "bigint" || k == "bucket-key-int" }},
	{"hive", func(k string) bool { return !strings.HasPrefix(k, "timestamp") }},
}

// bucketHash is bucket/hash: for every bucket function and 10,000 random keys of every key type,
// the bucket the runner goP (Go's: its writer's routing) answers for the row equals the bucket
// Paimon's FixedBucketRowKeyExtractor computes; where Paimon refuses the function for the key
// type, goP refuses it too.
func bucketHash(ctx context.Context, g *maintainGroup, goP *Process) error {
	const keys = 10000
	for i, kt := range keyTypes() {
		pks, opts := []string{"k"}, map[string]string{"bucket": "13"}
		switch kt.name {
		case "composite":
			pks = []string{"a", "b", "c"}
		case "bucket-key-int":
			pks = []string{"a", "b", "c"}
			opts["bucket-key"] = "a"
		}
		path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "bucket-hash", kt.name), "bh-"+kt.name, kt.fields, pks, nil,
			opts, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", kt.name, err)
		}
		r := rand.New(rand.NewPCG(uint64(i), 2026))
		rows := make([]row, keys)
		for j := range rows {
			rows[j], _ = kt.gen(r)
		}
		// The rows are encoded once for the six requests of the key type.
		rowsJSON, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		var byDefault []int
		for _, fn := range bucketFunctions {
			buckets, err := bucketHashOne(ctx, g, goP, kt.name, fn.name, fn.accepts(kt.name), path, rows, rowsJSON)
			if err != nil {
				return fmt.Errorf("%s, bucket function %s: %w", kt.name, fn.name, err)
			}
			// A function that gives the default's buckets for every row was not applied.
			if fn.name == "default" {
				byDefault = buckets
			} else if buckets != nil && slices.Equal(buckets, byDefault) {
				return fmt.Errorf("%s, bucket function %s: every bucket equals the default function's", kt.name, fn.name)
			}
		}
	}
	return nil
}

// bucketHashOne compares the buckets of rows (rowsJSON encoded) under one bucket function, asked
// of the Java runner and goP at once, and returns them, or, when Paimon does not accept the
// function for the key type (accepted false), checks that both sides refuse it.
func bucketHashOne(ctx context.Context, g *maintainGroup, goP *Process, keyType, fn string, accepted bool, path string, rows []row,
	rowsJSON json.RawMessage) ([]int, error) {
	type result struct {
		Buckets []int `json:"buckets"`
	}
	args := struct {
		Path     string          `json:"path"`
		Rows     json.RawMessage `json:"rows"`
		Function string          `json:"function"`
	}{path, rowsJSON, fn}
	var jres, gres result
	done := make(chan error, 1)
	go func() { done <- goP.Call(ctx, "bucket", args, &gres) }()
	javaErr := g.proc.Call(ctx, "bucket", args, &jres)
	goErr := <-done
	if !accepted {
		if javaErr == nil || goErr == nil {
			return nil, fmt.Errorf("a key type Paimon's function does not take: Java error %v, %s error %v (both must refuse)", javaErr, goP.Name(), goErr)
		}
		return nil, nil
	}
	if javaErr != nil {
		return nil, javaErr
	}
	if goErr != nil {
		return nil, fmt.Errorf("%s: %w", goP.Name(), goErr)
	}
	for who, res := range map[string]result{"Java": jres, goP.Name(): gres} {
		if len(res.Buckets) != len(rows) {
			return nil, fmt.Errorf("%s returned %d buckets for %d rows", who, len(res.Buckets), len(rows))
		}
	}
	used := map[int]bool{}
	for j := range rows {
		b := gres.Buckets[j]
		if b != jres.Buckets[j] {
			return nil, fmt.Errorf("row %v: %s bucket %d, Java %d", rows[j], goP.Name(), b, jres.Buckets[j])
		}
		used[b] = true
	}
	if len(used) < 2 && keyType != "tinyint" && keyType != "boolean" {
		return nil, errors.New("every key fell into one bucket: the case tests nothing")
	}
	return jres.Buckets, nil
}

// ---------------------------------------------------------------------------------------------
// Go writes, Java reads

// writeVariant is one table Go creates by writing and compacting.
type writeVariant struct {
	name      string
	fields    []field
	pks       []string
	partKeys  []string
	options   map[string]string
	rows      func(lo, hi int, seed uint64) []row
	fullText  bool
	path      string
	model     *rowModel
	searchErr error
}

func textRows(lo, hi int, seed uint64) []row { return pkTextRows(seed, lo, hi) }

func partTextRows(lo, hi int, seed uint64) []row {
	rows := pkTextRows(seed, lo, hi)
	regions := []string{"eu", "中国", "us"}
	for i, r := range rows {
		r["region"] = regions[(lo+i)%3]
		r["dt"] = []string{"2024-01-31", "2024-02-01"}[(lo+i)%2]
	}
	return rows
}

func goWriteVariants() []*writeVariant {
	ft := func(extra map[string]string) map[string]string {
		o := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content"}
		for k, v := range extra {
			o[k] = v
		}
		return o
	}
	idText := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	return []*writeVariant{
		{name: "partitioned-dv", fields: []field{{"region", "STRING NOT NULL"}, {"dt", "DATE NOT NULL"}, {"id", "INT NOT NULL"}, {"content", "STRING"}},
			pks: []string{"region", "dt", "id"}, partKeys: []string{"region", "dt"}, options: ft(nil), rows: partTextRows, fullText: true},
		// Partition directories named by the values' string forms (dt=2024-01-31), not the legacy
		// internal forms.
		{name: "non-legacy-partition", fields: []field{{"region", "STRING NOT NULL"}, {"dt", "DATE NOT NULL"}, {"id", "INT NOT NULL"}, {"content", "STRING"}},
			pks: []string{"region", "dt", "id"}, partKeys: []string{"region", "dt"}, options: ft(map[string]string{"partition.legacy-name": "false"}),
			rows: partTextRows, fullText: true},
		{name: "index-in-data-dir", fields: idText, pks: []string{"id"},
			options: ft(map[string]string{"bucket": "3", "index-file-in-data-file-dir": "true"}), rows: textRows, fullText: true},
		{name: "ngram", fields: idText, pks: []string{"id"},
			options: ft(map[string]string{pkfulltext.FieldOptionsKey("content"): `{"tokenizer":"ngram","ngram.min-gram":"2","ngram.max-gram":"3"}`}),
			rows:    textRows, fullText: true},
		{name: "jieba", fields: idText, pks: []string{"id"},
			options: ft(map[string]string{pkfulltext.FieldOptionsKey("content"): `{"tokenizer":"jieba"}`}), rows: textRows, fullText: true},
		{name: "no-dv", fields: idText, pks: []string{"id"}, options: map[string]string{"bucket": "2"}, rows: textRows},
		{name: "thin-mode", fields: idText, pks: []string{"id"},
			options: ft(map[string]string{"data-file.thin-mode": "true", "target-file-size": "16kb"}), rows: textRows, fullText: true},
		{name: "snappy-full-stats", fields: idText, pks: []string{"id"},
			options: map[string]string{"bucket": "3", "file.compression": "snappy", "metadata.stats-mode": "full"}, rows: textRows},
	}
}

// rowModel is the rows a table should hold, by primary key.
type rowModel struct {
	pks  []string
	rows map[string]row
}

func newRowModel(pks []string) *rowModel { return &rowModel{pks: pks, rows: map[string]row{}} }

func (m *rowModel) key(r row) string {
	parts := make([]string, len(m.pks))
	for i, k := range m.pks {
		parts[i] = fmt.Sprint(normalize(r[k]))
	}
	return strings.Join(parts, "\x00")
}

func (m *rowModel) apply(rows []row) {
	for _, r := range rows {
		k := m.key(r)
		switch r["_rowKind"] {
		case "-D", "-U":
			delete(m.rows, k)
		default:
			c := row{}
			for f, v := range r {
				if f != "_rowKind" {
					c[f] = v
				}
			}
			m.rows[k] = c
		}
	}
}

// normalize passes a value through JSON, as Java's read renders it to the harness.
func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// sameAsModel checks Java reads exactly the model's rows.
func sameAsModel(ctx context.Context, g *maintainGroup, path string, m *rowModel, fields []field) error {
	got, err := javaRead(ctx, g.proc, path)
	if err != nil {
		return err
	}
	gotByKey := map[string]any{}
	for _, r := range got {
		gotByKey[m.key(r)] = normalize(r)
	}
	want := map[string]any{}
	for k, r := range m.rows {
		full := row{}
		for _, f := range fields {
			full[f.Name] = r[f.Name]
		}
		want[k] = normalize(full)
	}
	if len(got) != len(gotByKey) {
		return fmt.Errorf("Java read %d rows with %d distinct keys", len(got), len(gotByKey))
	}
	if d := cmp.Diff(want, gotByKey); d != "" {
		return fmt.Errorf("Java reads other rows than the model (-model +java):\n%s", d)
	}
	return nil
}

// goWrite writes rows with Go's writer through its runner goP (the protocol's write: one pkft
// Writer, one commit).
func goWrite(ctx context.Context, goP *Process, path string, rows []row) error {
	if err := goP.Call(ctx, "write", map[string]any{"path": path, "rows": rows}, nil); err != nil {
		return fmt.Errorf("go write: %w", err)
	}
	return nil
}

// goCompact fully compacts the table with Go through its runner goP (the protocol's compact: one
// COMPACT commit).
func goCompact(ctx context.Context, goP *Process, path string) error {
	if err := goP.Call(ctx, "compact", map[string]any{"path": path}, nil); err != nil {
		return fmt.Errorf("go compact: %w", err)
	}
	return nil
}

// updatesAndDeletes rewrites some rows of the model (new text) and deletes others.
func updatesAndDeletes(m *rowModel, seed uint64, update, del int) []row {
	keys := make([]string, 0, len(m.rows))
	for k := range m.rows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	r := rand.New(rand.NewPCG(seed, 7))
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	texts := pkTextRows(seed, 0, update)
	var out []row
	for i := 0; i < update && i < len(keys); i++ {
		c := row{}
		for f, v := range m.rows[keys[i]] {
			c[f] = v
		}
		c["content"] = texts[i]["content"]
		c["_rowKind"] = "+U"
		out = append(out, c)
	}
	for i := update; i < update+del && i < len(keys); i++ {
		// Every third retraction is an UPDATE_BEFORE without its UPDATE_AFTER, which deletes the
		// key as well.
		c := row{"_rowKind": "-D"}
		if i%3 == 0 {
			c["_rowKind"] = "-U"
		}
		for _, k := range m.pks {
			c[k] = m.rows[keys[i]][k]
		}
		out = append(out, c)
	}
	return out
}

// checkJavaView checks Java reads the model's rows and, for full-text tables, that every
// archive is current by Java's own state and Java's search equals Go's.
func checkJavaView(ctx context.Context, g *maintainGroup, goP *Process, path string, m *rowModel, fields []field, fullText bool) error {
	return checkJavaViewOf(ctx, g, goP, path, m, fields, fullText, true)
}

// checkJavaViewOf is checkJavaView; needArchive requires at least one archive (a first full
// compaction of single level-0 files only moves them up, as Java's does, and builds none).
func checkJavaViewOf(ctx context.Context, g *maintainGroup, goP *Process, path string, m *rowModel, fields []field, fullText, needArchive bool) error {
	if err := sameAsModel(ctx, g, path, m, fields); err != nil {
		return err
	}
	d, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	if !fullText {
		return nil
	}
	if err := allCurrent(d); err != nil {
		return fmt.Errorf("Java's state: %w", err)
	}
	if n := archiveCount(d); n == 0 {
		if !needArchive {
			return nil
		}
		return errors.New("the table has no archive: the case tests nothing")
	}
	return g.sameSearchesVia(ctx, goP, path, maintainQueries(), []int{10})
}

func archiveCount(d *inspect.Dump) int {
	n := 0
	for _, b := range d.Buckets {
		if b.State != nil {
			n += len(b.State.Current)
		}
	}
	return n
}

// goWritesJavaReads is scenario/java-reads-go-archives/<variant> go->java: Java only creates
// the table; Go, through its runner goP (the protocol's write and compact), writes, compacts,
// writes updates, deletes and new rows, and compacts again. Java reads the model's rows, Java's
// state shows every archive current, Java's search equals Go's.
func goWritesJavaReads(ctx context.Context, g *maintainGroup, v *writeVariant, goP *Process) error {
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "go-writes", v.name), "gw-"+v.name, v.fields, v.pks, v.partKeys, v.options, nil)
	if err != nil {
		return err
	}
	m := newRowModel(v.pks)
	first := v.rows(0, 150, 31)
	if err := goP.Call(ctx, "write", map[string]any{"path": path, "rows": first}, nil); err != nil {
		return fmt.Errorf("go write: %w", err)
	}
	m.apply(first)
	if !v.fullText {
		// Without deletion vectors Java merges level-0 files on read.
		if err := sameAsModel(ctx, g, path, m, v.fields); err != nil {
			return fmt.Errorf("after the first write: %w", err)
		}
	}
	if err := goP.Call(ctx, "compact", map[string]any{"path": path}, nil); err != nil {
		return fmt.Errorf("go compact: %w", err)
	}
	if err := checkJavaViewOf(ctx, g, goP, path, m, v.fields, v.fullText, false); err != nil {
		return fmt.Errorf("after the first compaction: %w", err)
	}
	second := append(updatesAndDeletes(m, 32, 30, 20), v.rows(150, 220, 33)...)
	if err := goP.Call(ctx, "write", map[string]any{"path": path, "rows": second}, nil); err != nil {
		return fmt.Errorf("go write: %w", err)
	}
	m.apply(second)
	before, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	if err := goP.Call(ctx, "compact", map[string]any{"path": path}, nil); err != nil {
		return fmt.Errorf("go compact: %w", err)
	}
	after, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	if after.SnapshotID != before.SnapshotID+1 || after.CommitKind != "COMPACT" {
		return fmt.Errorf("the second compaction committed nothing: Java sees snapshot %d (%s) after snapshot %d", after.SnapshotID, after.CommitKind, before.SnapshotID)
	}
	if err := checkJavaView(ctx, g, goP, path, m, v.fields, v.fullText); err != nil {
		return fmt.Errorf("after the second compaction: %w", err)
	}
	v.path, v.model = path, m
	return nil
}

// javaAfterGoWrite is java-after-go: Java writes and fully compacts the Go-written table; the
// table stays consistent: Java reads the model, every archive is current.
func javaAfterGoWrite(ctx context.Context, g *maintainGroup, goP *Process, v *writeVariant) error {
	more := append(updatesAndDeletes(v.model, 41, 15, 10), v.rows(220, 260, 42)...)
	if err := g.proc.Call(ctx, "write", map[string]any{"path": v.path, "rows": more}, nil); err != nil {
		return err
	}
	v.model.apply(more)
	if err := g.proc.Call(ctx, "compact", map[string]any{"path": v.path}, nil); err != nil {
		return err
	}
	return checkJavaView(ctx, g, goP, v.path, v.model, v.fields, v.fullText)
}

// ---------------------------------------------------------------------------------------------
// Go compacts Java's archives

// goCompactsJavaArchives is scenario/go-compacts-java-archives (it returns the table's path): Java writes and compacts a
// full-text table (Java's archives), writes more without compacting, then Go compacts fully
// through its runner's compact (compactor, the protocol's compactor role): in Go's one COMPACT
// snapshot every archive Java had on a level Go changed is retired and the new level's archive
// built (both read from Java's dumps before and after); Java reads the model, Java's state shows
// every archive current, Java's search equals Go's.
func goCompactsJavaArchives(ctx context.Context, g *maintainGroup, compactor *Process) (string, error) {
	fields := []field{{"id", "INT NOT NULL"}, {"content", "STRING"}}
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content", "num-levels": "4"}
	m := newRowModel([]string{"id"})
	first := pkTextRows(51, 0, 200)
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "go-compacts"), "go-compacts", fields, []string{"id"}, nil, opts,
		[]tableStep{{rows: first}, {}})
	if err != nil {
		return "", err
	}
	m.apply(first)
	more := append(updatesAndDeletes(m, 52, 40, 25), pkTextRows(53, 200, 260)...)
	if err := g.proc.Call(ctx, "write", map[string]any{"path": path, "rows": more}, nil); err != nil {
		return "", err
	}
	m.apply(more)
	before, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return "", err
	}
	javaArchives := map[string]bool{}
	for _, b := range before.Buckets {
		for _, f := range b.IndexFiles {
			if f.IndexType == pkfulltext.IndexType {
				javaArchives[f.FileName] = true
			}
		}
	}
	if len(javaArchives) == 0 {
		return "", errors.New("Java built no archive: the case tests nothing")
	}
	if err := compactor.Call(ctx, "compact", map[string]any{"path": path}, nil); err != nil {
		return "", fmt.Errorf("go compact: %w", err)
	}
	after, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return "", err
	}
	if after.SnapshotID != before.SnapshotID+1 || after.CommitKind != "COMPACT" {
		return "", fmt.Errorf("Java sees snapshot %d (%s) after Go's compaction of snapshot %d, want one COMPACT snapshot", after.SnapshotID, after.CommitKind, before.SnapshotID)
	}
	// What Go's compaction retired and built: the full-text archives of the snapshot before that
	// are gone, and those that are new (the protocol's compact answers only its bucket count).
	kept := map[string]bool{}
	built := 0
	for _, b := range after.Buckets {
		for _, f := range b.IndexFiles {
			if f.IndexType != pkfulltext.IndexType {
				continue
			}
			if javaArchives[f.FileName] {
				kept[f.FileName] = true
			} else {
				built++
			}
		}
	}
	retired := len(javaArchives) - len(kept)
	if retired == 0 || built == 0 {
		return "", fmt.Errorf("Go retired %d and built %d archives: the case tests nothing", retired, built)
	}
	for _, b := range after.Buckets {
		for _, f := range b.IndexFiles {
			if f.IndexType != pkfulltext.IndexType || !javaArchives[f.FileName] {
				continue
			}
			// A Java archive Go kept must still be current (its level was not compacted).
			if b.State == nil || !slices.Contains(mapValues(b.State.Current), f.FileName) {
				return "", fmt.Errorf("Java's archive %s survived Go's compaction without being current", f.FileName)
			}
		}
	}
	return path, checkJavaView(ctx, g, compactor, path, m, fields, true)
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// ---------------------------------------------------------------------------------------------
// Alternating writers

// alternatingScenario is one shape of the alternating scenarios. With full (scenario/alternating)
// each side compacts fully every round (Go: write, then compact; Java: a full compaction in the
// write's commit) and Java's read and both states are checked; without (scenario/alternating-no-
// full) only the compactions the commits run happen, and Go's own read is checked as well. seeds
// makes each scenario's rows its own.
type alternatingScenario struct {
	name        string
	full        bool
	seeds       uint64
	minRows     int
	rowSeedBase uint64
}

// alternating runs an alternating scenario and returns the table's path: rounds of random writes (new rows, updates, deletes)
// alternate between Go (through its runner goP: write, compact) and Java on one partitioned
// full-text table; after every round Java reads the model's rows and every archive classifies
// current by Java's state and by Go's; at the end Java's searches equal Go's.
func alternating(ctx context.Context, g *maintainGroup, goP *Process, sc alternatingScenario, rounds int) (string, error) {
	fields := []field{{"region", "STRING NOT NULL"}, {"dt", "DATE NOT NULL"}, {"id", "INT NOT NULL"}, {"content", "STRING"}}
	pks := []string{"region", "dt", "id"}
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content"}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, sc.name), sc.name, fields, pks, []string{"region", "dt"}, opts, nil)
	if err != nil {
		return "", err
	}
	m := newRowModel(pks)
	next := 0
	for round := 0; round < rounds; round++ {
		r := rand.New(rand.NewPCG(uint64(round), sc.seeds))
		n := sc.minRows + r.IntN(40)
		rows := partTextRows(next, next+n, sc.rowSeedBase+uint64(round))
		next += n
		if len(m.rows) > 0 {
			rows = append(rows, updatesAndDeletes(m, sc.rowSeedBase+1000+uint64(round), r.IntN(15), r.IntN(10))...)
		}
		side := "go"
		if round%2 == 1 {
			side = "java"
			args := map[string]any{"path": path, "rows": rows}
			if sc.full {
				args["compact"] = "full"
			}
			if err := g.proc.Call(ctx, "write", args, nil); err != nil {
				return "", fmt.Errorf("round %d (java): %w", round, err)
			}
		} else {
			if err := goP.Call(ctx, "write", map[string]any{"path": path, "rows": rows}, nil); err != nil {
				return "", fmt.Errorf("round %d (go): go write: %w", round, err)
			}
			if sc.full {
				if err := goP.Call(ctx, "compact", map[string]any{"path": path}, nil); err != nil {
					return "", fmt.Errorf("round %d (go): go compact: %w", round, err)
				}
			}
		}
		m.apply(rows)
		if err := roundChecks(ctx, g, goP, path, m, fields, !sc.full); err != nil {
			return "", fmt.Errorf("round %d (%s): %w", round, side, err)
		}
	}
	return path, g.sameSearchesVia(ctx, goP, path, maintainQueries(), []int{10})
}

// roundChecks are the checks after each round of the alternating scenarios: Java reads the
// model's rows (and, with goRead, Go's read equals Java's), and every archive is current by
// Java's and Go's state.
func roundChecks(ctx context.Context, g *maintainGroup, goP *Process, path string, m *rowModel, fields []field, goRead bool) error {
	if err := sameAsModel(ctx, g, path, m, fields); err != nil {
		return err
	}
	if goRead {
		if err := goReadsAsJava(ctx, g, goP, path); err != nil {
			return err
		}
	}
	jd, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	if err := allCurrent(jd); err != nil {
		return fmt.Errorf("Java's state: %w", err)
	}
	gd, err := goDump(ctx, path)
	if err != nil {
		return err
	}
	if err := allCurrent(gd); err != nil {
		return fmt.Errorf("Go's state: %w", err)
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// stats/filtered-read

// filteredReadVariants are the statistics layouts of stats/filtered-read: Java's defaults, and
// the sparse layout (metadata.stats-dense-store = false), statistics for the first columns only
// (metadata.stats-keep-first-n-columns) and per-level modes (metadata.stats-mode.per.level: full
// at level 0, truncated strings at the top level).
var filteredReadVariants = []struct {
	name    string
	options map[string]string
}{
	{"", nil},
	{"sparse-stats", map[string]string{
		"metadata.stats-dense-store":          "false",
		"metadata.stats-keep-first-n-columns": "4",
		"metadata.stats-mode.per.level":       "0:full,5:truncate(8)",
	}},
	{"codec-gzip", map[string]string{"file.compression": "gzip"}},
	{"codec-lz4", map[string]string{"file.compression": "lz4"}},
	{"codec-none", map[string]string{"file.compression": "none"}},
	{"codec-zstd-level", map[string]string{"file.compression": "zstd", "file.compression.zstd-level": "9"}},
}

// filteredRead is stats/filtered-read: Go writes level-0 files and a compaction of a table whose
// values defeat naive statistics (long strings sharing a 16-character prefix, negative numbers,
// nulls, dates); Java reads with random predicates pushed down — pruning files by Go's
// statistics — and must return exactly the model's rows that satisfy them.
func filteredRead(ctx context.Context, g *maintainGroup, goP *Process, variant string, extra map[string]string) error {
	fields := []field{{"id", "INT NOT NULL"}, {"grp", "INT"}, {"name", "STRING"}, {"big", "BIGINT"}, {"day", "DATE"}, {"content", "STRING"}}
	opts := map[string]string{"bucket": "2"}
	maps.Copy(opts, extra)
	name := strings.TrimSuffix("filtered-read-"+variant, "-")
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, name), name, fields, []string{"id"}, nil, opts, nil)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(7, 11))
	gen := func(lo, hi int) []row {
		var rows []row
		for i := lo; i < hi; i++ {
			rw := row{"id": i, "grp": r.IntN(20) - 10, "name": fmt.Sprintf("a-shared-prefix-of-twenty-%03d", r.IntN(300)),
				"big": r.IntN(2_000_000) - 1_000_000, "day": time.Unix(int64(18000+r.IntN(400))*86400, 0).UTC().Format("2006-01-02"),
				"content": fmt.Sprintf("text %d", i)}
			if r.IntN(6) == 0 {
				rw["grp"] = nil
			}
			if r.IntN(8) == 0 {
				rw["name"] = nil
			}
			rows = append(rows, rw)
		}
		return rows
	}
	m := newRowModel([]string{"id"})
	for b, batch := range [][2]int{{0, 300}, {200, 500}, {450, 700}} {
		rows := gen(batch[0], batch[1])
		if b > 0 {
			rows = append(rows, updatesAndDeletes(m, uint64(b), 20, 20)...)
		}
		if err := goWrite(ctx, goP, path, rows); err != nil {
			return err
		}
		m.apply(rows)
		if b == 1 {
			if err := goCompact(ctx, goP, path); err != nil {
				return err
			}
		}
	}
	type pred struct {
		Field string `json:"field"`
		Op    string `json:"op"`
		Value any    `json:"value"`
	}
	sample := func(f string) any {
		keys := make([]string, 0, len(m.rows))
		for k := range m.rows {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for {
			if v := m.rows[keys[r.IntN(len(keys))]][f]; v != nil {
				return v
			}
		}
	}
	ops := []string{"=", "!=", "<", "<=", ">", ">=", "is-null"}
	test := func(p pred, v any) bool {
		if p.Op == "is-null" {
			return v == nil
		}
		if v == nil {
			return false
		}
		var c int
		switch x := normalize(v).(type) {
		case float64:
			y := normalize(p.Value).(float64)
			c = cmpFloat(x, y)
		case string:
			c = strings.Compare(x, normalize(p.Value).(string))
		}
		switch p.Op {
		case "=":
			return c == 0
		case "!=":
			return c != 0
		case "<":
			return c < 0
		case "<=":
			return c <= 0
		case ">":
			return c > 0
		}
		return c >= 0
	}
	nonEmpty := 0
	for q := 0; q < 60; q++ {
		n := 1 + r.IntN(2)
		var preds []pred
		for i := 0; i < n; i++ {
			f := []string{"id", "grp", "name", "big", "day"}[r.IntN(5)]
			op := ops[r.IntN(len(ops))]
			if op == "is-null" && (f == "id" || r.IntN(3) > 0) {
				op = "="
			}
			var val any
			if op != "is-null" {
				val = sample(f)
				if s, ok := val.(string); ok && f == "name" && r.IntN(2) == 0 {
					val = s[:16+r.IntN(len(s)-16)] // a bound inside the truncated prefix
				}
			}
			preds = append(preds, pred{f, op, val})
		}
		want := newRowModel([]string{"id"})
		for k, rw := range m.rows {
			ok := true
			for _, p := range preds {
				ok = ok && test(p, rw[p.Field])
			}
			if ok {
				want.rows[k] = rw
			}
		}
		var got javaRows
		if err := g.proc.Call(ctx, "filtered-read", map[string]any{"path": path, "predicates": preds}, &got); err != nil {
			return err
		}
		gotByKey := map[string]any{}
		for _, rw := range got.Rows {
			gotByKey[want.key(rw)] = normalize(rw)
		}
		wantByKey := map[string]any{}
		for k, rw := range want.rows {
			wantByKey[k] = normalize(rw)
		}
		if d := cmp.Diff(wantByKey, gotByKey); d != "" {
			return fmt.Errorf("predicates %+v: Java's filtered read differs from the model (-model +java):\n%s", preds, d)
		}
		if len(want.rows) > 0 {
			nonEmpty++
		}
	}
	if nonEmpty < 20 {
		return fmt.Errorf("only %d of 60 predicates matched rows: the case tests little", nonEmpty)
	}
	return nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// docBucketHash describes bucket/hash.
const docBucketHash = "for each bucket function (`bucket-function.type` `default`, `mod`, `hive`; the runners' " +
	"command `bucket` takes the function) and 10,000 random keys of each of 19 key shapes " +
	"(BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(10,2), DECIMAL(18,0), " +
	"DECIMAL(38,10), STRING, VARBINARY, DATE, TIMESTAMP(0/3/6/9), a composite INT+STRING+DATE " +
	"key, and the same with `bucket-key` = the INT field) Go's bucket of the row (the Go " +
	"runner's `bucket`: its writer's routing) equals " +
	"Paimon's `FixedBucketRowKeyExtractor`; where Paimon refuses the function for the key type " +
	"(`mod` takes a single INT or BIGINT field, `hive` no TIMESTAMP) Go refuses it too."

// docScenarioJavaReadsGoArchivesVariant describes scenario/java-reads-go-archives/<variant>.
const docScenarioJavaReadsGoArchivesVariant = "Java only creates the table; Go writes, fully compacts, writes updates, deletes and new " +
	"rows, compacts again (variants: partitions x buckets with deletion vectors, the same with " +
	"`partition.legacy-name = false`, `index-file-in-data-file-dir`, ngram, jieba, no deletion " +
	"vectors, `data-file.thin-mode` with rolled files, snappy with full stats). Java reads " +
	"exactly the model's rows, Java's state shows every archive current, Java's search equals " +
	"Go's; then Java writes and compacts and the table stays consistent."

// docScenarioGoCompactsJavaArchives describes scenario/go-compacts-java-archives.
const docScenarioGoCompactsJavaArchives = "Java writes and compacts with archives, writes more, Go compacts: Go's one COMPACT " +
	"snapshot retires Java's archives of the changed levels and builds the new ones; Java reads" +
	" the model, sees every archive current, and its search equals Go's."

// docStatsFilteredRead describes stats/filtered-read.
const docStatsFilteredRead = "Java reads Go-written files with 60 random predicates on keys and values pushed down " +
	"(files pruned by Go's statistics: strings sharing the truncated 16-character prefix, " +
	"negatives, nulls, dates) and returns exactly the model's matching rows (runner command " +
	"`filtered-read`; a deliberately wrong max fails it). `stats/filtered-read/sparse-stats` " +
	"does the same on a table with `metadata.stats-dense-store = false`, " +
	"`metadata.stats-keep-first-n-columns = 4` and `metadata.stats-mode.per.level = " +
	"0:full,5:truncate(8)`, and `stats/filtered-read/codec-{gzip,lz4,none,zstd-level}` with " +
	"those data file codecs (and zstd level 9)."

// docScenarioAlternating describes scenario/alternating.
const docScenarioAlternating = "20 rounds on one partitioned full-text table, alternating Go (write, then full compaction)" +
	" and Java (write with a full compaction); after every round Java reads the model's rows " +
	"and every archive classifies current by Java's state and Go's."
