package dv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/paths"
)

// Entry is one data file's deletion vector to write.
type Entry struct {
	// DataFile is the data file name the vector belongs to.
	DataFile string
	// Vector holds the deleted positions.
	Vector DeletionVector
}

// Range locates one data file's deletion vector inside an index file (Java
// DeletionVectorMeta).
type Range struct {
	// DataFile is the data file name.
	DataFile string
	// Offset is the position of the block in the index file.
	Offset int32
	// Length is the recorded length: magic + bitmap for the 32-bit variant,
	// the whole block for the 64-bit one.
	Length int32
	// Cardinality is the number of deleted rows; nil when unknown (files
	// written by old Paimon versions).
	Cardinality *int64
}

// FileResult describes a written deletion-vector index file; it carries what
// an IndexFileMeta of type DELETION_VECTORS records.
type FileResult struct {
	// Path is where the file was written.
	Path string
	// FileName is the last component of Path.
	FileName string
	// FileSize is the file length in bytes.
	FileSize int64
	// Ranges are the per-data-file ranges in the order of the entries; the
	// row count of the index file meta is len(Ranges).
	Ranges []Range
	// ExternalPath is Path when the path factory is external, "" otherwise.
	ExternalPath string
}

// Write creates a new deletion-vector index file named by pf (Java
// DeletionVectorIndexFileWriter.writeSingleFile) holding every entry.
func Write(ctx context.Context, fio fileio.FileIO, pf paths.IndexPathFactory, entries []Entry) (FileResult, error) {
	res, err := WriteFile(ctx, fio, pf.NewPath(), entries)
	if err != nil {
		return FileResult{}, err
	}
	if pf.IsExternalPath() {
		res.ExternalPath = res.Path
	}
	return res, nil
}

// WriteFile writes a deletion-vector index file at path: the version byte,
// then one block per entry in order. The file is published atomically and
// never overwrites an existing file; on failure nothing is left behind. An
// empty entry list yields a file holding only the version byte, as Java
// writes it.
func WriteFile(ctx context.Context, fio fileio.FileIO, path string, entries []Entry) (FileResult, error) {
	buf := []byte{VersionV1}
	ranges := make([]Range, 0, len(entries))
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		if e.Vector == nil {
			return FileResult{}, fmt.Errorf("write deletion vectors %s: nil deletion vector for %s", path, e.DataFile)
		}
		if seen[e.DataFile] {
			return FileResult{}, fmt.Errorf("write deletion vectors %s: data file %s given twice", path, e.DataFile)
		}
		seen[e.DataFile] = true
		start := len(buf)
		var length int64
		var err error
		buf, length, err = e.Vector.appendBlock(buf)
		if err != nil {
			return FileResult{}, fmt.Errorf("write deletion vectors %s: %s: %w", path, e.DataFile, err)
		}
		if start > math.MaxInt32 || len(buf) > math.MaxInt32 {
			return FileResult{}, fmt.Errorf("write deletion vectors %s: file exceeds 2 GB", path)
		}
		card := e.Vector.Cardinality()
		ranges = append(ranges, Range{DataFile: e.DataFile, Offset: int32(start), Length: int32(length), Cardinality: &card})
	}
	if err := fio.WriteFileAtomic(ctx, path, buf); err != nil {
		if !errors.Is(err, fileio.ErrExists) {
			// The publication may have landed although it reported an error (a link+unlink
			// publication whose unlink failed); the name is this call's, so remove it.
			fio.DeleteQuietly(context.WithoutCancel(ctx), path)
		}
		return FileResult{}, fmt.Errorf("write deletion vectors: %w", err)
	}
	return FileResult{Path: path, FileName: paths.Name(path), FileSize: int64(len(buf)), Ranges: ranges}, nil
}

// ReadRange reads one data file's deletion vector from an index file (Java
// DeletionVectorsIndexFile.readDeletionVector): the version byte is checked,
// then the block at the range is parsed and checked against its length and
// checksum.
func ReadRange(ctx context.Context, fio fileio.FileIO, path string, r Range) (DeletionVector, error) {
	f, err := fio.OpenReaderAt(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("read deletion vector of %s: %w", r.DataFile, err)
	}
	defer f.Close()
	d, err := ReadRangeAt(f, f.Size(), r)
	if err != nil {
		return nil, fmt.Errorf("read deletion vector of %s from %s: %w", r.DataFile, path, err)
	}
	return d, nil
}

// ReadAll reads the deletion vectors of several ranges of one index file,
// keyed by data file name.
func ReadAll(ctx context.Context, fio fileio.FileIO, path string, ranges []Range) (map[string]DeletionVector, error) {
	f, err := fio.OpenReaderAt(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("read deletion vectors: %w", err)
	}
	defer f.Close()
	out := make(map[string]DeletionVector, len(ranges))
	for _, r := range ranges {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("read deletion vectors from %s: %w", path, err)
		}
		d, err := ReadRangeAt(f, f.Size(), r)
		if err != nil {
			return nil, fmt.Errorf("read deletion vector of %s from %s: %w", r.DataFile, path, err)
		}
		out[r.DataFile] = d
	}
	return out, nil
}

// ReadRangeAt reads one deletion vector from an index file of the given size
// opened as r. Lengths read from the file are checked against size before
// anything is allocated, so a corrupt file cannot cause huge allocations.
func ReadRangeAt(r io.ReaderAt, size int64, rng Range) (DeletionVector, error) {
	if size < 1 {
		return nil, errors.New("deletion vector file is empty")
	}
	var version [1]byte
	if _, err := r.ReadAt(version[:], 0); err != nil {
		return nil, fmt.Errorf("read version: %w", err)
	}
	if version[0] != VersionV1 {
		return nil, fmt.Errorf("version not match, actual version: %d, expected version: %d", version[0], VersionV1)
	}
	if rng.Offset < 1 || int64(rng.Offset) >= size {
		return nil, fmt.Errorf("range offset %d outside file of %d bytes", rng.Offset, size)
	}
	if rng.Length < 0 {
		return nil, fmt.Errorf("negative range length %d", rng.Length)
	}
	off := int64(rng.Offset)
	var head [8]byte
	if err := readFull(r, head[:], off, size); err != nil {
		return nil, err
	}
	dataLen, _, err := blockHeader(head[:], int64(rng.Length))
	if err != nil {
		return nil, err
	}
	total := 4 + dataLen + 4
	if off+total > size {
		return nil, fmt.Errorf("block of %d bytes at offset %d exceeds file size %d", total, off, size)
	}
	block := make([]byte, total)
	if err := readFull(r, block, off, size); err != nil {
		return nil, err
	}
	// The recorded cardinality is not checked: Java does not check it either.
	return parseBlock(block, int64(rng.Length))
}

func readFull(r io.ReaderAt, p []byte, off, size int64) error {
	if off+int64(len(p)) > size {
		return fmt.Errorf("truncated: need %d bytes at offset %d, file has %d", len(p), off, size)
	}
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("read %d bytes at offset %d: %w", len(p), off, err)
}
