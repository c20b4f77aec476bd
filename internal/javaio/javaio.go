// Package javaio reads and writes bytes the way Java's DataOutput and DataInput do, as Apache
// Paimon uses them (org.apache.paimon.io.DataOutputSerializer and DataInputDeserializer):
// big-endian fixed-width integers and Java "modified UTF-8" strings with a two-byte length
// prefix. It exists so that Go can produce and consume byte layouts that Paimon's Java code
// writes into table metadata, such as the primary-key index source meta.
//
// # Strings
//
// Java strings are sequences of UTF-16 code units; Go strings are bytes. This package maps
// between them as follows:
//
//   - Writing: a Go string is read rune by rune. Valid runes become their UTF-16 code units
//     (runes above U+FFFF become a surrogate pair). A three-byte sequence ED A0..BF 80..BF
//     (the generalized UTF-8, "WTF-8", form of one lone surrogate code unit U+D800..U+DFFF)
//     is taken as that single code unit, so strings produced by [Reader.ReadUTF] round-trip
//     exactly. Every other invalid byte is taken as U+FFFD, the rune Go's range loop yields for
//     it; Java would see the same U+FFFD had the bytes been decoded into a Java string.
//   - Reading: code units are decoded exactly as Paimon's readUTF does, including its
//     leniency (overlong forms such as C0 80 or C1 81 and raw 00 bytes are accepted). A high
//     surrogate directly followed by a low surrogate becomes one Go rune; a lone surrogate is
//     kept as its three-byte WTF-8 form, so distinct Java strings stay distinct Go strings.
//
// # Errors
//
// Truncated input yields an error wrapping [io.ErrUnexpectedEOF]; malformed or over-long
// strings yield a [*UTFDataFormatError]. Nothing in this package panics on bad input.
package javaio

import (
	"encoding/binary"
	"fmt"
	"io"
)

// MaxUTFLength is the largest number of encoded bytes a writeUTF string may occupy, the
// limit imposed by its unsigned 16-bit length prefix.
const MaxUTFLength = 65535

// UTFDataFormatError reports a string that cannot be written or read as modified UTF-8; it
// corresponds to java.io.UTFDataFormatException and carries the same message Paimon uses.
type UTFDataFormatError struct {
	// Message is the Java exception message, e.g. "malformed input around byte 3".
	Message string
}

// Error returns the Java-compatible message.
func (e *UTFDataFormatError) Error() string {
	return e.Message
}

// Writer accumulates bytes in Java DataOutput format, like Paimon's DataOutputSerializer.
// The zero value is an empty writer ready for use.
type Writer struct {
	buf []byte
}

// NewWriter returns a writer whose buffer starts with room for capacity bytes.
func NewWriter(capacity int) *Writer {
	return &Writer{buf: make([]byte, 0, max(capacity, 0))}
}

// Bytes returns a copy of everything written so far (Java getCopyOfBuffer).
func (w *Writer) Bytes() []byte {
	return append([]byte(nil), w.buf...)
}

// Len returns the number of bytes written so far.
func (w *Writer) Len() int {
	return len(w.buf)
}

// Write appends p unchanged (Java write(byte[])); it never fails and exists so a Writer is
// an io.Writer.
func (w *Writer) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// WriteByte appends one byte (Java writeByte); it never fails and exists so a Writer is an
// io.ByteWriter.
func (w *Writer) WriteByte(c byte) error {
	w.buf = append(w.buf, c)
	return nil
}

// WriteBoolean appends 1 for true and 0 for false (Java writeBoolean).
func (w *Writer) WriteBoolean(v bool) {
	if v {
		w.buf = append(w.buf, 1)
	} else {
		w.buf = append(w.buf, 0)
	}
}

// WriteShort appends v as two big-endian bytes (Java writeShort).
func (w *Writer) WriteShort(v int16) {
	w.buf = binary.BigEndian.AppendUint16(w.buf, uint16(v))
}

// WriteInt appends v as four big-endian bytes (Java writeInt).
func (w *Writer) WriteInt(v int32) {
	w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(v))
}

// WriteLong appends v as eight big-endian bytes (Java writeLong).
func (w *Writer) WriteLong(v int64) {
	w.buf = binary.BigEndian.AppendUint64(w.buf, uint64(v))
}

// WriteUTF appends s as a two-byte length followed by its modified UTF-8 encoding (Java
// writeUTF). If the encoding exceeds [MaxUTFLength] bytes it returns a [*UTFDataFormatError]
// with Paimon's message "Encoded string is too long: N" and writes nothing.
func (w *Writer) WriteUTF(s string) error {
	n := EncodedUTFLength(s)
	if n > MaxUTFLength {
		return &UTFDataFormatError{Message: fmt.Sprintf("Encoded string is too long: %d", n)}
	}
	w.buf = binary.BigEndian.AppendUint16(w.buf, uint16(n))
	w.buf = appendModifiedUTF8(w.buf, s)
	return nil
}

// Reader consumes bytes in Java DataInput format from a byte slice, like Paimon's
// DataInputDeserializer. Reads past the end fail without consuming anything.
type Reader struct {
	buf []byte
	pos int
	// text is a copy of buf that strings read by ReadUTF slice, or "" when each string is
	// allocated on its own.
	text string
}

// NewReader returns a reader over b; b is not copied and must not change while reading.
func NewReader(b []byte) *Reader {
	return &Reader{buf: b}
}

// NewSharingReader returns a reader over b whose [Reader.ReadUTF] results share one copy of b,
// made up front: a string whose encoding is ASCII is a slice of that copy instead of an
// allocation of its own. It suits input holding many short strings that are all kept; each of
// them keeps the whole copy alive. b must not change while reading.
func NewSharingReader(b []byte) *Reader {
	return &Reader{buf: b, text: string(b)}
}

// Available returns the number of unread bytes (Java available()).
func (r *Reader) Available() int {
	return len(r.buf) - r.pos
}

// Position returns the offset of the next unread byte.
func (r *Reader) Position() int {
	return r.pos
}

// take consumes n bytes, or fails with an error naming what was being read.
func (r *Reader) take(n int, what string) ([]byte, error) {
	if n < 0 || r.Available() < n {
		return nil, fmt.Errorf("read %s at offset %d: need %d bytes, %d available: %w",
			what, r.pos, n, r.Available(), io.ErrUnexpectedEOF)
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b, nil
}

// ReadFully consumes and returns the next n bytes (Java readFully); the result aliases the
// reader's buffer.
func (r *Reader) ReadFully(n int) ([]byte, error) {
	return r.take(n, "bytes")
}

// ReadByte consumes one byte (Java readUnsignedByte; convert to int8 for readByte).
func (r *Reader) ReadByte() (byte, error) {
	b, err := r.take(1, "byte")
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

// ReadBoolean consumes one byte and reports whether it is non-zero (Java readBoolean).
func (r *Reader) ReadBoolean() (bool, error) {
	b, err := r.take(1, "boolean")
	if err != nil {
		return false, err
	}
	return b[0] != 0, nil
}

// ReadShort consumes a big-endian signed 16-bit integer (Java readShort).
func (r *Reader) ReadShort() (int16, error) {
	v, err := r.ReadUnsignedShort()
	return int16(v), err
}

// ReadUnsignedShort consumes a big-endian unsigned 16-bit integer (Java readUnsignedShort).
func (r *Reader) ReadUnsignedShort() (uint16, error) {
	b, err := r.take(2, "short")
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint16(b), nil
}

// ReadInt consumes a big-endian signed 32-bit integer (Java readInt).
func (r *Reader) ReadInt() (int32, error) {
	b, err := r.take(4, "int")
	if err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(b)), nil
}

// ReadLong consumes a big-endian signed 64-bit integer (Java readLong).
func (r *Reader) ReadLong() (int64, error) {
	b, err := r.take(8, "long")
	if err != nil {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// ReadUTF consumes a two-byte length and that many bytes of modified UTF-8 (Java readUTF).
// Malformed input yields a [*UTFDataFormatError] with Paimon's message; the length prefix and
// body are then consumed, as in Java. A body shorter than its prefix fails with
// [io.ErrUnexpectedEOF] after consuming only the prefix, as in Java.
func (r *Reader) ReadUTF() (string, error) {
	prefix, err := r.take(2, "UTF length")
	if err != nil {
		return "", err
	}
	start := r.pos
	body, err := r.take(int(binary.BigEndian.Uint16(prefix)), "UTF body")
	if err != nil {
		return "", err
	}
	if r.text != "" && isASCII(body) {
		return r.text[start:r.pos], nil
	}
	return decodeModifiedUTF8(body)
}
