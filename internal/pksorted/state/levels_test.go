package state

import (
	"reflect"
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// TestLevelsIsTheSharedPlanner proves the sorted family plans with pkindex's planner: Levels
// is a *pkindex.Levels (the type the full-text family instantiates), and on a bucket with a
// current level 2, a level 3 without payload and a stale group on level 4 it plans level 3
// first, then (once level 3 is covered) the removal of level 4's group.
func TestLevelsIsTheSharedPlanner(t *testing.T) {
	l := Levels()
	if got := reflect.TypeOf(l).Elem().PkgPath(); got != "github.com/paimon-pkft/pkft/internal/pkindex" {
		t.Fatalf("planner type from %s", got)
	}
	a, b, c := dataFile("a", 3, 2), dataFile("b", 2, 3), dataFile("c", 4, 3)
	st := FromActiveDataFiles(7, "btree", []*meta.DataFileMeta{a, b, c},
		[]*meta.IndexFileMeta{payload(t, "p2", 2, a)})
	if len(st.Groups) != 1 {
		t.Fatalf("groups %+v", st.Groups)
	}
	current := &st.Groups[0]
	stale := &Group{DataLevel: 4, SourceFiles: []pkindex.SourceFile{mustSource(t, "gone", 1)}}
	active := map[string]*meta.DataFileMeta{"a": a, "b": b, "c": c}
	plan, err := l.Pick([]*Group{current, stale}, active)
	if err != nil {
		t.Fatal(err)
	}
	if plan == nil || plan.DataLevel() != 3 || len(plan.InputUnits()) != 0 || len(plan.SourceFiles()) != 2 ||
		plan.SourceFiles()[0].FileName != "b" || plan.SourceFiles()[1].FileName != "c" {
		t.Fatalf("first plan %+v", plan)
	}
	covered := &Group{DataLevel: 3, SourceFiles: []pkindex.SourceFile{mustSource(t, "b", 2), mustSource(t, "c", 4)}}
	plan, err = l.Pick([]*Group{current, covered, stale}, active)
	if err != nil {
		t.Fatal(err)
	}
	if plan == nil || plan.DataLevel() != 4 || !plan.Removes() {
		t.Fatalf("second plan %+v", plan)
	}
	plan, err = l.Pick([]*Group{current, covered}, active)
	if err != nil || plan != nil {
		t.Fatalf("exact levels planned %+v (%v)", plan, err)
	}
}

func mustSource(t *testing.T, name string, rows int64) pkindex.SourceFile {
	t.Helper()
	s, err := pkindex.NewSourceFile(name, rows)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
