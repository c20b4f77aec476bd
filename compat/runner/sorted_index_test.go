package runner

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/testing/sortkeytest"
	"github.com/paimon-pkft/pkft/internal/types"
)

var sortedIndexCommands = []string{"sorted-index-write", "sorted-index-read"}

// sortedFormatVariant is one index type with one set of writer options.
type sortedFormatVariant struct {
	index   string
	options map[string]string
	// sameBytes: Go's file must equal Java's byte for byte. Only without compression: Java's LZ4
	// is lz4-java's native compressor and its ZSTD zstd-jni's streaming frame, Go's are pierrec's
	// and klauspost's encoders, which choose other matches (measured: about half of the
	// compressed files of this case differ, the uncompressed ones never). With compression the
	// meta bytes, the decoded content (through both readers) and every answer are compared.
	sameBytes bool
}

func sortedFormatVariants() []sortedFormatVariant {
	return []sortedFormatVariant{
		{"btree", map[string]string{}, true},
		{"btree", map[string]string{btree.OptBlockSize: "96b"}, true},
		{"btree", map[string]string{btree.OptBlockSize: "128b", btree.OptCompression: "lz4"}, false},
		{"btree", map[string]string{btree.OptBlockSize: "128b", btree.OptCompression: "zstd", btree.OptCompressionLevel: "3"}, false},
		{"bitmap", map[string]string{}, true},
		{"bitmap", map[string]string{bitmap.OptDictionaryBlockSize: "40b"}, true},
		{"bitmap", map[string]string{bitmap.OptDictionaryBlockSize: "64b", bitmap.OptCompression: "lz4"}, false},
		{"bitmap", map[string]string{bitmap.OptDictionaryBlockSize: "64b", bitmap.OptCompression: "zstd"}, false},
	}
}

// casesSortedIndex registers index/sorted/format, index/sorted/same-level (go<->java),
// index/sorted/options, index/sorted/dump, index/sorted/predicate-read and index/sorted/state on
// one JVM.
func casesSortedIndex(ct *caseTable) {
	jtf := javaTablesFixture(nil)
	impls, runners := consumerRunners(ct)
	for _, impl := range producerImpls(impls, Maintainer) {
		ct.add(caseRow{Name: "index/sorted/format", Direction: as(impl, "go<->java"), Doc: docIndexSortedFormat,
			Sides: []caseSide{side(impl, Maintainer), side("java", Maintainer)},
			Uses:  []caseUse{serving(jtf, sortedIndexCommands...), runnerOf(runners, impl, "sorted-index-write")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				jt := jtf.in(ce)
				return sortedIndexFormat(ctx, jt.proc, ce.runner(impl), filepath.Join(jt.dir, "format", impl))
			}})
		ct.add(caseRow{Name: "index/sorted/same-level", Direction: as(impl, "go<->java"), Doc: docIndexSortedSameLevel,
			Sides: []caseSide{side(impl, Maintainer), side("java", Maintainer)},
			Uses:  []caseUse{serving(jtf, append(slices.Clone(sortedIndexCommands), "sorted-index-build")...), runnerOf(runners, impl, "sorted-index-build")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				jt := jtf.in(ce)
				return sortedSameLevel(ctx, jt.proc, ce.runner(impl), filepath.Join(jt.dir, "same-level", impl))
			}})
		ct.add(caseRow{Name: "index/sorted/options", Direction: as(impl, "go<->java"), Doc: docIndexSortedOptions,
			Sides: []caseSide{side(impl, Maintainer), side("java", Maintainer)},
			Uses:  []caseUse{serving(jtf, "sorted-index-options"), runnerOf(runners, impl, "sorted-index-options")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return sortedOptions(ctx, jtf.in(ce).proc, ce.runner(impl))
			}})
	}
	ct.add(caseRow{Name: "index/sorted/dump", Direction: "java->go", Doc: docIndexSortedDump,
		Sides: []caseSide{side("java", Writer, Compactor), side("go", Consumer)},
		Uses:  []caseUse{serving(jtf, tableCommands...)},
		Run: func(ctx context.Context, ce *caseEnv) error {
			return sortedDump(ctx, jtf.in(ce))
		}})
	ct.add(caseRow{Name: "index/sorted/predicate-read", Direction: "java->go", Doc: docIndexSortedPredicateRead,
		Sides: []caseSide{side("java", Writer, Compactor), side("go", Consumer)},
		Uses:  []caseUse{serving(jtf, sortedReadCommands...)},
		Run: func(ctx context.Context, ce *caseEnv) error {
			return sortedPredicateRead(ctx, jtf.in(ce), nil)
		}})
	for _, impl := range producerImpls(impls, Writer, Compactor) {
		ct.add(caseRow{Name: "index/sorted/predicate-read", Direction: as(impl, "go->java"), Doc: docIndexSortedPredicateRead,
			Sides: []caseSide{side(impl, Writer, Compactor), side("java", Consumer)},
			Uses:  []caseUse{serving(jtf, sortedReadCommands...), runnerOf(runners, impl, "create-table", "write", "compact")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return sortedPredicateRead(ctx, jtf.in(ce), ce.runner(impl))
			}})
		ct.add(caseRow{Name: "index/sorted/predicate-read-budget", Direction: as(impl, "go->java"), Doc: docIndexSortedPredicateReadBudget,
			Sides: []caseSide{side(impl, Writer, Compactor), side("java", Consumer)},
			Uses:  []caseUse{serving(jtf, sortedReadCommands...), runnerOf(runners, impl, "create-table", "write", "compact")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return sortedPredicateReadBudget(ctx, jtf.in(ce), ce.runner(impl))
			}})
	}
	for _, impl := range producerImpls(impls, Maintainer) {
		ct.add(caseRow{Name: "index/sorted/state", Direction: as(impl, "java<->go"), Doc: docIndexSortedState,
			Sides: []caseSide{side("java", Maintainer), side(impl, Maintainer)},
			Uses:  []caseUse{serving(jtf, "sorted-state"), runnerOf(runners, impl, "sorted-state")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				return sortedState(ctx, jtf.in(ce).proc, ce.runner(impl))
			}})
	}
}

// sortedIndexFormat is index/sorted/format: for every key type the sorted family supports and
// every variant, random keys with nulls and duplicates are written by the implementation's
// runner goP (Go's: internal/pksorted/{btree,bitmap}'s writers) and by Paimon's own indexer (the
// Java runner's sorted-index-write); the SortedIndexFileMeta bytes are equal, the file bytes are
// equal where the variant says so, Go's decoders (in-process) read the same content from both
// files, and Go's reader and Paimon's reader (sorted-index-read) give the same rows for every
// predicate on both files.
func sortedIndexFormat(ctx context.Context, p, goP *Process, dir string) error {
	var errs []error
	for vi, v := range sortedFormatVariants() {
		for ti, typ := range sortkeytest.Types() {
			name := fmt.Sprintf("%s %v %s", v.index, v.options, typeSQL(typ))
			if err := sortedFormatOne(ctx, p, goP, filepath.Join(dir, fmt.Sprintf("v%d-t%d", vi, ti)), v, typ, uint64(vi*100+ti)); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
			}
		}
	}
	return errors.Join(errs...)
}

func sortedFormatOne(ctx context.Context, p, goP *Process, dir string, v sortedFormatVariant, typ types.DataType, seed uint64) error {
	ser, err := sortkey.New(typ)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(seed, 21))
	rows := sortkeytest.Rows(ser, r, 200+r.IntN(300), 6)
	for _, d := range []string{"java", "go"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	type rowJSON struct {
		Key   *string `json:"key"`
		RowID int64   `json:"rowId"`
	}
	var jrows []rowJSON
	for _, row := range rows {
		jrows = append(jrows, rowJSON{keyText(row.Key), row.RowID})
	}
	type writeJSON struct {
		FileName string `json:"fileName"`
		RowCount int64  `json:"rowCount"`
		Meta     string `json:"meta"`
	}
	write := func(p *Process, sub string) (writeJSON, error) {
		var out writeJSON
		args := map[string]any{"indexType": v.index, "type": typeSQL(typ), "options": v.options, "dir": filepath.Join(dir, sub), "rows": jrows}
		err := p.Call(ctx, "sorted-index-write", args, &out)
		return out, err
	}
	// Go's file.
	gres, err := write(goP, "go")
	if err != nil {
		return fmt.Errorf("go write: %w", err)
	}
	goPath := filepath.Join(dir, "go", gres.FileName)
	goMetaBytes, err := base64.StdEncoding.DecodeString(gres.Meta)
	if err != nil {
		return err
	}
	goBytes, err := os.ReadFile(goPath)
	if err != nil {
		return err
	}
	// Java's file.
	wres, err := write(p, "java")
	if err != nil {
		return fmt.Errorf("java write: %w", err)
	}
	javaPath := filepath.Join(dir, "java", wres.FileName)
	javaMetaBytes, err := base64.StdEncoding.DecodeString(wres.Meta)
	if err != nil {
		return err
	}
	if wres.RowCount != gres.RowCount {
		return fmt.Errorf("row count: java %d, go %d", wres.RowCount, gres.RowCount)
	}
	if !bytes.Equal(javaMetaBytes, goMetaBytes) {
		return fmt.Errorf("file meta: java %x, go %x", javaMetaBytes, goMetaBytes)
	}
	javaBytes, err := os.ReadFile(javaPath)
	if err != nil {
		return err
	}
	if v.sameBytes && !bytes.Equal(javaBytes, goBytes) {
		return fmt.Errorf("file bytes differ: java %d bytes, go %d bytes, first difference at %d", len(javaBytes), len(goBytes), firstDiff(javaBytes, goBytes))
	}
	// The same decoded content, whether or not the bytes are the same.
	javaContent, err := goSortedContent(v.index, ser, javaPath, javaMetaBytes)
	if err != nil {
		return fmt.Errorf("go decodes java's file: %w", err)
	}
	goContent, err := goSortedContent(v.index, ser, goPath, javaMetaBytes)
	if err != nil {
		return fmt.Errorf("go decodes its own file: %w", err)
	}
	if javaContent != goContent {
		return fmt.Errorf("decoded content differs:\njava %.300s\ngo   %.300s", javaContent, goContent)
	}
	// The same answers from four reads: {Go, Java} reader x {Go, Java} file.
	preds := sortkeytest.Predicates(ser, r, 6)
	if typ.Root == types.RootVarChar {
		preds = append(preds, pred.Predicate{Op: pred.EndsWith, Literals: []any{"a"}}, pred.Predicate{Op: pred.Contains, Literals: []any{"中"}},
			pred.Predicate{Op: pred.StartsWith, Literals: []any{""}})
	}
	meta64 := base64.StdEncoding.EncodeToString(javaMetaBytes)
	var answers [][][]int64
	for _, path := range []string{javaPath, goPath} {
		g, err := goSortedAnswers(v.index, ser, path, javaMetaBytes, preds)
		if err != nil {
			return fmt.Errorf("go reads %s: %w", filepath.Base(path), err)
		}
		j, err := javaSortedAnswers(ctx, p, v, typ, path, meta64, preds)
		if err != nil {
			return fmt.Errorf("java reads %s: %w", filepath.Base(path), err)
		}
		answers = append(answers, g, j)
	}
	labels := []string{"go reads java's file", "java reads java's file", "go reads go's file", "java reads go's file"}
	for i, pr := range preds {
		for k := 1; k < len(answers); k++ {
			if !slices.Equal(answers[k][i], answers[0][i]) {
				return fmt.Errorf("%s %v: %s %v, %s %v", pr.Op, pr.Literals, labels[k], answers[k][i], labels[0], answers[0][i])
			}
		}
	}
	return nil
}

// goSortedContent renders every entry and the null rows of a file as Go decodes them.
func goSortedContent(index string, ser *sortkey.Serializer, path string, metaBytes []byte) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if index == "btree" {
		meta, err := filemeta.Decode(metaBytes)
		if err != nil {
			return "", err
		}
		rd, err := btree.Open(bytes.NewReader(data), int64(len(data)), ser, meta)
		if err != nil {
			return "", err
		}
		entries, err := rd.Entries()
		if err != nil {
			return "", err
		}
		for _, e := range entries {
			fmt.Fprintf(&b, "%v=%v;", e.Key, e.RowIDs)
		}
		fmt.Fprintf(&b, "nulls=%v", rd.NullRows().ToArray())
		return b.String(), nil
	}
	rd, err := bitmap.Open(bytes.NewReader(data), int64(len(data)), ser)
	if err != nil {
		return "", err
	}
	entries, err := rd.Entries()
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		fmt.Fprintf(&b, "%v=%v;", e.Key, e.Rows.ToArray())
	}
	nulls, err := rd.NullRows()
	if err != nil {
		return "", err
	}
	nonNulls, err := rd.NonNullRows()
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "nulls=%v nonNulls=%v", nulls.ToArray(), nonNulls.ToArray())
	return b.String(), nil
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func goSortedAnswers(index string, ser *sortkey.Serializer, path string, metaBytes []byte, preds []pred.Predicate) ([][]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	meta, err := filemeta.Decode(metaBytes)
	if err != nil {
		return nil, err
	}
	var eval func(pred.Predicate) ([]uint64, error)
	switch index {
	case "btree":
		rd, err := btree.Open(bytes.NewReader(data), int64(len(data)), ser, meta)
		if err != nil {
			return nil, err
		}
		eval = func(p pred.Predicate) ([]uint64, error) {
			bm, err := rd.Evaluate(p)
			if err != nil {
				return nil, err
			}
			return bm.ToArray(), nil
		}
	default:
		rd, err := bitmap.Open(bytes.NewReader(data), int64(len(data)), ser)
		if err != nil {
			return nil, err
		}
		eval = func(p pred.Predicate) ([]uint64, error) {
			bm, err := rd.Evaluate(p)
			if err != nil {
				return nil, err
			}
			return bm.ToArray(), nil
		}
	}
	var out [][]int64
	for _, p := range preds {
		ids, err := eval(p)
		if err != nil {
			return nil, fmt.Errorf("%s %v: %w", p.Op, p.Literals, err)
		}
		row := []int64{}
		for _, id := range ids {
			row = append(row, int64(id))
		}
		out = append(out, row)
	}
	return out, nil
}

func javaSortedAnswers(ctx context.Context, p *Process, v sortedFormatVariant, typ types.DataType, path, meta64 string, preds []pred.Predicate) ([][]int64, error) {
	type predJSON struct {
		Op       string    `json:"op"`
		Literals []*string `json:"literals"`
	}
	var ps []predJSON
	for _, pr := range preds {
		lits := []*string{}
		for _, l := range pr.Literals {
			lits = append(lits, keyText(l))
		}
		ps = append(ps, predJSON{pr.Op.String(), lits})
	}
	args := map[string]any{
		"indexType": v.index, "type": typeSQL(typ), "options": v.options,
		"files":      []map[string]string{{"path": path, "meta": meta64}},
		"predicates": ps,
	}
	var res struct {
		Results [][]int64 `json:"results"`
	}
	if err := p.Call(ctx, "sorted-index-read", args, &res); err != nil {
		return nil, err
	}
	if len(res.Results) != len(preds) {
		return nil, fmt.Errorf("%d answers for %d predicates", len(res.Results), len(preds))
	}
	for i, r := range res.Results {
		if r == nil {
			return nil, fmt.Errorf("%s %v: Paimon's reader returned no result", preds[i].Op, preds[i].Literals)
		}
	}
	return res.Results, nil
}

// keyText is the runner's text form of a key (see SortedIndexCommands): nil for null.
func keyText(v any) *string {
	var s string
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		s = x
	case int8, int16, int32, int64, bool:
		s = fmt.Sprint(x)
	case float32:
		s = strconv.FormatUint(uint64(math.Float32bits(x)), 10)
	case float64:
		s = strconv.FormatUint(math.Float64bits(x), 10)
	case binrow.Decimal:
		s = x.String()
	case binrow.Timestamp:
		s = fmt.Sprintf("%d:%d", x.Millis, x.NanoOfMilli)
	default:
		panic(fmt.Sprintf("keyText: %T", v))
	}
	return &s
}

// typeSQL is the Paimon SQL type string of a sorted-index key type.
func typeSQL(t types.DataType) string {
	switch t.Root {
	case types.RootTinyInt:
		return "TINYINT"
	case types.RootSmallInt:
		return "SMALLINT"
	case types.RootInt:
		return "INT"
	case types.RootBigInt:
		return "BIGINT"
	case types.RootBoolean:
		return "BOOLEAN"
	case types.RootFloat:
		return "FLOAT"
	case types.RootDouble:
		return "DOUBLE"
	case types.RootDate:
		return "DATE"
	case types.RootTime:
		return fmt.Sprintf("TIME(%d)", t.Precision)
	case types.RootVarChar:
		return "STRING"
	case types.RootChar:
		return fmt.Sprintf("CHAR(%d)", t.Length)
	case types.RootDecimal:
		return fmt.Sprintf("DECIMAL(%d, %d)", t.Precision, t.Scale)
	case types.RootTimestamp:
		return fmt.Sprintf("TIMESTAMP(%d)", t.Precision)
	case types.RootTimestampLTZ:
		return fmt.Sprintf("TIMESTAMP(%d) WITH LOCAL TIME ZONE", t.Precision)
	}
	return t.Root.String()
}

// docIndexSortedFormat describes index/sorted/format.
const docIndexSortedFormat = "for every key type Paimon's global-index key serializer supports (TINYINT, SMALLINT, INT, " +
	"BIGINT, BOOLEAN, FLOAT, DOUBLE, DATE, TIME, STRING, CHAR, DECIMAL compact and not, " +
	"TIMESTAMP(3/6/9), TIMESTAMP_LTZ) and eight option sets (btree default and 96-byte blocks, " +
	"lz4, zstd; bitmap default and 40-byte dictionary blocks, lz4, zstd), random keys with " +
	"nulls and duplicates are written by the maintainer's runner (`sorted-index-write`; Go's " +
	"serves it with `internal/pksorted/{btree,bitmap}`) and by " +
	"Paimon's own `btree`/`bitmap` global indexers (Java runner `sorted-index-write`): the " +
	"SortedIndexFileMeta bytes are equal, the file bytes are equal without compression (with " +
	"LZ4 or ZSTD the Go and Java compressors choose other matches, so the decoded content is " +
	"compared), and Go's readers and Paimon's (`sorted-index-read`) answer every leaf predicate" +
	" (null tests, comparisons, between, in/not in, starts/ends with, contains) identically on " +
	"both files."

// docIndexSortedSameLevel describes index/sorted/same-level.
const docIndexSortedSameLevel = "one level of three data files (named out of order, unsorted values with nulls and many " +
	"duplicates; 5, 40 and 3,000 rows; every key type; btree and bitmap) is built by Paimon's " +
	"own `PkSortedIndexBuilder` and `PkSortedIndexFile` (Java runner `sorted-index-build`) and by " +
	"the maintainer's runner (`sorted-index-build`; Go's serves it with " +
	"`internal/pksorted/indexfile.Builder`): the payloads' IndexFileMeta fields and " +
	"index/source meta bytes are equal and the files byte-identical — which takes Paimon's " +
	"(unstable) QuickSort, ported in `internal/pksorted/sortorder`, since a btree file lists a " +
	"key's row ids in the sort buffer's order (a stable sort differs on 30 of the 108 builds) —" +
	" and Go's reader on Java's payload answers every predicate as Paimon's (`sorted-index-read`)" +
	" on the maintainer's. The " +
	"3,000-row levels are built once more through a sort buffer of three 1 kb pages merging at " +
	"three runs (`write-buffer-size`, `page-size`, `local-sort.max-num-file-handles`): both " +
	"sides spill sorted runs every few dozen rows and merge them, and the payloads are still " +
	"byte-identical, which takes Java's page accounting and its merge's order of equal keys " +
	"(sorted in memory instead, all 18 spilled btree payloads differ from Java's; a bitmap does" +
	" not depend on the order)."

// docIndexSortedOptions describes index/sorted/options.
const docIndexSortedOptions = "the options of a pk-btree or pk-bitmap column (Java's inputs, every refusal, prefixed and " +
	"`fields.` keys, null/boolean/integer values, a repeated key, trailing text, and 200 seeded" +
	" mixes of table-level and column-level keys) resolved by Paimon's " +
	"`CoreOptions#primaryKeyBTreeIndexOptions` / `primaryKeyBitmapIndexOptions` (runner " +
	"`sorted-index-options`) and by the maintainer's runner (`sorted-index-options`; Go's " +
	"serves it with `internal/pksorted/definition.IndexOptions`): the same " +
	"options or the same refusal message; values Java re-serializes with its own formatting " +
	"(fractions, nested objects, arrays) Go refuses by name."

// docIndexSortedDump describes index/sorted/dump.
const docIndexSortedDump = "a table with a pk-btree, a pk-bitmap and a pk-full-text column, deletion vectors, written " +
	"and compacted by Paimon: Go's dump equals the runner's `dump`, including each sorted " +
	"definition's state per bucket (Paimon's `PkSortedBucketIndexState` and " +
	"`PrimaryKeyIndexLevels` over its groups against `internal/pksorted/state` and the shared " +
	"planner: groups, covered and uncovered files, rejected payloads, next plan) and the " +
	"payloads' decoded `SortedIndexFileMeta`; `pkft state` (`Table.State`) shows the same " +
	"sorted states."

// docIndexSortedPredicateRead describes index/sorted/predicate-read.
const docIndexSortedPredicateRead = "a table (written and compacted by Java, or the same commits by Go's writer and sorted " +
	"maintainer) with pk-btree (`price`, `day`) and pk-bitmap (`tag`) columns, an unindexed " +
	"column, two buckets, deletion vectors, deletes, payloads on several levels and a level-0 " +
	"file, read with 28 filters (every leaf on the indexed columns, an IN of more than 20 " +
	"literals, AND/OR mixes, parts on the unindexed column and the key, filters selecting " +
	"nothing): Paimon's own batch read with the filter (runner `predicate-read`: " +
	"`ReadBuilder#withFilter`, its `PrimaryKeyBatchScan` plan, the read with `executeFilter`) " +
	"returns exactly the rows of Go's `Table.Scan(Where(...))`, and Go reads the files as " +
	"Paimon planned them: the files Paimon's plan turned into `IndexedSplit`s Go narrowed, with" +
	" the same row ranges; the files it read whole (levels without a current payload, OR with " +
	"an unindexed branch) Go read whole; the files in no split (pruned by statistics, or no row" +
	" selected) Go did not read."

// docIndexSortedPredicateReadBudget describes index/sorted/predicate-read-budget.
const docIndexSortedPredicateReadBudget = "the same table written by Go with `btree-index.fallback-scan-max-size` at 0 and the `tag` " +
	"column's `pk-bitmap.index.options` setting `fallback-scan-max-size` to one byte, read with" +
	" the same 28 filters: rows and file reads equal Paimon's, whose lazy btree and bitmap " +
	"readers leave the range filters unanswered (the ranges on `price` and `day` narrow no file" +
	" in Paimon's plan or Go's; equality still does)."

// docIndexSortedState describes index/sorted/state.
const docIndexSortedState = "500 seeded buckets (data files on levels 0-3 with compact and append sources; btree " +
	"payloads exact, partial, duplicated, of another type or field, with a wrong row count or " +
	"row range, with unparsable or missing source meta) classified by Paimon's " +
	"`PkSortedBucketIndexState` (Java runner `sorted-state`) and by the maintainer's runner " +
	"(`sorted-state`; Go's serves it with `internal/pksorted/state`): the " +
	"same groups, covered and uncovered files and rejected payloads, in the same order."
