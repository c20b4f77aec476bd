package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"

	"github.com/paimon-pkft/pkft/internal/pkfulltext"
)

// The partial-update cases of casesEngines (issue 18): write/partial-update (go->java,
// java-after-go) and write/same-files/partial-update-sequence-group (go<->java).

// puFields are the columns of the partial-update tables: ts orders the sequence group of the
// group variant (fields.ts.sequence-group = content).
var puFields = []field{{"id", "INT NOT NULL"}, {"content", "STRING"}, {"tag", "STRING"}, {"n", "BIGINT"}, {"ts", "BIGINT"}}

// puModel is the rows a partial-update table holds. Without group
// (partial-update.remove-record-on-delete): a record's non-null fields overwrite the row's, -D
// removes the row and -U changes nothing. With group (fields.ts.sequence-group = content,
// partial-update.remove-record-on-sequence-group = ts): content and ts change together, only by
// records whose ts is not null and orders at or after the row's (a null first); a -U that does
// clears content, a -D that does removes the row; tag and n are overwritten by non-null values
// and kept by retractions.
type puModel struct {
	*rowModel
	group bool
	// retired keys were removed; the generators never write them again (a removed row's record
	// would carry its values into a later insert while it is not compacted away).
	retired map[string]bool
	// kept are ids whose text no later record changes (their updates leave content null).
	kept []int
}

func newPUModel(group bool) *puModel {
	return &puModel{rowModel: newRowModel([]string{"id"}), group: group, retired: map[string]bool{}}
}

// atOrAfter reports whether sequence value ts orders at or after the row's (nil orders first).
func atOrAfter(ts int64, cur any) bool {
	c, ok := cur.(int64)
	return !ok || ts >= c
}

func (m *puModel) apply(rows []row) {
	for _, r := range rows {
		k := m.key(r)
		cur := row{}
		for f, v := range m.rows[k] {
			cur[f] = v
		}
		kind := r["_rowKind"]
		if kind == "-D" || kind == "-U" {
			if !m.group {
				if kind == "-D" {
					delete(m.rows, k)
					m.retired[k] = true
				}
				continue
			}
			ts, ok := r["ts"].(int64)
			if !ok || !atOrAfter(ts, cur["ts"]) {
				continue
			}
			if kind == "-D" {
				delete(m.rows, k)
				m.retired[k] = true
				continue
			}
			cur["content"], cur["ts"] = nil, ts
			m.rows[k] = cur
			continue
		}
		for f, v := range r {
			if f == "_rowKind" || v == nil || (m.group && (f == "content" || f == "ts")) {
				continue
			}
			cur[f] = v
		}
		if ts, ok := r["ts"].(int64); m.group && ok && atOrAfter(ts, cur["ts"]) {
			cur["ts"], cur["content"] = ts, r["content"]
		}
		m.rows[k] = cur
	}
}

// liveIDs are the model's live ids that are not kept, in order.
func (m *puModel) liveIDs() []int {
	var out []int
	for _, r := range m.rows {
		id := r["id"].(int)
		if !slices.Contains(m.kept, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// batch returns the rows of one write: full new rows for fresh ids (kept ids get the text
// "quokka marsupial <id>"), partial updates of random live keys (tag only, n only, content only
// with ts, or every field; some keys twice), updates of the kept ids that leave content null,
// and del retractions of other live keys (-D carrying only the key, or -U; in the group variant
// with a ts that wins or loses).
func (m *puModel) batch(seed uint64, fresh []int, updates, del int) []row {
	r := rand.New(rand.NewPCG(seed, 31))
	texts := pkTextRows(seed, 0, len(fresh)+updates)
	ts := func() any {
		if r.IntN(8) == 0 {
			return nil
		}
		return int64(r.IntN(50))
	}
	tag := func() any { return []string{"red", "green", "blue", "中文"}[r.IntN(4)] }
	var out []row
	for i, id := range fresh {
		c := texts[i]["content"]
		if slices.Contains(m.kept, id) {
			c = fmt.Sprintf("quokka marsupial %d", id)
		}
		rw := row{"id": id, "content": c, "tag": tag(), "n": r.Int64N(1000), "ts": int64(r.IntN(50))}
		if !slices.Contains(m.kept, id) && r.IntN(6) == 0 {
			rw["tag"] = nil
		}
		out = append(out, rw)
	}
	live := m.liveIDs()
	r.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
	nu := min(updates, len(live))
	for i := range nu {
		id := live[i]
		if i > 0 && r.IntN(5) == 0 {
			id = live[r.IntN(i)] // a key written twice in the batch
		}
		rw := row{"id": id, "_rowKind": []string{"+U", "+I"}[r.IntN(2)]}
		switch r.IntN(4) {
		case 0:
			rw["tag"] = tag()
		case 1:
			rw["n"] = r.Int64N(1000)
		case 2:
			rw["content"], rw["ts"] = texts[len(fresh)+i]["content"], ts()
		default:
			rw["content"], rw["tag"], rw["n"], rw["ts"] = texts[len(fresh)+i]["content"], tag(), r.Int64N(1000), ts()
		}
		out = append(out, rw)
	}
	for _, id := range m.kept {
		if _, ok := m.rows[m.key(row{"id": id})]; ok {
			out = append(out, row{"id": id, "tag": tag(), "n": r.Int64N(1000), "_rowKind": "+U"})
		}
	}
	for i := nu; i < nu+del && i < len(live); i++ {
		rw := row{"id": live[i], "_rowKind": "-D"}
		if i%3 == 0 {
			rw["_rowKind"] = "-U"
		}
		if m.group {
			rw["ts"] = int64(r.IntN(60))
		}
		out = append(out, rw)
	}
	return out
}

// keptFound checks Java's and Go's searches for "quokka" find exactly the kept ids: their text,
// written once, survived the updates that left it null, and the archives index the merged rows.
func (m *puModel) keptFound(ctx context.Context, g *maintainGroup, goP *Process, path string) error {
	if err := g.sameSearchesVia(ctx, goP, path, []string{"quokka"}, []int{100}); err != nil {
		return err
	}
	var j javaRankedResult
	if err := g.proc.Call(ctx, "search", map[string]any{"path": path, "query": "quokka", "limit": 100, "ranked": true}, &j); err != nil {
		return err
	}
	var got []int
	for _, h := range j.Results {
		id, _ := h.Key["id"].(float64)
		got = append(got, int(id))
	}
	slices.Sort(got)
	if !slices.Equal(got, m.kept) {
		return fmt.Errorf("Java's search for the kept text finds ids %v, want %v", got, m.kept)
	}
	return nil
}

// partialUpdateWrites is write/partial-update go->java: on a Java-created full-text table with
// deletion vectors, merge-engine = partial-update and partial-update.remove-record-on-delete, Go
// writes full rows, then partial updates (one field, or several; some keys twice in a batch),
// -D and -U records and new rows, and compacts fully. After each step Java reads the model's
// rows, every archive is current by Java's state and Java's searches equal Go's; from the second
// step on, a search for the text of ids whose later updates left content null finds exactly
// them.
func partialUpdateWrites(ctx context.Context, g *maintainGroup, e *engineTable) error {
	e.fields = puFields
	opts := map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content",
		"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"}
	path, err := createJavaTable(ctx, g.proc, filepath.Join(g.dir, "partial-update"), "partial-update", e.fields, []string{"id"}, nil, opts, nil)
	if err != nil {
		return err
	}
	m := newPUModel(false)
	m.kept = ids(0, 10)
	e.model, e.fullText, e.apply = m.rowModel, true, m.apply
	e.extra = func(ctx context.Context) error { return m.keptFound(ctx, g, e.goP, e.path) }
	e.more = func(n uint64) []row {
		lo := 400 + 30*int(n)
		return m.batch(160+n, ids(lo, lo+30), 40, 8)
	}
	e.path = path
	err = e.steps(ctx, g, []string{"the first write", "the partial updates", "the repeated keys", "the full compaction"}, func(i int) []row {
		switch i {
		case 0:
			return m.batch(151, ids(0, 150), 0, 0)
		case 1:
			return m.batch(152, ids(150, 200), 60, 20)
		case 2:
			return m.batch(153, nil, 90, 5)
		}
		return m.batch(154, ids(200, 220), 30, 5)
	})
	if err != nil {
		e.path = ""
	}
	return err
}

// partialUpdateGroupVariant is write/same-files/partial-update-sequence-group: a full-text table
// with deletion vectors, merge-engine = partial-update, fields.ts.sequence-group = content and
// partial-update.remove-record-on-sequence-group = ts. Go's Parquet files of rows with many
// nulls are not Java's size, so the size thresholds of the universal picks are set where sizes
// cannot decide (no size amplification trigger; a run always joins the candidate): both writers
// then pick by run counts only.
func partialUpdateGroupVariant() sameFilesVariant {
	return sameFilesVariant{"partial-update-sequence-group", puFields,
		map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", pkfulltext.ColumnsOption: "content",
			"merge-engine": "partial-update", "fields.ts.sequence-group": "content", "partial-update.remove-record-on-sequence-group": "ts",
			"compaction.max-size-amplification-percent": "100000", "compaction.size-ratio": "1000"},
		func() (*rowModel, func([]row), func(int) []row) {
			m := newPUModel(true)
			next := 0
			return m.rowModel, m.apply, func(step int) []row {
				n := 120
				if step > 0 {
					n = 10
				}
				next += n
				if step == 0 {
					return m.batch(1500, ids(0, n), 0, 0)
				}
				return m.batch(uint64(1500+step), ids(next-n, next), 25, 6)
			}
		}}
}
