package dataformat

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"

	"github.com/hamba/avro/v2"

	"github.com/paimon-pkft/pkft/internal/avrocodec"
	"github.com/paimon-pkft/pkft/internal/binrow"
	"github.com/paimon-pkft/pkft/internal/types"
)

// maxBlockBytes bounds one Avro block, compressed or not, so corrupt input cannot force huge
// allocations (Avro Java's writers flush a block every 64 KB of records).
const maxBlockBytes = 256 << 20

// Column is one column to read from a data file: its name in the file and the Paimon type it is
// read as.
type Column struct {
	Name string
	Type types.DataType
}

// AvroReader streams the records of an Avro data file (an Avro object container file whose
// record fields are the data file's columns, AvroFileFormat), a block at a time. Each record is
// decoded by the file's own writer schema; the columns asked for are matched by name, as Java's
// Avro reader matches them (FieldReaderFactory.RowReader), and the other fields are skipped. A
// column the file lacks reads as null.
type AvroReader struct {
	name     string
	r        io.ReaderAt
	size     int64
	in       *bufio.Reader
	sync     [16]byte
	start    int64 // offset of the first block
	fields   []*avro.Field
	target   []int // for each writer field, the column it fills, -1 for none
	cols     []Column
	has      []bool
	decode   func([]byte) ([]byte, error)
	release  func()
	block    cursor
	left     int64 // records left in the current block
	rows     int64 // records returned
	numRows  int64 // -1 until counted
	finished bool
}

// OpenAvro reads the header of the Avro data file name held by r (size bytes) to read cols.
func OpenAvro(ctx context.Context, r io.ReaderAt, size int64, name string, cols []Column) (*AvroReader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := &AvroReader{name: name, r: r, size: size, cols: cols, numRows: -1, has: make([]bool, len(cols))}
	cr := &countingReader{r: bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 64<<10)}
	if err := a.readHeader(cr); err != nil {
		return nil, fmt.Errorf("read avro data file %s: %w", name, err)
	}
	a.start = cr.n
	a.in = cr.r
	return a, nil
}

// Has reports whether the file has column j.
func (a *AvroReader) Has(j int) bool { return a.has[j] }

// Next decodes the next record into dst (one value per column, nil for null), or returns io.EOF.
func (a *AvroReader) Next(ctx context.Context, dst []any) error {
	for a.left == 0 {
		if a.finished {
			return io.EOF
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := a.nextBlock(); err != nil {
			if errors.Is(err, io.EOF) {
				a.finished = true
				return io.EOF
			}
			return fmt.Errorf("read avro data file %s: %w", a.name, err)
		}
	}
	clear(dst)
	for i, f := range a.fields {
		j := a.target[i]
		if j < 0 {
			if err := a.block.skip(f.Type()); err != nil {
				return fmt.Errorf("read avro data file %s record %d field %s: %w", a.name, a.rows, f.Name(), err)
			}
			continue
		}
		v, err := a.block.value(f.Type(), a.cols[j].Type)
		if err != nil {
			return fmt.Errorf("read avro data file %s record %d column %s: %w", a.name, a.rows, f.Name(), err)
		}
		dst[j] = v
	}
	a.left--
	a.rows++
	if a.left == 0 && len(a.block.b) != 0 {
		return fmt.Errorf("read avro data file %s: %d bytes left after the block's last record", a.name, len(a.block.b))
	}
	return nil
}

// NumRows counts the file's records from its block headers, reading those headers only.
func (a *AvroReader) NumRows() (int64, error) {
	if a.numRows >= 0 {
		return a.numRows, nil
	}
	var total int64
	var hdr [20]byte
	for off := a.start; off < a.size; {
		n, err := a.r.ReadAt(hdr[:min(int64(len(hdr)), a.size-off)], off)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("read avro data file %s: %w", a.name, err)
		}
		c := cursor{b: hdr[:n]}
		count, err1 := c.long()
		size, err2 := c.long()
		if err1 != nil || err2 != nil {
			return 0, fmt.Errorf("read avro data file %s: truncated block header at %d", a.name, off)
		}
		if count < 0 || size < 0 || size > maxBlockBytes {
			return 0, fmt.Errorf("read avro data file %s: block of %d records in %d bytes", a.name, count, size)
		}
		off += int64(n-len(c.b)) + size + 16
		if off > a.size {
			return 0, fmt.Errorf("read avro data file %s: truncated block", a.name)
		}
		total += count
	}
	a.numRows = total
	return total, nil
}

// Close releases the codec.
func (a *AvroReader) Close() error {
	if a.release != nil {
		a.release()
	}
	return nil
}

func (a *AvroReader) readHeader(cr *countingReader) error {
	magic := make([]byte, 4)
	if _, err := io.ReadFull(cr, magic); err != nil {
		return fmt.Errorf("header: %w", noEOF(err))
	}
	if !bytes.Equal(magic, []byte{'O', 'b', 'j', 1}) {
		return errors.New("not an avro object container file")
	}
	meta := map[string][]byte{}
	for {
		n, err := readLong(cr)
		if err != nil {
			return fmt.Errorf("header metadata: %w", err)
		}
		if n == 0 {
			break
		}
		if n < 0 {
			if _, err := readLong(cr); err != nil {
				return fmt.Errorf("header metadata: %w", err)
			}
			n = -n
		}
		for range n {
			k, err := readBytes(cr)
			if err != nil {
				return fmt.Errorf("header metadata: %w", err)
			}
			v, err := readBytes(cr)
			if err != nil {
				return fmt.Errorf("header metadata: %w", err)
			}
			meta[string(k)] = v
		}
	}
	if _, err := io.ReadFull(cr, a.sync[:]); err != nil {
		return fmt.Errorf("header sync marker: %w", noEOF(err))
	}
	sc, err := avro.ParseBytesWithCache(meta["avro.schema"], "", &avro.SchemaCache{})
	if err != nil {
		return fmt.Errorf("writer schema: %w", err)
	}
	rec, ok := sc.(*avro.RecordSchema)
	if !ok {
		return fmt.Errorf("writer schema is %s, not a record", sc.Type())
	}
	a.fields = rec.Fields()
	a.target = make([]int, len(a.fields))
	for i, f := range a.fields {
		a.target[i] = -1
		for j, c := range a.cols {
			if c.Name == f.Name() {
				a.target[i] = j
				a.has[j] = true
				break
			}
		}
	}
	codec := "null"
	if c, ok := meta["avro.codec"]; ok {
		codec = string(c)
	}
	dec, err := avrocodec.New(codec, maxBlockBytes)
	if err != nil {
		return err
	}
	a.decode, a.release = dec.Decode, dec.Close
	return nil
}

func (a *AvroReader) nextBlock() error {
	if _, err := a.in.Peek(1); err != nil {
		return io.EOF
	}
	cr := &countingReader{r: a.in}
	count, err := readLong(cr)
	if err != nil {
		return fmt.Errorf("block header: %w", err)
	}
	size, err := readLong(cr)
	if err != nil {
		return fmt.Errorf("block header: %w", err)
	}
	if count < 0 || size < 0 || size > maxBlockBytes {
		return fmt.Errorf("block of %d records in %d bytes", count, size)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(a.in, data); err != nil {
		return fmt.Errorf("truncated block: %w", noEOF(err))
	}
	var sync [16]byte
	if _, err := io.ReadFull(a.in, sync[:]); err != nil {
		return fmt.Errorf("block sync marker: %w", noEOF(err))
	}
	if sync != a.sync {
		return errors.New("block sync marker differs from the header's")
	}
	raw, err := a.decode(data)
	if err != nil {
		return fmt.Errorf("decompress block: %w", err)
	}
	a.block = cursor{b: raw}
	a.left = count
	if count == 0 && len(raw) != 0 {
		return errors.New("block of no records holds data")
	}
	return nil
}

// cursor decodes Avro binary values from a block.
type cursor struct{ b []byte }

var errShort = errors.New("record ends early")

func (c *cursor) long() (int64, error) {
	v, n := binary.Uvarint(c.b)
	if n <= 0 || n > 10 {
		return 0, errShort
	}
	c.b = c.b[n:]
	return int64(v>>1) ^ -int64(v&1), nil
}

func (c *cursor) int() (int32, error) {
	v, err := c.long()
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, fmt.Errorf("int %d out of range", v)
	}
	return int32(v), nil
}

func (c *cursor) fixed(n int) ([]byte, error) {
	if n < 0 || n > len(c.b) {
		return nil, errShort
	}
	out := c.b[:n:n]
	c.b = c.b[n:]
	return out, nil
}

func (c *cursor) bytes() ([]byte, error) {
	n, err := c.long()
	if err != nil {
		return nil, err
	}
	if n < 0 || n > int64(len(c.b)) {
		return nil, errShort
	}
	return c.fixed(int(n))
}

// skip passes over one value of schema s.
func (c *cursor) skip(s avro.Schema) error {
	switch s.Type() {
	case avro.Null:
		return nil
	case avro.Boolean:
		_, err := c.fixed(1)
		return err
	case avro.Int, avro.Long, avro.Enum:
		_, err := c.long()
		return err
	case avro.Float:
		_, err := c.fixed(4)
		return err
	case avro.Double:
		_, err := c.fixed(8)
		return err
	case avro.String, avro.Bytes:
		_, err := c.bytes()
		return err
	case avro.Fixed:
		_, err := c.fixed(s.(*avro.FixedSchema).Size())
		return err
	case avro.Union:
		b, err := c.branch(s.(*avro.UnionSchema))
		if err != nil {
			return err
		}
		return c.skip(b)
	case avro.Record:
		for _, f := range s.(*avro.RecordSchema).Fields() {
			if err := c.skip(f.Type()); err != nil {
				return err
			}
		}
		return nil
	case avro.Ref:
		return c.skip(s.(*avro.RefSchema).Schema())
	case avro.Array, avro.Map:
		for {
			n, err := c.long()
			if err != nil {
				return err
			}
			if n == 0 {
				return nil
			}
			if n < 0 {
				size, err := c.long()
				if err != nil {
					return err
				}
				if _, err := c.fixed(int(min(size, int64(len(c.b)+1)))); err != nil {
					return err
				}
				continue
			}
			for range n {
				if s.Type() == avro.Map {
					if _, err := c.bytes(); err != nil {
						return err
					}
					if err := c.skip(s.(*avro.MapSchema).Values()); err != nil {
						return err
					}
				} else if err := c.skip(s.(*avro.ArraySchema).Items()); err != nil {
					return err
				}
			}
		}
	}
	return fmt.Errorf("avro type %s cannot be skipped", s.Type())
}

func (c *cursor) branch(u *avro.UnionSchema) (avro.Schema, error) {
	i, err := c.long()
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= int64(len(u.Types())) {
		return nil, fmt.Errorf("union branch %d of %d", i, len(u.Types()))
	}
	return u.Types()[i], nil
}

// value decodes one value of writer schema s as the Go form of Paimon type t (package binrow's:
// int32 for INT, DATE and TIME, string for CHAR/VARCHAR, binrow.Decimal, binrow.Timestamp...),
// as AvroSchemaConverter maps each Paimon type to Avro.
func (c *cursor) value(s avro.Schema, t types.DataType) (any, error) {
	if u, ok := s.(*avro.UnionSchema); ok {
		b, err := c.branch(u)
		if err != nil {
			return nil, err
		}
		if b.Type() == avro.Null {
			return nil, nil
		}
		return c.value(b, t)
	}
	if r, ok := s.(*avro.RefSchema); ok {
		return c.value(r.Schema(), t)
	}
	mismatch := func() error { return fmt.Errorf("avro %s cannot be read as %s", s.Type(), t.SQLString()) }
	var logical avro.LogicalSchema
	if l, ok := s.(avro.LogicalTypeSchema); ok {
		logical = l.Logical()
	}
	switch s.Type() {
	case avro.Boolean:
		b, err := c.fixed(1)
		if err != nil {
			return nil, err
		}
		if t.Root != types.RootBoolean || b[0] > 1 {
			return nil, mismatch()
		}
		return b[0] == 1, nil
	case avro.Int:
		v, err := c.int()
		if err != nil {
			return nil, err
		}
		switch t.Root {
		case types.RootTinyInt:
			if v < math.MinInt8 || v > math.MaxInt8 {
				return nil, fmt.Errorf("%d is out of TINYINT's range", v)
			}
			return int8(v), nil
		case types.RootSmallInt:
			if v < math.MinInt16 || v > math.MaxInt16 {
				return nil, fmt.Errorf("%d is out of SMALLINT's range", v)
			}
			return int16(v), nil
		case types.RootInt, types.RootDate, types.RootTime:
			return v, nil
		case types.RootBigInt:
			return int64(v), nil
		}
		return nil, mismatch()
	case avro.Long:
		v, err := c.long()
		if err != nil {
			return nil, err
		}
		switch t.Root {
		case types.RootBigInt:
			return v, nil
		case types.RootTimestamp, types.RootTimestampLTZ:
			if logical == nil {
				return nil, mismatch()
			}
			switch logical.Type() {
			case avro.TimestampMillis, avro.LocalTimestampMillis:
				return binrow.Timestamp{Millis: v}, nil
			case avro.TimestampMicros, avro.LocalTimestampMicros:
				ms, rem := v/1000, v%1000
				if rem < 0 {
					ms, rem = ms-1, rem+1000
				}
				return binrow.Timestamp{Millis: ms, NanoOfMilli: int32(rem) * 1000}, nil
			}
		}
		return nil, mismatch()
	case avro.Float:
		b, err := c.fixed(4)
		if err != nil {
			return nil, err
		}
		if t.Root != types.RootFloat {
			return nil, mismatch()
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
	case avro.Double:
		b, err := c.fixed(8)
		if err != nil {
			return nil, err
		}
		if t.Root != types.RootDouble {
			return nil, mismatch()
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
	case avro.String, avro.Bytes, avro.Fixed:
		var b []byte
		var err error
		if f, ok := s.(*avro.FixedSchema); ok {
			b, err = c.fixed(f.Size())
		} else {
			b, err = c.bytes()
		}
		if err != nil {
			return nil, err
		}
		switch t.Root {
		case types.RootChar, types.RootVarChar:
			if s.Type() == avro.String {
				return string(b), nil
			}
		case types.RootBinary, types.RootVarBinary:
			if s.Type() != avro.String && logical == nil {
				return bytes.Clone(b), nil
			}
		case types.RootDecimal:
			if d, ok := logical.(*avro.DecimalLogicalSchema); ok {
				if d.Scale() != t.Scale {
					return nil, fmt.Errorf("decimal of scale %d cannot be read as %s", d.Scale(), t.SQLString())
				}
				return binrow.Decimal{Unscaled: fromTwosComplement(b), Scale: t.Scale}, nil
			}
		}
		return nil, mismatch()
	}
	return nil, mismatch()
}

func fromTwosComplement(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

func readLong(r *countingReader) (int64, error) {
	v, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, noEOF(err)
	}
	return int64(v>>1) ^ -int64(v&1), nil
}

func readBytes(r *countingReader) ([]byte, error) {
	n, err := readLong(r)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > maxBlockBytes {
		return nil, fmt.Errorf("length %d", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, noEOF(err)
	}
	return b, nil
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
