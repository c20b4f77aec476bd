package scan

import (
	"testing"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/types"
)

// TestDecodeStats lays value statistics out by the table's fields: all of them, or the dense
// subset a file names (_VALUE_STATS_COLS), missing columns unknown; statistics that do not
// decode keep the file (ok false).
func TestDecodeStats(t *testing.T) {
	fields := []types.DataField{types.Field(0, "id", types.Int()), types.Field(1, "price", types.BigInt()), types.Field(2, "tag", types.String())}
	row := func(fs []types.DataField, values ...any) []byte {
		r, err := binrow.NewBinaryRow(types.Row(fs...), values)
		if err != nil {
			t.Fatal(err)
		}
		return r.Serialize()
	}
	n := func(v int64) *int64 { return &v }
	all := meta.SimpleStats{MinValues: row(fields, int32(1), int64(5), "a"), MaxValues: row(fields, int32(9), int64(7), "z"),
		NullCounts: []*int64{n(0), n(2), nil}}
	st, ok := decodeStats(fields, nil, all, 10)
	if !ok || st.Min[1] != int64(5) || st.Max[2] != "z" || *st.NullCounts[1] != 2 || st.NullCounts[2] != nil || st.RowCount != 10 {
		t.Errorf("all columns: %+v %v", st, ok)
	}
	dense := meta.SimpleStats{MinValues: row(fields[2:], "b"), MaxValues: row(fields[2:], "c"), NullCounts: []*int64{n(1)}}
	st, ok = decodeStats(fields, []string{"tag"}, dense, 10)
	if !ok || st.Min[0] != nil || st.Min[1] != nil || st.Min[2] != "b" || st.Max[2] != "c" || st.NullCounts[0] != nil || *st.NullCounts[2] != 1 {
		t.Errorf("dense columns: %+v %v", st, ok)
	}
	for name, bad := range map[string]struct {
		cols  []string
		stats meta.SimpleStats
	}{
		"garbage":        {nil, meta.SimpleStats{MinValues: []byte{0, 0, 0, 3, 1, 2}, MaxValues: all.MaxValues, NullCounts: all.NullCounts}},
		"empty stats":    {nil, meta.EmptyStats()},
		"unknown column": {[]string{"nosuch"}, dense},
		"null counts":    {nil, meta.SimpleStats{MinValues: all.MinValues, MaxValues: all.MaxValues, NullCounts: all.NullCounts[:1]}},
		"arity":          {[]string{"tag"}, all},
	} {
		if _, ok := decodeStats(fields, bad.cols, bad.stats, 10); ok {
			t.Errorf("%s: decoded", name)
		}
	}
}
