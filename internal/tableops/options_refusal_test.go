package tableops_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext/bleveengine"
	"github.com/paimon-pkft/pkft/internal/options"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
)

// refusedSettings returns, for every key the registry refuses, a value other than Java's default
// (a pattern key with its wildcards filled in), and for the honoured keys some values Go does not
// implement, plus a key the registry does not know.
func refusedSettings(t *testing.T) map[string]string {
	out := map[string]string{
		"bucket":                   "-2",
		"merge-engine":             "lookup-merge",
		"changelog-producer":       "lookup",
		"file.format":              "orc",
		"file.compression":         "lzo",
		"manifest.format":          "orc",
		"bucket-function.type":     "range",
		"no-such-option.anywhere":  "1",
		"fields.content.ts-field2": "x",
	}
	for _, e := range options.New().Entries() {
		if e.Class != options.Refused {
			continue
		}
		key := strings.NewReplacer("*", "content", "#", "com.example.Cb").Replace(e.Key)
		out[key] = nonDefault(t, e)
		if strings.HasSuffix(key, ".index.columns") {
			// Not the full-text column, which can own only one primary-key index.
			out[key] = "id"
		}
	}
	return out
}

// nonDefault is a value of the entry's type that is not its default.
func nonDefault(t *testing.T, e options.Entry) string {
	def := strings.ToLower(strings.TrimSpace(e.Default))
	switch e.Type {
	case "Boolean":
		if def == "true" {
			return "false"
		}
		return "true"
	case "Integer", "Long":
		n, _ := strconv.ParseInt(def, 10, 64)
		if n == math.MaxInt64 || n == math.MaxInt32 {
			return "7"
		}
		return strconv.FormatInt(n+1, 10)
	case "Double", "Float":
		return "0.37"
	case "MemorySize":
		return "3 mb"
	case "Duration":
		return "7 d"
	case "Map":
		return "0:avro"
	case "String", "":
		return "content"
	}
	if !e.HasDefault {
		return "x"
	}
	// An enum: any other name is not the default (Java would reject an unknown one; Go refuses
	// either way).
	return def + "-other"
}

// TestRefusedOptionsFailEveryOperation sets each refused table option in turn on a copy of a
// Java full-text table and of a Java table without one, and checks that a write, a full
// compaction and (on the full-text table, for the keys the index-only maintenance refuses too) a
// maintenance fail with ErrUnsupportedTable naming the key and the value, and that no file is
// written or removed. On the full-text table a few keys are refused first by Java's own full-text schema validation, whose message names the key.
func TestRefusedOptionsFailEveryOperation(t *testing.T) {
	settings := refusedSettings(t)
	if len(settings) < 80 {
		t.Fatalf("only %d refused settings", len(settings))
	}
	for _, name := range []string{"ft-default-partitioned", "two-levels"} {
		t.Run(name, func(t *testing.T) { refuseEachOption(t, name, settings) })
	}
}

func refuseEachOption(t *testing.T, golden string, settings map[string]string) {
	ctx := context.Background()
	root := copyGolden(t, golden)
	tbl := table.Open(fileio.NewLocal(), root)
	base, err := tbl.LatestSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := options.New().Check(base.Options); err != nil {
		t.Fatalf("the golden table itself is refused: %v", err)
	}
	fullText := base.Options["pk-full-text.index.columns"] != ""
	before := listFiles(t, root)
	eng := bleveengine.Engine{}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		val := settings[key]
		setOptions(t, root, map[string]string{key: val})
		schemaFile := filepath.Join(root, "schema", schema.FileName(base.ID+1))
		want := append(slices.Clone(before), filepath.Join("schema", schema.FileName(base.ID+1)))
		slices.Sort(want)
		check := func(op string, err error) {
			t.Helper()
			byJavaValidation := fullText && err != nil && strings.Contains(err.Error(), "Primary-key full-text index")
			named := err != nil && strings.Contains(err.Error(), key)
			if !named || !byJavaValidation && (!errors.Is(err, tableops.ErrUnsupportedTable) || !strings.Contains(err.Error(), strconv.Quote(val))) {
				t.Errorf("%s = %q: %s error %v", key, val, op, err)
			}
			if got := listFiles(t, root); !slices.Equal(got, want) {
				t.Fatalf("%s = %q: %s changed the table's files", key, val, op)
			}
		}
		w, err := tableops.OpenWriter(ctx, tbl, eng)
		if err == nil {
			w.Abort(ctx)
		}
		check("write", err)
		_, err = tableops.Compact(ctx, tbl, eng)
		check("compaction", err)
		// The index-only maintenance accepts some keys the writer refuses
		// (TestMaintainAcceptsWhatCannotChangeIt checks those).
		if fullText && options.New().DecideFor(options.Maintain, key, val).Err != nil {
			_, err = tableops.Maintain(ctx, tbl, eng)
			check("maintenance", err)
		}
		if err := os.Remove(schemaFile); err != nil {
			t.Fatal(err)
		}
	}
}
