package mergetree

import (
	"errors"
	"fmt"
	"slices"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/types"
)

// The record-level expiry options (CoreOptions at release-2.0.0).
const (
	OptRecordLevelTimeField = "record-level.time-field"
)

// ErrNoRecordTimeField is RecordLevelExpire#create's error for an expiry time without a time
// field (Java commits such a schema; its writers then fail).
var ErrNoRecordTimeField = errors.New("You should set time field for record-level expire.")

// RecordExpire is Java's RecordLevelExpire: compaction drops the records whose time field is
// older than the expiry time, and rewrites the files whose statistics show such records.
type RecordExpire struct {
	// ExpireSeconds is record-level.expire-time in whole seconds (Duration#getSeconds).
	ExpireSeconds int64
	field         int
	fieldID       int
	typ           types.DataType
}

// ParseRecordExpire reads record-level.expire-time and record-level.time-field with the checks
// and messages of SchemaValidation and RecordLevelExpire#create: nil when no expiry time is set.
// The time field must be an INT, BIGINT, TIMESTAMP or TIMESTAMP_LTZ column.
func ParseRecordExpire(s *schema.TableSchema) (*RecordExpire, error) {
	name, hasField := s.Options[OptRecordLevelTimeField]
	idx := -1
	if hasField {
		idx = slices.IndexFunc(s.Fields, func(f types.DataField) bool { return f.Name == name })
		if idx < 0 {
			return nil, fmt.Errorf("Can not find time field %s for record level expire.", name)
		}
		switch s.Fields[idx].Type.Root {
		case types.RootInt, types.RootBigInt, types.RootTimestamp, types.RootTimestampLTZ:
		default:
			return nil, fmt.Errorf("The record level time field type should be one of INT, BIGINT, or TIMESTAMP, but field type is %s.", s.Fields[idx].Type)
		}
	}
	v, ok := s.Options[OptRecordLevelExpireTime]
	if !ok {
		return nil, nil
	}
	ms, err := ParseDurationMillis(v)
	if err != nil {
		return nil, fmt.Errorf("option %s: %w", OptRecordLevelExpireTime, err)
	}
	if !hasField {
		return nil, ErrNoRecordTimeField
	}
	f := s.Fields[idx]
	return &RecordExpire{ExpireSeconds: ms / 1000, field: idx, fieldID: f.ID, typ: f.Type}, nil
}

// seconds is the field getter of RecordLevelExpire: INT as seconds, BIGINT as seconds or, from
// 10^12 on, milliseconds, timestamps as their epoch milliseconds divided by 1000; false for
// null.
func seconds(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		if x >= 1_000_000_000_000 {
			return x / 1000, true
		}
		return x, true
	case binrow.Timestamp:
		return x.Millis / 1000, true
	}
	return 0, false
}

// Field is the position in the value row of the time field, the only field Keep reads.
func (e *RecordExpire) Field() int { return e.field }

// Keep reports whether compaction keeps a record of the table's current schema, now being the
// current time in epoch seconds (RecordLevelExpire#wrap's filter: now <= time + expiry; a null
// time is kept).
func (e *RecordExpire) Keep(value []any, now int64) bool {
	t, ok := seconds(value[e.field])
	return !ok || now <= t+e.ExpireSeconds
}

// FileExpired is RecordLevelExpire#isExpireFile: whether the minimum of the time field in the
// file's value statistics is older than the expiry (now - expiry > min). fileSchema is the schema
// the file was written with; the field is found there by id (a file from before the field
// existed has none) and in the file's statistics columns when they are dense. A field whose type
// changed since the file was written is an error.
func (e *RecordExpire) FileExpired(f *meta.DataFileMeta, fileSchema *schema.TableSchema, now int64) (bool, error) {
	fi := slices.IndexFunc(fileSchema.Fields, func(x types.DataField) bool { return x.ID == e.fieldID })
	if fi < 0 {
		return false, nil
	}
	field := fileSchema.Fields[fi]
	if field.Type.Root != e.typ.Root {
		return false, fmt.Errorf("data file %s: the record level time field %s was %s when it was written", f.FileName, field.Name, field.Type)
	}
	cols := fileSchema.Fields
	if f.ValueStatsCols != nil {
		cols = nil
		for _, n := range f.ValueStatsCols {
			if i := slices.IndexFunc(fileSchema.Fields, func(x types.DataField) bool { return x.Name == n }); i >= 0 {
				cols = append(cols, fileSchema.Fields[i])
			} else {
				return false, fmt.Errorf("data file %s: statistics column %s is not in schema %d", f.FileName, n, fileSchema.ID)
			}
		}
	}
	pos := slices.IndexFunc(cols, func(x types.DataField) bool { return x.ID == e.fieldID })
	if pos < 0 || len(f.ValueStats.MinValues) == 0 {
		return false, nil
	}
	row, err := binrow.DeserializeBinaryRow(f.ValueStats.MinValues)
	if err != nil {
		return false, fmt.Errorf("data file %s: value statistics: %w", f.FileName, err)
	}
	mins, err := row.Decode(types.Row(cols...))
	if err != nil {
		return false, fmt.Errorf("data file %s: value statistics: %w", f.FileName, err)
	}
	t, ok := seconds(mins[pos])
	return ok && now-e.ExpireSeconds > t, nil
}
