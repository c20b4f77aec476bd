package pkfulltext

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/mutation"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext/textreader"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// TextReader yields the text column of one data file, one physical row at a time (see
// textreader.Reader, which implements it).
type TextReader interface {
	RowCount() int64
	Next(ctx context.Context) (textreader.Row, error)
	Close() error
}

// Source is one data file whose row positions an archive appends, with its opened reader.
type Source struct {
	File   *meta.DataFileMeta
	Reader TextReader
}

// IndexFile writes full-text archives into a table's index location (Java's
// PkFullTextIndexFile): it names each archive through the index path factory, streams it
// through the engine, publishes it atomically, and returns the IndexFileMeta Java would record.
type IndexFile struct {
	FileIO fileio.FileIO
	Paths  paths.IndexPathFactory
	Engine fulltext.Engine
}

// Build writes one archive over sources, which must be non-empty, share one level above 0 and
// have positive row counts; archive row ids are the sources' row positions concatenated in
// order. Every reader is closed on every path; on failure the archive file is deleted (it is
// only ever visible under its final name once complete).
func (f *IndexFile) Build(ctx context.Context, sources []Source, fieldID int32, options AnalyzerOptions) (_ *meta.IndexFileMeta, err error) {
	defer closeSources(sources)
	if len(sources) == 0 {
		return nil, errors.New("a full-text archive must reference source files")
	}
	level := sources[0].File.Level
	if level <= 0 {
		return nil, errors.New("a full-text archive requires a positive data level")
	}
	var total int64
	files := make([]pkindex.SourceFile, 0, len(sources))
	for _, s := range sources {
		if s.File.Level != level {
			return nil, fmt.Errorf("a full-text archive cannot mix data levels %d and %d", level, s.File.Level)
		}
		if s.File.RowCount <= 0 {
			return nil, errors.New("full-text source file must contain rows")
		}
		if total > math.MaxInt64-s.File.RowCount {
			return nil, errors.New("full-text source row count overflows")
		}
		total += s.File.RowCount
		sf, err := pkindex.NewSourceFile(s.File.FileName, s.File.RowCount)
		if err != nil {
			return nil, err
		}
		files = append(files, sf)
	}
	sourceMeta, err := pkindex.NewSourceMeta(level, files)
	if err != nil {
		return nil, err
	}
	encodedMeta, err := sourceMeta.Encode()
	if err != nil {
		return nil, fmt.Errorf("encode source meta: %w", err)
	}

	w, err := f.Engine.NewWriter(options)
	if err != nil {
		return nil, fmt.Errorf("create full-text writer: %w", err)
	}
	defer w.Close()
	var offset int64
	order := sources
	if mutation.On("sources-unordered") {
		// The source meta lists the files by name; the rows are laid out in the reverse order.
		order = slices.Clone(sources)
		slices.Reverse(order)
	}
	var indexed int64
	for _, s := range order {
		if n := s.Reader.RowCount(); n != s.File.RowCount {
			return nil, fmt.Errorf("text row count %d does not match source file %s row count %d", n, s.File.FileName, s.File.RowCount)
		}
		for pos := int64(0); pos < s.File.RowCount; pos++ {
			row, err := s.Reader.Next(ctx)
			if err != nil {
				return nil, fmt.Errorf("read text of %s: %w", s.File.FileName, err)
			}
			if row.Null {
				continue
			}
			id := offset + pos
			if mutation.On("row-ids-skip-nulls") {
				// Row ids count indexed rows only: a null text takes no id.
				id = indexed
			}
			if err := w.Add(id, engineText(row.Text)); err != nil {
				return nil, fmt.Errorf("index row %d of %s: %w", pos, s.File.FileName, err)
			}
			indexed++
		}
		if !mutation.On("row-ids-restart-per-file") {
			offset += s.File.RowCount
		}
	}

	path := f.Paths.NewPath()
	out, err := f.FileIO.Create(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("create full-text archive %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			out.Abort()
			f.FileIO.DeleteQuietly(context.WithoutCancel(ctx), path)
		}
	}()
	if _, err = w.WriteTo(ctx, out); err != nil {
		return nil, fmt.Errorf("write full-text archive %s: %w", path, err)
	}
	if err = out.Commit(ctx); err != nil {
		return nil, fmt.Errorf("publish full-text archive %s: %w", path, err)
	}
	size, err := f.FileIO.FileSize(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("stat full-text archive %s: %w", path, err)
	}
	archive := &meta.IndexFileMeta{
		IndexType: IndexType,
		FileName:  paths.Name(path),
		FileSize:  size,
		RowCount:  total,
		GlobalIndex: &meta.GlobalIndexMeta{
			RowRangeStart: 0,
			RowRangeEnd:   total - 1,
			IndexFieldID:  fieldID,
			IndexMeta:     options.IndexMeta(),
			SourceMeta:    encodedMeta,
		},
	}
	if f.Paths.IsExternalPath() && !mutation.On("external-path-unrecorded") {
		// (The mutation leaves the external path out of the meta: readers look for the file
		// in the table's own index directory.)
		archive.ExternalPath = &path
	}
	return archive, nil
}

// engineText turns a data file's UTF-8 bytes into the string the engine indexes, so that an
// archive Go builds answers queries as the archive Java builds from the same file:
//
//   - Java reads the text through BinaryString.toString, whose fallback for malformed input is the
//     JDK's UTF-8 decoder: every malformed sequence becomes one U+FFFD (decodeUTF8LikeJDK).
//   - Java's JNI binding hands the engine the whole Java string, NUL characters included (the JNI
//     layer converts the string's modified UTF-8, where NUL is C0 80, into a Rust String), so the
//     engine indexes the text after a NUL. The C ABI Go uses takes NUL-terminated strings, so a
//     NUL cannot cross it; Go passes U+0001 in its place. Both are one-byte control characters:
//     neither alphanumeric nor whitespace, untouched by lower-casing, folding and stemming, so
//     every tokenizer (simple, whitespace, raw, ngram, jieba) cuts the text at the same places
//     and counts the same tokens; only a token containing the character itself differs, which a
//     query can match only by containing a NUL (which Go's C ABI cannot carry either).
//
// Neither case fails a row, so no text can keep a level from being indexed.
func engineText(b []byte) string {
	s := decodeUTF8LikeJDK(b)
	if i := strings.IndexByte(s, 0); i >= 0 && mutation.On("text-cut-at-nul") {
		// What a port passing a C string gets: the text after the first NUL is lost.
		return s[:i]
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\x01")
	}
	return s
}

func closeSources(sources []Source) {
	for _, s := range sources {
		if s.Reader != nil {
			s.Reader.Close()
		}
	}
}

// ReaderFactory opens the text reader of one data file.
type ReaderFactory interface {
	Open(ctx context.Context, file *meta.DataFileMeta) (TextReader, error)
}

// Builder builds the archive of a set of data files (Java's PkFullTextIndexBuilder): it opens a
// reader per file through its factory, closing those already opened when one fails, and hands
// them to IndexFile.
type Builder struct {
	IndexFile *IndexFile
	Readers   ReaderFactory
	FieldID   int32
	Options   AnalyzerOptions
}

// Build builds one archive over files, in the given order.
func (b *Builder) Build(ctx context.Context, files []*meta.DataFileMeta) (*meta.IndexFileMeta, error) {
	sources := make([]Source, 0, len(files))
	for _, file := range files {
		r, err := b.Readers.Open(ctx, file)
		if err != nil {
			closeSources(sources)
			return nil, fmt.Errorf("open text reader of %s: %w", file.FileName, err)
		}
		sources = append(sources, Source{File: file, Reader: r})
	}
	return b.IndexFile.Build(ctx, sources, b.FieldID, b.Options)
}

// DataFileReaders opens text readers over the data files of one bucket.
type DataFileReaders struct {
	FileIO fileio.FileIO
	// Paths resolves data file names (and external paths) of the bucket.
	Paths *paths.DataFilePathFactory
	// FieldID is the text column's field id; FieldName resolves it at a file's schema id.
	FieldID   int32
	FieldName textreader.FieldNameFunc
}

// Open implements ReaderFactory.
func (d *DataFileReaders) Open(ctx context.Context, file *meta.DataFileMeta) (TextReader, error) {
	ext := ""
	if file.ExternalPath != nil {
		ext = *file.ExternalPath
	}
	path := d.Paths.ToPath(file.FileName, ext)
	format, err := textreader.FormatOf(file.FileName)
	if err != nil {
		return nil, err
	}
	f, err := d.FileIO.OpenReaderAt(ctx, path)
	if err != nil {
		return nil, err
	}
	r, err := textreader.Open(ctx, f, f.Size(), textreader.FileSpec{
		FileName:  file.FileName,
		Format:    format,
		RowCount:  file.RowCount,
		SchemaID:  file.SchemaID,
		FieldID:   d.FieldID,
		FieldName: d.FieldName,
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	return &fileTextReader{Reader: r, file: f}, nil
}

// fileTextReader closes the data file together with its reader.
type fileTextReader struct {
	*textreader.Reader
	file fileio.ReadAtFile
}

func (r *fileTextReader) Close() error {
	err := r.Reader.Close()
	if cerr := r.file.Close(); err == nil {
		err = cerr
	}
	return err
}

// DeleteIndexFile deletes an archive this IndexFile wrote or a table recorded, resolving its
// path like Java's IndexFile#delete (the external path when recorded). Like Java's, which
// deletes quietly, it never fails: a file that cannot be deleted is left behind as an orphan
// rather than failing the commit that retires it.
func (f *IndexFile) DeleteIndexFile(ctx context.Context, file *meta.IndexFileMeta) error {
	pkindex.DeleteIndexFileQuietly(ctx, f.FileIO, f.Paths, file)
	return nil
}

var _ IndexFileDeleter = (*IndexFile)(nil)
var _ ArchiveBuilder = (*Builder)(nil)
