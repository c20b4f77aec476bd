package dv

import (
	"context"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/paths"
)

func build(t *testing.T, is64 bool, positions ...int64) DeletionVector {
	t.Helper()
	d := New(is64)
	for _, p := range positions {
		if err := d.Delete(p); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// Expected blocks were assembled by hand from the Java serializers
// (BitmapDeletionVector / Bitmap64DeletionVector over RoaringBitmap's
// portable format, run-optimized) with zlib's CRC-32.
func TestSerializeMatchesJavaLayout(t *testing.T) {
	const k = int64(1) << 32
	tests := []struct {
		name      string
		is64      bool
		positions []int64
		length    int64
		hex       string
	}{
		{"32 array", false, []int64{5, 1, 3}, 26, "0000001a5e43f2d03a300000010000000000020010000000010003000500f39291eb"},
		{"32 empty", false, nil, 12, "0000000c5e43f2d03a300000000000005de5c7e9"},
		{"32 run", false, seq(0, 100), 19, "000000135e43f2d03b30000001000063000100000063007d77c5d7"},
		{"64 two keys", true, []int64{1, 3, 5, k + 7}, 68, "0000003cd1d339640200000000000000000000003a300000010000000000020010000000010003000500010000003a300000010000000000000010000000070039f33967"},
		{"64 dense empty keys", true, []int64{2*k + 1}, 66, "0000003ad1d339640300000000000000000000003a30000000000000010000003a30000000000000020000003a3000000100000000000000100000000100e3a5eb0f"},
		{"64 empty", true, nil, 20, "0000000cd1d339640000000000000000bf18480c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := build(t, tt.is64, tt.positions...)
			got, length, err := d.appendBlock(nil)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(got) != tt.hex {
				t.Errorf("block = %x\nwant    %s", got, tt.hex)
			}
			if length != tt.length {
				t.Errorf("recorded length = %d, want %d", length, tt.length)
			}
			back, err := ParseBlock(got, tt.length)
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Sorted(slices.Values(tt.positions))
			if gotPos := slices.Collect(back.Positions()); !slices.Equal(gotPos, want) {
				t.Errorf("positions = %v, want %v", gotPos, want)
			}
			if back.Is64() != tt.is64 {
				t.Errorf("Is64 = %v", back.Is64())
			}
		})
	}
}

func seq(from, to int64) []int64 {
	var s []int64
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

func TestDeleteBounds(t *testing.T) {
	tests := []struct {
		is64 bool
		pos  int64
		ok   bool
	}{
		{false, 0, true},
		{false, MaxPosition32, true},
		{false, MaxPosition32 + 1, false},
		{false, -1, false},
		{true, MaxPosition64, true},
		{true, MaxPosition64 + 1, false},
		{true, -1, false},
	}
	for _, tt := range tests {
		err := New(tt.is64).Delete(tt.pos)
		if (err == nil) != tt.ok {
			t.Errorf("Delete(%d) 64=%v: err = %v", tt.pos, tt.is64, err)
		}
	}
	d := build(t, false, 7, 7, 9)
	if d.Cardinality() != 2 || !d.IsDeleted(7) || d.IsDeleted(8) || d.IsDeleted(-1) || d.IsEmpty() {
		t.Errorf("32-bit vector state wrong: card %d", d.Cardinality())
	}
	if _, err := Serialize(build(t, true, MaxPosition64)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("serializing the largest 64-bit position = %v, want ErrTooLarge (Java's dense layout exceeds 2 GB)", err)
	}
	d64 := build(t, true, MaxPosition64, 0)
	if d64.Cardinality() != 2 || !d64.IsDeleted(MaxPosition64) || d64.IsDeleted(-5) {
		t.Error("64-bit vector state wrong")
	}
}

func randomPositions(r *rand.Rand, n int, max int64) []int64 {
	var out []int64
	for range n {
		out = append(out, r.Int64N(max))
	}
	// Dense runs too, so run and bitmap containers are exercised.
	start := r.Int64N(max - 70000)
	out = append(out, seq(start, start+70000)...)
	return out
}

func TestWriteReadFileRoundTrip(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	fio := fileio.NewLocal()
	pf, err := paths.NewTableFactory(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	entries := []Entry{
		{"data-z-0.parquet", build(t, false, randomPositions(r, 5000, 1<<31-1)...)},
		{"data-a-1.parquet", build(t, true, randomPositions(r, 5000, 3<<32)...)},
		{"data-m-2.parquet", New(false)},
		{"data-b-3.parquet", build(t, true, 1, 2, 3)},
		{"data-c-4.parquet", build(t, false, 0)},
	}
	res, err := Write(ctx, fio, pf.GlobalIndexPathFactory(), entries)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(res.Path) != filepath.Join(root, "index") || res.FileName != paths.Name(res.Path) || res.ExternalPath != "" {
		t.Errorf("result location = %+v", res)
	}
	st, err := os.Stat(res.Path)
	if err != nil || st.Size() != res.FileSize {
		t.Fatalf("file size %v, recorded %d (%v)", st, res.FileSize, err)
	}
	if len(res.Ranges) != len(entries) {
		t.Fatalf("%d ranges, want %d", len(res.Ranges), len(entries))
	}
	next := int32(1)
	for i, rg := range res.Ranges {
		e := entries[i]
		if rg.DataFile != e.DataFile {
			t.Errorf("range %d is for %s, want insertion order (%s)", i, rg.DataFile, e.DataFile)
		}
		if rg.Offset != next {
			t.Errorf("range %d offset %d, want %d", i, rg.Offset, next)
		}
		blockLen := rg.Length
		if !e.Vector.Is64() {
			blockLen += 8
		}
		next = rg.Offset + blockLen
		if rg.Cardinality == nil || *rg.Cardinality != e.Vector.Cardinality() {
			t.Errorf("range %d cardinality %v, want %d", i, rg.Cardinality, e.Vector.Cardinality())
		}
		got, err := ReadRange(ctx, fio, res.Path, rg)
		if err != nil {
			t.Fatalf("ReadRange(%s): %v", rg.DataFile, err)
		}
		if got.Is64() != e.Vector.Is64() || !slices.Equal(slices.Collect(got.Positions()), slices.Collect(e.Vector.Positions())) {
			t.Errorf("%s: read back a different deletion vector", rg.DataFile)
		}
	}
	if int64(next) != res.FileSize {
		t.Errorf("ranges end at %d, file size %d", next, res.FileSize)
	}
	all, err := ReadAll(ctx, fio, res.Path, res.Ranges)
	if err != nil || len(all) != len(entries) {
		t.Fatalf("ReadAll = %d vectors, %v", len(all), err)
	}

	// Publishing never overwrites, and duplicate or nil entries are refused.
	if _, err := WriteFile(ctx, fio, res.Path, nil); !errors.Is(err, fileio.ErrExists) {
		t.Errorf("WriteFile onto existing = %v, want ErrExists", err)
	}
	dup := []Entry{{"f", New(false)}, {"f", New(true)}}
	if _, err := WriteFile(ctx, fio, filepath.Join(root, "dup"), dup); err == nil {
		t.Error("duplicate data file accepted")
	}
	if _, err := WriteFile(ctx, fio, filepath.Join(root, "nil"), []Entry{{"f", nil}}); err == nil {
		t.Error("nil vector accepted")
	}
	if _, err := os.Stat(filepath.Join(root, "dup")); !os.IsNotExist(err) {
		t.Error("a failed write left a file behind")
	}

	empty, err := WriteFile(ctx, fio, filepath.Join(root, "empty"), nil)
	if err != nil || empty.FileSize != 1 || len(empty.Ranges) != 0 {
		t.Errorf("empty file = %+v, %v", empty, err)
	}
}

func TestExternalIndexPath(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	ext := t.TempDir()
	opts, err := paths.OptionsFromTable(root, map[string]string{paths.OptionGlobalIndexExternalPath: "file://" + ext})
	if err != nil {
		t.Fatal(err)
	}
	pf, _ := paths.NewFileStorePathFactory(opts)
	res, err := Write(ctx, fileio.NewLocal(), pf.GlobalIndexPathFactory(), []Entry{{"f", build(t, false, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExternalPath == "" || res.ExternalPath != res.Path || paths.Parent(res.Path) != "file:"+ext {
		t.Errorf("external result = %+v", res)
	}
}

func writeSample(t *testing.T) (string, []byte, []Range) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "index-x-0")
	res, err := WriteFile(context.Background(), fileio.NewLocal(), p, []Entry{
		{"a", build(t, false, 1, 2, 3, 100000)},
		{"b", build(t, true, 4, 1<<33)},
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	return p, data, res.Ranges
}

func TestCorruptAndTruncatedFiles(t *testing.T) {
	ctx := context.Background()
	fio := fileio.NewLocal()
	_, data, ranges := writeSample(t)
	a, b := ranges[0], ranges[1]

	tests := []struct {
		name   string
		mutate func([]byte) []byte
		rng    Range
	}{
		{"truncated in bitmap", func(d []byte) []byte { return d[:a.Offset+10] }, a},
		{"truncated before crc", func(d []byte) []byte { return d[:len(d)-2] }, b},
		{"truncated header", func(d []byte) []byte { return d[:b.Offset+3] }, b},
		{"empty file", func(d []byte) []byte { return nil }, a},
		{"bad version", func(d []byte) []byte { d[0] = 2; return d }, a},
		{"flipped bitmap byte", func(d []byte) []byte { d[a.Offset+12] ^= 0x40; return d }, a},
		{"flipped crc", func(d []byte) []byte { d[len(d)-1] ^= 1; return d }, b},
		{"bad magic", func(d []byte) []byte { d[a.Offset+4] = 0; return d }, a},
		{"huge length", func(d []byte) []byte { d[a.Offset] = 0x7f; return d }, withLength(a, 0x7f000000|a.Length)},
		{"negative length", func(d []byte) []byte { d[a.Offset] = 0xff; return d }, withLength(a, -1)},
		{"range length mismatch 32", func(d []byte) []byte { return d }, withLength(a, a.Length+8)},
		{"range length mismatch 64", func(d []byte) []byte { return d }, withLength(b, b.Length-8)},
		{"offset past end", func(d []byte) []byte { return d }, Range{DataFile: "a", Offset: 1 << 30, Length: a.Length}},
		{"offset zero", func(d []byte) []byte { return d }, Range{DataFile: "a", Offset: 0, Length: a.Length}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(p, tt.mutate(slices.Clone(data)), 0o644); err != nil {
				t.Fatal(err)
			}
			if d, err := ReadRange(ctx, fio, p, tt.rng); err == nil {
				t.Errorf("read succeeded with %d positions, want error", d.Cardinality())
			}
		})
	}
	if _, err := ReadRange(ctx, fio, filepath.Join(t.TempDir(), "missing"), a); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file error = %v", err)
	}
}

func withLength(r Range, l int32) Range {
	r.Length = l
	return r
}

func TestParseBitmap64Rules(t *testing.T) {
	// Keys out of order, negative or too large are rejected like Java's
	// OptimizedRoaringBitmap64.deserialize; sparse keys are accepted.
	empty := []byte{0x3a, 0x30, 0, 0, 0, 0, 0, 0}
	one := []byte{0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 9, 0}
	body := func(count uint64, keys []uint32, bms ...[]byte) []byte {
		b := le64(count)
		for i, k := range keys {
			b = append(b, le32(k)...)
			b = append(b, bms[i]...)
		}
		return b
	}
	tests := []struct {
		name string
		data []byte
		ok   bool
		want []int64
	}{
		{"sparse keys", body(2, []uint32{0, 5}, empty, one), true, []int64{5<<32 | 9}},
		{"descending keys", body(2, []uint32{5, 1}, one, one), false, nil},
		{"duplicate keys", body(2, []uint32{1, 1}, one, one), false, nil},
		{"negative key", body(1, []uint32{0x80000000}, one), false, nil},
		{"key too large", body(1, []uint32{0x7fffffff}, one), false, nil},
		{"largest key", body(1, []uint32{0x7ffffffe}, one), true, []int64{0x7ffffffe<<32 | 9}},
		{"count beyond data", body(3, []uint32{0}, one), false, nil},
		{"negative count", le64(1 << 63), false, nil},
		{"truncated count", []byte{1, 0}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parseBitmap64(tt.data)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if tt.ok && !slices.Equal(slices.Collect(d.Positions()), tt.want) {
				t.Errorf("positions = %v, want %v", slices.Collect(d.Positions()), tt.want)
			}
		})
	}
}

func le64(v uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return b
}

func le32(v uint32) []byte { return le64(uint64(v))[:4] }

func TestDeserializeWithoutLength(t *testing.T) {
	for _, is64 := range []bool{false, true} {
		d := build(t, is64, 3, 1000, 70000)
		b, err := Serialize(d)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Deserialize(append(b, 0xde, 0xad))
		if err != nil {
			t.Fatal(err)
		}
		if back.Cardinality() != 3 || back.Is64() != is64 {
			t.Errorf("Deserialize 64=%v gave %d positions", is64, back.Cardinality())
		}
	}
	if _, err := ParseBlock(nil, -1); err == nil {
		t.Error("negative length accepted")
	}
}
