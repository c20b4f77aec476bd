package binrow

import (
	"math"
	"testing"
)

// Floats order as Java's Float.compare and Double.compare: -0.0 before 0.0, NaN after +Inf and
// equal to itself.
func TestCompareValuesFloatsAsJava(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	negZero := math.Copysign(0, -1)
	for _, tc := range []struct {
		a, b float64
		want int
	}{
		{negZero, 0, -1}, {0, negZero, 1}, {negZero, negZero, 0},
		{nan, inf, 1}, {inf, nan, -1}, {nan, nan, 0}, {-inf, nan, -1},
		{1, 2, -1}, {2, 1, 1}, {-1, negZero, -1},
	} {
		if got := CompareValues(tc.a, tc.b); got != tc.want {
			t.Errorf("float64 compare(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := CompareValues(float32(tc.a), float32(tc.b)); got != tc.want {
			t.Errorf("float32 compare(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
