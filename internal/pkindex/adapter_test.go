package pkindex

import (
	"testing"

	"github.com/paimon-pkft/pkft/internal/meta"
)

func TestShouldReadDataFile(t *testing.T) {
	compact, appended := meta.FileSourceCompact, meta.FileSourceAppend
	tests := []struct {
		name string
		file meta.DataFileMeta
		want bool
	}{
		{"compacted above level 0", meta.DataFileMeta{Level: 1, FileSource: &compact}, true},
		{"compacted on level 0", meta.DataFileMeta{Level: 0, FileSource: &compact}, false},
		{"upgraded append file", meta.DataFileMeta{Level: 4, FileSource: &appended}, false},
		{"no file source", meta.DataFileMeta{Level: 4}, false},
	}
	for _, tt := range tests {
		if got := ShouldReadDataFile(&tt.file); got != tt.want {
			t.Errorf("%s: ShouldReadDataFile = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestLevelsOverDataFileMeta(t *testing.T) {
	compact := meta.FileSourceCompact
	b := &meta.DataFileMeta{FileName: "data-b", RowCount: 20, Level: 2, FileSource: &compact}
	a := &meta.DataFileMeta{FileName: "data-a", RowCount: 10, Level: 2, FileSource: &compact}
	levels := NewLevels(
		func(m SourceMeta) (int32, error) { return m.DataLevel(), nil },
		func(m SourceMeta) ([]SourceFile, error) { return m.SourceFiles(), nil },
		DataFileInfo,
	)
	act := map[string]*meta.DataFileMeta{b.FileName: b, a.FileName: a}

	plan, err := levels.Pick(nil, act)
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.SourceFiles(); len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("SourceFiles = %v, want [a b] as the caller's own values", got)
	}

	exact := mustSourceMeta(t, 2, mustSourceFile(t, "data-a", 10), mustSourceFile(t, "data-b", 20))
	plan, err = levels.Pick([]SourceMeta{exact}, act)
	if err != nil || plan != nil {
		t.Fatalf("Pick = %v, %v; want no work", plan, err)
	}
}
