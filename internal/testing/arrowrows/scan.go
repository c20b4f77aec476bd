package arrowrows

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-pkft/pkft"
)

// Scan returns pkft's scan of the table at path (with opts) as canonical row texts, sorted, and
// the scan's Arrow schema.
func Scan(ctx context.Context, path string, opts ...pkft.ScanOption) ([]string, *arrow.Schema, error) {
	tbl, err := pkft.Open(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	rr, err := tbl.Scan(ctx, opts...)
	if err != nil {
		return nil, nil, err
	}
	defer rr.Release()
	var rows []string
	for rr.Next() {
		rows = append(rows, Canonical(rr.RecordBatch())...)
	}
	if err := rr.Err(); err != nil {
		return nil, nil, err
	}
	slices.Sort(rows)
	return rows, rr.Schema(), nil
}

// CanonicalJSONRows renders rows another implementation read (see CanonicalJSON) as canonical
// texts of sch, sorted: comparable with Scan's.
func CanonicalJSONRows(sch *arrow.Schema, rows []map[string]json.RawMessage) ([]string, error) {
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		s, err := CanonicalJSON(sch, r)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out, nil
}
