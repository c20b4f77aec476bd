// Package dataformat tells the formats of Paimon data files apart and reads the Avro ones.
//
// Paimon derives a data file's format from its name (DataFilePathFactory#formatIdentifier).
// pkft reads Parquet data files (package kvfile and the readers built on it) and Avro data files
// (Reader here); an ORC data file, which Java writes with file.format=orc, is refused by name
// with an error speaking of reading: no Go ORC reader is available to pkft.
package dataformat

import (
	"errors"
	"fmt"
	"strings"

	"github.com/paimon-pkft/pkft/internal/paths"
)

// Formats of data files.
const (
	Parquet = "parquet"
	Avro    = "avro"
	ORC     = "orc"
)

// ErrUnreadable reports a data file in a format pkft does not read.
var ErrUnreadable = errors.New("data file format not read by pkft")

// FormatOf returns the format identifier Paimon derives from a data file name (the extension, or
// the one before a compression extension: "x.csv.gz" -> "csv"; paths.FormatIdentifier), in lower
// case.
func FormatOf(fileName string) (string, error) {
	f, err := paths.FormatIdentifier(fileName)
	return strings.ToLower(f), err
}

// Readable returns the format of the data file fileName when pkft reads it (Parquet or Avro),
// else an error wrapping ErrUnreadable that names the file and its format.
func Readable(fileName string) (string, error) {
	format, err := FormatOf(fileName)
	if err != nil {
		return "", fmt.Errorf("read data file: %w", err)
	}
	switch format {
	case Parquet, Avro:
		return format, nil
	case ORC:
		return "", fmt.Errorf("data file %s is ORC: pkft reads parquet and avro data files, not orc (%w)", fileName, ErrUnreadable)
	}
	return "", fmt.Errorf("data file %s is %q: pkft reads parquet and avro data files (%w)", fileName, format, ErrUnreadable)
}
