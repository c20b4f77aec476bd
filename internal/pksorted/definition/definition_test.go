package definition

import (
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/types"
)

func TestFromSchemaFollowsFieldOrder(t *testing.T) {
	fields := []types.DataField{{ID: 0, Name: "id"}, {ID: 3, Name: "status"}, {ID: 5, Name: "price"}, {ID: 6, Name: "both"}}
	got := FromSchema(map[string]string{
		BTreeColumnsOption:  " price , both,missing",
		BitmapColumnsOption: "status,both",
	}, fields)
	want := []Definition{{"status", 3, "bitmap"}, {"price", 5, "btree"}, {"both", 6, "btree"}}
	if !slices.Equal(got, want) {
		t.Fatalf("FromSchema = %v, want %v", got, want)
	}
	if d := FromSchema(map[string]string{}, fields); d != nil {
		t.Fatalf("no options: %v", d)
	}
}

// TestResolvesBTreeIndexColumns is PrimaryKeySortedIndexOptionsTest#testResolvesBTreeIndexColumns.
func TestResolvesBTreeIndexColumns(t *testing.T) {
	if got := pkindex.IndexColumns(map[string]string{BTreeColumnsOption: " name,  age "}, BTreeColumnsOption); !slices.Equal(got, []string{"name", "age"}) {
		t.Fatalf("columns %q", got)
	}
}

// TestResolvesBitmapIndexColumns is PrimaryKeySortedIndexOptionsTest#testResolvesBitmapIndexColumns.
func TestResolvesBitmapIndexColumns(t *testing.T) {
	if got := pkindex.IndexColumns(map[string]string{BitmapColumnsOption: " status,  region "}, BitmapColumnsOption); !slices.Equal(got, []string{"status", "region"}) {
		t.Fatalf("columns %q", got)
	}
}

// TestResolvesBTreeIndexAndSortOptions is PrimaryKeySortedIndexOptionsTest#testResolvesBTreeIndexAndSortOptions.
func TestResolvesBTreeIndexAndSortOptions(t *testing.T) {
	got, err := IndexOptions(map[string]string{
		"sorted-index.records-per-range":     "10",
		"write-buffer-size":                  "8 mb",
		"page-size":                          "32 kb",
		"local-sort.max-num-file-handles":    "16",
		"spill-compression":                  "lz4",
		"write-buffer-spill.max-disk-size":   "1 gb",
		"fields.name.pk-btree.index.options": `{"block-size":"4 kb"}`,
	}, "name", "btree")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"btree-index.block-size": "4 kb", "write-buffer-size": "8 mb", "page-size": "32 kb",
		"local-sort.max-num-file-handles": "16", "spill-compression": "lz4", "write-buffer-spill.max-disk-size": "1 gb"} {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["sorted-index.records-per-range"]; ok {
		t.Error("sorted-index.records-per-range kept")
	}
}

// TestResolvesBitmapIndexOptions is PrimaryKeySortedIndexOptionsTest#testResolvesBitmapIndexOptions.
func TestResolvesBitmapIndexOptions(t *testing.T) {
	got, err := IndexOptions(map[string]string{"fields.status.pk-bitmap.index.options": `{"dictionary-block-size":"8 kb"}`}, "status", "bitmap")
	if err != nil || got["bitmap-index.dictionary-block-size"] != "8 kb" {
		t.Fatalf("IndexOptions = %v, %v", got, err)
	}
}

// TestIndexOptionsRefusals: what Java's resolution rejects fails with Java's message; keys with
// the prefix or under fields. are kept as given; an equal repeated value is no conflict.
func TestIndexOptionsRefusals(t *testing.T) {
	const key = "fields.c.pk-btree.index.options"
	for value, want := range map[string]string{
		`[1]`:                   key + " must be a JSON object of option key-value pairs.",
		`{`:                     key + " must be a JSON object of option key-value pairs.",
		`{" ":"x"}`:             key + " contains an empty option key.",
		`{"block-size":"1 kb"}`: key + " defines conflicting values for btree-index.block-size.",
	} {
		_, err := IndexOptions(map[string]string{key: value, "btree-index.block-size": "2 kb"}, "c", "btree")
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", value, err, want)
		}
	}
	got, err := IndexOptions(map[string]string{key: `{"btree-index.block-size":"2 kb","fields.x":"y"}`, "btree-index.block-size": "2 kb"}, "c", "btree")
	if err != nil || got["btree-index.block-size"] != "2 kb" || got["fields.x"] != "y" {
		t.Fatalf("IndexOptions = %v, %v", got, err)
	}
	if _, err := IndexOptions(nil, "c", "full-text"); err == nil {
		t.Fatal("a full-text definition resolved")
	}
	if got, err := IndexOptions(map[string]string{key: "  "}, "c", "btree"); err != nil || len(got) != 1 {
		t.Fatalf("blank options: %v, %v", got, err)
	}
	// Non-string values become their JSON text, as Java's parseJsonMap writes them.
	got, err = IndexOptions(map[string]string{key: `{"a":null,"b":-0,"c":true,"a":7} trailing`}, "c", "btree")
	if err != nil || got["btree-index.a"] != "7" || got["btree-index.b"] != "0" || got["btree-index.c"] != "true" {
		t.Fatalf("IndexOptions = %v, %v", got, err)
	}
	for _, v := range []string{`{"a":1.5}`, `{"a":{"x":1}}`, `{"a":[1]}`} {
		if _, err := IndexOptions(map[string]string{key: v}, "c", "btree"); err == nil || !strings.Contains(err.Error(), "pkft resolves only") {
			t.Errorf("%s: error %v, want a refusal", v, err)
		}
	}
}
