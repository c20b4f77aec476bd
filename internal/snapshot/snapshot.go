// Package snapshot reads and writes Paimon 2.0.0 snapshot files
// (snapshot/snapshot-N, JSON) and commits new snapshots atomically.
//
// The JSON is produced exactly as Java's Snapshot.toJson does it: Jackson's
// default pretty printer, properties in the order of the constructor
// (version, uuid, id, schemaId, ...), nullable properties omitted when null.
package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/paimon-pkft/pkft/internal/javacompat"
)

// CurrentVersion is the snapshot format version Paimon 2.0.0 writes.
const CurrentVersion = 3

// FirstSnapshotID is the id of the first snapshot of a table.
const FirstSnapshotID = 1

// CommitKind is the type of change a snapshot records.
type CommitKind string

// Commit kinds of Paimon 2.0.0.
const (
	// CommitAppend: new data files were added and none deleted.
	CommitAppend CommitKind = "APPEND"
	// CommitCompact: existing data files were compacted.
	CommitCompact CommitKind = "COMPACT"
	// CommitOverwrite: data files were added to overwrite existing ones, or
	// existing files were just deleted.
	CommitOverwrite CommitKind = "OVERWRITE"
	// CommitAnalyze: statistics were collected.
	CommitAnalyze CommitKind = "ANALYZE"
)

// Operation is the logical operation that produced a snapshot.
type Operation string

// Operations of Paimon 2.0.0.
const (
	OperationWrite                        Operation = "WRITE"
	OperationOverwrite                    Operation = "OVERWRITE"
	OperationDelete                       Operation = "DELETE"
	OperationTruncate                     Operation = "TRUNCATE"
	OperationUpdate                       Operation = "UPDATE"
	OperationMerge                        Operation = "MERGE"
	OperationCreateTableAsSelect          Operation = "CREATE_TABLE_AS_SELECT"
	OperationReplaceTableAsSelect         Operation = "REPLACE_TABLE_AS_SELECT"
	OperationCreateOrReplaceTableAsSelect Operation = "CREATE_OR_REPLACE_TABLE_AS_SELECT"
)

func validCommitKind(k CommitKind) bool {
	switch k {
	case CommitAppend, CommitCompact, CommitOverwrite, CommitAnalyze:
		return true
	}
	return false
}

func validOperation(o Operation) bool {
	switch o {
	case OperationWrite, OperationOverwrite, OperationDelete, OperationTruncate, OperationUpdate,
		OperationMerge, OperationCreateTableAsSelect, OperationReplaceTableAsSelect,
		OperationCreateOrReplaceTableAsSelect:
		return true
	}
	return false
}

// Property is one entry of a snapshot's properties map. Properties are kept
// as an ordered list because Jackson writes a map in its iteration order,
// and a parsed map (LinkedHashMap) keeps the file's order.
type Property struct {
	Key   string
	Value string
}

// Snapshot is the entrance to all data committed at one point in time.
// Pointer fields are nullable in Java and omitted from the JSON when nil.
type Snapshot struct {
	// Version is the snapshot format version (CurrentVersion for new ones).
	Version int32
	// UUID identifies the snapshot; nil for snapshots written before UUIDs.
	UUID *string
	// ID is the snapshot id, N in snapshot-N.
	ID int64
	// SchemaID is the id of the table schema the snapshot was written with.
	SchemaID int64
	// BaseManifestList names the manifest list of all changes before this
	// snapshot.
	BaseManifestList string
	// BaseManifestListSize is its file size (nil for Paimon <= 1.0).
	BaseManifestListSize *int64
	// DeltaManifestList names the manifest list of this snapshot's changes.
	DeltaManifestList string
	// DeltaManifestListSize is its file size (nil for Paimon <= 1.0).
	DeltaManifestListSize *int64
	// ChangelogManifestList names the manifest list of produced changelog.
	ChangelogManifestList *string
	// ChangelogManifestListSize is its file size.
	ChangelogManifestListSize *int64
	// IndexManifest names the index manifest of all index files of the table.
	IndexManifest *string
	// CommitUser is the user that committed the snapshot.
	CommitUser string
	// CommitIdentifier orders and deduplicates commits of one user.
	CommitIdentifier int64
	// CommitKind is the type of change. The empty value stands for Java null.
	CommitKind CommitKind
	// TimeMillis is the commit time in epoch milliseconds.
	TimeMillis int64
	// TotalRecordCount is the record count of all data after this snapshot.
	TotalRecordCount int64
	// DeltaRecordCount is the record count of this snapshot's changes.
	DeltaRecordCount int64
	// ChangelogRecordCount is the record count of produced changelog.
	ChangelogRecordCount *int64
	// Watermark is the watermark of the input records.
	Watermark *int64
	// Statistics names the statistics file.
	Statistics *string
	// Properties are free-form properties; nil is written as absent, an
	// empty non-nil slice as "{ }".
	Properties []Property
	// NextRowID is the next row id of row-tracking tables.
	NextRowID *int64
	// Operation is the logical operation that produced the snapshot.
	Operation *Operation
}

// Marshal renders the snapshot exactly as Java's Snapshot.toJson does
// (Jackson default pretty printer: two-space indentation, " : " between name
// and value, "\n" line breaks, no trailing newline).
func (s *Snapshot) Marshal() ([]byte, error) {
	if s.CommitKind != "" && !validCommitKind(s.CommitKind) {
		return nil, fmt.Errorf("snapshot %d: invalid commit kind %q", s.ID, s.CommitKind)
	}
	if s.Operation != nil && !validOperation(*s.Operation) {
		return nil, fmt.Errorf("snapshot %d: invalid operation %q", s.ID, *s.Operation)
	}
	w := &jsonWriter{}
	w.buf.WriteByte('{')
	w.field("version", strconv.FormatInt(int64(s.Version), 10))
	w.optString("uuid", s.UUID)
	w.field("id", strconv.FormatInt(s.ID, 10))
	w.field("schemaId", strconv.FormatInt(s.SchemaID, 10))
	w.field("baseManifestList", quote(s.BaseManifestList))
	w.optLong("baseManifestListSize", s.BaseManifestListSize)
	w.field("deltaManifestList", quote(s.DeltaManifestList))
	w.optLong("deltaManifestListSize", s.DeltaManifestListSize)
	w.optString("changelogManifestList", s.ChangelogManifestList)
	w.optLong("changelogManifestListSize", s.ChangelogManifestListSize)
	w.optString("indexManifest", s.IndexManifest)
	w.field("commitUser", quote(s.CommitUser))
	w.field("commitIdentifier", strconv.FormatInt(s.CommitIdentifier, 10))
	if s.CommitKind == "" {
		w.field("commitKind", "null")
	} else {
		w.field("commitKind", quote(string(s.CommitKind)))
	}
	w.field("timeMillis", strconv.FormatInt(s.TimeMillis, 10))
	w.field("totalRecordCount", strconv.FormatInt(s.TotalRecordCount, 10))
	w.field("deltaRecordCount", strconv.FormatInt(s.DeltaRecordCount, 10))
	w.optLong("changelogRecordCount", s.ChangelogRecordCount)
	w.optLong("watermark", s.Watermark)
	w.optString("statistics", s.Statistics)
	if s.Properties != nil {
		w.name("properties")
		if len(s.Properties) == 0 {
			w.buf.WriteString("{ }")
		} else {
			w.buf.WriteString("{\n")
			for i, p := range s.Properties {
				if i > 0 {
					w.buf.WriteString(",\n")
				}
				w.buf.WriteString("    ")
				w.buf.WriteString(quote(p.Key))
				w.buf.WriteString(" : ")
				w.buf.WriteString(quote(p.Value))
			}
			w.buf.WriteString("\n  }")
		}
	}
	w.optLong("nextRowId", s.NextRowID)
	if s.Operation != nil {
		w.field("operation", quote(string(*s.Operation)))
	}
	w.buf.WriteString("\n}")
	return w.buf.Bytes(), nil
}

// jsonWriter writes the members of one top-level object in Jackson's
// default pretty-printed layout.
type jsonWriter struct {
	buf bytes.Buffer
	n   int
}

func (w *jsonWriter) name(n string) {
	if w.n > 0 {
		w.buf.WriteByte(',')
	}
	w.n++
	w.buf.WriteString("\n  ")
	w.buf.WriteString(quote(n))
	w.buf.WriteString(" : ")
}

func (w *jsonWriter) field(n, rawValue string) {
	w.name(n)
	w.buf.WriteString(rawValue)
}

func (w *jsonWriter) optString(n string, v *string) {
	if v != nil {
		w.field(n, quote(*v))
	}
}

func (w *jsonWriter) optLong(n string, v *int64) {
	if v != nil {
		w.field(n, strconv.FormatInt(*v, 10))
	}
}

// quote renders a JSON string the way Jackson does.
func quote(s string) string { return string(javacompat.AppendJSONString(nil, s)) }

// Parse reads a snapshot from its JSON. Like Java (Jackson with
// FAIL_ON_UNKNOWN_PROPERTIES off) unknown properties are ignored, missing or
// null numeric properties read as 0, and numbers given as JSON strings are
// accepted.
func Parse(data []byte) (*Snapshot, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil {
		return nil, fmt.Errorf("parse snapshot: %w", err)
	}
	if fields == nil {
		return nil, errors.New("parse snapshot: not a JSON object")
	}
	s := &Snapshot{}
	var err error
	long := func(name string) int64 {
		if err != nil {
			return 0
		}
		v, e := parseLong(fields[name])
		if e != nil {
			err = fmt.Errorf("parse snapshot: %s: %w", name, e)
		}
		if v == nil {
			return 0
		}
		return *v
	}
	optLong := func(name string) *int64 {
		if err != nil {
			return nil
		}
		v, e := parseLong(fields[name])
		if e != nil {
			err = fmt.Errorf("parse snapshot: %s: %w", name, e)
		}
		return v
	}
	optString := func(name string) *string {
		if err != nil {
			return nil
		}
		v, e := parseString(fields[name])
		if e != nil {
			err = fmt.Errorf("parse snapshot: %s: %w", name, e)
		}
		return v
	}
	str := func(name string) string {
		if v := optString(name); v != nil {
			return *v
		}
		return ""
	}

	version := long("version")
	if err == nil && (version < math.MinInt32 || version > math.MaxInt32) {
		err = fmt.Errorf("parse snapshot: version %d out of int range", version)
	}
	s.Version = int32(version)
	s.UUID = optString("uuid")
	s.ID = long("id")
	s.SchemaID = long("schemaId")
	s.BaseManifestList = str("baseManifestList")
	s.BaseManifestListSize = optLong("baseManifestListSize")
	s.DeltaManifestList = str("deltaManifestList")
	s.DeltaManifestListSize = optLong("deltaManifestListSize")
	s.ChangelogManifestList = optString("changelogManifestList")
	s.ChangelogManifestListSize = optLong("changelogManifestListSize")
	s.IndexManifest = optString("indexManifest")
	s.CommitUser = str("commitUser")
	s.CommitIdentifier = long("commitIdentifier")
	s.CommitKind = CommitKind(str("commitKind"))
	s.TimeMillis = long("timeMillis")
	s.TotalRecordCount = long("totalRecordCount")
	s.DeltaRecordCount = long("deltaRecordCount")
	s.ChangelogRecordCount = optLong("changelogRecordCount")
	s.Watermark = optLong("watermark")
	s.Statistics = optString("statistics")
	s.NextRowID = optLong("nextRowId")
	if op := optString("operation"); op != nil {
		o := Operation(*op)
		s.Operation = &o
	}
	if err != nil {
		return nil, err
	}
	if s.CommitKind != "" && !validCommitKind(s.CommitKind) {
		return nil, fmt.Errorf("parse snapshot: unknown commitKind %q", s.CommitKind)
	}
	if s.Operation != nil && !validOperation(*s.Operation) {
		return nil, fmt.Errorf("parse snapshot: unknown operation %q", *s.Operation)
	}
	if raw, ok := fields["properties"]; ok {
		props, err := parseProperties(raw)
		if err != nil {
			return nil, fmt.Errorf("parse snapshot: properties: %w", err)
		}
		s.Properties = props
	}
	return s, nil
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// parseLong reads a Java long the way Jackson coerces it: integral numbers,
// floating-point numbers (truncated), and numeric strings.
func parseLong(raw json.RawMessage) (*int64, error) {
	if isNull(raw) {
		return nil, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var text string
	switch t := v.(type) {
	case json.Number:
		text = t.String()
	case string:
		if t == "" {
			return nil, nil
		}
		text = t
	default:
		return nil, fmt.Errorf("expected a number, got %s", raw)
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return &n, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return nil, fmt.Errorf("not a long: %s", raw)
	}
	n := int64(f)
	return &n, nil
}

func parseString(raw json.RawMessage) (*string, error) {
	if isNull(raw) {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("expected a string, got %s", raw)
	}
	return &s, nil
}

// parseProperties reads a JSON object of strings keeping the member order.
func parseProperties(raw json.RawMessage) ([]Property, error) {
	if isNull(raw) {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("expected an object, got %s", raw)
	}
	props := []Property{}
	index := map[string]int{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := kt.(string)
		if !ok {
			return nil, fmt.Errorf("expected a key, got %v", kt)
		}
		var v *string
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("value of %q: %w", key, err)
		}
		if v == nil {
			return nil, fmt.Errorf("value of %q: null property values are not supported", key)
		}
		// A repeated key keeps its first position and the last value, like
		// LinkedHashMap.put.
		if i, ok := index[key]; ok {
			props[i].Value = *v
			continue
		}
		index[key] = len(props)
		props = append(props, Property{Key: key, Value: *v})
	}
	return props, nil
}
