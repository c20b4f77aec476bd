package runner

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// The partial-update scripts of table/differential: merge-engine = partial-update with one of
// its ways of taking retractions, and the model's merge of the non-null fields.

// The partial-update modes of a script (tdScript.partial).
const (
	puIgnoreDelete = "ignore-delete"           // partial-update.ignore-delete: retractions dropped
	puRemove       = "remove-record-on-delete" // -D removes the row, -U changes nothing
	puGroup        = "sequence-group"          // fields.pg.sequence-group = some value columns
	puGroupRemove  = "sequence-group-remove"   // and remove-record-on-sequence-group = pg
)

// pickPartialUpdate makes a deduplicate script without a sequence field a partial-update script
// one time in four. It draws from its own generator, so that the scripts of other seeds stay as
// they were; the generator's stream constant is one that picks none of the regression seeds of
// testdata/table-differential-seeds.txt, which keep the scripts that found their bugs.
func (s *tdScript) pickPartialUpdate() {
	if s.engine != "deduplicate" || s.seqField {
		return
	}
	r := rand.New(rand.NewPCG(s.seed, 0x9a8))
	if r.IntN(4) != 0 {
		return
	}
	s.engine = "partial-update"
	s.options["merge-engine"] = "partial-update"
	s.partial = []string{puIgnoreDelete, puRemove, puGroup, puGroupRemove}[r.IntN(4)]
	switch s.partial {
	case puIgnoreDelete:
		s.options[[]string{"ignore-delete", "partial-update.ignore-delete"}[r.IntN(2)]] = "true"
	case puRemove:
		s.options["partial-update.remove-record-on-delete"] = "true"
	default:
		for _, v := range s.values {
			if r.IntN(2) == 0 {
				s.group = append(s.group, v.name)
			}
		}
		if len(s.group) == 0 {
			s.group = []string{s.values[0].name}
		}
		s.fields = append(s.fields, field{"pg", "INT"})
		s.options["fields.pg.sequence-group"] = strings.Join(s.group, ",")
		if s.partial == puGroupRemove {
			s.options["partial-update.remove-record-on-sequence-group"] = "pg"
		}
	}
}

// partialRow adjusts a row of a partial-update script: a retraction carries only the key, kid,
// ver and (with a group) pg, every other value null (the values of a retraction that merges
// before the key's older records would otherwise reach the row, as Java's initRow takes them); an
// insert leaves the text null one time in three (the archives must then index the kept text);
// with a group, pg is random, null one time in six.
func (s *tdScript) partialRow(r *rand.Rand, out tdRow) {
	retract := out.kind == "-D" || out.kind == "-U"
	if retract {
		for _, v := range s.values {
			out.json[v.name], out.goV[v.name] = nil, nil
		}
		if s.fullText {
			out.json["content"], out.goV["content"] = nil, nil
		}
	} else if s.fullText && r.IntN(3) == 0 {
		out.json["content"], out.goV["content"] = nil, nil
	}
	if len(s.group) > 0 {
		out.json["pg"], out.goV["pg"] = nil, nil
		if r.IntN(6) != 0 {
			v := int32(r.IntN(20))
			out.json["pg"], out.goV["pg"] = v, v
		}
	}
}

// firstRecord adjusts the first record of a key: in a partial-update script with a sequence
// group, its pg is not null. (A key's single record is kept as it is, unmerged
// (ReducerMergeFunctionWrapper), and a file can move up without a rewrite; a first record whose
// pg is null would then show the group's values that its merge would have skipped.)
func (s *tdScript) firstRecord(out tdRow) tdRow {
	if len(s.group) > 0 && out.goV["pg"] == nil {
		out.json["pg"], out.goV["pg"] = int32(0), int32(0)
	}
	return out
}

// partialValueColumns are the columns whose merged values the model of a partial-update script
// checks.
func (s *tdScript) partialValueColumns() []string {
	var out []string
	for _, v := range s.values {
		out = append(out, v.name)
	}
	if s.fullText {
		out = append(out, "content")
	}
	if len(s.group) > 0 {
		out = append(out, "pg")
	}
	return out
}

// applyPartial applies one record of a partial-update script to the model, as
// PartialUpdateMergeFunction merges it with the key's row: non-null fields overwrite; with a
// group, pg and the group's columns change together, only by a record whose pg is not null and
// orders at or after the row's (a null first); a retraction that does clears the group's columns
// (or, -D under remove-record-on-sequence-group, removes the row).
func (m *tdModel) applyPartial(r tdRow) {
	kid, ver := r.json["kid"].(int), r.json["ver"].(int)
	retract := r.kind == "-D" || r.kind == "-U"
	cur, live := m.vals[kid]
	if !live {
		cur = map[string]any{}
	}
	group := len(m.s.group) > 0
	wins := func() bool {
		pg, ok := r.goV["pg"].(int32)
		old, has := cur["pg"].(int32)
		return ok && (!has || pg >= old)
	}
	switch {
	case retract && m.s.partial == puIgnoreDelete:
		return // dropped by the writer
	case retract && m.s.partial == puRemove:
		if r.kind == "-D" {
			delete(m.vals, kid)
			delete(m.ver, kid)
		}
		return
	case retract:
		if !live || !wins() {
			return
		}
		if r.kind == "-D" && m.s.partial == puGroupRemove {
			delete(m.vals, kid)
			delete(m.ver, kid)
			return
		}
		cur["pg"] = r.goV["pg"]
		for _, c := range m.s.group {
			cur[c] = nil
		}
		return
	}
	for _, c := range m.s.partialValueColumns() {
		if group && (c == "pg" || slices.Contains(m.s.group, c)) {
			continue
		}
		if v := r.json[c]; v != nil {
			cur[c] = v
		}
	}
	if group && wins() {
		cur["pg"] = r.goV["pg"]
		for _, c := range m.s.group {
			cur[c] = r.json[c]
		}
	}
	m.vals[kid], m.ver[kid] = cur, ver
}

// checkPartialValues checks Java's read row of kid (JSON) holds the model's merged values.
func (m *tdModel) checkPartialValues(kid int, got map[string]any) error {
	for _, c := range m.s.partialValueColumns() {
		want := normalize(m.vals[kid][c])
		if pg, ok := m.vals[kid][c].(int32); ok {
			want = normalize(int(pg))
		}
		if g := normalize(got[c]); fmt.Sprint(g) != fmt.Sprint(want) {
			return fmt.Errorf("kid %d: column %s is %v, the model's merge %v", kid, c, g, want)
		}
	}
	return nil
}
