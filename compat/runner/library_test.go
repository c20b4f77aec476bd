package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/testing/arrowrows"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// libraryCommands are the runner commands the library cases use.
var libraryCommands = []string{"read", "dump"}

// goCreatedVariant is one table layout of table/go-created.
type goCreatedVariant struct {
	name        string
	options     map[string]string
	partitioned bool
}

func goCreatedVariants() []goCreatedVariant {
	ft := func(o map[string]string) map[string]string {
		o["deletion-vectors.enabled"] = "true"
		o["pk-full-text.index.columns"] = "s"
		return o
	}
	return []goCreatedVariant{
		{"plain", map[string]string{"bucket": "2"}, false},
		{"partitioned", map[string]string{"bucket": "2"}, true},
		{"dv-partitioned", map[string]string{"bucket": "3", "deletion-vectors.enabled": "true"}, true},
		{"full-text", ft(map[string]string{"bucket": "2"}), false},
		{"full-text-partitioned", ft(map[string]string{"bucket": "2"}), true},
		// Every index family on columns of most key types the sorted family accepts.
		{"sorted-and-full-text", ft(map[string]string{"bucket": "2", "pk-btree.index.columns": "i32,dec,ts6,f64,i8",
			"pk-bitmap.index.columns": "b,i16,tm,ltz,f32,ts3"}), true},
	}
}

// casesLibrary registers the cases of the root package's table life cycle: table/go-created/<variant>
// (go->java) and table/scan/<writer>/<table> (java->go, go->go).
func casesLibrary(ct *caseTable) {
	gf := groupFixture()
	for _, v := range goCreatedVariants() {
		ct.add(caseRow{Name: "table/go-created/" + v.name, Direction: "go->java", Doc: docTableGoCreatedVariant,
			Sides: []caseSide{side("go", Writer, Compactor), side("java", Consumer)},
			Uses:  []caseUse{serving(gf, libraryCommands...)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return goCreated(ctx, gf.in(ce), v)
			}})
	}
	root, err := RepoRoot()
	if err != nil {
		ct.errorf("%v", err)
		return
	}
	for _, writer := range []string{"java", "go"} {
		dirs, err := filepath.Glob(filepath.Join(root, "testdata", "tables", writer, "*"))
		if err != nil || len(dirs) == 0 {
			ct.errorf("no %s golden tables: %v", writer, err)
			continue
		}
		for _, dir := range dirs {
			name := filepath.Base(dir)
			if writer == "java" {
				// Java reads its table now; Go's scan must equal it.
				ct.add(caseRow{Name: "table/scan/" + name, Direction: "java->go", Doc: docTableScanTable,
					Sides: []caseSide{side("java", Consumer), side("go", Consumer)},
					Uses:  []caseUse{serving(gf, libraryCommands...)},
					Run: func(ctx context.Context, ce *caseEnv) error {
						g := gf.in(ce)
						copyDir := filepath.Join(g.dir, "scan", name)
						if err := os.CopyFS(copyDir, os.DirFS(dir)); err != nil {
							return err
						}
						return scanEqualsJava(ctx, g, copyDir)
					}})
				continue
			}
			// Go wrote the table; Java's read of it was recorded when it was generated.
			ct.add(caseRow{Name: "table/scan/" + name, Direction: "go->go", Doc: docTableScanTable,
				Sides: []caseSide{side("go", Consumer)},
				Run: func(ctx context.Context, ce *caseEnv) error {
					return scanEqualsRecorded(ctx, dir, filepath.Join(root, "compat", "golden", writer, name+".json"))
				}})
		}
	}
	// table/scan-snapshots/<table>: the worked example of docs/adding-a-case.md.
	for _, name := range []string{"composite-key", "ft-default-partitioned", "ft-ngram-two-levels", "full-compaction", "partitioned-dv", "sorted-fulltext-partitioned", "sorted-types", "two-levels"} {
		ct.add(caseRow{Name: "table/scan-snapshots/" + name, Direction: "java->go", Sides: []caseSide{side("java", Consumer), side("go", Consumer)},
			Doc: "Go's `Table.Scan` of each snapshot of a Java golden table (`pkft.WithScanSnapshot`) equals Java's read of it (empty " +
				"or not; two or more have rows); not `ft-jieba-renamed-late`, whose early snapshots lack the column the runner reads.",
			Uses: []caseUse{serving(gf, libraryCommands...)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				path := filepath.Join(root, "testdata", "tables", "java", name)
				ids, err := snapshotFileIDs(path)
				compared := 0
				for _, id := range ids {
					var read struct{ Rows []map[string]json.RawMessage }
					if err := gf.in(ce).proc.Call(ctx, "read", map[string]any{"path": path, "snapshotId": id}, &read); err != nil {
						return fmt.Errorf("snapshot %d: %w", id, err)
					}
					if err := scanDiff(ctx, path, read.Rows, fmt.Sprintf("Java's read of snapshot %d", id), pkft.WithScanSnapshot(id)); err != nil {
						return err
					}
					compared += min(len(read.Rows), 1)
				}
				if compared < 2 {
					return fmt.Errorf("%d of the snapshots %v have rows (%v): the case compares too little", compared, ids, err)
				}
				return nil
			}})
	}
}

// startGroup starts the JVM and loads the engine for a family of cases; what cannot start is
// recorded in the group (its cases report it through need).
func startGroup(t *testing.T) *maintainGroup {
	return startGroupWith(t, StartJava)
}

// startGroupWith is startGroup with the Java runner start gives.
func startGroupWith(t *testing.T, start func(context.Context, ...JavaOption) (*Process, error)) *maintainGroup {
	g := &maintainGroup{dir: t.TempDir(), tables: map[string]*maintainTable{}}
	ctx := context.Background()
	if p, err := start(ctx); err != nil {
		g.startErr = unavailable{testenv.RequireJavaEnv, err}
	} else {
		t.Cleanup(func() { p.Close() })
		g.proc = p
	}
	if lib, err := native.Load(ctx, ""); err != nil {
		g.engErr = unavailable{testenv.RequireNativeEnv, err}
	} else {
		g.engine = native.Engine{Lib: lib}
	}
	return g
}

func javaReadRaw(ctx context.Context, g *maintainGroup, path string) ([]map[string]json.RawMessage, error) {
	var res struct {
		Rows []map[string]json.RawMessage `json:"rows"`
	}
	if err := g.proc.Call(ctx, "read", map[string]any{"path": path}, &res); err != nil {
		return nil, err
	}
	return res.Rows, nil
}

// scanEqualsJava is table/scan/<table> java->go: Go's scan equals Java's read of the table.
func scanEqualsJava(ctx context.Context, g *maintainGroup, path string) error {
	raw, err := javaReadRaw(ctx, g, path)
	if err != nil {
		return err
	}
	return scanEquals(ctx, path, raw, "Java's read")
}

// scanEqualsRecorded is table/scan/<table> go->go: Go's scan of a table Go wrote equals Java's
// read of it recorded in the golden file.
func scanEqualsRecorded(ctx context.Context, dir, goldenFile string) error {
	data, err := os.ReadFile(goldenFile)
	if err != nil {
		return err
	}
	var golden struct {
		Rows []map[string]json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		return fmt.Errorf("%s: %w", goldenFile, err)
	}
	return scanEquals(ctx, dir, golden.Rows, "Java's recorded read")
}

// scanEquals checks Go's scan of the table at path has exactly the rows read (by what).
func scanEquals(ctx context.Context, path string, read []map[string]json.RawMessage, what string) error {
	if len(read) == 0 {
		return fmt.Errorf("%s has no rows: the case tests nothing", what)
	}
	return scanDiff(ctx, path, read, what)
}

// scanDiff fails unless Go's scan of path with opts holds exactly the rows of read, what names
// (none when read has none).
func scanDiff(ctx context.Context, path string, read []map[string]json.RawMessage, what string, opts ...pkft.ScanOption) error {
	got, sch, err := arrowrows.Scan(ctx, path, opts...)
	if err != nil {
		return err
	}
	want, err := arrowrows.CanonicalJSONRows(sch, read)
	if err != nil {
		return err
	}
	if len(want) == 0 && len(got) == 0 {
		return nil
	}
	if d := cmp.Diff(want, got); d != "" {
		return fmt.Errorf("Go's scan differs from %s (-java +go):\n%s", what, d)
	}
	return nil
}

// goCreated is table/go-created/<variant> go->java: Go creates the table from the Arrow
// all-types schema (pkft.Create), writes rows through WriteRecord, deletes and updates some,
// compacting after each write; after each commit Java reads exactly the model's rows (for
// tables with deletion vectors after the compaction, as Java's batch read skips level 0), Java's
// dump equals Go's (the schema as Go wrote it, files, full-text state), and Go's scan equals
// the model too.
func goCreated(ctx context.Context, g *maintainGroup, v goCreatedVariant) error {
	path := filepath.Join(g.dir, "go-created", v.name)
	def, err := pkft.ArrowDefinition(arrowrows.AllTypesSchema())
	if err != nil {
		return err
	}
	def.PrimaryKeys = []string{"id"}
	if v.partitioned {
		def.PrimaryKeys = []string{"id", "d"}
		def.PartitionKeys = []string{"d"}
	}
	def.Options = v.options
	tbl, err := pkft.Create(ctx, path, def)
	if err != nil {
		return err
	}
	model := map[int64]string{} // id -> canonical row
	first, _ := arrowrows.AllTypesRecord(240, 0, "first")
	defer first.Release()
	updates, _ := arrowrows.AllTypesRecord(60, 100, "updated")
	defer updates.Release()
	deletes, _ := arrowrows.AllTypesRecord(40, 20, "gone")
	defer deletes.Release()
	keys := func(rec arrow.RecordBatch) arrow.RecordBatch {
		cols := []arrow.Array{rec.Column(0)}
		fields := []arrow.Field{rec.Schema().Field(0)}
		if v.partitioned {
			cols = append(cols, rec.Column(10))
			fields = append(fields, rec.Schema().Field(10))
		}
		return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	}
	apply := func(rec arrow.RecordBatch, del bool) {
		for i, r := range arrowrows.Canonical(rec) {
			id := rec.Column(0).(*array.Int64).Value(i)
			if del {
				delete(model, id)
			} else {
				model[id] = r
			}
		}
	}
	steps := []struct {
		rec arrow.RecordBatch
		del bool
	}{{first, false}, {updates, false}, {keys(deletes), true}}
	defer steps[2].rec.Release()
	dv := v.options["deletion-vectors.enabled"] == "true"
	for i, st := range steps {
		w, err := tbl.NewWriter(ctx, pkft.WithCommitUser("pkft-conformance"))
		if err != nil {
			return err
		}
		var opts []pkft.RecordOption
		if st.del {
			opts = append(opts, pkft.WithRowKind(pkft.Delete))
		}
		if err := w.WriteRecord(ctx, st.rec, opts...); err != nil {
			return errors.Join(err, w.Abort(ctx))
		}
		res, err := w.Commit(ctx)
		if err != nil {
			return err
		}
		last := res.SnapshotID
		if res.CompactSnapshotID != 0 {
			last = res.CompactSnapshotID // the compaction at commit
		}
		apply(st.rec, st.del)
		if dv || i == len(steps)-1 {
			cr, err := tbl.Compact(ctx, pkft.WithCommitUser("pkft-conformance"))
			if err != nil {
				return err
			}
			if cr.SnapshotID != 0 {
				last = cr.SnapshotID
			}
		}
		if err := javaReadsModel(ctx, g, path, model); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
		if _, err := g.sameState(ctx, path, last); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	d, err := javaDump(ctx, g.proc, path)
	if err != nil {
		return err
	}
	if n := len(pkindex.IndexColumns(v.options, "pk-btree.index.columns")) + len(pkindex.IndexColumns(v.options, "pk-bitmap.index.columns")); n > 0 {
		if err := allSortedCurrent(d, n, true); err != nil {
			return fmt.Errorf("Java's state: %w", err)
		}
	}
	if d.Schema.ID != 0 || len(d.Schema.Fields) != len(def.Columns) || !slices.Equal(d.Schema.PrimaryKeys, def.PrimaryKeys) {
		return fmt.Errorf("Java's dump shows schema %+v, not the one Go created", d.Schema)
	}
	for i, f := range d.Schema.Fields {
		want := def.Columns[i].Type
		if slices.Contains(def.PrimaryKeys, f.Name) && !strings.HasSuffix(want, "NOT NULL") {
			want += " NOT NULL"
		}
		if f.ID != i || f.Name != def.Columns[i].Name || f.Type != want {
			return fmt.Errorf("Java's dump shows field %d as %d %s %s, Go created %s %s", i, f.ID, f.Name, f.Type, def.Columns[i].Name, want)
		}
	}
	for k, val := range v.options {
		if d.Schema.Options[k] != val {
			return fmt.Errorf("Java's dump shows option %s = %q, Go created %q", k, d.Schema.Options[k], val)
		}
	}
	return nil
}

// javaReadsModel checks Java's read of the table (and Go's scan) is exactly the model's rows.
func javaReadsModel(ctx context.Context, g *maintainGroup, path string, model map[int64]string) error {
	want := make([]string, 0, len(model))
	for _, r := range model {
		want = append(want, r)
	}
	slices.Sort(want)
	got, sch, err := arrowrows.Scan(ctx, path)
	if err != nil {
		return err
	}
	if d := cmp.Diff(want, got); d != "" {
		return fmt.Errorf("Go's scan differs from the model (-model +go):\n%s", d)
	}
	raw, err := javaReadRaw(ctx, g, path)
	if err != nil {
		return err
	}
	java, err := arrowrows.CanonicalJSONRows(sch, raw)
	if err != nil {
		return err
	}
	if d := cmp.Diff(want, java); d != "" {
		return fmt.Errorf("Java reads other rows than the model (-model +java):\n%s", d)
	}
	return nil
}

// docTableGoCreatedVariant describes table/go-created/<variant>.
const docTableGoCreatedVariant = "Go creates tables with `pkft.Create` from an Arrow schema with a column of every type Go " +
	"writes (plain, partitioned by DATE, deletion vectors, full-text unpartitioned and " +
	"partitioned, and every index family: eleven pk-btree and pk-bitmap columns of ten key " +
	"types next to the full-text one), writes rows, updates and deletes through " +
	"`Writer.WriteRecord` (compacting after each write on deletion-vector tables as well as at " +
	"commit): after each commit Java reads exactly the model's rows, Go's `Table.Scan` too, " +
	"Java's dump equals Go's, and it shows the schema (field ids, types, keys, options) Go " +
	"wrote; with sorted indexes, Java's state shows every definition with payloads, all " +
	"current."

// docTableScanTable describes table/scan/<table>.
const docTableScanTable = "Go's `Table.Scan` of every Java-written golden table equals Java's read of it now, and of " +
	"every Go-written golden table Java's read recorded when it was generated " +
	"(`compat/golden/go/`)."
