package pkfulltext

import (
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestResolveDefinition checks the definition a schema resolves to (its column, field id and
// engine options) and that what Java's SchemaValidation refuses is refused with its message.
func TestResolveDefinition(t *testing.T) {
	base := func(opts map[string]string) *schema.TableSchema {
		s := &schema.TableSchema{Options: map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"}, PrimaryKeys: []string{"id"}}
		for k, v := range opts {
			if v == "<unset>" {
				delete(s.Options, k)
			} else {
				s.Options[k] = v
			}
		}
		s.Fields = []types.DataField{types.Field(0, "id", types.Int()), types.Field(1, "content", types.String()), types.Field(2, "title", types.String()),
			types.Field(3, "code", types.Char(8)), types.Field(4, "note", types.VarChar(20))}
		return s
	}
	def, err := ResolveDefinition(base(map[string]string{
		ColumnsOption:              "content",
		"full-text.tokenizer":      "ngram",
		FieldOptionsKey("content"): `{"min_gram":"2"}`,
	}))
	if err != nil {
		t.Fatal(err)
	}
	if def.Column != "content" || def.FieldID != 1 || len(def.Options) != 2 {
		t.Errorf("definition %+v", def)
	}
	if _, err := ResolveDefinition(base(map[string]string{ColumnsOption: "content",
		"deletion-vectors.enabled": "<unset>", "merge-engine": "first-row"})); err != nil {
		t.Errorf("first-row without deletion vectors: %v", err)
	}
	// CHAR and VARCHAR columns as well as STRING; a postpone bucket (-2) as well as a fixed one.
	for _, opts := range []map[string]string{{ColumnsOption: "code"}, {ColumnsOption: "note"}, {ColumnsOption: "content", "bucket": "-2"}} {
		if def, err := ResolveDefinition(base(opts)); err != nil || def.Column != opts[ColumnsOption] {
			t.Errorf("%v: %+v, %v", opts, def, err)
		}
	}
	for _, tc := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{}, "no primary-key full-text index"},
		{map[string]string{ColumnsOption: "missing"}, "must reference an existing column"},
		{map[string]string{ColumnsOption: "content,content"}, "must not contain duplicate columns, but is [content, content]"},
		{map[string]string{ColumnsOption: "content", pkindex.BTreeColumnsOption: "content"}, "at most one primary-key index"},
		{map[string]string{ColumnsOption: "content,title"}, "exactly one column"},
		{map[string]string{ColumnsOption: " "}, "non-empty column"},
		{map[string]string{ColumnsOption: "id"}, "CHAR/VARCHAR/STRING"},
		{map[string]string{ColumnsOption: "content", "deletion-vectors.enabled": "false"}, "deletion-vectors.enabled = true"},
		{map[string]string{ColumnsOption: "content", "deletion-vectors.merge-on-read": "true"}, "merge-on-read = false"},
		{map[string]string{ColumnsOption: "content", "bucket": "-1"}, "fixed or postpone bucket mode"},
		{map[string]string{ColumnsOption: "content", "bucket": "0"}, "fixed or postpone bucket mode"},
		{map[string]string{ColumnsOption: "content", "pk-clustering-override": "true"}, "pk-clustering-override"},
		{map[string]string{ColumnsOption: "content", FieldOptionsKey("content"): "[1]"}, "JSON object"},
	} {
		_, err := ResolveDefinition(base(tc.opts))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.opts, err, tc.want)
		}
	}
	noPK := base(map[string]string{ColumnsOption: "content"})
	noPK.PrimaryKeys = nil
	if _, err := ResolveDefinition(noPK); err == nil || !strings.Contains(err.Error(), "primary-key table") {
		t.Errorf("no primary key: %v", err)
	}
}
