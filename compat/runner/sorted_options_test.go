package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
)

// sortedOptionsCase is one option resolution both sides perform.
type sortedOptionsCase struct {
	options   map[string]string
	column    string
	indexType string
}

// sortedOptionsCases are the hand-written resolutions of index/sorted/options (Java's test
// inputs, each refusal, prefixed and fields. keys, an equal repeated value) and 200 seeded ones
// mixing table-level and column-level keys of both families.
func sortedOptionsCases() []sortedOptionsCase {
	const bt, bm = "fields.c.pk-btree.index.options", "fields.c.pk-bitmap.index.options"
	cases := []sortedOptionsCase{
		{map[string]string{"sorted-index.records-per-range": "10", "write-buffer-size": "8 mb", bt: `{"block-size":"4 kb"}`}, "c", "btree"},
		{map[string]string{bm: `{"dictionary-block-size":"8 kb"}`}, "c", "bitmap"},
		{map[string]string{bt: `[1]`}, "c", "btree"},
		{map[string]string{bt: `{`}, "c", "btree"},
		{map[string]string{bt: `{" ":"x"}`}, "c", "btree"},
		{map[string]string{bt: `{"a":null}`}, "c", "btree"},
		{map[string]string{bt: `{"block-size":"1 kb"}`, "btree-index.block-size": "2 kb"}, "c", "btree"},
		{map[string]string{bt: `{"btree-index.block-size":"2 kb","fields.x":"y"}`, "btree-index.block-size": "2 kb"}, "c", "btree"},
		{map[string]string{bt: "   "}, "c", "btree"},
		{map[string]string{bt: `{"block-size":"4 kb"}`}, "c", "bitmap"},
		{map[string]string{}, "c", "btree"},
		{map[string]string{bt: `{"a":null,"b":-0,"c":true,"d":12345678901234567890123,"a":7} trailing`}, "c", "btree"},
		{map[string]string{bt: `null`}, "c", "btree"},
		{map[string]string{bt: `{"a":1.5}`}, "c", "btree"},
		{map[string]string{bt: `{"a":{"x":1}}`}, "c", "btree"},
	}
	keys := []string{"block-size", "compression", "compression-level", "dictionary-block-size", "btree-index.block-size",
		"bitmap-index.compression", "fields.c.other", "x"}
	values := []string{"1 kb", "lz4", "3", "none"}
	for seed := uint64(0); seed < 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 2103))
		opts := map[string]string{}
		typ := []string{"btree", "bitmap"}[r.IntN(2)]
		family := map[string]string{"btree": "pk-btree", "bitmap": "pk-bitmap"}[typ]
		for range r.IntN(3) {
			prefix := map[string]string{"btree": "btree-index.", "bitmap": "bitmap-index."}[typ]
			opts[prefix+keys[r.IntN(3)]] = values[r.IntN(len(values))]
		}
		if r.IntN(4) != 0 {
			json := "{"
			for i := range 1 + r.IntN(3) {
				if i > 0 {
					json += ","
				}
				json += fmt.Sprintf("%q:%q", keys[r.IntN(len(keys))], values[r.IntN(len(values))])
			}
			opts["fields.c."+family+".index.options"] = json + "}"
		}
		if r.IntN(3) == 0 {
			opts["sorted-index.records-per-range"] = "5"
		}
		cases = append(cases, sortedOptionsCase{opts, "c", typ})
	}
	return cases
}

// sortedOptions is index/sorted/options (go<->java): Paimon's CoreOptions resolves the options of
// a pk-btree or pk-bitmap column (the Java runner's sorted-index-options) as the implementation's
// runner goP does (Go's: internal/pksorted/definition.IndexOptions):
// the same options, or the same refusal message; where Go refuses a value Java re-serializes
// (fractions, nested objects and arrays), the refusal names it.
func sortedOptions(ctx context.Context, p, goP *Process) error {
	var errs []error
	for i, c := range sortedOptionsCases() {
		type resolved struct {
			Options map[string]string `json:"options"`
			Error   string            `json:"error"`
		}
		args := map[string]any{"options": c.options, "column": c.column, "indexType": c.indexType}
		var java, goRes resolved
		if err := p.Call(ctx, "sorted-index-options", args, &java); err != nil {
			return err
		}
		if err := goP.Call(ctx, "sorted-index-options", args, &goRes); err != nil {
			return err
		}
		got := goRes.Options
		var err error
		if goRes.Error != "" {
			err = errors.New(goRes.Error)
		}
		switch {
		case java.Error == "" && err != nil && strings.Contains(err.Error(), "pkft resolves only"):
			// Values Java re-serializes with its own formatting are refused by Go, by name.
		case java.Error != "" && (err == nil || err.Error() != java.Error):
			errs = append(errs, fmt.Errorf("case %d %v %s: Java refuses with %q, Go gives %v, %v", i, c.options, c.indexType, java.Error, got, err))
		case java.Error == "" && (err != nil || !maps.Equal(got, java.Options)):
			errs = append(errs, fmt.Errorf("case %d %v %s: Java resolves %v, Go %v, %v", i, c.options, c.indexType, java.Options, got, err))
		}
		if len(errs) >= 10 {
			break
		}
	}
	return errors.Join(errs...)
}
