package pqvalue

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-pkft/pkft/internal/binrow"
)

func TestTimestamp(t *testing.T) {
	for _, tc := range []struct {
		v    int64
		unit pqschema.TimeUnitType
		want binrow.Timestamp
	}{
		{1234, pqschema.TimeUnitMillis, binrow.Timestamp{Millis: 1234}},
		{1_234_567, pqschema.TimeUnitMicros, binrow.Timestamp{Millis: 1234, NanoOfMilli: 567_000}},
		{-1, pqschema.TimeUnitMicros, binrow.Timestamp{Millis: -1, NanoOfMilli: 999_000}},
		{1_234_567_891, pqschema.TimeUnitNanos, binrow.Timestamp{Millis: 1234, NanoOfMilli: 567_891}},
		{-1, pqschema.TimeUnitNanos, binrow.Timestamp{Millis: -1, NanoOfMilli: 999_999}},
	} {
		if got := Timestamp(tc.v, tc.unit); got != tc.want {
			t.Errorf("Timestamp(%d, %v) = %+v, want %+v", tc.v, tc.unit, got, tc.want)
		}
	}
}

func TestInt96Timestamp(t *testing.T) {
	var v parquet.Int96
	binary.LittleEndian.PutUint64(v[:8], 1_500_000) // 1.5 ms into the day
	binary.LittleEndian.PutUint32(v[8:], 2440588+1) // 1970-01-02
	want := binrow.Timestamp{Millis: 86_400_000 + 1, NanoOfMilli: 500_000}
	if got := Int96Timestamp(v); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestFromTwosComplement(t *testing.T) {
	for _, tc := range []struct {
		b    []byte
		want int64
	}{{nil, 0}, {[]byte{0x7f}, 127}, {[]byte{0x80}, -128}, {[]byte{0xff, 0xfe}, -2}, {[]byte{0x01, 0x00}, 256}} {
		if got := FromTwosComplement(tc.b); got.Int64() != tc.want {
			t.Errorf("%x: %v, want %d", tc.b, got, tc.want)
		}
	}
}

func TestGuard(t *testing.T) {
	if err := Guard(func() error { panic("boom") }); err == nil {
		t.Error("panic not turned into an error")
	}
	sentinel := errors.New("x")
	if err := Guard(func() error { return sentinel }); !errors.Is(err, sentinel) {
		t.Errorf("error not passed through: %v", err)
	}
}
