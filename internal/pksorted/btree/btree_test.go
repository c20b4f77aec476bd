package btree

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/types"

	"github.com/paimon-pkft/pkft/internal/pksorted/blockcodec"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/predicate/pred"
	"github.com/paimon-pkft/pkft/internal/testing/sortkeytest"
)

func writeFile(t testing.TB, ser *sortkey.Serializer, rows []sortkeytest.Row, opts Options) ([]byte, Result) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, ser, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r.Key, r.RowID); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), res
}

// TestRoundTripEveryKeyType writes random keys (nulls, duplicates) of every supported type with
// small blocks and every codec, reads the entries back, and checks each predicate against an
// exact evaluation of the rows.
func TestRoundTripEveryKeyType(t *testing.T) {
	for ti, typ := range sortkeytest.Types() {
		for _, codec := range []string{"none", "lz4", "zstd"} {
			t.Run(fmt.Sprintf("%s-%d-%s", typ.Root, typ.Precision, codec), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(ti), 7))
				ser, err := sortkey.New(typ)
				if err != nil {
					t.Fatal(err)
				}
				c, err := blockcodec.NewCodec(codec, 1)
				if err != nil {
					t.Fatal(err)
				}
				rows := sortkeytest.Rows(ser, r, 600, 8)
				data, res := writeFile(t, ser, rows, Options{BlockSize: 64 + r.IntN(200), Codec: c})
				if res.RowCount != int64(len(rows)) {
					t.Fatalf("row count %d, want %d", res.RowCount, len(rows))
				}
				meta, err := filemeta.Decode(res.Meta.Encode())
				if err != nil {
					t.Fatal(err)
				}
				rd, err := Open(bytes.NewReader(data), int64(len(data)), ser, meta)
				if err != nil {
					t.Fatal(err)
				}
				if rd.sst.NumBlocks() < 2 {
					t.Fatalf("only %d data blocks: the test means to cross blocks", rd.sst.NumBlocks())
				}
				entries, err := rd.Entries()
				if err != nil {
					t.Fatal(err)
				}
				var got []sortkeytest.Row
				for _, e := range entries {
					for _, id := range e.RowIDs {
						got = append(got, sortkeytest.Row{Key: e.Key, RowID: id})
					}
				}
				if msg := sortkeytest.SameNonNullRows(ser, got, rows); msg != "" {
					t.Fatal(msg)
				}
				eval := func(p pred.Predicate) ([]uint64, error) {
					bm, err := rd.Evaluate(p)
					if err != nil {
						return nil, err
					}
					return bm.ToArray(), nil
				}
				if msg := sortkeytest.CheckPredicates(ser, r, 8, rows, eval); msg != "" {
					t.Fatal(msg)
				}
			})
		}
	}
}

// TestOnlyNullsAndEmpty: a file of only nulls has no key range and answers isNull only; an empty
// file is refused.
func TestOnlyNullsAndEmpty(t *testing.T) {
	ser, _ := sortkey.New(sortkeytestInt())
	rows := []sortkeytest.Row{{RowID: 3}, {RowID: 1}}
	data, res := writeFile(t, ser, rows, Options{BlockSize: DefaultBlock})
	if !res.Meta.OnlyNulls() || !res.Meta.HasNulls {
		t.Fatalf("meta %+v, want only nulls", res.Meta)
	}
	rd, err := Open(bytes.NewReader(data), int64(len(data)), ser, res.Meta)
	if err != nil {
		t.Fatal(err)
	}
	if got := rd.NullRows().ToArray(); !slices.Equal(got, []uint64{1, 3}) {
		t.Fatalf("null rows %v", got)
	}
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, ser, Options{BlockSize: DefaultBlock})
	if _, err := w.Finish(); err == nil {
		t.Fatal("an empty btree file was written")
	}
}

// TestRefusesDecreasingKeys: keys out of order are an error, not a silently corrupt file.
func TestRefusesDecreasingKeys(t *testing.T) {
	ser, _ := sortkey.New(sortkeytestInt())
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, ser, Options{BlockSize: DefaultBlock})
	if err := w.Write(int32(5), 0); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(int32(4), 1); err == nil {
		t.Fatal("a decreasing key was accepted")
	}
}

// TestWriterEmptyStringKeyWithNulls ports SortedIndexFileMetaTest#testWriterEmptyStringKeyWithNulls:
// a STRING btree written with a null, the empty string and "abc" records the empty string as its
// (non-null) first key, "abc" as its last key, and nulls without being only nulls.
func TestWriterEmptyStringKeyWithNulls(t *testing.T) {
	ser, err := sortkey.New(types.String())
	if err != nil {
		t.Fatal(err)
	}
	opts, err := ParseOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, res := writeFile(t, ser, []sortkeytest.Row{{Key: nil, RowID: 0}, {Key: "", RowID: 1}, {Key: "abc", RowID: 2}}, opts)
	m, err := filemeta.Decode(res.Meta.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if m.FirstKey == nil || len(m.FirstKey) != 0 {
		t.Errorf("first key %v (nil %v), want the empty key", m.FirstKey, m.FirstKey == nil)
	}
	if !bytes.Equal(m.LastKey, []byte("abc")) {
		t.Errorf("last key %q, want abc", m.LastKey)
	}
	if !m.HasNulls || m.OnlyNulls() {
		t.Errorf("hasNulls %v onlyNulls %v, want true false", m.HasNulls, m.OnlyNulls())
	}
}

// TestRefusesBuildSplittingOptions: the data-evolution global index's build options that
// Paimon's SortedIndexOptionsTest and BTreeIndexOptionsTest cover (records per range and build
// parallelism, under their btree-index. fallback keys) are not read by the primary-key btree
// writer; Go refuses them by name rather than ignoring them.
func TestRefusesBuildSplittingOptions(t *testing.T) {
	for _, k := range []string{"btree-index.records-per-range", "btree-index.build.max-parallelism"} {
		_, err := ParseOptions(map[string]string{k: "8"})
		if err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("ParseOptions(%s) = %v, want a refusal naming it", k, err)
		}
	}
}
