package pkft_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/testing/arrowrows"
)

// mergeRecord is one written record of a key, for scanModel.
type mergeRecord struct {
	kind  pkft.RowKind
	a     any // INT
	s     any // STRING
	sq    any // INT sequence field
	order int // arrival
}

func (r mergeRecord) retract() bool {
	return r.kind == pkft.UpdateBefore || r.kind == pkft.Delete
}

// scanModel is what a table's rows are after its records, by the merge semantics of its engine
// (Java Paimon's merge functions, written here from their documentation, not from pkft's code).
type scanModel struct {
	engine string
	// removeOnDelete: partial-update.remove-record-on-delete or
	// aggregation.remove-record-on-delete (a -D drops the row); else retractions are ignored
	// (ignore-delete) or, for aggregation, retract a's sum.
	removeOnDelete bool
	seqField, desc bool
	recs           map[int32][]mergeRecord
}

// less orders two records of one key: by the sequence field (null first, values reversed when
// descending), then by arrival.
func (m *scanModel) less(x, y mergeRecord) int {
	if m.seqField {
		switch {
		case x.sq == nil && y.sq != nil:
			return -1
		case x.sq != nil && y.sq == nil:
			return 1
		case x.sq != nil:
			c := int(x.sq.(int32)) - int(y.sq.(int32))
			if m.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
	}
	return x.order - y.order
}

// rows renders the live rows as the scan's canonical strings, sorted.
func (m *scanModel) rows() []string {
	var out []string
	for id, recs := range m.recs {
		recs = slices.Clone(recs)
		slices.SortFunc(recs, m.less)
		var a, s any
		live := false
		switch m.engine {
		case "deduplicate":
			last := recs[len(recs)-1]
			live, a, s = !last.retract(), last.a, last.s
		case "first-row":
			for _, r := range recs {
				if !r.retract() {
					live, a, s = true, r.a, r.s
					break
				}
			}
		case "partial-update":
			for _, r := range recs {
				switch {
				case r.kind == pkft.Delete && m.removeOnDelete:
					live, a, s = false, nil, nil
				case r.retract():
				default:
					live = true
					if r.a != nil {
						a = r.a
					}
					if r.s != nil {
						s = r.s
					}
				}
			}
		case "aggregation":
			sum := int32(0)
			for _, r := range recs {
				switch {
				case r.kind == pkft.Delete && m.removeOnDelete:
					live = false
				case r.retract():
					sum -= r.a.(int32)
				default:
					live = true
					sum += r.a.(int32)
					if r.s != nil {
						s = r.s
					}
				}
			}
			a = sum
		}
		if !live {
			continue
		}
		row := fmt.Sprintf("id=%d|a=%s|s=%s", id, text(a), text(s))
		if m.seqField {
			// The winning record's sequence field, for deduplicate the only engine with one here.
			row += "|sq=" + text(recs[len(recs)-1].sq)
		}
		out = append(out, row)
	}
	slices.Sort(out)
	return out
}

func text(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprint(v)
}

// TestScanMergeEngines writes random scripts (batches of inserts, updates and retractions,
// write-only writes that leave level 0, full and minor compactions) to tables of every merge
// engine, with and without deletion vectors and a sequence field, and checks after every step
// that Table.Scan returns the rows the engine's merge semantics give: every write at once on a
// table whose read merges all levels; on a table whose batch read skips level 0 (deletion
// vectors, first-row), the rows as of the last state without level-0 files.
func TestScanMergeEngines(t *testing.T) {
	ctx := context.Background()
	type config struct {
		name  string
		opts  map[string]string
		model scanModel
	}
	configs := []config{
		{"deduplicate-seq", map[string]string{"sequence.field": "sq"}, scanModel{engine: "deduplicate", seqField: true}},
		{"deduplicate-seq-desc-dv", map[string]string{"sequence.field": "sq", "sequence.field.sort-order": "descending", "deletion-vectors.enabled": "true"},
			scanModel{engine: "deduplicate", seqField: true, desc: true}},
		{"first-row", map[string]string{"merge-engine": "first-row", "ignore-delete": "true"}, scanModel{engine: "first-row"}},
		{"partial-update-ignore-delete", map[string]string{"merge-engine": "partial-update", "ignore-delete": "true"}, scanModel{engine: "partial-update"}},
		{"partial-update-dv", map[string]string{"merge-engine": "partial-update", "ignore-delete": "true", "deletion-vectors.enabled": "true"}, scanModel{engine: "partial-update"}},
		{"partial-update-remove-lookup", map[string]string{"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true", "force-lookup": "true"},
			scanModel{engine: "partial-update", removeOnDelete: true}},
		{"aggregation", map[string]string{"merge-engine": "aggregation", "fields.a.aggregate-function": "sum", "fields.s.ignore-retract": "true"}, scanModel{engine: "aggregation"}},
		{"aggregation-dv-remove", map[string]string{"merge-engine": "aggregation", "fields.a.aggregate-function": "sum",
			"aggregation.remove-record-on-delete": "true", "deletion-vectors.enabled": "true"}, scanModel{engine: "aggregation", removeOnDelete: true}},
	}
	for _, c := range configs {
		for seed := range uint64(2) {
			t.Run(fmt.Sprintf("%s/%d", c.name, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 43))
				def := pkft.TableDefinition{Columns: []pkft.ColumnDefinition{{Name: "id", Type: "INT NOT NULL"}, {Name: "a", Type: "INT"}, {Name: "s", Type: "STRING"}},
					PrimaryKeys: []string{"id"}, Options: map[string]string{"bucket": "2", "target-file-size": "2 kb"}}
				for k, v := range c.opts {
					def.Options[k] = v
				}
				m := c.model
				m.recs = map[int32][]mergeRecord{}
				if m.seqField {
					def.Columns = append(def.Columns, pkft.ColumnDefinition{Name: "sq", Type: "INT"})
				}
				tbl, err := pkft.Create(ctx, filepath.Join(t.TempDir(), "t"), def)
				if err != nil {
					t.Fatal(err)
				}
				skipsLevel0 := c.opts["deletion-vectors.enabled"] == "true" || m.engine == "first-row"
				// removed keys take no more records (their later merge would depend on
				// whether a compaction dropped the removal).
				removed := map[int32]bool{}
				order, deletes := 0, 0
				clean := m.rows()
				pending, minor := false, false
				for step := range 12 {
					var desc string
					switch op := r.IntN(6); {
					case op <= 3:
						writeOnly := op >= 2
						w, err := tbl.NewWriter(ctx)
						if writeOnly {
							w, err = tbl.NewWriter(ctx, pkft.WithWriteOnly())
						}
						if err != nil {
							t.Fatal(err)
						}
						n := 1 + r.IntN(30)
						for range n {
							id := int32(r.IntN(40))
							if removed[id] {
								continue
							}
							rec := mergeRecord{kind: pkft.Insert, order: order}
							order++
							if len(m.recs[id]) > 0 && r.IntN(4) == 0 {
								rec.kind = []pkft.RowKind{pkft.UpdateBefore, pkft.Delete}[r.IntN(2)]
								if m.engine == "aggregation" && m.removeOnDelete {
									// s's last_non_null_value has no retraction (and
									// ignore-retract conflicts with the option).
									rec.kind = pkft.Delete
								}
							} else if len(m.recs[id]) > 0 && r.IntN(2) == 0 {
								rec.kind = pkft.UpdateAfter
							}
							if m.engine == "aggregation" || r.IntN(4) != 0 {
								rec.a = int32(r.IntN(100))
							}
							if r.IntN(3) != 0 {
								rec.s = fmt.Sprintf("s%d", r.IntN(1000))
							}
							if m.engine == "aggregation" && rec.retract() {
								// a retraction retracts a value the key holds.
								rec.a = m.recs[id][len(m.recs[id])-1].a
							}
							if m.seqField {
								switch {
								case rec.kind == pkft.Delete:
									// A removal ordered after every record of its key.
									deletes++
									rec.sq = int32(10000 + deletes)
									if m.desc {
										rec.sq = int32(-10000 - deletes)
									}
								case rec.kind == pkft.UpdateBefore:
									rec.kind = pkft.UpdateAfter
									fallthrough
								case r.IntN(5) != 0:
									rec.sq = int32(r.IntN(5))
								}
							}
							if rec.kind == pkft.Delete && (m.removeOnDelete || m.engine == "deduplicate" && m.seqField) {
								removed[id] = true
							}
							row := []any{id, rec.a, rec.s}
							if m.seqField {
								row = append(row, rec.sq)
							}
							if err := w.Write(ctx, rec.kind, row); err != nil {
								t.Fatal(err)
							}
							m.recs[id] = append(m.recs[id], rec)
						}
						if _, err := w.Commit(ctx); err != nil {
							t.Fatal(err)
						}
						desc = fmt.Sprintf("write of %d records (write-only %v)", n, writeOnly)
						if writeOnly {
							pending = true
						} else if pending {
							// Only the buckets it wrote are compacted at its commit.
							minor = true
						}
					case op == 4:
						if _, err := tbl.Compact(ctx); err != nil {
							t.Fatal(err)
						}
						desc, pending, minor = "full compaction", false, false
					default:
						if _, err := tbl.Compact(ctx, pkft.WithMinorCompaction()); err != nil {
							t.Fatal(err)
						}
						desc, minor = "minor compaction", true
					}
					want := m.rows()
					switch {
					case !skipsLevel0 || !pending:
						clean = want
					case minor:
						// Some level-0 files moved up since: the rows are in between.
						continue
					default:
						want = clean
					}
					got := canonicalScan(t, tbl)
					if !slices.Equal(got, want) {
						t.Fatalf("step %d (%s): scan differs from the model: %s", step, desc, firstDiffs(got, want))
					}
				}
			})
		}
	}
}

// canonicalScan scans tbl's latest snapshot into canonical rows, sorted.
func canonicalScan(t *testing.T, tbl *pkft.Table) []string {
	t.Helper()
	rr, err := tbl.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var out []string
	for rr.Next() {
		out = append(out, arrowrows.Canonical(rr.RecordBatch())...)
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
