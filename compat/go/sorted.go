package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkindex"
	"github.com/paimon-pkft/pkft/internal/pksorted/bitmap"
	"github.com/paimon-pkft/pkft/internal/pksorted/btree"
	"github.com/paimon-pkft/pkft/internal/pksorted/datafile"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
	"github.com/paimon-pkft/pkft/internal/pksorted/filemeta"
	"github.com/paimon-pkft/pkft/internal/pksorted/indexfile"
	"github.com/paimon-pkft/pkft/internal/pksorted/sortkey"
	"github.com/paimon-pkft/pkft/internal/pksorted/state"
	"github.com/paimon-pkft/pkft/internal/types"
)

// sortedSource is one source of sorted-index-build's args (the protocol leaves it free-form):
// a data file's name and the key of each of its rows in order, as keyValue reads them.
type sortedSource struct {
	FileName string    `json:"fileName"`
	Values   []*string `json:"values"`
}

// cmdSortedIndexBuild builds one level's pk-btree or pk-bitmap payload into dir, as the Java
// runner's sorted-index-build builds it with Paimon's PkSortedIndexBuilder and PkSortedIndexFile:
// internal/pksorted/indexfile's Builder over the given files (on level, of a compaction's source,
// each file's values in physical order, keys in the text form of keyValue), field k with id
// fieldId, the given options. Result: the payload's IndexFileMeta fields {indexType, fileName,
// fileSize, rowCount, rowRangeStart, rowRangeEnd, indexFieldId, indexMeta, sourceMeta (base64),
// externalPath}.
func cmdSortedIndexBuild(ctx context.Context, args protocol.SortedIndexBuildRequest) (protocol.SortedIndexBuildResponse, error) {
	if args.IndexType == "" || args.Type == "" || args.Dir == "" {
		return nil, argErrorf("args.indexType, type, fieldId, dir and level are required")
	}
	fieldID, err := int32Arg("args.fieldId", args.FieldID)
	if err != nil {
		return nil, err
	}
	level, err := int32Arg("args.level", args.Level)
	if err != nil {
		return nil, err
	}
	options, err := stringOptions(args.Options)
	if err != nil {
		return nil, err
	}
	typ, err := types.ParseSQLString(args.Type)
	if err != nil {
		return nil, argErrorf("args.type: %v", err)
	}
	readers := sortedValues{}
	files := make([]*meta.DataFileMeta, 0, len(args.Sources))
	src := meta.FileSourceCompact
	for i, raw := range args.Sources {
		var s sortedSource
		if err := decodeArgs(raw, &s); err != nil {
			return nil, argErrorf("args.sources[%d]: %v", i, err)
		}
		if _, dup := readers[s.FileName]; dup || s.FileName == "" {
			return nil, argErrorf("args.sources: file name %q empty or repeated", s.FileName)
		}
		vs := make([]any, len(s.Values))
		for i, v := range s.Values {
			if vs[i], err = keyValue(typ, v); err != nil {
				return nil, argErrorf("args.sources %s value %d: %v", s.FileName, i, err)
			}
		}
		readers[s.FileName] = vs
		files = append(files, &meta.DataFileMeta{FileName: s.FileName, FileSize: 100, RowCount: int64(len(vs)), Level: level, FileSource: &src})
	}
	b := &indexfile.Builder{
		IndexFile: &indexfile.IndexFile{FileIO: fileio.NewLocal(), Paths: paths.NewDirIndexPathFactory(args.Dir)},
		Readers:   readers,
		Field:     types.DataField{ID: int(fieldID), Name: "k", Type: typ},
		IndexType: args.IndexType,
		Options:   options,
	}
	p, err := b.Build(ctx, files)
	if err != nil {
		return nil, err
	}
	g := p.GlobalIndex
	if g == nil {
		return nil, fmt.Errorf("the payload %s has no global index meta", p.FileName)
	}
	return protocol.SortedIndexBuildResponse{
		"indexType": p.IndexType, "fileName": p.FileName, "fileSize": p.FileSize, "rowCount": p.RowCount,
		"rowRangeStart": g.RowRangeStart, "rowRangeEnd": g.RowRangeEnd, "indexFieldId": g.IndexFieldID,
		"indexMeta":    base64.StdEncoding.EncodeToString(g.IndexMeta),
		"sourceMeta":   base64.StdEncoding.EncodeToString(g.SourceMeta),
		"externalPath": p.ExternalPath,
	}, nil
}

// sortedValues are the given values of each source file by name (indexfile.ReaderFactory).
type sortedValues map[string][]any

// Open reads file's given values, positions from 0.
func (s sortedValues) Open(_ context.Context, file *meta.DataFileMeta) (indexfile.EntryReader, error) {
	vs, ok := s[file.FileName]
	if !ok {
		return nil, fmt.Errorf("no rows for %s", file.FileName)
	}
	return &valuesReader{values: vs}, nil
}

type valuesReader struct {
	values []any
	pos    int
}

func (r *valuesReader) RowCount() int64 { return int64(len(r.values)) }
func (r *valuesReader) Close() error    { return nil }
func (r *valuesReader) Next(context.Context) (datafile.Entry, bool, error) {
	if r.pos == len(r.values) {
		return datafile.Entry{}, false, nil
	}
	r.pos++
	return datafile.Entry{Value: r.values[r.pos-1], Position: int64(r.pos - 1)}, true, nil
}

// keyValue is the sorted-index key of type t in the Java runner's text form (SortedIndexCommands):
// integers, dates and times in decimal, booleans true/false, FLOAT and DOUBLE the unsigned
// decimal of their IEEE bits, decimals in plain notation, timestamps "millis:nanoOfMilli",
// strings as themselves; nil is a null key.
func keyValue(t types.DataType, s *string) (any, error) {
	if s == nil {
		return nil, nil
	}
	v := *s
	switch t.Root {
	case types.RootChar, types.RootVarChar:
		return v, nil
	case types.RootTinyInt:
		n, err := strconv.ParseInt(v, 10, 8)
		return int8(n), err
	case types.RootSmallInt:
		n, err := strconv.ParseInt(v, 10, 16)
		return int16(n), err
	case types.RootInt, types.RootDate, types.RootTime:
		n, err := strconv.ParseInt(v, 10, 32)
		return int32(n), err
	case types.RootBigInt:
		return strconv.ParseInt(v, 10, 64)
	case types.RootBoolean:
		// Java's Boolean.parseBoolean: "true" in any case, anything else false.
		return strings.EqualFold(v, "true"), nil
	case types.RootFloat:
		n, err := strconv.ParseUint(v, 10, 32)
		return math.Float32frombits(uint32(n)), err
	case types.RootDouble:
		n, err := strconv.ParseUint(v, 10, 64)
		return math.Float64frombits(n), err
	case types.RootDecimal:
		return binrow.ParseDecimal(v, t.Scale)
	case types.RootTimestamp, types.RootTimestampLTZ:
		ms, nanos, ok := strings.Cut(v, ":")
		if !ok {
			return nil, fmt.Errorf("timestamp %q is not millis:nanoOfMilli", v)
		}
		m, err := strconv.ParseInt(ms, 10, 64)
		if err != nil {
			return nil, err
		}
		n, err := strconv.ParseInt(nanos, 10, 32)
		if err != nil {
			return nil, err
		}
		return binrow.Timestamp{Millis: m, NanoOfMilli: int32(n)}, nil
	}
	return nil, fmt.Errorf("no key form for %s", t.Root)
}

// cmdSortedIndexOptions resolves a pk-btree or pk-bitmap column's options, as the Java runner's
// sorted-index-options resolves them with CoreOptions#primaryKeyBTreeIndexOptions /
// primaryKeyBitmapIndexOptions: internal/pksorted/definition's IndexOptions. Result: {options}
// or {error} with the refusal's message (pkft's own refusals of values Java re-serializes
// included).
func cmdSortedIndexOptions(_ context.Context, args protocol.SortedIndexOptionsRequest) (protocol.SortedIndexOptionsResponse, error) {
	if args.Options == nil {
		return protocol.SortedIndexOptionsResponse{}, argErrorf("args.options, column and indexType are required")
	}
	got, err := definition.IndexOptions(args.Options, args.Column, args.IndexType)
	if err != nil {
		return protocol.SortedIndexOptionsResponse{Error: new(err.Error())}, nil
	}
	if got == nil {
		got = map[string]string{}
	}
	return protocol.SortedIndexOptionsResponse{Options: got}, nil
}

// cmdSortedState classifies a bucket's sorted payloads against its data files, as the Java
// runner's sorted-state classifies them with PkSortedBucketIndexState.fromActiveDataFiles:
// internal/pksorted/state's FromActiveDataFiles. Data files are {fileName, rowCount, level,
// compact}; payloads {indexType, fileName, rowCount, fieldId, rowRangeStart, rowRangeEnd,
// sourceMeta (base64 or null)}, each of file size 100 and index meta {1} as the Java runner makes
// them. Result: {groups [{level, sources, payloads}], covered, uncovered, rejected} by file name.
func cmdSortedState(_ context.Context, args protocol.SortedStateRequest) (protocol.SortedStateResponse, error) {
	var none protocol.SortedStateResponse
	fieldID, err := int32Arg("args.fieldId", args.FieldID)
	if err != nil {
		return none, err
	}
	// The protocol leaves the data files and payloads free-form; the Go runner takes these.
	var dataFiles []struct {
		FileName string `json:"fileName"`
		RowCount int64  `json:"rowCount"`
		Level    int32  `json:"level"`
		Compact  bool   `json:"compact"`
	}
	var payloadArgs []struct {
		IndexType     string  `json:"indexType"`
		FileName      string  `json:"fileName"`
		RowCount      int64   `json:"rowCount"`
		FieldID       int32   `json:"fieldId"`
		RowRangeStart int64   `json:"rowRangeStart"`
		RowRangeEnd   int64   `json:"rowRangeEnd"`
		SourceMeta    *string `json:"sourceMeta"`
	}
	if err := decodeEach(args.DataFiles, &dataFiles, "args.dataFiles"); err != nil {
		return none, err
	}
	if err := decodeEach(args.Payloads, &payloadArgs, "args.payloads"); err != nil {
		return none, err
	}
	files := make([]*meta.DataFileMeta, 0, len(dataFiles))
	for _, f := range dataFiles {
		src := meta.FileSourceAppend
		if f.Compact {
			src = meta.FileSourceCompact
		}
		files = append(files, &meta.DataFileMeta{FileName: f.FileName, FileSize: 100, RowCount: f.RowCount, Level: f.Level, FileSource: &src})
	}
	payloads := make([]*meta.IndexFileMeta, 0, len(payloadArgs))
	for i, p := range payloadArgs {
		var sm []byte
		if p.SourceMeta != nil {
			b, err := base64.StdEncoding.DecodeString(*p.SourceMeta)
			if err != nil {
				return none, argErrorf("args.payloads[%d].sourceMeta: %v", i, err)
			}
			sm = b
		}
		payloads = append(payloads, &meta.IndexFileMeta{IndexType: p.IndexType, FileName: p.FileName, FileSize: 100, RowCount: p.RowCount,
			GlobalIndex: &meta.GlobalIndexMeta{RowRangeStart: p.RowRangeStart, RowRangeEnd: p.RowRangeEnd, IndexFieldID: p.FieldID,
				IndexMeta: []byte{1}, SourceMeta: sm}})
	}
	st := state.FromActiveDataFiles(fieldID, args.IndexType, files, payloads)
	type groupJSON struct {
		Level    int32    `json:"level"`
		Sources  []string `json:"sources"`
		Payloads []string `json:"payloads"`
	}
	names := func(s []pkindex.SourceFile) []string {
		out := make([]string, len(s))
		for i, f := range s {
			out[i] = f.FileName()
		}
		return out
	}
	groups := make([]groupJSON, 0, len(st.Groups))
	for _, g := range st.Groups {
		ps := make([]string, len(g.Payloads))
		for i, p := range g.Payloads {
			ps[i] = p.FileName
		}
		groups = append(groups, groupJSON{g.DataLevel, names(g.SourceFiles), ps})
	}
	rejected := make([]string, len(st.Rejected))
	for i, p := range st.Rejected {
		rejected[i] = p.FileName
	}
	var resp protocol.SortedStateResponse
	for _, part := range []struct {
		to   *[]json.RawMessage
		from any
	}{{&resp.Groups, groups}, {&resp.Covered, names(st.Covered)}, {&resp.Uncovered, names(st.Uncovered)}, {&resp.Rejected, rejected}} {
		if err := reshape(part.from, part.to, true); err != nil {
			return none, err
		}
	}
	return resp, nil
}

// cmdSortedIndexWrite writes one pk-btree or pk-bitmap index file of the given rows into dir, as
// the Java runner's sorted-index-write writes it with Paimon's btree/bitmap global indexers:
// internal/pksorted/btree's or bitmap's Writer over the rows in order ({key, rowId}, keys in the
// text form of keyValue), under the given options; the file is named <indexType>-index-file, as
// the Java runner names it. Result: {fileName, rowCount, meta (base64 SortedIndexFileMeta)}, or
// {empty: true} when the writer writes no file (a bitmap of no rows; Go's btree writer refuses
// an empty file). A write that fails leaves no file.
func cmdSortedIndexWrite(_ context.Context, args protocol.SortedIndexWriteRequest) (protocol.SortedIndexWriteResponse, error) {
	var none protocol.SortedIndexWriteResponse
	// The protocol leaves a row free-form; the Go runner takes a key and a row id.
	var rows []struct {
		Key   *string `json:"key"`
		RowID *int64  `json:"rowId"`
	}
	if err := reshape(args.Rows, &rows, true); err != nil {
		return none, argErrorf("args.rows: %v", err)
	}
	if args.IndexType == "" || args.Type == "" || args.Dir == "" {
		return none, argErrorf("args.indexType, type and dir are required")
	}
	typ, err := types.ParseSQLString(args.Type)
	if err != nil {
		return none, argErrorf("args.type: %v", err)
	}
	ser, err := sortkey.New(typ)
	if err != nil {
		return none, argErrorf("args.type: %v", err)
	}
	options, err := stringOptions(args.Options)
	if err != nil {
		return none, err
	}
	var buf bytes.Buffer
	var write func(key any, rowID int64) error
	var finish func() (filemeta.Meta, int64, bool, error)
	switch args.IndexType {
	case btree.Identifier:
		opts, err := btree.ParseOptions(options)
		if err != nil {
			return none, argErrorf("args.options: %v", err)
		}
		w, err := btree.NewWriter(&buf, ser, opts)
		if err != nil {
			return none, err
		}
		write = w.Write
		finish = func() (filemeta.Meta, int64, bool, error) { r, err := w.Finish(); return r.Meta, r.RowCount, true, err }
	case bitmap.Identifier:
		opts, err := bitmap.ParseOptions(options)
		if err != nil {
			return none, argErrorf("args.options: %v", err)
		}
		w, err := bitmap.NewWriter(&buf, ser, opts)
		if err != nil {
			return none, err
		}
		write = w.Write
		finish = func() (filemeta.Meta, int64, bool, error) {
			r, ok, err := w.Finish()
			return r.Meta, r.RowCount, ok, err
		}
	default:
		return none, argErrorf("args.indexType %q is neither %s nor %s", args.IndexType, btree.Identifier, bitmap.Identifier)
	}
	for i, row := range rows {
		if row.RowID == nil {
			return none, argErrorf("args.rows[%d].rowId is required", i)
		}
		key, err := keyValue(typ, row.Key)
		if err != nil {
			return none, argErrorf("args.rows[%d].key: %v", i, err)
		}
		if err := write(key, *row.RowID); err != nil {
			return none, fmt.Errorf("row %d: %w", i, err)
		}
	}
	m, count, ok, err := finish()
	if err != nil {
		return none, err
	}
	if !ok {
		return protocol.SortedIndexWriteResponse{Empty: true}, nil
	}
	name := args.IndexType + "-index-file"
	path := filepath.Join(args.Dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		_ = os.Remove(path)
		return none, err
	}
	encoded, err := json.Marshal(base64.StdEncoding.EncodeToString(m.Encode()))
	if err != nil {
		return none, err
	}
	return protocol.SortedIndexWriteResponse{FileName: name, RowCount: new(count), Meta: encoded}, nil
}

// stringOptions are the options of a request whose schema leaves them free-form: every value
// must be a string. Absent or null options are none.
func stringOptions(o protocol.Object) (map[string]string, error) {
	out := make(map[string]string, len(o))
	for k, v := range o {
		s, ok := v.(string)
		if !ok {
			return nil, argErrorf("args.options: %s is not a string", k)
		}
		out[k] = s
	}
	return out, nil
}

// decodeEach decodes the free-form elements of a request's array, each refusing unknown
// fields, into out (a pointer to a slice).
func decodeEach(elems []json.RawMessage, out any, name string) error {
	b, err := json.Marshal(elems)
	if err != nil {
		return err
	}
	if err := decodeArgs(b, out); err != nil {
		return argErrorf("%s: %v", name, err)
	}
	return nil
}
