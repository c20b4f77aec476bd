package pkft

import (
	"bytes"
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
)

// RowKindColumn is the optional column of a record batch given to [Writer.WriteRecord] that
// carries each row's kind: a string column of short forms (+I, -U, +U, -D) or an int8 column of
// Paimon's byte values (0 +I, 1 -U, 2 +U, 3 -D).
const RowKindColumn = "_rowKind"

// RecordOption configures [Writer.WriteRecord].
type RecordOption interface{ applyRecord(*recordConfig) }

type recordConfig struct {
	kind    RowKind
	kindSet bool
}

type rowKindOption RowKind

func (o rowKindOption) applyRecord(c *recordConfig) { c.kind, c.kindSet = RowKind(o), true }

// WithRowKind writes every row of the batch with kind (default [Insert]); a batch with a
// [RowKindColumn] cannot also be given a fixed kind.
func WithRowKind(kind RowKind) RecordOption { return rowKindOption(kind) }

// WriteRecord buffers the rows of an Arrow record batch, as [Writer.Write] buffers rows. Columns
// are matched to the table's by name (table columns the batch lacks are NULL; a batch column the
// table lacks is an error, except [RowKindColumn]), and every column's Arrow type must be one
// that maps to the table column's type: the types [ArrowDefinition] maps, a DECIMAL taking a
// decimal128 of the same scale and no larger precision, a TIMESTAMP a timestamp of no finer
// unit than its precision (TIMESTAMP without a time zone, TIMESTAMP_LTZ with or without), TIME
// time32, BINARY and VARBINARY also fixed_size_binary. A batch that does not fit the table
// (types, NULL in a NOT NULL column, a decimal beyond its precision, a bad row kind) is an error
// and nothing of it is buffered. The batch is not retained: values are copied.
//
// Columns are converted with the Arrow arrays' typed accessors straight into the writer's row
// values, one allocation per batch for the rows' slots; the per-value checks and conversions of
// [Writer.Write] are not repeated.
func (w *Writer) WriteRecord(ctx context.Context, rec arrow.RecordBatch, opts ...RecordOption) error {
	cfg := recordConfig{kind: Insert}
	for _, o := range opts {
		o.applyRecord(&cfg)
	}
	ncols := len(w.types)
	convs := make([]columnConverter, ncols)
	var kinds func(int) (RowKind, error)
	sch := rec.Schema()
	for ci, f := range sch.Fields() {
		if f.Name == RowKindColumn {
			if cfg.kindSet {
				return fmt.Errorf("record has a %s column and a fixed row kind was given", RowKindColumn)
			}
			var err error
			if kinds, err = rowKindsOf(rec.Column(ci)); err != nil {
				return err
			}
			continue
		}
		idx := -1
		for i, c := range w.schema.Columns {
			if c.Name == f.Name {
				idx = i
				break
			}
		}
		if idx < 0 {
			return fmt.Errorf("record column %s is not a column of the table", f.Name)
		}
		if convs[idx] != nil {
			return fmt.Errorf("record has column %s twice", f.Name)
		}
		conv, err := converterOf(w.types[idx], rec.Column(ci))
		if err != nil {
			return fmt.Errorf("column %s: %w", f.Name, err)
		}
		convs[idx] = conv
	}
	nrows := int(rec.NumRows())
	for i, c := range convs {
		if c == nil && w.types[i].NotNull && nrows > 0 {
			return fmt.Errorf("column %s is NOT NULL and the record has no such column", w.schema.Columns[i].Name)
		}
	}
	slots := make([]any, nrows*ncols)
	for i, conv := range convs {
		if conv == nil {
			continue
		}
		if err := conv(slots[i:], ncols); err != nil {
			return fmt.Errorf("column %s: %w", w.schema.Columns[i].Name, err)
		}
	}
	rowKinds := make([]RowKind, nrows)
	for r := range rowKinds {
		rowKinds[r] = cfg.kind
		if kinds != nil {
			k, err := kinds(r)
			if err != nil {
				return fmt.Errorf("row %d: %w", r, err)
			}
			rowKinds[r] = k
		}
	}
	for r := 0; r < nrows; r++ {
		row := slots[r*ncols : (r+1)*ncols : (r+1)*ncols]
		if err := w.w.WriteOwned(ctx, types.RowKind(rowKinds[r]), row); err != nil {
			return fmt.Errorf("row %d: %w", r, err)
		}
	}
	return nil
}

// columnConverter writes a column's values into dst[0], dst[stride], dst[2*stride], ...
type columnConverter func(dst []any, stride int) error

func rowKindsOf(col arrow.Array) (func(int) (RowKind, error), error) {
	if col.NullN() > 0 {
		return nil, fmt.Errorf("%s has NULLs", RowKindColumn)
	}
	switch a := col.(type) {
	case *array.String:
		return func(i int) (RowKind, error) { return ParseRowKind(a.Value(i)) }, nil
	case *array.LargeString:
		return func(i int) (RowKind, error) { return ParseRowKind(a.Value(i)) }, nil
	case *array.Int8:
		return func(i int) (RowKind, error) {
			v := a.Value(i)
			if v < int8(Insert) || v > int8(Delete) {
				return 0, fmt.Errorf("%s %d is not a row kind (0..3)", RowKindColumn, v)
			}
			return RowKind(v), nil
		}, nil
	}
	return nil, fmt.Errorf("%s has Arrow type %s, want utf8 or int8", RowKindColumn, col.DataType())
}

// typed is the converter of an array whose values need no check: get(i) of every non-null row.
func typed[A interface {
	arrow.Array
}](a A, get func(i int) any) columnConverter {
	return func(dst []any, stride int) error {
		for i, n := 0, a.Len(); i < n; i++ {
			if a.IsValid(i) {
				dst[i*stride] = get(i)
			}
		}
		return nil
	}
}

func converterOf(t types.DataType, col arrow.Array) (columnConverter, error) {
	conv, err := converterOfType(t, col)
	if err != nil {
		return nil, err
	}
	if t.NotNull && col.NullN() > 0 {
		for i := 0; i < col.Len(); i++ {
			if col.IsNull(i) {
				return nil, fmt.Errorf("row %d: NULL in a NOT NULL column", i)
			}
		}
	}
	return conv, nil
}

func mismatch(t types.DataType, col arrow.Array) error {
	return fmt.Errorf("Arrow type %s does not fit %s", col.DataType(), t.SQLString())
}

func converterOfType(t types.DataType, col arrow.Array) (columnConverter, error) {
	switch t.Root {
	case types.RootBoolean:
		if a, ok := col.(*array.Boolean); ok {
			return typed(a, func(i int) any { return a.Value(i) }), nil
		}
	case types.RootTinyInt:
		if a, ok := col.(*array.Int8); ok {
			return typed(a, func(i int) any { return a.Value(i) }), nil
		}
	case types.RootSmallInt:
		if a, ok := col.(*array.Int16); ok {
			return typed(a, func(i int) any { return a.Value(i) }), nil
		}
	case types.RootInt:
		if a, ok := col.(*array.Int32); ok {
			return typed(a, func(i int) any { return a.Value(i) }), nil
		}
	case types.RootBigInt:
		if a, ok := col.(*array.Int64); ok {
			return typed(a, func(i int) any { return a.Value(i) }), nil
		}
	case types.RootFloat:
		if a, ok := col.(*array.Float32); ok {
			return typed(a, func(i int) any { return a.Value(i) }), nil
		}
	case types.RootDouble:
		if a, ok := col.(*array.Float64); ok {
			return typed(a, func(i int) any { return a.Value(i) }), nil
		}
	case types.RootChar, types.RootVarChar:
		switch a := col.(type) {
		case *array.String:
			// One copy of the column's bytes; every value is a substring of it.
			data, offs := string(a.ValueBytes()), a.ValueOffsets()
			return typed(a, func(i int) any { return data[offs[i]-offs[0] : offs[i+1]-offs[0]] }), nil
		case *array.LargeString:
			data, offs := string(a.ValueBytes()), a.ValueOffsets()
			return typed(a, func(i int) any { return data[offs[i]-offs[0] : offs[i+1]-offs[0]] }), nil
		case *array.StringView:
			return typed(a, func(i int) any { return string([]byte(a.Value(i))) }), nil
		}
	case types.RootBinary, types.RootVarBinary:
		switch a := col.(type) {
		case *array.Binary:
			data, offs := bytes.Clone(a.ValueBytes()), a.ValueOffsets()
			return typed(a, func(i int) any {
				lo, hi := offs[i]-offs[0], offs[i+1]-offs[0]
				return data[lo:hi:hi]
			}), nil
		case *array.LargeBinary:
			data, offs := bytes.Clone(a.ValueBytes()), a.ValueOffsets()
			return typed(a, func(i int) any {
				lo, hi := offs[i]-offs[0], offs[i+1]-offs[0]
				return data[lo:hi:hi]
			}), nil
		case *array.FixedSizeBinary:
			return typed(a, func(i int) any { return bytes.Clone(a.Value(i)) }), nil
		case *array.BinaryView:
			return typed(a, func(i int) any { return bytes.Clone(a.Value(i)) }), nil
		}
	case types.RootDecimal:
		a, ok := col.(*array.Decimal128)
		if !ok {
			break
		}
		dt := a.DataType().(*arrow.Decimal128Type)
		if int(dt.Scale) != t.Scale || int(dt.Precision) > t.Precision {
			return nil, fmt.Errorf("Arrow type %s does not fit %s (same scale and at most its precision)", dt, t.SQLString())
		}
		prec := int32(t.Precision)
		return func(dst []any, stride int) error {
			for i, n := 0, a.Len(); i < n; i++ {
				if !a.IsValid(i) {
					continue
				}
				v := a.Value(i)
				if !v.FitsInPrecision(prec) {
					return fmt.Errorf("row %d: %s has more than %d digits", i, v.ToString(int32(t.Scale)), prec)
				}
				dst[i*stride] = binrow.Decimal{Unscaled: v.BigInt(), Scale: t.Scale}
			}
			return nil
		}, nil
	case types.RootDate:
		if a, ok := col.(*array.Date32); ok {
			return typed(a, func(i int) any { return int32(a.Value(i)) }), nil
		}
	case types.RootTime:
		if a, ok := col.(*array.Time32); ok {
			unit := a.DataType().(*arrow.Time32Type).Unit
			if unit == arrow.Second {
				return typed(a, func(i int) any { return int32(a.Value(i)) * 1000 }), nil
			}
			if t.Precision < 3 {
				return nil, fmt.Errorf("Arrow type %s is finer than %s", a.DataType(), t.SQLString())
			}
			return typed(a, func(i int) any { return int32(a.Value(i)) }), nil
		}
	case types.RootTimestamp, types.RootTimestampLTZ:
		a, ok := col.(*array.Timestamp)
		if !ok {
			break
		}
		dt := a.DataType().(*arrow.TimestampType)
		if t.Root == types.RootTimestamp && dt.TimeZone != "" {
			return nil, fmt.Errorf("Arrow type %s has a time zone; %s has none (use TIMESTAMP_LTZ)", dt, t.SQLString())
		}
		p := map[arrow.TimeUnit]int{arrow.Second: 0, arrow.Millisecond: 3, arrow.Microsecond: 6, arrow.Nanosecond: 9}[dt.Unit]
		if p > t.Precision {
			return nil, fmt.Errorf("Arrow type %s is finer than %s", dt, t.SQLString())
		}
		perMilli := map[arrow.TimeUnit]int64{arrow.Microsecond: 1000, arrow.Nanosecond: 1_000_000}[dt.Unit]
		nanosPer := map[arrow.TimeUnit]int64{arrow.Microsecond: 1000, arrow.Nanosecond: 1}[dt.Unit]
		switch dt.Unit {
		case arrow.Second:
			return func(dst []any, stride int) error {
				for i, n := 0, a.Len(); i < n; i++ {
					if a.IsValid(i) {
						s := int64(a.Value(i))
						if s > math.MaxInt64/1000 || s < math.MinInt64/1000 {
							return fmt.Errorf("row %d: timestamp %d s out of range", i, s)
						}
						dst[i*stride] = binrow.Timestamp{Millis: s * 1000}
					}
				}
				return nil
			}, nil
		case arrow.Millisecond:
			return typed(a, func(i int) any { return binrow.Timestamp{Millis: int64(a.Value(i))} }), nil
		default:
			return typed(a, func(i int) any {
				v := int64(a.Value(i))
				ms, rem := v/perMilli, v%perMilli
				if rem < 0 {
					ms, rem = ms-1, rem+perMilli
				}
				return binrow.Timestamp{Millis: ms, NanoOfMilli: int32(rem * nanosPer)}
			}), nil
		}
	}
	return nil, mismatch(t, col)
}
