package pkindex

import (
	"fmt"
	"iter"
	"slices"

	"github.com/paimon-pkft/pkft/internal/javaio"
)

// sourceMetaVersion is the only source meta layout Paimon 2.0.0 writes and reads.
const sourceMetaVersion = 1

// minEncodedSourceFileBytes is the least an encoded source file can take: an empty
// writeUTF name (two-byte length) and a long row count.
const minEncodedSourceFileBytes = 2 + 8

// SourceFile identifies one data file covered by an index payload: its name and its row
// count at the time the payload was built (Java PrimaryKeyIndexSourceFile). Values are
// comparable with ==.
type SourceFile struct {
	fileName string
	rowCount int64
}

// NewSourceFile returns the identity of a covered data file; the row count must not be
// negative.
func NewSourceFile(fileName string, rowCount int64) (SourceFile, error) {
	if rowCount < 0 {
		return SourceFile{}, fmt.Errorf("source file %q: row count must not be negative: %d", fileName, rowCount)
	}
	return SourceFile{fileName: fileName, rowCount: rowCount}, nil
}

// FileName returns the data file's name.
func (f SourceFile) FileName() string {
	return f.fileName
}

// RowCount returns the data file's row count.
func (f SourceFile) RowCount() int64 {
	return f.rowCount
}

// SourceMeta is the ordered list of data files one index payload covers, together with the
// data level they live on (Java PrimaryKeyIndexSourceMeta). Its binary form is stored in
// GlobalIndexMeta.sourceMeta. The zero value is not a valid meta.
type SourceMeta struct {
	dataLevel   int32
	sourceFiles []SourceFile
}

// NewSourceMeta returns the source meta of a payload for dataLevel, which must be positive,
// covering files in the given order, of which there must be at least one. files is copied.
func NewSourceMeta(dataLevel int32, files []SourceFile) (SourceMeta, error) {
	return ownedSourceMeta(dataLevel, slices.Clone(files))
}

// ownedSourceMeta is [NewSourceMeta] for a files slice the caller hands over: it is kept, not
// copied.
func ownedSourceMeta(dataLevel int32, files []SourceFile) (SourceMeta, error) {
	if dataLevel <= 0 {
		return SourceMeta{}, fmt.Errorf("primary-key index data level must be positive: %d", dataLevel)
	}
	if len(files) == 0 {
		return SourceMeta{}, fmt.Errorf("an index must reference source files")
	}
	return SourceMeta{dataLevel: dataLevel, sourceFiles: files}, nil
}

// DataLevel returns the data level of the covered files.
func (m SourceMeta) DataLevel() int32 {
	return m.dataLevel
}

// SourceFiles returns a copy of the covered files in payload order, which defines the row
// id ranges of the payload.
func (m SourceMeta) SourceFiles() []SourceFile {
	return slices.Clone(m.sourceFiles)
}

// FileCount returns how many files the payload covers.
func (m SourceMeta) FileCount() int {
	return len(m.sourceFiles)
}

// HasFiles reports whether the covered files are files, in the same order (without copying them).
func (m SourceMeta) HasFiles(files []SourceFile) bool {
	return slices.Equal(m.sourceFiles, files)
}

// AllFiles iterates over the covered files in payload order without copying them.
func (m SourceMeta) AllFiles() iter.Seq[SourceFile] {
	return slices.Values(m.sourceFiles)
}

// SourceFile returns the only covered file, for payload kinds that cover exactly one.
func (m SourceMeta) SourceFile() (SourceFile, error) {
	if len(m.sourceFiles) != 1 {
		return SourceFile{}, fmt.Errorf("expected exactly one source file, but found %d", len(m.sourceFiles))
	}
	return m.sourceFiles[0], nil
}

// Equal reports whether m and o have the same level and the same files in the same order.
func (m SourceMeta) Equal(o SourceMeta) bool {
	return m.dataLevel == o.dataLevel && slices.Equal(m.sourceFiles, o.sourceFiles)
}

// Encode returns the v1 binary form: int version 1, int data level, int file count, then per
// file writeUTF(name) and long row count, all big-endian (Java serialize). It fails when a
// name's modified UTF-8 encoding exceeds 65535 bytes, or for the invalid zero value.
func (m SourceMeta) Encode() ([]byte, error) {
	if _, err := NewSourceMeta(m.dataLevel, m.sourceFiles); err != nil {
		return nil, fmt.Errorf("failed to serialize index source metadata: %w", err)
	}
	w := javaio.NewWriter(128)
	w.WriteInt(sourceMetaVersion)
	w.WriteInt(m.dataLevel)
	w.WriteInt(int32(len(m.sourceFiles)))
	for i, f := range m.sourceFiles {
		if err := w.WriteUTF(f.fileName); err != nil {
			return nil, fmt.Errorf("failed to serialize index source metadata: source file %d: %w", i, err)
		}
		w.WriteLong(f.rowCount)
	}
	return w.Bytes(), nil
}

// DecodeSourceMeta parses the v1 binary form written by [SourceMeta.Encode] or by Java. It
// applies Java's checks in Java's order: the version must be 1; the file count must be
// positive and fit the remaining bytes at 10 bytes per file at least (checked before
// anything is allocated); every name must be valid modified UTF-8 and every row count
// non-negative; no bytes may trail; finally the data level must be positive. Truncated
// input is reported as a failure to deserialize.
//
// The decoded names share one copy of the bytes after the header (see
// [javaio.NewSharingReader]): decoding allocates that copy and the file list, not one string per
// file.
func DecodeSourceMeta(b []byte) (SourceMeta, error) {
	r := javaio.NewReader(b)
	version, err := r.ReadInt()
	if err != nil {
		return SourceMeta{}, deserializeError("version", err)
	}
	if version != sourceMetaVersion {
		return SourceMeta{}, fmt.Errorf("unsupported index source version: %d", version)
	}
	dataLevel, err := r.ReadInt()
	if err != nil {
		return SourceMeta{}, deserializeError("data level", err)
	}
	count, err := r.ReadInt()
	if err != nil {
		return SourceMeta{}, deserializeError("source file count", err)
	}
	if count <= 0 {
		return SourceMeta{}, fmt.Errorf("an index must reference source files: count %d", count)
	}
	maxCount := r.Available() / minEncodedSourceFileBytes
	if int(count) > maxCount {
		return SourceMeta{}, fmt.Errorf("failed to deserialize index source metadata: "+
			"source file count %d exceeds the maximum %d allowed by the remaining bytes", count, maxCount)
	}
	r = javaio.NewSharingReader(b[len(b)-r.Available():])
	files := make([]SourceFile, 0, count)
	for i := range int(count) {
		name, err := r.ReadUTF()
		if err != nil {
			return SourceMeta{}, deserializeError(fmt.Sprintf("source file %d name", i), err)
		}
		rowCount, err := r.ReadLong()
		if err != nil {
			return SourceMeta{}, deserializeError(fmt.Sprintf("source file %d row count", i), err)
		}
		f, err := NewSourceFile(name, rowCount)
		if err != nil {
			return SourceMeta{}, err
		}
		files = append(files, f)
	}
	if r.Available() != 0 {
		return SourceMeta{}, fmt.Errorf("unexpected trailing bytes in index source metadata: %d bytes", r.Available())
	}
	return ownedSourceMeta(dataLevel, files)
}

func deserializeError(what string, err error) error {
	return fmt.Errorf("failed to deserialize index source metadata: read %s: %w", what, err)
}

// PeekSourceMeta reads only the header of serialized source meta: its data level and file
// count. ok is false when the header is short or of another version, as [DecodeSourceMeta] would
// then fail too; ok true says nothing about the rest, which only DecodeSourceMeta checks. It lets
// a caller set aside a payload whose level or count cannot match without decoding its names.
func PeekSourceMeta(b []byte) (dataLevel int32, count int32, ok bool) {
	r := javaio.NewReader(b)
	version, err := r.ReadInt()
	if err != nil || version != sourceMetaVersion {
		return 0, 0, false
	}
	if dataLevel, err = r.ReadInt(); err != nil {
		return 0, 0, false
	}
	if count, err = r.ReadInt(); err != nil {
		return 0, 0, false
	}
	return dataLevel, count, true
}

// SourceMetaFromIndexFile decodes the source meta recorded for the index file named
// indexFileName (Java fromIndexFile). sourceMeta is GlobalIndexMeta.sourceMeta; pass nil
// when the index file has no GlobalIndexMeta or its sourceMeta is null, which is an error. A
// non-nil empty slice is Java's empty array and fails to decode.
func SourceMetaFromIndexFile(indexFileName string, sourceMeta []byte) (SourceMeta, error) {
	if sourceMeta == nil {
		return SourceMeta{}, fmt.Errorf("index file %s has no source metadata", indexFileName)
	}
	m, err := DecodeSourceMeta(sourceMeta)
	if err != nil {
		return SourceMeta{}, fmt.Errorf("index file %s: %w", indexFileName, err)
	}
	return m, nil
}
