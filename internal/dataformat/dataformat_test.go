package dataformat

import (
	"errors"
	"strings"
	"testing"
)

// TestReadable: Parquet and Avro data files are read whatever the case of their extension or a
// compression extension after it; ORC and other formats are refused with a read's message naming
// the file; a name without an extension is no data file name.
func TestReadable(t *testing.T) {
	for name, want := range map[string]string{
		"data-1.parquet": Parquet, "data-1.PARQUET": Parquet, "data-1.avro": Avro, "data-1.avro.zst": Avro,
	} {
		if got, err := Readable(name); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	for name, msg := range map[string]string{
		"data-1.orc":    "data file data-1.orc is ORC: pkft reads parquet and avro data files",
		"data-1.csv.gz": `data file data-1.csv.gz is "csv": pkft reads parquet and avro data files`,
	} {
		_, err := Readable(name)
		if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", name, err, msg)
		}
	}
	if _, err := Readable("data-1"); err == nil || errors.Is(err, ErrUnreadable) {
		t.Errorf("no extension: %v", err)
	}
}
