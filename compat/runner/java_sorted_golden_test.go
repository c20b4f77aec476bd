package runner

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
)

// The sorted family's index-column options, as table options name them.
const (
	btreeColumnsOption  = "pk-btree.index.columns"
	bitmapColumnsOption = "pk-bitmap.index.columns"
)

// javaSortedCorpus is the sorted-family tables of the Java golden corpus: primary-key tables with
// pk-btree and pk-bitmap columns over the key types Paimon's sorted indexes take, deletion
// vectors holding deleted rows of indexed files, and compactions that leave payloads on more than
// one non-zero level (sorted-types) or levels Java's writer has not indexed yet at the last
// commit (sorted-fulltext-partitioned). sorted-types is unpartitioned with one bucket and no full-text column;
// sorted-fulltext-partitioned is partitioned by a STRING (two partitions of one bucket) and has a pk-full-text column
// next to the sorted ones.
func javaSortedCorpus() []*corpusTable {
	statuses := []string{"new", "paid", "sent", "中文"}
	typed := func(from, to int, tag string) []row {
		var out []row
		for i := from; i < to; i++ {
			r := row{
				"id": i, "price": (i * 3) % 7, "qty": int64(i%5) * 1_000_000_007,
				"amount": fmt.Sprintf("%d.%02d", i%4, (i%4)*25), "dt": time.Date(2024, 1, 1+i%6, 0, 0, 0, 0, time.UTC).Format(time.DateOnly),
				"ratio": float64(i%4) / 4, "flag": i%3 == 0, "status": statuses[i%len(statuses)], "name": fmt.Sprintf("n%d", i%5),
			}
			// Nulls in every indexed column at some rows.
			switch i % 11 {
			case 0:
				r["price"], r["amount"], r["flag"] = nil, nil, nil
			case 5:
				r["qty"], r["dt"], r["ratio"], r["status"], r["name"] = nil, nil, nil, nil, nil
			}
			out = append(out, r)
		}
		return out
	}
	regions := []string{"eu", "中国"}
	partitioned := func(from, to int, tag string) []row {
		var out []row
		for ri, region := range regions {
			text := ftTextRows(uint64(len(tag)*10+ri), "body", from, to)
			for i := from; i < to; i++ {
				r := row{
					"region": region, "id": i, "n": int64(i%6) - 2, "category": i % 4,
					"amount": fmt.Sprintf("%d.%03d", i%3, (i%3)*125), "ratio": float64(i%3) * 1.5, "flag": i%2 == 0,
					"day":  time.Date(2023, 12, 30+i%4, 0, 0, 0, 0, time.UTC).Format(time.DateOnly),
					"body": text[i-from]["body"],
				}
				if i%9 == 4 {
					r["n"], r["category"], r["amount"], r["ratio"], r["flag"], r["day"] = nil, nil, nil, nil, nil, nil
				}
				out = append(out, r)
			}
		}
		return out
	}
	keyOf := func(rows []row, cols ...string) []row {
		var out []row
		for _, r := range rows {
			k := row{}
			for _, c := range cols {
				k[c] = r[c]
			}
			out = append(out, k)
		}
		return out
	}
	return []*corpusTable{
		{
			name: "sorted-types",
			fields: []field{
				{"id", "INT NOT NULL"}, {"price", "INT"}, {"qty", "BIGINT"}, {"amount", "DECIMAL(10, 2)"},
				{"dt", "DATE"}, {"ratio", "DOUBLE"}, {"flag", "BOOLEAN"}, {"status", "STRING"}, {"name", "STRING"},
			},
			primaryKeys: []string{"id"},
			options: map[string]string{
				"bucket": "1", "deletion-vectors.enabled": "true",
				btreeColumnsOption: "price,amount,ratio,name", bitmapColumnsOption: "qty,dt,flag,status",
			},
			steps: []tableStep{
				{rows: typed(0, 30, "first"), compact: true},
				{rows: typed(20, 45, "second")},
				{rows: append(typed(40, 50, "third"), deletes(keyOf(typed(2, 6, ""), "id"))...)},
				{rows: typed(10, 18, "fourth")},
				{rows: append(typed(0, 3, "fifth"), deletes(keyOf(typed(44, 47, ""), "id"))...)},
			},
			exercises: func(path string, d *inspect.Dump) error { return sortedGoldenExercised(path, d, true) },
		},
		{
			name: "sorted-fulltext-partitioned",
			fields: []field{
				{"region", "STRING NOT NULL"}, {"id", "INT NOT NULL"}, {"n", "BIGINT"}, {"category", "INT"},
				{"amount", "DECIMAL(12, 3)"}, {"ratio", "DOUBLE"}, {"flag", "BOOLEAN"}, {"day", "DATE"}, {"body", "STRING"},
			},
			primaryKeys:   []string{"region", "id"},
			partitionKeys: []string{"region"},
			options: map[string]string{
				"bucket": "1", "deletion-vectors.enabled": "true",
				btreeColumnsOption: "n,flag,day", bitmapColumnsOption: "category,amount,ratio",
				pkfulltext.ColumnsOption: "body",
			},
			steps: []tableStep{
				{rows: partitioned(0, 30, "first"), compact: true},
				{rows: partitioned(20, 45, "second")},
				{rows: append(partitioned(40, 50, "third"), deletes(keyOf(partitioned(2, 6, ""), "region", "id"))...)},
				{rows: partitioned(10, 18, "fourth")},
				{rows: append(partitioned(0, 3, "fifth"), deletes(keyOf(partitioned(44, 47, ""), "region", "id"))...)},
			},
			exercises: func(path string, d *inspect.Dump) error { return sortedGoldenExercised(path, d, true) },
		},
	}
}

// sortedGoldenExercised fails when the table at path does not show what a sorted golden table is
// for: deletion vectors with ranges, every sorted definition of every bucket with a current
// group, payloads of both types, and, with multiLevel, payloads on more than one non-zero level
// in some bucket, without it compacted levels no payload covers yet (Java's state shows them
// uncovered, with a plan).
func sortedGoldenExercised(path string, d *inspect.Dump, wantMultiLevel bool) error {
	if err := hasDVRanges(path, d); err != nil {
		return err
	}
	types := map[string]bool{}
	multiLevel, uncovered := false, false
	for _, b := range d.Buckets {
		if len(b.Sorted) == 0 {
			return fmt.Errorf("bucket %d has no sorted state", b.Bucket)
		}
		levels := map[int32]bool{}
		for _, s := range b.Sorted {
			if s.Error != "" || len(s.Groups) == 0 {
				return fmt.Errorf("bucket %d: the %s index on %s has no current group", b.Bucket, s.IndexType, s.Column)
			}
			types[s.IndexType] = true
			uncovered = uncovered || (len(s.Uncovered) > 0 && s.Plan != nil)
			for _, g := range s.Groups {
				levels[g.Level] = true
			}
		}
		multiLevel = multiLevel || len(levels) > 1
	}
	if !types["btree"] || !types["bitmap"] {
		return fmt.Errorf("payload types %v: want btree and bitmap", types)
	}
	switch {
	case wantMultiLevel && !multiLevel:
		return errors.New("no bucket has sorted payloads on two non-zero levels")
	case !wantMultiLevel && !uncovered:
		return errors.New("no bucket has compacted files no sorted payload covers yet")
	}
	return nil
}

// generateJavaSortedGolden writes every table of javaSortedCorpus with the Java runner p in
// warehouse, checks it still exercises what it is in the corpus for, moves it under root's Java
// tables (replacing an earlier copy), and stores Java's dump and rows of it (as for every Java
// golden table), its full-text expectations when it has a full-text column (as for the full-text
// golden tables) and its sorted-family expectations (javaSortedRecord).
func generateJavaSortedGolden(ctx context.Context, p *Process, root, warehouse, generator string) error {
	if ok, err := HasCommands(ctx, p, "sorted-index-read"); err != nil || !ok {
		return fmt.Errorf("the sorted golden tables need the runner's sorted-index-read (make runner): %v", err)
	}
	for _, c := range javaSortedCorpus() {
		name := c.name
		dest, _, err := placeJavaGoldenTable(ctx, p, root, warehouse, generator, c, goldengen.MaxJavaSortedTableBytes)
		if err != nil {
			return err
		}
		if c.options[pkfulltext.ColumnsOption] != "" {
			if err := storeJavaFullTextRecord(ctx, p, root, name, dest, generator); err != nil {
				return err
			}
		}
		rec, err := javaSortedRecord(ctx, p, dest, sortedLiterals(c))
		if err != nil {
			return fmt.Errorf("table %s: %w", name, err)
		}
		rec.Generator = generator
		if err := goldengen.WriteJavaSortedExpected(root, name, rec); err != nil {
			return err
		}
	}
	return nil
}

// sortedLiterals is, per sorted index column of c, the runner text form of every distinct
// non-null value c's steps write to it, in text order: the equality literals the golden reads.
func sortedLiterals(c *corpusTable) map[string][]string {
	types := map[string]string{}
	for _, f := range c.fields {
		types[f.Name] = f.Type
	}
	out := map[string][]string{}
	for _, opt := range []string{btreeColumnsOption, bitmapColumnsOption} {
		for _, col := range strings.Split(c.options[opt], ",") {
			seen := map[string]bool{}
			for _, s := range c.steps {
				for _, r := range s.rows {
					v, ok := r[col]
					if !ok || v == nil {
						continue
					}
					seen[sortedLiteral(types[col], v)] = true
				}
			}
			lits := make([]string, 0, len(seen))
			for l := range seen {
				lits = append(lits, l)
			}
			slices.Sort(lits)
			out[col] = lits
		}
	}
	return out
}

// sortedLiteral is the runner's text form of a row value v written to a column of SQL type typ.
func sortedLiteral(typ string, v any) string {
	switch {
	case typ == "DATE":
		d, err := time.Parse(time.DateOnly, v.(string))
		if err != nil {
			panic(err)
		}
		return strconv.FormatInt(d.Unix()/86400, 10)
	case typ == "DOUBLE":
		return strconv.FormatUint(math.Float64bits(v.(float64)), 10)
	default:
		return fmt.Sprint(v)
	}
}

// javaSortedRecord asks Paimon's btree and bitmap readers (runner sorted-index-read) about every
// sorted payload of the latest snapshot of the table at path: isNull, isNotNull, equal on each
// literal of the payload's column, and in on the first and last literal.
func javaSortedRecord(ctx context.Context, p *Process, path string, literals map[string][]string) (*goldengen.JavaSortedExpected, error) {
	d, err := javaDump(ctx, p, path)
	if err != nil {
		return nil, err
	}
	fields := map[int32]inspect.FieldDump{}
	for _, f := range d.Schema.Fields {
		fields[int32(f.ID)] = f
	}
	// Index meta bytes as the manifests hold them (Java's dump shows them decoded).
	tb := table.Open(fileio.NewLocal(), path)
	snap, err := tb.Latest(ctx)
	if err != nil {
		return nil, err
	}
	contents, err := tb.Read(ctx, snap)
	if err != nil {
		return nil, err
	}
	if len(contents.Buckets) != len(d.Buckets) {
		return nil, fmt.Errorf("Go reads %d buckets, Java's dump has %d", len(contents.Buckets), len(d.Buckets))
	}
	rec := &goldengen.JavaSortedExpected{}
	for i, b := range d.Buckets {
		raw := map[string]*meta.IndexFileMeta{}
		for _, f := range contents.Buckets[i].IndexFiles {
			raw[f.FileName] = f
		}
		for _, f := range b.IndexFiles {
			if f.IndexType != "btree" && f.IndexType != "bitmap" {
				continue
			}
			m := raw[f.FileName]
			if m == nil || m.GlobalIndex == nil || f.GlobalIndex == nil || f.GlobalIndex.SourceMeta == nil || f.GlobalIndex.SourceMeta.Error != "" {
				return nil, fmt.Errorf("payload %s has no readable global index meta", f.FileName)
			}
			col, ok := fields[f.GlobalIndex.IndexFieldID]
			if !ok {
				return nil, fmt.Errorf("payload %s indexes field %d, which the schema lacks", f.FileName, f.GlobalIndex.IndexFieldID)
			}
			rel, err := findFile(path, f.FileName)
			if err != nil {
				return nil, err
			}
			typ := strings.TrimSuffix(col.Type, " NOT NULL")
			pl := goldengen.JavaSortedPayload{
				BucketIndex: i, Bucket: b.Bucket, FileName: f.FileName, Path: rel, IndexType: f.IndexType,
				Column: col.Name, FieldID: f.GlobalIndex.IndexFieldID, Type: typ, Level: f.GlobalIndex.SourceMeta.DataLevel,
			}
			lits := literals[col.Name]
			if len(lits) == 0 {
				return nil, fmt.Errorf("payload %s: no literals for column %s", f.FileName, col.Name)
			}
			reads := []goldengen.JavaSortedRead{{Op: "isNull", Literals: []*string{}}, {Op: "isNotNull", Literals: []*string{}}}
			for _, l := range lits {
				reads = append(reads, goldengen.JavaSortedRead{Op: "equal", Literals: []*string{&l}})
			}
			reads = append(reads, goldengen.JavaSortedRead{Op: "in", Literals: []*string{&lits[0], &lits[len(lits)-1]}})
			args := map[string]any{
				"indexType": f.IndexType, "type": typ, "options": map[string]string{},
				"files":      []map[string]string{{"path": filepath.Join(path, rel), "meta": base64.StdEncoding.EncodeToString(m.GlobalIndex.IndexMeta)}},
				"predicates": reads,
			}
			var res struct {
				Results [][]int64 `json:"results"`
			}
			if err := p.Call(ctx, "sorted-index-read", args, &res); err != nil {
				return nil, fmt.Errorf("sorted-index-read %s: %w", f.FileName, err)
			}
			if len(res.Results) != len(reads) {
				return nil, fmt.Errorf("payload %s: %d answers for %d predicates", f.FileName, len(res.Results), len(reads))
			}
			for k, r := range res.Results {
				if r == nil {
					return nil, fmt.Errorf("payload %s: Paimon's reader answers nothing to %s %v", f.FileName, reads[k].Op, lits)
				}
				reads[k].RowIDs = r
			}
			pl.Reads = reads
			rec.Payloads = append(rec.Payloads, pl)
		}
	}
	if len(rec.Payloads) == 0 {
		return nil, errors.New("the table has no sorted payloads")
	}
	return rec, nil
}

// checkJavaSortedGolden checks, for the Java golden table name when it has sorted-family
// expectations, that Paimon's readers in the runner p still give the recorded answers on the
// table's payloads.
func checkJavaSortedGolden(ctx context.Context, t *testing.T, p *Process, root, name string) {
	t.Helper()
	exp, ok, err := goldengen.ReadJavaSortedExpected(root, name)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return
	}
	literals := map[string][]string{}
	for _, pl := range exp.Payloads {
		if _, done := literals[pl.Column]; done {
			continue
		}
		for _, r := range pl.Reads {
			if r.Op == "equal" {
				literals[pl.Column] = append(literals[pl.Column], *r.Literals[0])
			}
		}
	}
	now, err := javaSortedRecord(ctx, p, goldengen.JavaTablePath(root, name), literals)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(exp.Payloads, now.Payloads); d != "" {
		t.Errorf("Java's reads of the sorted payloads differ from %s (-golden +now):\n%s", goldengen.JavaSortedExpectedPath(root, name), d)
	}
}
