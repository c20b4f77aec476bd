package pksorted_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/pksorted/state"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/restore"
	"github.com/paimon-pkft/pkft/internal/schema"
	paimontable "github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestJavaGoldenSortedPayloads checks Go against the btree and bitmap payloads Paimon's own writer
// and compactions built into the Java golden tables with sorted index columns
// (testdata/tables/java, written by make golden; Java's outputs in compat/golden/java/<table>.json
// and <table>.sorted.json). No Java is needed. For every such table, bucket and sorted definition
// of the latest snapshot:
//
//   - Go's sorted state (internal/pksorted/state over the bucket's data files and the definition's
//     payloads) classifies every payload as Java's dump recorded at write time: the same groups
//     with the same sources and payloads, covered, uncovered and rejected files, and every payload
//     of the definition either in a group or rejected (internal/inspect compares the whole dump);
//   - every payload decodes with Go's btree or bitmap reader, and lists exactly the row ids of
//     each value in its source data files (read with Go's data file reader, row ids in the
//     source meta's order, deleted rows included since deletion vectors apply at read time), and
//     the null rows;
//   - Go's reader answers each recorded predicate with the row ids Paimon's reader returned.
func TestJavaGoldenSortedPayloads(t *testing.T) {
	root, err := goldengen.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	names, err := goldengen.JavaGoldenTables(root)
	if err != nil {
		t.Fatal(err)
	}
	tables := 0
	kinds := map[string]bool{}
	for _, name := range names {
		exp, ok, err := goldengen.ReadJavaSortedExpected(root, name)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		tables++
		t.Run(name, func(t *testing.T) {
			for k := range checkJavaGoldenSorted(t, root, name, exp) {
				kinds[k] = true
			}
		})
	}
	if tables == 0 {
		t.Fatalf("no Java golden table under %s has sorted-family expectations: run make golden", goldengen.JavaTablesDir)
	}
	// The corpus covers both index types, a full-text column next to the sorted ones, a
	// partitioned table, payloads on a level above 1 and deleted rows of indexed files.
	for _, k := range []string{"btree", "bitmap", "full-text", "partitioned", "level>1", "deleted rows"} {
		if !kinds[k] && !t.Failed() {
			t.Errorf("the sorted golden tables no longer exercise %s", k)
		}
	}
}

// checkJavaGoldenSorted checks one table and returns what it exercised.
func checkJavaGoldenSorted(t *testing.T, root, name string, exp *goldengen.JavaSortedExpected) map[string]bool {
	ctx := context.Background()
	g, err := goldengen.OpenJavaGolden(ctx, root, name)
	if err != nil {
		t.Fatal(err)
	}
	dir, tb, sch, contents, javaDump := g.Dir, g.Table, g.Schema, g.Contents, g.JavaDump
	defs := definition.FromSchema(sch.Options, sch.Fields)
	if len(defs) == 0 {
		t.Fatal("the latest schema has no sorted index definition")
	}
	kinds := map[string]bool{}
	if _, ok := sch.Options["pk-full-text.index.columns"]; ok {
		kinds["full-text"] = true
	}
	if len(sch.PartitionKeys) > 0 {
		kinds["partitioned"] = true
	}
	restorer, err := restore.NewRestorer(ctx, tb)
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]goldengen.JavaSortedPayload{}
	for _, p := range exp.Payloads {
		recorded[p.FileName] = p
	}
	checked := 0
	for i, b := range contents.Buckets {
		jb := javaDump.Buckets[i]
		where := fmt.Sprintf("partition %v bucket %d", jb.Partition, b.Bucket)
		if jb.Bucket != b.Bucket || len(jb.Sorted) != len(defs) {
			t.Fatalf("%s: Java's dump has bucket %d with %d sorted states at this position, Go has %d definitions", where, jb.Bucket, len(jb.Sorted), len(defs))
		}
		rb, err := restorer.RestoreBucket(b)
		if err != nil {
			t.Fatal(err)
		}
		deleted := deletedRows(jb)
		for k, def := range defs {
			js := jb.Sorted[k]
			if js.IndexType != def.IndexType || js.FieldID != def.FieldID {
				t.Fatalf("%s: Java's state %d is %s on field %d, Go's definition %s on field %d", where, k, js.IndexType, js.FieldID, def.IndexType, def.FieldID)
			}
			kinds[def.IndexType] = true
			own := ownPayloads(b, def)
			st := state.FromActiveDataFiles(def.FieldID, def.IndexType, b.DataFiles, own)
			checkClassification(t, fmt.Sprintf("%s, %s on %s", where, def.IndexType, def.Column), st, js, own)
			for _, p := range own {
				rec, ok := recorded[p.FileName]
				if !ok {
					t.Errorf("%s: payload %s has no recorded reads", where, p.FileName)
					continue
				}
				delete(recorded, p.FileName)
				if rec.BucketIndex != i || rec.IndexType != def.IndexType || rec.FieldID != def.FieldID || rec.Column != def.Column {
					t.Errorf("%s: payload %s is recorded for bucket %d, %s on %s", where, p.FileName, rec.BucketIndex, rec.IndexType, rec.Column)
				}
				ext := ""
				if p.ExternalPath != nil {
					ext = *p.ExternalPath
				}
				path := rb.IndexPaths.ToPathOf(p.FileName, ext)
				if want := filepath.Join(dir, filepath.FromSlash(rec.Path)); filepath.Clean(path) != want {
					t.Errorf("%s: Go resolves payload %s to %s, Java wrote it at %s", where, p.FileName, path, want)
				}
				field, _ := sch.FieldByID(int(def.FieldID))
				m := payloadModel(t, tb, sch, rb, b, p, field)
				if m.level > 1 {
					kinds["level>1"] = true
				}
				if m.deletedIn(deleted) {
					kinds["deleted rows"] = true
				}
				checkPayload(t, fmt.Sprintf("%s, payload %s (%s on %s, level %d)", where, p.FileName, def.IndexType, def.Column, m.level), path, p, field.Type, m, rec)
				checked++
			}
		}
	}
	for n := range recorded {
		t.Errorf("recorded payload %s is not in the table's latest snapshot", n)
	}
	if checked == 0 {
		t.Fatal("no payload checked")
	}
	return kinds
}

// ownPayloads is the bucket's index files of def's type and field, ordered by name as Java's dump
// passes them to PkSortedBucketIndexState.
func ownPayloads(b *paimontable.Bucket, def definition.Definition) []*meta.IndexFileMeta {
	var own []*meta.IndexFileMeta
	for _, p := range b.IndexFiles {
		if p.IndexType == def.IndexType && p.GlobalIndex != nil && p.GlobalIndex.IndexFieldID == def.FieldID {
			own = append(own, p)
		}
	}
	slices.SortStableFunc(own, func(x, y *meta.IndexFileMeta) int { return javaio.CompareJava(x.FileName, y.FileName) })
	return own
}

// checkClassification compares Go's state st with Java's recorded state js and checks every
// payload of the definition is either in a group or rejected, once.
func checkClassification(t *testing.T, where string, st state.BucketState, js inspect.SortedDump, own []*meta.IndexFileMeta) {
	t.Helper()
	names := func(ps []*meta.IndexFileMeta) []string {
		out := []string{}
		for _, p := range ps {
			out = append(out, p.FileName)
		}
		return out
	}
	sources := func(fs []pkindex.SourceFile) []string {
		out := []string{}
		for _, f := range fs {
			out = append(out, f.FileName())
		}
		return out
	}
	groups := []inspect.SortedGroupDump{}
	placed := map[string]int{}
	for _, g := range st.Groups {
		groups = append(groups, inspect.SortedGroupDump{Level: g.DataLevel, Sources: sources(g.SourceFiles), Payloads: names(g.Payloads)})
		for _, p := range g.Payloads {
			placed[p.FileName]++
		}
	}
	for _, p := range st.Rejected {
		placed[p.FileName]++
	}
	if d := cmp.Diff(js.Groups, groups); d != "" {
		t.Errorf("%s: groups differ (-java +go):\n%s", where, d)
	}
	for _, c := range []struct {
		what      string
		java, got []string
	}{
		{"covered", js.Covered, sources(st.Covered)},
		{"uncovered", js.Uncovered, sources(st.Uncovered)},
		{"rejected", js.Rejected, names(st.Rejected)},
	} {
		if !slices.Equal(c.java, c.got) {
			t.Errorf("%s: %s files: Java %v, Go %v", where, c.what, c.java, c.got)
		}
	}
	for _, p := range own {
		if placed[p.FileName] != 1 {
			t.Errorf("%s: payload %s is classified %d times", where, p.FileName, placed[p.FileName])
		}
	}
}

// model is what a payload must hold, from its source data files: the rows of each value by
// encoded key, the null rows, and the row count.
type model struct {
	level int32
	// rows maps an encoded key to its row ids in ascending order.
	rows  map[string][]int64
	keys  map[string]any
	nulls []int64
	all   []int64
	// files holds each source file and the first row id of its rows.
	files []sourceRange
}

type sourceRange struct {
	name  string
	first int64
	count int64
}

// deletedIn reports whether a row of one of the payload's source files is deleted by a deletion
// vector of the bucket (deleted: file name to deleted row count).
func (m *model) deletedIn(deleted map[string]int64) bool {
	for _, f := range m.files {
		if deleted[f.name] > 0 {
			return true
		}
	}
	return false
}

// payloadModel reads the payload's source files, in its source meta's order, with Go's data file
// reader: the row id of a row is the rows of the files before it plus its position in its file.
func payloadModel(t *testing.T, tb *paimontable.Table, latest *schema.TableSchema, rb *restore.RestoredBucket, b *paimontable.Bucket, p *meta.IndexFileMeta, field types.DataField) *model {
	t.Helper()
	ctx := context.Background()
	sm, err := pkindex.DecodeSourceMeta(p.GlobalIndex.SourceMeta)
	if err != nil {
		t.Fatalf("payload %s: %v", p.FileName, err)
	}
	ser, err := sortkey.New(field.Type)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*meta.DataFileMeta{}
	for _, f := range b.DataFiles {
		files[f.FileName] = f
	}
	m := &model{level: sm.DataLevel(), rows: map[string][]int64{}, keys: map[string]any{}}
	rowID := p.GlobalIndex.RowRangeStart
	for _, s := range sm.SourceFiles() {
		f := files[s.FileName()]
		if f == nil {
			t.Fatalf("payload %s names %s, which the bucket lacks", p.FileName, s.FileName())
		}
		if f.Level != sm.DataLevel() || f.RowCount != s.RowCount() {
			t.Fatalf("payload %s: source %s is on level %d with %d rows, the source meta says level %d, %d rows", p.FileName, f.FileName, f.Level, f.RowCount, sm.DataLevel(), s.RowCount())
		}
		m.files = append(m.files, sourceRange{f.FileName, rowID, f.RowCount})
		sch := latest
		if f.SchemaID != latest.ID {
			if sch, err = tb.Schema(ctx, f.SchemaID); err != nil {
				t.Fatal(err)
			}
		}
		layout, err := kvfile.NewLayout(sch)
		if err != nil {
			t.Fatal(err)
		}
		col := slices.IndexFunc(layout.Schema.Fields, func(x types.DataField) bool { return x.ID == field.ID })
		if col < 0 {
			t.Fatalf("data file %s has no field %d", f.FileName, field.ID)
		}
		ext := ""
		if f.ExternalPath != nil {
			ext = *f.ExternalPath
		}
		r, err := kvfile.Open(ctx, tb.FileIO, rb.DataPaths.ToPath(f.FileName, ext), f.FileName, layout)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for {
			kv, pos, err := r.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if pos != n {
				t.Fatalf("data file %s: position %d at row %d", f.FileName, pos, n)
			}
			id := rowID + pos
			m.all = append(m.all, id)
			if v := kv.Value[col]; v == nil {
				m.nulls = append(m.nulls, id)
			} else {
				enc, err := ser.Encode(v)
				if err != nil {
					t.Fatal(err)
				}
				m.rows[string(enc)] = append(m.rows[string(enc)], id)
				m.keys[string(enc)] = v
			}
			n++
		}
		r.Close()
		if n != f.RowCount {
			t.Fatalf("data file %s holds %d rows, its metadata %d", f.FileName, n, f.RowCount)
		}
		rowID += n
	}
	if got := rowID - p.GlobalIndex.RowRangeStart; got != p.RowCount || rowID-1 != p.GlobalIndex.RowRangeEnd {
		t.Fatalf("payload %s: sources hold %d rows, the payload declares %d rows, range [%d, %d]", p.FileName, got, p.RowCount, p.GlobalIndex.RowRangeStart, p.GlobalIndex.RowRangeEnd)
	}
	return m
}

// deletedRows is, from Java's dump of a bucket, the number of rows the bucket's deletion vectors
// delete in each data file.
func deletedRows(jb inspect.BucketDump) map[string]int64 {
	out := map[string]int64{}
	for _, f := range jb.IndexFiles {
		for _, dv := range f.DeletionVectors {
			if dv.Cardinality != nil {
				out[dv.DataFile] += *dv.Cardinality
			}
		}
	}
	return out
}

// checkPayload decodes the payload at path with Go's reader of its type and compares its entries
// with the model, then answers every recorded predicate with Go's reader and compares with
// Paimon's recorded answer and with the model.
func checkPayload(t *testing.T, where, path string, p *meta.IndexFileMeta, typ types.DataType, m *model, rec goldengen.JavaSortedPayload) {
	t.Helper()
	if rec.Level != m.level {
		t.Errorf("%s: recorded at level %d", where, rec.Level)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != p.FileSize {
		t.Errorf("%s: %d bytes, the index manifest says %d", where, len(data), p.FileSize)
	}
	ser, err := sortkey.New(typ)
	if err != nil {
		t.Fatal(err)
	}
	fm, err := filemeta.Decode(p.GlobalIndex.IndexMeta)
	if err != nil {
		t.Fatalf("%s: index meta: %v", where, err)
	}
	got := map[string][]int64{}
	var nulls []int64
	// reader is the payload's Go reader, btree or bitmap.
	var reader interface {
		Evaluate(pred.Predicate) (*roaring64.Bitmap, error)
	}
	switch p.IndexType {
	case "btree":
		rd, err := btree.Open(bytes.NewReader(data), int64(len(data)), ser, fm)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		entries, err := rd.Entries()
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		for _, e := range entries {
			enc, err := ser.Encode(e.Key)
			if err != nil {
				t.Fatal(err)
			}
			got[string(enc)] = append(got[string(enc)], e.RowIDs...)
		}
		nulls = toInt64s(rd.NullRows().ToArray())
		reader = rd
	case "bitmap":
		rd, err := bitmap.Open(bytes.NewReader(data), int64(len(data)), ser)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		entries, err := rd.Entries()
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		for _, e := range entries {
			enc, err := ser.Encode(e.Key)
			if err != nil {
				t.Fatal(err)
			}
			got[string(enc)] = append(got[string(enc)], toInt64s(e.Rows.ToArray())...)
		}
		bm, err := rd.NullRows()
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		nulls = toInt64s(bm.ToArray())
		reader = rd
	default:
		t.Fatalf("%s: index type %s", where, p.IndexType)
	}
	for k := range got {
		slices.Sort(got[k])
	}
	if d := cmp.Diff(m.rows, got); d != "" {
		t.Errorf("%s: the payload's rows per value differ from the data files' (-data +payload):\n%s", where, d)
	}
	if !slices.Equal(emptyIfNil(m.nulls), emptyIfNil(nulls)) {
		t.Errorf("%s: null rows %v, the data files' %v", where, nulls, m.nulls)
	}
	if (len(m.nulls) > 0) != fm.HasNulls {
		t.Errorf("%s: index meta hasNulls %v, the data files have %d null rows", where, fm.HasNulls, len(m.nulls))
	}
	// Paimon's answers, Go's answers and the data files' answers agree.
	seen := map[string]bool{}
	for _, r := range rec.Reads {
		op, err := pred.ParseOp(r.Op)
		if err != nil {
			t.Fatal(err)
		}
		pr := pred.Predicate{Op: op}
		for _, l := range r.Literals {
			v, err := parseLiteral(typ, l)
			if err != nil {
				t.Fatalf("%s: literal %v: %v", where, l, err)
			}
			pr.Literals = append(pr.Literals, v)
		}
		bm, err := reader.Evaluate(pr)
		if err != nil {
			t.Fatalf("%s: %s %v: %v", where, r.Op, pr.Literals, err)
		}
		goAnswer := toInt64s(bm.ToArray())
		if !slices.Equal(emptyIfNil(goAnswer), emptyIfNil(r.RowIDs)) {
			t.Errorf("%s: %s %v: Go's reader %v, Paimon's %v", where, r.Op, pr.Literals, goAnswer, r.RowIDs)
		}
		want, err := m.answer(ser, pr, seen)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(emptyIfNil(want), emptyIfNil(r.RowIDs)) {
			t.Errorf("%s: %s %v: Paimon's reader %v, the data files %v", where, r.Op, pr.Literals, r.RowIDs, want)
		}
	}
	// Every value of the payload was asked for.
	for k, v := range m.keys {
		if !seen[k] {
			t.Errorf("%s: no recorded read asks for value %v", where, v)
		}
	}
}

// answer is the model's answer to the null checks, equal and in (the predicates the golden
// records); seen collects the encoded literals asked for.
func (m *model) answer(ser *sortkey.Serializer, p pred.Predicate, seen map[string]bool) ([]int64, error) {
	switch p.Op {
	case pred.IsNull:
		return m.nulls, nil
	case pred.IsNotNull:
		var out []int64
		for _, id := range m.all {
			if !slices.Contains(m.nulls, id) {
				out = append(out, id)
			}
		}
		return out, nil
	case pred.Equal, pred.In:
		var out []int64
		for _, l := range p.Literals {
			enc, err := ser.Encode(l)
			if err != nil {
				return nil, err
			}
			seen[string(enc)] = true
			out = append(out, m.rows[string(enc)]...)
		}
		slices.Sort(out)
		return slices.Compact(out), nil
	}
	return nil, fmt.Errorf("the golden records no %s", p.Op)
}

// parseLiteral decodes the runner's text form of a key of type typ (goldengen.JavaSortedRead).
func parseLiteral(typ types.DataType, l *string) (any, error) {
	if l == nil {
		return nil, nil
	}
	s := *l
	switch typ.Root {
	case types.RootInt, types.RootDate:
		v, err := strconv.ParseInt(s, 10, 32)
		return int32(v), err
	case types.RootBigInt:
		return strconv.ParseInt(s, 10, 64)
	case types.RootBoolean:
		return strconv.ParseBool(s)
	case types.RootDouble:
		bits, err := strconv.ParseUint(s, 10, 64)
		return math.Float64frombits(bits), err
	case types.RootDecimal:
		return binrow.ParseDecimal(s, typ.Scale)
	case types.RootVarChar, types.RootChar:
		return s, nil
	}
	return nil, fmt.Errorf("no literal form for %s", typ.Root)
}

func toInt64s(ids []uint64) []int64 {
	out := make([]int64, len(ids))
	for i, id := range ids {
		out[i] = int64(id)
	}
	return out
}

func emptyIfNil(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	return s
}
