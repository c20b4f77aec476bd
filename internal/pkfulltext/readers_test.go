package pkfulltext_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkfulltext/textreader"
	"github.com/paimon-pkft/pkft/internal/testing/paimonparquet"
)

// closeFailFS opens files whose Close fails with err.
type closeFailFS struct {
	fileio.FileIO
	err    error
	closed *int
}

type closeFailFile struct {
	fileio.ReadAtFile
	fs *closeFailFS
}

func (f closeFailFile) Close() error {
	*f.fs.closed++
	if err := f.ReadAtFile.Close(); err != nil {
		return err
	}
	return f.fs.err
}

func (fs *closeFailFS) OpenReaderAt(ctx context.Context, path string) (fileio.ReadAtFile, error) {
	f, err := fs.FileIO.OpenReaderAt(ctx, path)
	if err != nil {
		return nil, err
	}
	return closeFailFile{ReadAtFile: f, fs: fs}, nil
}

// TestDataFileReadersCloseTheirFile: a data file's text reader closes the file with it and
// reports the file's close error.
func TestDataFileReadersCloseTheirFile(t *testing.T) {
	ctx := context.Background()
	fs, err := paths.NewTableFactory(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := fs.DataFilePathFactory(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(data.Parent(), 0o755); err != nil {
		t.Fatal(err)
	}
	path := data.NewPath()
	st, err := paimonparquet.WriteFile(path, 3, func(i int) ([]byte, bool) { return fmt.Appendf(nil, "row %d", i), false }, paimonparquet.Options{})
	if err != nil {
		t.Fatal(err)
	}
	file := &meta.DataFileMeta{FileName: paths.Name(path), FileSize: st.FileBytes, RowCount: 3, Level: 1}
	fieldName := func(schemaID int64, fieldID int32) (string, error) {
		if fieldID == paimonparquet.DefaultTextFieldID {
			return paimonparquet.DefaultTextName, nil
		}
		return "", textreader.ErrFieldNotInSchema
	}
	closeErr := errors.New("close failed")
	for _, injected := range []error{nil, closeErr} {
		closed := 0
		readers := &pkfulltext.DataFileReaders{FileIO: &closeFailFS{FileIO: fileio.NewLocal(), err: injected, closed: &closed},
			Paths: data, FieldID: paimonparquet.DefaultTextFieldID, FieldName: fieldName}
		r, err := readers.Open(ctx, file)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			row, err := r.Next(ctx)
			if err != nil || row.Null || string(row.Text) != fmt.Sprintf("row %d", i) {
				t.Fatalf("row %d: %+v, %v", i, row, err)
			}
		}
		if err := r.Close(); !errors.Is(err, injected) || (injected == nil) != (err == nil) || closed != 1 {
			t.Fatalf("close with the file's close failing with %v: %v (file closed %d times)", injected, err, closed)
		}
	}
}
