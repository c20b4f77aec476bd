package restore

import (
	"context"
	"fmt"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/kvfile"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/paths"
	"github.com/paimon-pkft/pkft/internal/pksorted/datafile"
	"github.com/paimon-pkft/pkft/internal/pksorted/definition"
	"github.com/paimon-pkft/pkft/internal/pksorted/indexfile"
)

// HasIndexes reports whether the writer's schema configures any primary-key index Go maintains.
func (r *Restorer) HasIndexes() bool { return r.FullText != nil || len(r.Sorted) > 0 }

// SortedIndexFile is the sorted-index payload writer and deleter of a bucket (Java
// IndexFileHandler#pkSortedIndex).
func (r *Restorer) SortedIndexFile(b *RestoredBucket) *indexfile.IndexFile {
	return &indexfile.IndexFile{FileIO: r.Table.FileIO, Paths: b.IndexPaths}
}

// SortedBuilder is the payload builder of one sorted definition in a bucket (Java
// PkSortedIndexBuilder over PkSortedDataFileReader): it reads the indexed column of the bucket's
// data files with their row positions.
func (r *Restorer) SortedBuilder(b *RestoredBucket, def definition.Resolved, indexFile *indexfile.IndexFile) (*indexfile.Builder, error) {
	layout, err := r.layout()
	if err != nil {
		return nil, err
	}
	return &indexfile.Builder{
		IndexFile: indexFile,
		Readers:   &sortedReaders{fio: r.Table.FileIO, paths: b.DataPaths, layout: layout, fieldID: int(def.FieldID)},
		Field:     def.Field,
		IndexType: def.IndexType,
		Options:   def.Options,
	}, nil
}

// layout is the key-value layout of the writer's schema, resolved once.
func (r *Restorer) layout() (*kvfile.Layout, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.kvLayout == nil {
		l, err := kvfile.NewLayoutForRead(r.Schema)
		if err != nil {
			return nil, fmt.Errorf("data file layout of schema %d: %w", r.Schema.ID, err)
		}
		r.kvLayout = l
	}
	return r.kvLayout, nil
}

// sortedReaders opens the sorted-index readers of one bucket's data files.
type sortedReaders struct {
	fio     fileio.FileIO
	paths   *paths.DataFilePathFactory
	layout  *kvfile.Layout
	fieldID int
}

func (s *sortedReaders) Open(ctx context.Context, file *meta.DataFileMeta) (indexfile.EntryReader, error) {
	ext := ""
	if file.ExternalPath != nil {
		ext = *file.ExternalPath
	}
	return datafile.Open(ctx, s.fio, s.paths.ToPath(file.FileName, ext), file, s.layout, s.fieldID)
}
