package bleveengine

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"unicode/utf8"

	"github.com/paimon-pkft/pkft/internal/fulltext"
)

// Magic opens every archive of this engine. It differs from the paimon-ftindex magic
// (fulltext.EnvelopeMagic), so neither engine can mistake the other's archive for its own.
const Magic = "PKFTBLV\x00"

// FormatVersion is the archive format version this package writes and reads.
const FormatVersion = 1

// ErrCorrupt reports an archive that is not a well-formed archive of this engine.
var ErrCorrupt = errors.New("corrupt bleve-engine archive")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// doc is one indexed row.
type doc struct {
	rowID int64
	text  string
}

// encoder writes the archive format; the first write error sticks.
type encoder struct {
	w   *bufio.Writer
	crc hash.Hash32
	n   int64
	err error
	buf [8]byte
}

func (e *encoder) write(p []byte) {
	if e.err != nil {
		return
	}
	e.crc.Write(p)
	n, err := e.w.Write(p)
	e.n += int64(n)
	e.err = err
}

func (e *encoder) u32(v uint32) {
	binary.BigEndian.PutUint32(e.buf[:4], v)
	e.write(e.buf[:4])
}

func (e *encoder) u64(v uint64) {
	binary.BigEndian.PutUint64(e.buf[:], v)
	e.write(e.buf[:])
}

func (e *encoder) str(s string) {
	e.u32(uint32(len(s)))
	e.write([]byte(s))
}

// countingWriter counts what reaches the caller's writer, so WriteTo reports exactly the
// bytes written even when a write fails halfway.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// decoder reads the archive format, bounding every length by the bytes that remain so that a
// corrupt length can neither allocate nor read past the archive.
type decoder struct {
	r      *bufio.Reader
	crc    hash.Hash32
	remain int64
	buf    [8]byte
}

func (d *decoder) read(p []byte) error {
	if int64(len(p)) > d.remain {
		return fmt.Errorf("%w: truncated (%d bytes needed, %d left)", ErrCorrupt, len(p), d.remain)
	}
	if _, err := io.ReadFull(d.r, p); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: truncated: %v", ErrCorrupt, err)
		}
		return fmt.Errorf("read bleve-engine archive: %w", err)
	}
	d.remain -= int64(len(p))
	d.crc.Write(p)
	return nil
}

func (d *decoder) u32() (uint32, error) {
	if err := d.read(d.buf[:4]); err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint32(d.buf[:4]), nil
}

func (d *decoder) u64() (uint64, error) {
	if err := d.read(d.buf[:]); err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(d.buf[:]), nil
}

func (d *decoder) str(what string) (string, error) {
	n, err := d.u32()
	if err != nil {
		return "", err
	}
	if int64(n) > d.remain {
		return "", fmt.Errorf("%w: %s of %d bytes exceeds the %d bytes left", ErrCorrupt, what, n, d.remain)
	}
	b := make([]byte, n)
	if err := d.read(b); err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%w: %s is not valid UTF-8", ErrCorrupt, what)
	}
	return string(b), nil
}

// Minimum encoded sizes, used to reject counts the remaining bytes cannot hold.
const (
	minOptionBytes = 8  // two empty strings
	minDocBytes    = 12 // row id and an empty text
	trailerBytes   = 4  // CRC-32C
)

// decodeArchive reads a whole archive: options and documents.
func decodeArchive(r io.ReaderAt, size int64) ([]fulltext.Option, []doc, error) {
	if size < int64(len(Magic))+4+4+8+trailerBytes {
		return nil, nil, fmt.Errorf("%w: %d bytes is shorter than the smallest archive", ErrCorrupt, size)
	}
	d := &decoder{
		r:      bufio.NewReader(io.NewSectionReader(r, 0, size)),
		crc:    crc32.New(castagnoli),
		remain: size - trailerBytes,
	}
	magic := make([]byte, len(Magic))
	if err := d.read(magic); err != nil {
		return nil, nil, err
	}
	if string(magic) != Magic {
		return nil, nil, fmt.Errorf("%w: magic %q, want %q", ErrCorrupt, magic, Magic)
	}
	version, err := d.u32()
	if err != nil {
		return nil, nil, err
	}
	if version != FormatVersion {
		return nil, nil, fmt.Errorf("bleve-engine archive version %d is not supported (want %d)", version, FormatVersion)
	}
	nopts, err := d.u32()
	if err != nil {
		return nil, nil, err
	}
	if int64(nopts) > d.remain/minOptionBytes {
		return nil, nil, fmt.Errorf("%w: %d options cannot fit in %d bytes", ErrCorrupt, nopts, d.remain)
	}
	opts := make([]fulltext.Option, nopts)
	for i := range opts {
		if opts[i].Key, err = d.str("option key"); err != nil {
			return nil, nil, err
		}
		if opts[i].Value, err = d.str("option value"); err != nil {
			return nil, nil, err
		}
	}
	ndocs, err := d.u64()
	if err != nil {
		return nil, nil, err
	}
	if ndocs > uint64(d.remain/minDocBytes) {
		return nil, nil, fmt.Errorf("%w: %d documents cannot fit in %d bytes", ErrCorrupt, ndocs, d.remain)
	}
	docs := make([]doc, ndocs)
	for i := range docs {
		id, err := d.u64()
		if err != nil {
			return nil, nil, err
		}
		docs[i].rowID = int64(id)
		if docs[i].rowID < 0 {
			return nil, nil, fmt.Errorf("%w: negative row id %d", ErrCorrupt, docs[i].rowID)
		}
		if i > 0 && docs[i].rowID <= docs[i-1].rowID {
			return nil, nil, fmt.Errorf("%w: row id %d follows %d (ids must increase)", ErrCorrupt, docs[i].rowID, docs[i-1].rowID)
		}
		if docs[i].text, err = d.str(fmt.Sprintf("text of row %d", docs[i].rowID)); err != nil {
			return nil, nil, err
		}
	}
	if d.remain != 0 {
		return nil, nil, fmt.Errorf("%w: %d unexpected bytes after the documents", ErrCorrupt, d.remain)
	}
	want := d.crc.Sum32()
	d.remain = trailerBytes
	got, err := d.u32()
	if err != nil {
		return nil, nil, err
	}
	if got != want {
		return nil, nil, fmt.Errorf("%w: checksum %08x, computed %08x", ErrCorrupt, got, want)
	}
	return opts, docs, nil
}
