package pkindex

import "testing"

func TestShouldWrite(t *testing.T) {
	tests := []struct {
		source FileSource
		level  int32
		want   bool
	}{
		{FileSourceCompact, 1, true},
		{FileSourceCompact, 5, true},
		{FileSourceCompact, 0, false},
		{FileSourceCompact, -1, false},
		{FileSourceAppend, 0, false},
		{FileSourceAppend, 3, false}, // a metadata-only upgrade of an append file
	}
	for _, tt := range tests {
		if got := ShouldWrite(tt.source, tt.level); got != tt.want {
			t.Errorf("ShouldWrite(%v, %d) = %v, want %v", tt.source, tt.level, got, tt.want)
		}
		if got := ShouldRead(tt.source, true, tt.level); got != tt.want {
			t.Errorf("ShouldRead(%v, true, %d) = %v, want %v", tt.source, tt.level, got, tt.want)
		}
		if ShouldRead(tt.source, false, tt.level) {
			t.Errorf("ShouldRead(%v, false, %d) = true for a file without a source", tt.source, tt.level)
		}
	}
}

func TestFileSourceFromByte(t *testing.T) {
	for b, want := range map[int8]FileSource{0: FileSourceAppend, 1: FileSourceCompact} {
		got, err := FileSourceFromByte(b)
		if err != nil || got != want {
			t.Errorf("FileSourceFromByte(%d) = %v, %v", b, got, err)
		}
	}
	for _, b := range []int8{2, -1} {
		_, err := FileSourceFromByte(b)
		wantErrContaining(t, err, "unsupported byte value")
	}
	if FileSourceAppend.String() != "APPEND" || FileSourceCompact.String() != "COMPACT" || FileSource(9).String() != "FileSource(9)" {
		t.Error("unexpected FileSource names")
	}
}
