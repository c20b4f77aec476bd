// Package convert owns every conversion between Paimon's types and values (internal/types,
// internal/binrow) and the forms pkft's users hand in and get back:
//
//   - Paimon types to and from Arrow types ([ArrowType], [ArrowField], [FromArrowType]);
//   - Arrow array cells to Paimon values ([NewColumnConverter], [RowKinds]);
//   - Paimon values to Arrow builders ([AppendValue]);
//   - the facade's plain Go values to and from Paimon values ([FromGo], [ToGo]);
//   - text and JSON values, as pkft write reads them, to the facade's Go values ([ParseValue]).
//
// Paimon values are internal/binrow's Go forms: bool, int8..int64, float32, float64, string,
// []byte, binrow.Decimal, int32 days (DATE), int32 milliseconds of the day (TIME) and
// binrow.Timestamp; nil is NULL.
package convert
