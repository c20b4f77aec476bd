package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hamba/avro/v2"
	"github.com/modern-go/reflect2"

	"github.com/paimon-pkft/pkft/internal/meta"
)

// metaReader reads one kind of manifest-like file into comparable values.
type metaReader func(name string, data []byte) (any, error)

func readerFor(name string) metaReader {
	switch {
	case strings.HasPrefix(name, "manifest-list-"):
		return func(n string, d []byte) (any, error) { return ReadManifestList(n, bytes.NewReader(d)) }
	case strings.HasPrefix(name, "index-manifest-"):
		return func(n string, d []byte) (any, error) { return ReadIndexManifest(n, bytes.NewReader(d)) }
	case strings.HasPrefix(name, "manifest-"):
		return func(n string, d []byte) (any, error) { return ReadManifestFile(n, bytes.NewReader(d)) }
	}
	return nil
}

// goldenMetaFiles lists every manifest, manifest list and index manifest of the golden tables of
// every producer (testdata/tables/<producer>/<table>/manifest/).
func goldenMetaFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../../testdata/tables/*/*/manifest/*")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if readerFor(filepath.Base(f)) != nil {
			out = append(out, f)
		}
	}
	if len(out) < 50 {
		t.Fatalf("found %d golden metadata files, want the corpus's", len(out))
	}
	sort.Strings(out)
	return out
}

// variant describes how a test writer's schema differs from the file's: each is something a
// released writer does (paimon-rust wraps records in ["null", T] and adds fields of its own).
type variant struct {
	wrapTop, wrapNested, nullFirst bool
	reorder                        bool
	extra                          bool
	intForLong                     bool
	rename                         bool
	dropNullable                   bool
	seed                           uint64
	nonNull                        map[string]bool // fields with a value somewhere in the file
}

func (v variant) String() string {
	return fmt.Sprintf("%+v", struct {
		WrapTop, WrapNested, NullFirst, Reorder, Extra, IntForLong, Rename, DropNullable bool
	}{v.wrapTop, v.wrapNested, v.nullFirst, v.reorder, v.extra, v.intForLong, v.rename, v.dropNullable})
}

func variantFromBits(bits uint8, seed uint64) variant {
	return variant{
		wrapTop: bits&1 != 0, wrapNested: bits&2 != 0, nullFirst: bits&4 != 0, reorder: bits&8 != 0,
		extra: bits&16 != 0, intForLong: bits&32 != 0, rename: bits&64 != 0, dropNullable: bits&128 != 0,
		seed: seed,
	}
}

// smallLongFields are long fields whose golden values fit an int, so a writer may write them as
// int (Avro promotes int to long on read).
var smallLongFields = map[string]bool{"_SCHEMA_ID": true, "_NUM_ADDED_FILES": true, "_NUM_DELETED_FILES": true, "_ROW_COUNT": true}

// transformSchema rewrites a schema's JSON form (from the file header) per v. depth 0 is the
// top-level record.
func (v variant) transformSchema(s any, depth int, rng *rand.Rand) any {
	switch x := s.(type) {
	case []any: // union
		out := make([]any, len(x))
		for i, b := range x {
			out[i] = v.transformSchema(b, depth, rng)
		}
		return out
	case map[string]any:
		switch x["type"] {
		case "record":
			rec := map[string]any{"type": "record", "name": x["name"]}
			if ns, ok := x["namespace"]; ok {
				rec["namespace"] = ns
			}
			if v.rename {
				rec["name"] = fmt.Sprintf("%v_w%d", x["name"], rng.IntN(1000))
			}
			var fields []any
			for _, f := range x["fields"].([]any) {
				fm := f.(map[string]any)
				nf := map[string]any{"name": fm["name"]}
				for k, val := range fm {
					if k != "name" && k != "type" {
						nf[k] = val
					}
				}
				if _, isUnion := fm["type"].([]any); v.dropNullable && isUnion && !v.nonNull[fm["name"].(string)] {
					continue // a field the writer lacks reads as null, as every value of it is here
				}
				ft := v.transformSchema(fm["type"], depth+1, rng)
				if v.intForLong && ft == "long" && smallLongFields[fm["name"].(string)] {
					ft = "int"
				}
				if m, ok := ft.(map[string]any); ok && m["type"] == "record" && v.wrapNested {
					ft = v.union(ft)
				}
				nf["type"] = ft
				fields = append(fields, nf)
			}
			if v.extra {
				fields = append(fields,
					map[string]any{"name": "_EXTRA_LONG", "type": "long"},
					map[string]any{"name": "_EXTRA_STRINGS", "type": []any{"null", map[string]any{"type": "array", "items": "string"}}, "default": nil},
					map[string]any{"name": "_EXTRA_RECORD", "type": map[string]any{"type": "record", "name": fmt.Sprintf("extra%d_%d", depth, rng.Uint64()), "fields": []any{
						map[string]any{"name": "a", "type": "int"}, map[string]any{"name": "b", "type": "bytes"}}}},
				)
			}
			if v.reorder {
				rng.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
			}
			rec["fields"] = fields
			if depth == 0 && v.wrapTop {
				return v.union(rec)
			}
			return rec
		case "array":
			return map[string]any{"type": "array", "items": v.transformSchema(x["items"], depth+1, rng)}
		}
		return x
	}
	return s
}

func (v variant) union(t any) any {
	if v.nullFirst {
		return []any{"null", t}
	}
	return []any{t, "null"}
}

// reencode decodes every record of an Avro container file generically with its own schema and
// writes them again, uncompressed, under the schema v makes of it.
func reencode(t testing.TB, data []byte, v variant) []byte {
	t.Helper()
	c, err := parseOCF(data)
	if err != nil {
		t.Fatal(err)
	}
	var js any
	if err := json.Unmarshal([]byte(c.schemaJSON), &js); err != nil {
		t.Fatal(err)
	}
	var recs []any
	r := avro.NewReader(nil, 0)
	for _, b := range c.blocks {
		r.Reset(b.data)
		for range b.count {
			recs = append(recs, r.ReadNext(c.schema))
			if r.Error != nil {
				t.Fatal(r.Error)
			}
		}
	}
	v.nonNull = map[string]bool{}
	for _, rec := range recs {
		markNonNull(rec, v.nonNull)
	}
	rng := rand.New(rand.NewPCG(v.seed, 7))
	schemaJSON, err := json.Marshal(v.transformSchema(js, 0, rng))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := avro.Parse(string(schemaJSON))
	if err != nil {
		t.Fatalf("variant schema %s: %v", schemaJSON, err)
	}
	var body bytes.Buffer
	w := avro.NewWriter(&body, 0)
	n := int64(len(recs))
	for _, rec := range recs {
		if err := writeGeneric(w, ws, rec); err != nil {
			t.Fatalf("write under %s: %v", schemaJSON, err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	sync := bytes.Repeat([]byte{0x5a}, 16)
	out := append([]byte(nil), ocfMagic...)
	out = putAvroLong(out, 2)
	for _, kv := range [][2]string{{"avro.schema", string(schemaJSON)}, {"avro.codec", "null"}} {
		out = putAvroLong(out, int64(len(kv[0])))
		out = append(out, kv[0]...)
		out = putAvroLong(out, int64(len(kv[1])))
		out = append(out, kv[1]...)
	}
	out = putAvroLong(out, 0)
	out = append(out, sync...)
	if n > 0 {
		out = putAvroLong(out, n)
		out = putAvroLong(out, int64(body.Len()))
		out = append(out, body.Bytes()...)
		out = append(out, sync...)
	}
	return out
}

// markNonNull records the names of the record fields that hold a value in v.
func markNonNull(v any, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, fv := range x {
			if fv != nil {
				into[k] = true
				markNonNull(fv, into)
			}
		}
	case []any:
		for _, it := range x {
			markNonNull(it, into)
		}
	}
}

// writeGeneric writes a value ReadNext returned (unions as {branch name: value}) under schema s;
// a field s has and v lacks gets a made-up value of its type.
func writeGeneric(w *avro.Writer, s avro.Schema, v any) error {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	switch s := s.(type) {
	case *avro.UnionSchema:
		if m, ok := v.(map[string]any); ok && len(m) == 1 {
			for k, inner := range m {
				if !strings.HasPrefix(k, "_") {
					v = inner
				}
			}
		}
		for i, b := range s.Types() {
			if (v == nil) == (b.Type() == avro.Null) {
				w.WriteLong(int64(i))
				if v == nil {
					return nil
				}
				return writeGeneric(w, b, v)
			}
		}
		return fmt.Errorf("no union branch for %T", v)
	case *avro.RecordSchema:
		m, _ := v.(map[string]any)
		for _, f := range s.Fields() {
			fv, ok := m[f.Name()]
			if !ok {
				fv = madeUp(f.Type())
			}
			if err := writeGeneric(w, f.Type(), fv); err != nil {
				return fmt.Errorf("%s: %w", f.Name(), err)
			}
		}
		return nil
	case *avro.ArraySchema:
		items, _ := v.([]any)
		if len(items) > 0 {
			w.WriteBlockHeader(int64(len(items)), 0)
			for _, it := range items {
				if err := writeGeneric(w, s.Items(), it); err != nil {
					return err
				}
			}
		}
		w.WriteBlockHeader(0, 0)
		return nil
	case *avro.PrimitiveSchema:
		switch s.Type() {
		case avro.Int:
			switch x := v.(type) {
			case int:
				w.WriteInt(int32(x))
			case int64:
				if x < math.MinInt32 || x > math.MaxInt32 {
					return fmt.Errorf("%d does not fit an int", x)
				}
				w.WriteInt(int32(x))
			default:
				return fmt.Errorf("int from %T", v)
			}
		case avro.Long:
			switch x := v.(type) {
			case int:
				w.WriteLong(int64(x))
			case int64:
				w.WriteLong(x)
			case interface{ UnixMilli() int64 }:
				w.WriteLong(x.UnixMilli())
			default:
				return fmt.Errorf("long from %T", v)
			}
		case avro.String:
			w.WriteString(v.(string))
		case avro.Bytes:
			w.WriteBytes(v.([]byte))
		default:
			return fmt.Errorf("primitive %s", s.Type())
		}
		return w.Error
	}
	return fmt.Errorf("schema %s", s.Type())
}

func madeUp(s avro.Schema) any {
	switch s := s.(type) {
	case *avro.UnionSchema:
		return nil
	case *avro.RecordSchema:
		m := map[string]any{}
		for _, f := range s.Fields() {
			m[f.Name()] = madeUp(f.Type())
		}
		return m
	case *avro.ArraySchema:
		return []any{}
	case *avro.PrimitiveSchema:
		switch s.Type() {
		case avro.Int:
			return 7
		case avro.Long:
			return int64(1) << 40
		case avro.String:
			return "made-up"
		case avro.Bytes:
			return []byte{1, 2, 3}
		}
	}
	return nil
}

// readGoldenMeta reads golden metadata file f: its bytes, its reader and what it reads as.
func readGoldenMeta(t *testing.T, f string) ([]byte, metaReader, any) {
	t.Helper()
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	read := readerFor(filepath.Base(f))
	want, err := read(f, data)
	if err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	return data, read, want
}

// TestReadUnderOtherWriterSchemas re-encodes every metadata file of every producer's golden
// tables under writer schemas other than Java's (nullable unions at the top and around nested
// records, either branch order, reordered and extra fields, renamed records, int for long,
// nullable fields dropped) and checks each reads the same values as the file itself.
func TestReadUnderOtherWriterSchemas(t *testing.T) {
	files := goldenMetaFiles(t)
	variants := []variant{
		{wrapTop: true, wrapNested: true, nullFirst: true}, // paimon-rust 0.4.0's shape
		{wrapTop: true, wrapNested: true},
		{reorder: true, extra: true, rename: true},
		{intForLong: true, wrapNested: true, nullFirst: true, reorder: true},
		{dropNullable: true, wrapTop: true},
	}
	for _, f := range files {
		data, read, want := readGoldenMeta(t, f)
		for i, v := range variants {
			v.seed = uint64(i)
			got, err := read(f, reencode(t, data, v))
			if err != nil {
				t.Fatalf("%s under %v: %v", f, v, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s under %v:\n got %+v\nwant %+v", f, v, got, want)
			}
		}
	}
}

// TestReadOtherWriterSchemasConcurrently reads files of other writer schemas from several
// goroutines at once (orphan cleaning and scans read manifests in parallel; run it with -race)
// and checks every read gives the file's values, and that reading them again registers no
// union branch name again in the shared decoding configurations.
func TestReadOtherWriterSchemasConcurrently(t *testing.T) {
	files := goldenMetaFiles(t)
	type job struct {
		name string
		data []byte
		read metaReader
		want any
	}
	var jobs []job
	for i, f := range files {
		if i%7 != 0 {
			continue
		}
		data, read, want := readGoldenMeta(t, f)
		v := variant{wrapTop: true, wrapNested: true, nullFirst: true, rename: i%2 == 0, seed: uint64(i)}
		jobs = append(jobs, job{f, reencode(t, data, v), read, want})
	}
	run := func() {
		var wg sync.WaitGroup
		errs := make(chan error, 4*len(jobs))
		for range 4 {
			for _, j := range jobs {
				wg.Go(func() {
					got, err := j.read(j.name, j.data)
					if err == nil && !reflect.DeepEqual(got, j.want) {
						err = fmt.Errorf("%s: read %+v, want %+v", j.name, got, j.want)
					}
					if err != nil {
						errs <- err
					}
				})
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
	// hamba/avro appends a name to its type's names every time it is registered.
	registered := func() (n int) {
		for i := range decodeAPIs {
			for _, obj := range []any{map[string]any{}, []any{}} {
				names, _ := decodeAPIs[i]().api.NamesOf(reflect2.TypeOf(obj))
				n += len(names)
			}
		}
		return n
	}
	run()
	before := registered()
	if before == 0 {
		t.Fatal("no union branch registered: the files were not read by resolution")
	}
	run()
	if after := registered(); after != before {
		t.Fatalf("reading the same files again registered %d names, first %d", after, before)
	}
}

// TestResolveRefuses checks the writer schemas that cannot give pkft what it needs are refused
// with the field named, and that a null where Paimon requires a value is never read as zero.
func TestResolveRefuses(t *testing.T) {
	files := goldenMetaFiles(t)
	var list []byte
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "manifest-list-") {
			var err error
			if list, err = os.ReadFile(f); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	edit := func(t *testing.T, fn func(schema string) string, rec func(map[string]any)) []byte {
		c, err := parseOCF(list)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := avro.Parse(fn(c.schemaJSON))
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		w := avro.NewWriter(&body, 0)
		r := avro.NewReader(nil, 0)
		r.Reset(c.blocks[0].data)
		v := r.ReadNext(c.schema).(map[string]any)
		rec(v)
		if err := writeGeneric(w, ws, v); err != nil {
			t.Fatal(err)
		}
		_ = w.Flush()
		sync := bytes.Repeat([]byte{1}, 16)
		out := append([]byte(nil), ocfMagic...)
		out = putAvroLong(out, 1)
		out = putAvroLong(out, int64(len("avro.schema")))
		out = append(out, "avro.schema"...)
		s := ws.String()
		out = putAvroLong(out, int64(len(s)))
		out = append(out, s...)
		out = putAvroLong(out, 0)
		out = append(out, sync...)
		out = putAvroLong(out, 1)
		out = putAvroLong(out, int64(body.Len()))
		out = append(out, body.Bytes()...)
		return append(out, sync...)
	}
	cases := []struct {
		name   string
		schema func(string) string
		rec    func(map[string]any)
		want   string
	}{
		{"required field missing", func(s string) string {
			return strings.Replace(s, `{"name":"_FILE_SIZE","type":"long"},`, "", 1)
		}, func(map[string]any) {}, "lacks required field _FILE_SIZE"},
		{"null partition stats", func(s string) string {
			return editFieldType(t, s, "_PARTITION_STATS", func(ft any) any { return []any{"null", ft} })
		}, func(m map[string]any) { m["_PARTITION_STATS"] = nil }, "_PARTITION_STATS is null"},
		{"null inside stats", func(s string) string {
			return editFieldType(t, s, "_MIN_VALUES", func(ft any) any { return []any{"null", ft} })
		}, func(m map[string]any) { m["_PARTITION_STATS"].(map[string]any)["_MIN_VALUES"] = nil }, "_PARTITION_STATS._MIN_VALUES is null"},
		{"string for long", func(s string) string {
			return strings.Replace(s, `{"name":"_FILE_SIZE","type":"long"}`, `{"name":"_FILE_SIZE","type":"string"}`, 1)
		}, func(m map[string]any) { m["_FILE_SIZE"] = "12" }, "_FILE_SIZE"},
		{"long for int", func(s string) string {
			return strings.Replace(s, `{"name":"_VERSION","type":"int"}`, `{"name":"_VERSION","type":"long"}`, 1)
		}, func(m map[string]any) {}, "_VERSION: writer schema has long"},
		{"two value types", func(s string) string {
			return strings.Replace(s, `{"name":"_FILE_NAME","type":"string"}`, `{"name":"_FILE_NAME","type":["string","long"]}`, 1)
		}, func(m map[string]any) {}, "_FILE_NAME"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := edit(t, func(s string) string {
				out := c.schema(s)
				if out == s {
					t.Fatalf("schema edit did not apply to %s", s)
				}
				return out
			}, c.rec)
			got, err := ReadManifestList("edited", bytes.NewReader(data))
			if err == nil {
				t.Fatalf("read %+v, want an error mentioning %q", got, c.want)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "edited") {
				t.Fatalf("error %q does not name %q and the file", err, c.want)
			}
		})
	}
}

// TestReadORCManifestRefused: a manifest written with manifest.format=orc is refused by name.
func TestReadORCManifestRefused(t *testing.T) {
	_, err := ReadManifestFile("manifest-orc", bytes.NewReader([]byte("ORC\x00\x01\x02")))
	if err == nil || !strings.Contains(err.Error(), "manifest.format=orc") || !strings.Contains(err.Error(), "manifest-orc") {
		t.Fatalf("got %v, want the ORC refusal naming the file", err)
	}
}

// editFieldType replaces the type of the first field named name (at any depth) in a schema's JSON.
func editFieldType(t *testing.T, schemaJSON, name string, fn func(any) any) string {
	t.Helper()
	var js any
	if err := json.Unmarshal([]byte(schemaJSON), &js); err != nil {
		t.Fatal(err)
	}
	var walk func(any) bool
	walk = func(s any) bool {
		switch x := s.(type) {
		case []any:
			for _, b := range x {
				if walk(b) {
					return true
				}
			}
		case map[string]any:
			if fields, ok := x["fields"].([]any); ok {
				for _, f := range fields {
					fm := f.(map[string]any)
					if fm["name"] == name {
						fm["type"] = fn(fm["type"])
						return true
					}
					if walk(fm["type"]) {
						return true
					}
				}
			}
			if items, ok := x["items"]; ok {
				return walk(items)
			}
		}
		return false
	}
	if !walk(js) {
		t.Fatalf("no field %s", name)
	}
	out, err := json.Marshal(js)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// BenchmarkReadManifest reads a manifest of 3,000 entries written with Java's schema (decoded
// directly) and the same entries under paimon-rust's shape of it (decoded by resolution).
func BenchmarkReadManifest(b *testing.B) {
	var entries []meta.ManifestEntry
	for range 1000 {
		entries = append(entries, sampleManifestEntries()...)
	}
	var buf bytes.Buffer
	if err := WriteManifestFile(&buf, entries, WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"java-schema", buf.Bytes()},
		{"resolved", reencode(b, buf.Bytes(), variant{wrapTop: true, wrapNested: true, nullFirst: true})},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				got, err := ReadManifestFile("bench", bytes.NewReader(c.data))
				if err != nil || len(got) != len(entries) {
					b.Fatalf("read %d entries: %v", len(got), err)
				}
			}
		})
	}
}

// TestCarryGoldenMetadata decodes every metadata file of every producer's golden tables (and
// each under paimon-rust's shape of its schema), writes the values again as pkft writes them and
// reads them back: the same values, nothing dropped or zeroed on the way.
func TestCarryGoldenMetadata(t *testing.T) {
	for _, f := range goldenMetaFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		for _, src := range [][]byte{data, reencode(t, data, variant{wrapTop: true, wrapNested: true, nullFirst: true})} {
			var buf bytes.Buffer
			var want, got any
			switch {
			case strings.HasPrefix(name, "manifest-list-"):
				metas, err := ReadManifestList(name, bytes.NewReader(src))
				if err == nil {
					err = WriteManifestList(&buf, metas, WriteOptions{})
				}
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				want = metas
				got, err = ReadManifestList(name, &buf)
				if err != nil {
					t.Fatalf("%s reread: %v", f, err)
				}
			case strings.HasPrefix(name, "index-manifest-"):
				entries, err := ReadIndexManifest(name, bytes.NewReader(src))
				if err == nil {
					err = WriteIndexManifest(&buf, entries, WriteOptions{})
				}
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				want = entries
				got, err = ReadIndexManifest(name, &buf)
				if err != nil {
					t.Fatalf("%s reread: %v", f, err)
				}
			default:
				entries, err := ReadManifestFile(name, bytes.NewReader(src))
				if err == nil {
					err = WriteManifestFile(&buf, entries, WriteOptions{})
				}
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				want = entries
				got, err = ReadManifestFile(name, &buf)
				if err != nil {
					t.Fatalf("%s reread: %v", f, err)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s changed across a rewrite:\n got %+v\nwant %+v", f, got, want)
			}
		}
	}
}

// BenchmarkSmallManifest writes and reads back a manifest of the few entries a small commit
// writes: its cost is the per-file work (schema, encoder and decoder set-up) more than the
// records.
func BenchmarkSmallManifest(b *testing.B) {
	entries := sampleManifestEntries()
	b.Run("write", func(b *testing.B) {
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			if err := WriteManifestFile(&buf, entries, WriteOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	var buf bytes.Buffer
	if err := WriteManifestFile(&buf, entries, WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			got, err := ReadManifestFile("bench", bytes.NewReader(buf.Bytes()))
			if err != nil || len(got) != len(entries) {
				b.Fatalf("read %d entries: %v", len(got), err)
			}
		}
	})
}
