package pkft

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-pkft/pkft/internal/convert"
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
// that maps to the table column's type: the types [ArrowDefinition] maps, the safe widenings
// Paimon's casts allow (int8 for SMALLINT, int8 and int16 for INT, int8, int16 and int32 for
// BIGINT, float32 for DOUBLE), a DECIMAL taking a decimal128 of the same scale and no larger
// precision, a TIMESTAMP a timestamp of no finer unit than its precision (TIMESTAMP without a
// time zone, TIMESTAMP_LTZ with or without), TIME time32, BINARY and VARBINARY also
// fixed_size_binary. A batch that does not fit the table (types, NULL in a NOT NULL column, a
// decimal beyond its precision, a bad row kind) is an error and nothing of it is buffered; a
// batch of no rows that fits buffers nothing. The batch is not retained: values are copied.
//
// Columns are converted with the Arrow arrays' typed accessors straight into the writer's row
// values, one allocation per batch for the rows' slots; the per-value checks and conversions of
// [Writer.Write] are not repeated.
func (w *Writer) WriteRecord(ctx context.Context, rec arrow.RecordBatch, opts ...RecordOption) error {
	cfg := recordConfig{kind: Insert}
	for _, o := range opts {
		if o == nil {
			continue
		}
		o.applyRecord(&cfg)
	}
	if rec == nil {
		return errors.New("write record: nil record batch")
	}
	ncols := len(w.types)
	convs := make([]convert.ColumnConverter, ncols)
	var kinds func(int) (types.RowKind, error)
	sch := rec.Schema()
	for ci, f := range sch.Fields() {
		if f.Name == RowKindColumn {
			if cfg.kindSet {
				return fmt.Errorf("record has a %s column and a fixed row kind was given", RowKindColumn)
			}
			var err error
			if kinds, err = convert.RowKinds(rec.Column(ci), RowKindColumn); err != nil {
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
		conv, err := convert.NewColumnConverter(w.types[idx], rec.Column(ci))
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
	if nrows == 0 {
		return nil
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
	rowKinds := make([]types.RowKind, nrows)
	for r := range rowKinds {
		rowKinds[r] = types.RowKind(cfg.kind)
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
		if err := w.w.WriteOwned(ctx, rowKinds[r], row); err != nil {
			return fmt.Errorf("row %d: %w", r, err)
		}
	}
	return nil
}
