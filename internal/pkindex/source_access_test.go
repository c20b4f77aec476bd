package pkindex

import (
	"slices"
	"testing"
)

// TestSourceMetaAccessorsDoNotCopy checks FileCount, HasFiles and AllFiles against SourceFiles.
func TestSourceMetaAccessorsDoNotCopy(t *testing.T) {
	a, _ := NewSourceFile("data-a.parquet", 3)
	b, _ := NewSourceFile("data-b.parquet", 4)
	m, err := NewSourceMeta(2, []SourceFile{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if m.FileCount() != 2 {
		t.Errorf("FileCount = %d, want 2", m.FileCount())
	}
	if !m.HasFiles([]SourceFile{a, b}) || m.HasFiles([]SourceFile{b, a}) || m.HasFiles([]SourceFile{a}) {
		t.Error("HasFiles compares wrongly")
	}
	if got := slices.Collect(m.AllFiles()); !slices.Equal(got, m.SourceFiles()) {
		t.Errorf("AllFiles = %v, want %v", got, m.SourceFiles())
	}
}
