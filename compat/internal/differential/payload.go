package differential

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
)

// dataFileMeta turns a script data file into the DataFileMeta both runners pass.
func dataFileMeta(f DataFile) *meta.DataFileMeta {
	d := &meta.DataFileMeta{
		FileName:   f.Name,
		FileSize:   100 * f.Rows,
		RowCount:   f.Rows,
		Level:      f.Level,
		KeyStats:   meta.EmptyStats(),
		ValueStats: meta.EmptyStats(),
	}
	switch f.Source {
	case SourceAppend:
		s := meta.FileSourceAppend
		d.FileSource = &s
	case SourceCompact:
		s := meta.FileSourceCompact
		d.FileSource = &s
	}
	return d
}

func dataFileMetas(files []DataFile) []*meta.DataFileMeta {
	out := make([]*meta.DataFileMeta, len(files))
	for i, f := range files {
		out[i] = dataFileMeta(f)
	}
	return out
}

// sourceFilesOf lists the names and row counts of data files, in order.
func sourceFilesOf(files []*meta.DataFileMeta) []SourceFile {
	out := make([]SourceFile, len(files))
	for i, f := range files {
		out[i] = SourceFile{Name: f.FileName, Rows: f.RowCount}
	}
	return out
}

// encodeSourceMeta writes source meta v1 for any level and file list, including the ones Java
// rejects on decode (the point of some restored payloads).
func encodeSourceMeta(level int32, files []SourceFile) ([]byte, error) {
	w := javaio.NewWriter(64)
	w.WriteInt(1)
	w.WriteInt(level)
	w.WriteInt(int32(len(files)))
	for _, f := range files {
		if err := w.WriteUTF(f.Name); err != nil {
			return nil, fmt.Errorf("encode source file %q: %w", f.Name, err)
		}
		w.WriteLong(f.Rows)
	}
	return w.Bytes(), nil
}

// archiveMeta is the payload rule: the IndexFileMeta of a payload of indexType named name over
// files on level for fieldID.
func archiveMeta(indexType, name string, fieldID, level int32, files []SourceFile) (*meta.IndexFileMeta, error) {
	encoded, err := encodeSourceMeta(level, files)
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", name, err)
	}
	var total int64
	for _, f := range files {
		total += f.Rows
	}
	return &meta.IndexFileMeta{
		IndexType: indexType,
		FileName:  name,
		FileSize:  total,
		RowCount:  total,
		GlobalIndex: &meta.GlobalIndexMeta{
			RowRangeStart: 0,
			RowRangeEnd:   total - 1,
			IndexFieldID:  fieldID,
			SourceMeta:    encoded,
		},
	}, nil
}

// restoredPayloadMetas applies the payload rule and the corruption tags to the restored
// payloads, expanding duplicates.
func restoredPayloadMetas(family string, fieldID int32, payloads []Payload) ([]*meta.IndexFileMeta, error) {
	var out []*meta.IndexFileMeta
	for _, p := range payloads {
		m, err := payloadMeta(family, fieldID, p)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
		for _, c := range p.Corrupt {
			if c == CorruptDuplicate {
				out = append(out, m)
			}
		}
	}
	return out, nil
}

// payloadMeta is one restored payload's IndexFileMeta in a script of family.
func payloadMeta(family string, fieldID int32, p Payload) (*meta.IndexFileMeta, error) {
	m, err := archiveMeta(indexTypeOf(family), p.Name, fieldID, p.Level, p.Files)
	if err != nil {
		return nil, err
	}
	g := m.GlobalIndex
	for _, c := range p.Corrupt {
		switch c {
		case CorruptRowCount:
			m.RowCount++
		case CorruptRowRange:
			g.RowRangeEnd++
		case CorruptOtherField:
			g.IndexFieldID = fieldID + 1
		case CorruptOtherFieldNoMeta:
			g.IndexFieldID = fieldID + 1
			g.SourceMeta = nil
		case CorruptUnparsable:
			if len(g.SourceMeta) >= 4 {
				g.SourceMeta[3] = 99
			}
		case CorruptTrailingBytes:
			if g.SourceMeta != nil {
				g.SourceMeta = append(g.SourceMeta, 0)
			}
		case CorruptOtherType:
			m.IndexType = otherIndexType(family)
		}
	}
	for _, c := range p.Corrupt {
		if c == CorruptNoGlobalMeta {
			m.GlobalIndex = nil
		}
	}
	return m, nil
}

// buildKey is the deterministic builder's key of a request: "ft-L<level>-<8 hex of SHA-1>".
func buildKey(files []SourceFile, level int32) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%s:%d\n", f.Name, f.Rows)
	}
	sum := sha1.Sum([]byte(b.String()))
	return fmt.Sprintf("%s%d-%s", builtPrefix, level, hex.EncodeToString(sum[:])[:8])
}

// builtMeta is the payload the deterministic builder generates, in a script of family, for a
// request with a generating outcome.
func builtMeta(family, name string, fieldID, level int32, files []SourceFile, o Outcome) (*meta.IndexFileMeta, error) {
	if o == WrongField {
		fieldID++
	}
	recorded := level
	if o == WrongLevel {
		recorded++
	}
	m, err := archiveMeta(indexTypeOf(family), name, fieldID, recorded, files)
	if err != nil {
		return nil, err
	}
	if o == WrongRows {
		m.RowCount++
	}
	return m, nil
}

// indexTypeOf is the index type of a script's payloads: full-text for the full-text family
// (family ""), else the sorted family's index type.
func indexTypeOf(family string) string {
	if family == FamilyFullText {
		return pkfulltext.IndexType
	}
	return family
}

// otherIndexType is the index type the otherType corruption gives a payload: btree for
// full-text scripts (as before the sorted mode), the other sorted type for sorted ones.
func otherIndexType(family string) string {
	switch family {
	case FamilyBTree:
		return FamilyBitmap
	default:
		return FamilyBTree
	}
}
