package arrowrows

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// AllTypesSchema is an Arrow schema with a column of every type Go writes.
func AllTypesSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "tm", Type: arrow.FixedWidthTypes.Time32ms, Nullable: true},
		{Name: "ts3", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
		{Name: "ts6", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "ts9", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
		{Name: "ltz", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	}, nil)
}

// AllTypesRecord builds n rows of AllTypesSchema with ids from base (every 7th row NULL outside
// the columns id and d, five distinct dates; tag is part of every string) and the same rows as
// pkft's Writer.Write takes them.
func AllTypesRecord(n, base int, tag string) (arrow.RecordBatch, [][]any) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, AllTypesSchema())
	defer b.Release()
	rows := make([][]any, n)
	for i := range n {
		k := int64(base + i)
		ts := time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC).Add(time.Duration(k) * 1_234_567_891 * time.Nanosecond)
		row := []any{k, k%2 == 0, int8(k), int16(-k), int32(k * 3), float32(k) / 4, float64(k) / 8,
			fmt.Sprintf("text %d %s é中😀", k, tag), []byte{byte(k), 0, 0xff}, fmt.Sprintf("%d.%02d", k-50, k%100),
			time.Unix(0, 0).UTC().AddDate(0, 0, int(k%5)-100), int32(k * 1000 % 86_400_000), ts.Truncate(time.Millisecond),
			ts.Truncate(time.Microsecond), ts, ts.Truncate(time.Microsecond)}
		b.Field(0).(*array.Int64Builder).Append(k)
		if k%7 == 3 {
			for c := 1; c < len(row); c++ {
				if c == 10 { // the date may be a key
					b.Field(c).(*array.Date32Builder).Append(arrow.Date32FromTime(row[c].(time.Time)))
					continue
				}
				b.Field(c).AppendNull()
				row[c] = nil
			}
			rows[i] = row
			continue
		}
		b.Field(1).(*array.BooleanBuilder).Append(row[1].(bool))
		b.Field(2).(*array.Int8Builder).Append(row[2].(int8))
		b.Field(3).(*array.Int16Builder).Append(row[3].(int16))
		b.Field(4).(*array.Int32Builder).Append(row[4].(int32))
		b.Field(5).(*array.Float32Builder).Append(row[5].(float32))
		b.Field(6).(*array.Float64Builder).Append(row[6].(float64))
		b.Field(7).(*array.StringBuilder).Append(row[7].(string))
		b.Field(8).(*array.BinaryBuilder).Append(row[8].([]byte))
		d, _ := decimal128.FromString(row[9].(string), 10, 2)
		b.Field(9).(*array.Decimal128Builder).Append(d)
		b.Field(10).(*array.Date32Builder).Append(arrow.Date32FromTime(row[10].(time.Time)))
		b.Field(11).(*array.Time32Builder).Append(arrow.Time32(row[11].(int32)))
		b.Field(12).(*array.TimestampBuilder).Append(arrow.Timestamp(row[12].(time.Time).UnixMilli()))
		b.Field(13).(*array.TimestampBuilder).Append(arrow.Timestamp(row[13].(time.Time).UnixMicro()))
		b.Field(14).(*array.TimestampBuilder).Append(arrow.Timestamp(row[14].(time.Time).UnixNano()))
		b.Field(15).(*array.TimestampBuilder).Append(arrow.Timestamp(row[15].(time.Time).UnixMicro()))
		rows[i] = row
	}
	return b.NewRecordBatch(), rows
}
