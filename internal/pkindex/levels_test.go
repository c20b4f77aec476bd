package pkindex

import (
	"errors"
	"slices"
	"testing"
)

// testUnit stands in for an index payload, like the Java test's TestUnit.
type testUnit struct {
	id        string
	dataLevel int32
	sources   []SourceFile
}

func newTestLevels() *Levels[*testUnit, FileInfo] {
	return NewLevels(
		func(u *testUnit) (int32, error) { return u.dataLevel, nil },
		func(u *testUnit) ([]SourceFile, error) { return u.sources, nil },
		func(f FileInfo) FileInfo { return f },
	)
}

// dataFile mirrors the Java test helper: a COMPACT file upgraded to level.
func dataFile(name string, rowCount int64, level int32) FileInfo {
	return FileInfo{Name: name, RowCount: rowCount, Level: level}
}

func unit(t *testing.T, id string, level int32, files ...FileInfo) *testUnit {
	t.Helper()
	u := &testUnit{id: id, dataLevel: level}
	for _, f := range files {
		u.sources = append(u.sources, mustSourceFile(t, f.Name, f.RowCount))
	}
	return u
}

func active(files ...FileInfo) map[string]FileInfo {
	m := make(map[string]FileInfo, len(files))
	for _, f := range files {
		m[f.Name] = f
	}
	return m
}

func mustPick(t *testing.T, l *Levels[*testUnit, FileInfo], units []*testUnit, act map[string]FileInfo) *Plan[*testUnit, FileInfo] {
	t.Helper()
	plan, err := l.Pick(units, act)
	if err != nil {
		t.Fatal(err)
	}
	if plan == nil {
		t.Fatal("Pick returned no plan")
	}
	return plan
}

func assertPlan(t *testing.T, plan *Plan[*testUnit, FileInfo], level int32, units []*testUnit, files []FileInfo) {
	t.Helper()
	if plan.DataLevel() != level {
		t.Fatalf("DataLevel = %d, want %d", plan.DataLevel(), level)
	}
	if got := plan.InputUnits(); !slices.Equal(got, units) {
		t.Fatalf("InputUnits = %v, want %v", got, units)
	}
	if got := plan.SourceFiles(); !slices.Equal(got, files) {
		t.Fatalf("SourceFiles = %v, want %v", got, files)
	}
	if plan.Removes() != (len(files) == 0) {
		t.Fatalf("Removes = %v with %d files", plan.Removes(), len(files))
	}
}

// --- Ports of PrimaryKeyIndexLevelsTest (release-2.0.0) ---

func TestLevels_PlansCompleteMissingDataLevel(t *testing.T) {
	levels := newTestLevels()
	dataB := dataFile("data-b", 20, 2)
	dataA := dataFile("data-a", 10, 2)

	plan := mustPick(t, levels, nil, active(dataB, dataA))

	assertPlan(t, plan, 2, nil, []FileInfo{dataA, dataB})
}

func TestLevels_ValidatesPlanAgainstCurrentCompleteLevel(t *testing.T) {
	levels := newTestLevels()
	dataA := dataFile("data-a", 10, 2)
	plan := mustPick(t, levels, nil, active(dataA))

	if !levels.IsCurrent(plan, active(dataA)) {
		t.Fatal("plan must be current against the files it was made from")
	}
	if levels.IsCurrent(plan, active(dataA, dataFile("data-b", 20, 2))) {
		t.Fatal("plan must not be current once the level gained a file")
	}
}

func TestLevels_RebuildsMismatchedCompleteLevel(t *testing.T) {
	levels := newTestLevels()
	dataA := dataFile("data-a", 30, 2)
	dataB := dataFile("data-b", 40, 2)
	partial := unit(t, "partial", 2, dataA)

	plan := mustPick(t, levels, []*testUnit{partial}, active(dataA, dataB))

	assertPlan(t, plan, 2, []*testUnit{partial}, []FileInfo{dataA, dataB})
}

func TestLevels_DropsLevelWithoutActiveData(t *testing.T) {
	levels := newTestLevels()
	retired := unit(t, "retired", 3, dataFile("data-a", 40, 3))

	plan := mustPick(t, levels, []*testUnit{retired}, nil)

	assertPlan(t, plan, 3, []*testUnit{retired}, nil)
}

func TestLevels_ExactLevelsNeedNoWork(t *testing.T) {
	levels := newTestLevels()
	dataA := dataFile("data-a", 50, 2)
	current := unit(t, "current", 2, dataA)

	plan, err := levels.Pick([]*testUnit{current}, active(dataA))
	if err != nil {
		t.Fatal(err)
	}
	if plan != nil {
		t.Fatalf("Pick = level %d plan, want none", plan.DataLevel())
	}
}

func TestLevels_RejectsDuplicateUnitsForOneDataLevel(t *testing.T) {
	levels := newTestLevels()
	dataA := dataFile("data-a", 10, 2)
	unitA := unit(t, "unit-a", 2, dataA)
	unitB := unit(t, "unit-b", 2, dataA)

	_, err := levels.Pick([]*testUnit{unitA, unitB}, active(dataA))
	wantErrContaining(t, err, "data level 2")
}

// --- Further behaviour read from the Java source ---

func TestLevelsPicksLowestLevelFirst(t *testing.T) {
	levels := newTestLevels()
	d1 := dataFile("d1", 1, 1)
	d2 := dataFile("d2", 2, 2)
	d4 := dataFile("d4", 4, 4)
	exact1 := unit(t, "exact1", 1, d1)
	stale2 := unit(t, "stale2", 2, dataFile("d2", 99, 2)) // row count differs
	orphan3 := unit(t, "orphan3", 3, dataFile("gone", 1, 3))
	units := []*testUnit{orphan3, stale2, exact1}

	assertPlan(t, mustPick(t, levels, units, active(d4, d2, d1)), 2, []*testUnit{stale2}, []FileInfo{d2})

	exact2 := unit(t, "exact2", 2, d2)
	units = []*testUnit{orphan3, exact2, exact1}
	assertPlan(t, mustPick(t, levels, units, active(d4, d2, d1)), 3, []*testUnit{orphan3}, nil)

	units = []*testUnit{exact2, exact1}
	assertPlan(t, mustPick(t, levels, units, active(d4, d2, d1)), 4, nil, []FileInfo{d4})
}

func TestLevelsIgnoresLevelZeroFiles(t *testing.T) {
	levels := newTestLevels()
	plan, err := levels.Pick(nil, active(dataFile("l0", 5, 0)))
	if err != nil || plan != nil {
		t.Fatalf("Pick = %v, %v; want no plan", plan, err)
	}
}

func TestLevelsMismatchOnOrderNameOrCount(t *testing.T) {
	levels := newTestLevels()
	a, b := dataFile("a", 1, 1), dataFile("b", 2, 1)
	for _, u := range []*testUnit{
		unit(t, "reversed", 1, b, a),
		unit(t, "renamed", 1, a, dataFile("c", 2, 1)),
		unit(t, "recounted", 1, a, dataFile("b", 3, 1)),
		unit(t, "superset", 1, a, b, dataFile("c", 1, 1)),
	} {
		assertPlan(t, mustPick(t, levels, []*testUnit{u}, active(a, b)), 1, []*testUnit{u}, []FileInfo{a, b})
	}
}

func TestLevelsSortsNamesLikeJava(t *testing.T) {
	levels := newTestLevels()
	// Java's String.compareTo puts U+1F600 (surrogates D83D DE00) before U+FFFF; Go's byte
	// order would put it after.
	emoji := dataFile("\U0001F600", 1, 1)
	bmp := dataFile("\uFFFF", 1, 1)
	ascii := dataFile("z", 1, 1)
	plan := mustPick(t, levels, nil, active(bmp, ascii, emoji))
	assertPlan(t, plan, 1, nil, []FileInfo{ascii, emoji, bmp})
}

func TestLevelsRejectsNonPositiveUnitLevel(t *testing.T) {
	levels := newTestLevels()
	_, err := levels.Pick([]*testUnit{{id: "bad", dataLevel: 0}}, nil)
	wantErrContaining(t, err, "data level must be positive")
}

func TestLevelsAccessorErrors(t *testing.T) {
	broken := errors.New("broken source meta")
	levels := NewLevels(
		func(u *testUnit) (int32, error) {
			if u.id == "no-level" {
				return 0, broken
			}
			return u.dataLevel, nil
		},
		func(u *testUnit) ([]SourceFile, error) {
			if u.id == "no-sources" {
				return nil, broken
			}
			return u.sources, nil
		},
		func(f FileInfo) FileInfo { return f },
	)
	_, err := levels.Pick([]*testUnit{{id: "no-level"}}, nil)
	if !errors.Is(err, broken) {
		t.Fatalf("err = %v, want the data level accessor's error", err)
	}

	noSources := &testUnit{id: "no-sources", dataLevel: 3}
	_, err = levels.Pick([]*testUnit{noSources}, nil)
	if !errors.Is(err, broken) {
		t.Fatalf("err = %v, want the sources accessor's error", err)
	}

	// Sources are read only when the level is reached, as in Java.
	plan := mustPick(t, levels, []*testUnit{noSources}, active(dataFile("d", 1, 2)))
	assertPlan(t, plan, 2, nil, []FileInfo{dataFile("d", 1, 2)})
}

func TestLevelsIsCurrent(t *testing.T) {
	levels := newTestLevels()
	a, b := dataFile("a", 1, 2), dataFile("b", 2, 2)
	plan := mustPick(t, levels, nil, active(b, a))

	tests := []struct {
		name   string
		active map[string]FileInfo
		want   bool
	}{
		{"same files", active(a, b), true},
		{"other levels ignored", active(a, b, dataFile("c", 1, 1), dataFile("d", 1, 3)), true},
		{"file removed", active(a), false},
		{"row count changed", active(a, dataFile("b", 3, 2)), false},
		{"file replaced", active(a, dataFile("c", 2, 2)), false},
		{"file moved level", active(a, dataFile("b", 2, 3)), false},
	}
	for _, tt := range tests {
		if got := levels.IsCurrent(plan, tt.active); got != tt.want {
			t.Errorf("%s: IsCurrent = %v, want %v", tt.name, got, tt.want)
		}
	}
	if levels.IsCurrent(nil, active(a, b)) {
		t.Error("a nil plan must not be current")
	}

	removal := mustPick(t, levels, []*testUnit{unit(t, "old", 5, a)}, nil)
	if !levels.IsCurrent(removal, active(dataFile("x", 1, 4))) {
		t.Error("a removal plan is current while its level stays empty")
	}
	if levels.IsCurrent(removal, active(dataFile("x", 1, 5))) {
		t.Error("a removal plan is stale once its level has files")
	}
}

func TestPlanAccessorsReturnCopies(t *testing.T) {
	levels := newTestLevels()
	a := dataFile("a", 1, 1)
	u := unit(t, "u", 1)
	plan := mustPick(t, levels, []*testUnit{u}, active(a))
	plan.SourceFiles()[0] = dataFile("changed", 9, 1)
	plan.InputUnits()[0] = nil
	assertPlan(t, plan, 1, []*testUnit{u}, []FileInfo{a})
}
