package search

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// hybridRun is one run of Parquet's RLE/bit-packing hybrid encoding: rle repeats values[0]
// len(values) times; otherwise the values are bit-packed (padded with zeros to groups of 8).
type hybridRun struct {
	rle    bool
	values []uint32
}

// encodeHybrid encodes runs at width bits a value and returns the encoding and every value it
// holds, in order (a bit-packed run's padding included).
func encodeHybrid(width int, runs []hybridRun) (data []byte, values []uint32) {
	byteWidth := (width + 7) / 8
	for _, r := range runs {
		if r.rle {
			data = binary.AppendUvarint(data, uint64(len(r.values))<<1)
			for b := range byteWidth {
				data = append(data, byte(r.values[0]>>(8*b)))
			}
			for range r.values {
				values = append(values, r.values[0])
			}
			continue
		}
		groups := (len(r.values) + 7) / 8
		padded := append(append([]uint32(nil), r.values...), make([]uint32, groups*8-len(r.values))...)
		data = binary.AppendUvarint(data, uint64(groups)<<1|1)
		packed := make([]byte, groups*width)
		for i, v := range padded {
			for bit := range width {
				if v>>bit&1 == 1 {
					at := i*width + bit
					packed[at/8] |= 1 << (at % 8)
				}
			}
		}
		data = append(data, packed...)
		values = append(values, padded...)
	}
	return data, values
}

// randomRuns draws runs of values below 2^width: RLE and bit-packed, short and long.
func randomRuns(r *rand.Rand, width int) []hybridRun {
	var runs []hybridRun
	for range 1 + r.IntN(5) {
		run := hybridRun{rle: r.IntN(2) == 0, values: make([]uint32, 1+r.IntN(40))}
		for i := range run.values {
			if width > 0 {
				run.values[i] = uint32(r.Uint64() & (1<<width - 1))
			}
			if run.rle {
				run.values[i] = run.values[0]
			}
		}
		runs = append(runs, run)
	}
	return runs
}

// TestHybridDecodersAgainstEncodings: hybridAt returns every value of random encodings at every
// width from 0 to 32 and refuses a value past the last; on every prefix of an encoding (a page cut
// short) each value is the encoding's or an error, never another value and never a panic.
// hybridPresent does the same for levels (width 1): presence and the index among present values.
func TestHybridDecodersAgainstEncodings(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for _, width := range []int{0, 1, 2, 3, 7, 8, 9, 13, 16, 20, 31, 32} {
		for range 12 {
			data, values := encodeHybrid(width, randomRuns(r, width))
			for k, want := range values {
				if got, err := hybridAt(data, width, k); err != nil || got != want {
					t.Fatalf("width %d, value %d of %x: %d, %v; want %d", width, k, data, got, err, want)
				}
			}
			if _, err := hybridAt(data, width, len(values)); err == nil {
				t.Fatalf("width %d: value %d of %d was read", width, len(values), len(values))
			}
			for cut := range len(data) {
				for k, want := range values {
					if got, err := hybridAt(data[:cut], width, k); err == nil && got != want {
						t.Fatalf("width %d, value %d of %x cut to %d bytes: %d, want %d or an error", width, k, data, cut, got, want)
					}
				}
			}
			if width != 1 {
				continue
			}
			n := len(values)
			for cut := 0; cut <= len(data); cut++ {
				index := 0
				for k, v := range values {
					present, got, err := hybridPresent(data[:cut], k, n)
					if cut == len(data) && err != nil {
						t.Fatalf("level %d of %x: %v", k, data, err)
					}
					if err == nil && (present != (v == 1) || (present && got != index)) {
						t.Fatalf("level %d of %x cut to %d bytes: present %v index %d; want %v %d", k, data, cut, present, got, v == 1, index)
					}
					if v == 1 {
						index++
					}
				}
			}
			if _, _, err := hybridPresent(data, n, n); err == nil {
				t.Fatalf("level %d of a page of %d was read", n, n)
			}
			if m := n / 2; m > 0 {
				// A page of fewer values than its runs hold: its levels end at its count.
				if _, _, err := hybridPresent(data, m, m); err == nil {
					t.Fatalf("level %d of a page of %d was read (the runs hold %d)", m, m, n)
				}
			}
			if _, _, err := hybridPresent(data, n-1, n+9); err != nil && len(data) > 0 {
				// n+9 values are more than the runs hold: the last of the runs' still reads.
				t.Fatalf("level %d of %x (a page of %d): %v", n-1, data, n+9, err)
			}
		}
	}
}

// TestHybridAtWidthZeroLongRuns: at width 0 (a dictionary of one value) a bit-packed run takes no
// bytes, so a run of more groups than the encoding has bytes is valid and every value of it is 0,
// up to the longest run whose count of values is still a number (MaxInt64/8 groups); one group
// more is refused.
func TestHybridAtWidthZeroLongRuns(t *testing.T) {
	const maxGroups = math.MaxInt64 / 8
	for _, groups := range []uint64{13, 1000, maxGroups} {
		data := binary.AppendUvarint(nil, groups<<1|1)
		if uint64(len(data)) >= groups {
			t.Fatalf("the run of %d groups takes %d bytes: not longer than its data", groups, len(data))
		}
		for _, k := range []int{0, 7, 8, 103} {
			if got, err := hybridAt(data, 0, k); err != nil || got != 0 {
				t.Errorf("value %d of a width-0 run of %d groups: %d, %v; want 0", k, groups, got, err)
			}
		}
	}
	if _, err := hybridAt(binary.AppendUvarint(nil, (maxGroups+1)<<1|1), 0, 0); err == nil {
		t.Errorf("a width-0 run of %d groups (more values than an int64 counts) was read", maxGroups+1)
	}
}
