package bleveengine_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/testing/corpus"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// multiSourceRows simulates the archive of one level with three source files of 400, 1 and 700
// rows: archive row ids are the concatenated row positions (file 1 rows 0..399, file 2 row 400,
// file 3 from 401). Null rows keep their row id but are not indexed.
func multiSourceRows(t *testing.T) []corpus.Row {
	t.Helper()
	var rows []corpus.Row
	for i, file := range []struct {
		seed uint64
		n    int
	}{{101, 400}, {102, 1}, {103, 700}} {
		offset := int64(len(rows))
		src := corpus.Generate(file.seed, file.n)
		nulls := 0
		for _, r := range src {
			if r.Null {
				nulls++
			}
			r.ID += offset
			rows = append(rows, r)
		}
		if file.n > 1 && nulls == 0 {
			t.Fatalf("source file %d has no null rows: the corpus no longer exercises them", i+1)
		}
	}
	if rows[400].Null {
		t.Fatal("the one-row source file is null: pick another seed so its row is indexed")
	}
	return rows
}

func buildNative(t *testing.T, lib *native.Library, opts []fulltext.Option, rows []corpus.Row) fulltext.Reader {
	t.Helper()
	w, err := lib.NewWriter(opts)
	if err != nil {
		t.Fatalf("native NewWriter: %v", err)
	}
	defer w.Close()
	for _, r := range rows {
		if !r.Null {
			if err := w.Add(r.ID, r.Text); err != nil {
				t.Fatalf("native Add: %v", err)
			}
		}
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(context.Background(), &buf); err != nil {
		t.Fatalf("native WriteTo: %v", err)
	}
	r, err := lib.OpenReader(context.Background(), bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatalf("native OpenReader: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// oracleTerms returns the whole corpus vocabulary, capitalized variants, Chinese compounds that
// the corpus writes without a space (single whitespace tokens), and a term no row has.
func oracleTerms(rows []corpus.Row) (terms []string, absent string) {
	en, zh, acc, emo := corpus.Vocabulary()
	terms = slices.Concat(en, zh, acc, emo, []string{"Paimon", "Lake", "Apache"})
	compounds := 0
	for _, r := range rows {
		for _, tok := range strings.Fields(r.Text) {
			if compounds < 3 && len([]rune(tok)) > 2 && !slices.Contains(terms, tok) && !slices.Contains(zh, tok) && strings.ContainsRune("数湖全索检中分压快表流批存引北上", []rune(tok)[0]) {
				terms = append(terms, tok)
				compounds++
			}
		}
	}
	absent = "nowhere-in-the-corpus"
	return append(terms, absent), absent
}

// TestNativeWhitespaceMatchesBleveOracle checks the native engine against this engine over one
// multi-source archive: for every single-term match query, the native hit set must equal the set
// of rows the bleve index finds, which must also be the rows that contain the token.
func TestNativeWhitespaceMatchesBleveOracle(t *testing.T) {
	lib := testenv.Native(t)
	rows := multiSourceRows(t)
	terms, absent := oracleTerms(rows)
	if len(terms) < 31 {
		t.Fatalf("only %d terms", len(terms))
	}
	t.Logf("%d rows, %d terms: %q", len(rows), len(terms), terms)

	cases := []struct {
		name string
		opts []fulltext.Option
		// exact: the analyzer is the bare whitespace tokenizer, so hits are exactly the rows
		// holding the token.
		exact bool
	}{
		// The native engine stems, removes stop words and folds to ASCII by default, whatever
		// the tokenizer; this case turns all three off.
		{"whitespace only", whitespaceExact, true},
		// The brief's options alone: native defaults for the rest. Both engines stem (Snowball
		// English), drop Snowball stop words and fold accents; no two corpus words collide
		// under that chain, so the hit sets still equal the token containment.
		{"whitespace with native defaults", []fulltext.Option{{Key: "tokenizer", Value: "whitespace"}, {Key: "lower-case", Value: "false"}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nr := buildNative(t, lib, c.opts, rows)
			br := open(t, build(t, c.opts, rows))
			row400 := false
			for _, term := range terms {
				nh, err := nr.Search(context.Background(), matchQuery(term), len(rows))
				if err != nil {
					t.Fatalf("native search %q: %v", term, err)
				}
				bh, err := br.Search(context.Background(), matchQuery(term), len(rows))
				if err != nil {
					t.Fatalf("bleve search %q: %v", term, err)
				}
				got, oracle := sortedIDs(nh), sortedIDs(bh)
				if !slices.Equal(got, oracle) {
					t.Errorf("term %q: native hits %v, bleve oracle %v", term, got, oracle)
				}
				var want []int64
				for _, r := range rows {
					if !r.Null && slices.Contains(strings.Fields(r.Text), term) {
						want = append(want, r.ID)
					}
				}
				if c.exact && !slices.Equal(oracle, want) {
					t.Errorf("term %q: bleve oracle %v, rows holding the token %v", term, oracle, want)
				}
				if term == absent && (len(got) != 0 || len(oracle) != 0) {
					t.Errorf("absent term: native %v, bleve %v", got, oracle)
				}
				if term != absent && len(want) == 0 {
					t.Errorf("term %q occurs in no row: the corpus no longer exercises it", term)
				}
				for _, h := range nh {
					if h.RowID < 0 || h.RowID >= int64(len(rows)) || rows[h.RowID].Null {
						t.Errorf("term %q: native hit on row %d, which is outside the archive or null", term, h.RowID)
					}
				}
				row400 = row400 || slices.Contains(got, 400)
			}
			if !row400 {
				t.Error("no term hit row 400, the one row of the middle source file")
			}
		})
	}
}

// TestNativeWhitespaceSplitsOnlyOnASCIIWhitespace pins the separators of the native whitespace
// tokenizer (Rust's char::is_ascii_whitespace) and checks this engine splits the same way.
func TestNativeWhitespaceSplitsOnlyOnASCIIWhitespace(t *testing.T) {
	lib := testenv.Native(t)
	rows := []corpus.Row{
		{ID: 0, Text: "p1 p2\tp3\np4\fp5\rp6"},
		{ID: 1, Text: "q1\vq2 r1\u00a0r2 s1\u3000s2 t1\u0085t2 u1\u2028u2 v1\x1cv2"},
	}
	nr := buildNative(t, lib, whitespaceExact, rows)
	br := open(t, build(t, whitespaceExact, rows))
	for _, c := range []struct {
		term string
		want []int64
	}{
		{"p1", []int64{0}}, {"p2", []int64{0}}, {"p3", []int64{0}}, {"p4", []int64{0}}, {"p5", []int64{0}}, {"p6", []int64{0}},
		{"q1", nil}, {"q2", nil}, {"r1", nil}, {"s2", nil}, {"t1", nil}, {"u2", nil}, {"v1", nil},
		{"q1\vq2", []int64{1}}, {"r1\u00a0r2", []int64{1}}, {"s1\u3000s2", []int64{1}},
		{"t1\u0085t2", []int64{1}}, {"u1\u2028u2", []int64{1}}, {"v1\x1cv2", []int64{1}},
	} {
		for name, r := range map[string]fulltext.Reader{"native": nr, "bleve": br} {
			hits, err := r.Search(context.Background(), matchQuery(c.term), 10)
			if err != nil {
				t.Fatalf("%s search %q: %v", name, c.term, err)
			}
			if got := sortedIDs(hits); !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Errorf("%s: term %q hits %v, want %v", name, c.term, got, c.want)
			}
		}
	}
}
