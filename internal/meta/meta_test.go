package meta

import "testing"

func TestEnums(t *testing.T) {
	for _, tc := range []struct {
		got, want string
		valid     bool
	}{
		{FileKindAdd.String(), "ADD", FileKindAdd.Valid()},
		{FileKindDelete.String(), "DELETE", FileKindDelete.Valid()},
		{FileKind(2).String(), "UNKNOWN", !FileKind(2).Valid()},
		{FileSourceAppend.String(), "APPEND", FileSourceAppend.Valid()},
		{FileSourceCompact.String(), "COMPACT", FileSourceCompact.Valid()},
		{FileSource(-1).String(), "UNKNOWN", !FileSource(-1).Valid()},
	} {
		if tc.got != tc.want || !tc.valid {
			t.Errorf("got %s (valid check ok=%v), want %s", tc.got, tc.valid, tc.want)
		}
	}
}

func TestEmptyRowAndStats(t *testing.T) {
	// BinaryRow.EMPTY_ROW: arity 0 plus an 8-byte null-bit/header word, serialized with a
	// 4-byte arity prefix.
	a, b := EmptyBinaryRow(), EmptyBinaryRow()
	if len(a) != 12 {
		t.Fatalf("len = %d", len(a))
	}
	a[0] = 1
	if b[0] != 0 {
		t.Error("EmptyBinaryRow shares storage between calls")
	}
	s := EmptyStats()
	if len(s.MinValues) != 12 || len(s.MaxValues) != 12 || s.NullCounts == nil || len(s.NullCounts) != 0 {
		t.Errorf("EmptyStats = %+v", s)
	}
}

func TestIsCompacted(t *testing.T) {
	compact, appendSrc := FileSourceCompact, FileSourceAppend
	for _, tc := range []struct {
		src  *FileSource
		want bool
	}{{nil, false}, {&appendSrc, false}, {&compact, true}} {
		f := DataFileMeta{FileSource: tc.src}
		if f.IsCompacted() != tc.want {
			t.Errorf("source %v: IsCompacted = %v", tc.src, !tc.want)
		}
	}
}
