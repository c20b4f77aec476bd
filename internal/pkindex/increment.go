package pkindex

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/mutation"
	"github.com/paimon-pkft/pkft/internal/paths"
)

// DataIncrement is the part of a writer's append increment (Java DataIncrement) a primary-key
// index maintainer reads: only NewFiles, which must contain no index source files. Every family's
// maintainer (full-text, sorted) takes the same increments.
type DataIncrement struct {
	// NewFiles are the data files written by the append.
	NewFiles []*meta.DataFileMeta
	// DeletedFiles are the data files the append deleted; maintainers ignore them.
	DeletedFiles []*meta.DataFileMeta
	// ChangelogFiles are the changelog files of the append; maintainers ignore them.
	ChangelogFiles []*meta.DataFileMeta
}

// CompactIncrement is the data transition of a compaction (Java CompactIncrement). A call
// whose CompactBefore or CompactAfter is non-empty routes its index changes to the compact
// snapshot.
type CompactIncrement struct {
	// CompactBefore are the data files the compaction removed.
	CompactBefore []*meta.DataFileMeta
	// CompactAfter are the data files the compaction produced or re-levelled.
	CompactAfter []*meta.DataFileMeta
	// ChangelogFiles are the changelog files of the compaction; maintainers ignore them.
	ChangelogFiles []*meta.DataFileMeta
}

// HasDataTransition reports whether the compaction moves data files, which routes a
// maintainer's index changes to the compact snapshot.
func (c CompactIncrement) HasDataTransition() bool {
	return len(c.CompactBefore) > 0 || len(c.CompactAfter) > 0
}

// IndexIncrement lists the index files one maintainer call adds to and removes from the index
// manifest (Java FullTextIndexIncrement, SortedIndexIncrement).
type IndexIncrement struct {
	// NewIndexFiles are the index files to add.
	NewIndexFiles []*meta.IndexFileMeta
	// DeletedIndexFiles are the index files to remove.
	DeletedIndexFiles []*meta.IndexFileMeta
}

// IndexFileDeleter deletes an index file a maintainer generated and no longer needs (Java
// IndexFile.delete). Java deletes quietly, so an implementation matching Java ignores missing
// files and I/O failures.
type IndexFileDeleter interface {
	// DeleteIndexFile removes the file file describes.
	DeleteIndexFile(ctx context.Context, file *meta.IndexFileMeta) error
}

// CheckNoNilFiles fails when any list holds a nil data file.
func CheckNoNilFiles(lists ...[]*meta.DataFileMeta) error {
	for _, list := range lists {
		if slices.Contains(list, nil) {
			return errors.New("increment contains a nil data file")
		}
	}
	return nil
}

// ApplyCompactTransition updates a maintainer's active source files (keyed by name) with a
// compaction, as Java's maintainers do: a removed file leaves unless the compaction also lists
// it among its outputs, and every output that feeds primary-key indexes is (re)added.
func ApplyCompactTransition(active map[string]*meta.DataFileMeta, compact CompactIncrement) {
	for _, f := range compact.CompactBefore {
		if !slices.ContainsFunc(compact.CompactAfter, func(a *meta.DataFileMeta) bool { return a.FileName == f.FileName }) {
			delete(active, f.FileName)
		}
	}
	for _, f := range compact.CompactAfter {
		if ShouldReadDataFile(f) {
			active[f.FileName] = f
		}
	}
}

// RemoveIndexFile returns list without its first element equal to x (by [SameIndexFile]), as
// Java's List.remove does, and whether there was one. list itself is not modified.
func RemoveIndexFile(list []*meta.IndexFileMeta, x *meta.IndexFileMeta) ([]*meta.IndexFileMeta, bool) {
	i := slices.IndexFunc(list, func(p *meta.IndexFileMeta) bool { return SameIndexFile(p, x) })
	if i < 0 {
		return list, false
	}
	return append(slices.Clone(list[:i]), list[i+1:]...), true
}

// SameIndexFile compares index file metadata by value, as Java's IndexFileMeta.equals does.
func SameIndexFile(a, b *meta.IndexFileMeta) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	return a.IndexType == b.IndexType && a.FileName == b.FileName && a.FileSize == b.FileSize &&
		a.RowCount == b.RowCount && sameDVRanges(a.DVRanges, b.DVRanges) &&
		samePtr(a.ExternalPath, b.ExternalPath) && SameGlobalIndex(a.GlobalIndex, b.GlobalIndex)
}

// sameDVRanges compares deletion-vector ranges as Java compares the LinkedHashMap keyed by
// data file name: null only equals null, order does not matter.
func sameDVRanges(a, b []meta.DeletionVectorMeta) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	index := func(list []meta.DeletionVectorMeta) map[string]meta.DeletionVectorMeta {
		m := make(map[string]meta.DeletionVectorMeta, len(list))
		for _, d := range list {
			m[d.DataFileName] = d
		}
		return m
	}
	am, bm := index(a), index(b)
	return maps.EqualFunc(am, bm, func(x, y meta.DeletionVectorMeta) bool {
		return x.Offset == y.Offset && x.Length == y.Length && samePtr(x.Cardinality, y.Cardinality)
	})
}

// SameGlobalIndex compares global index metadata by value, as Java's GlobalIndexMeta.equals
// does (null byte arrays only equal null).
func SameGlobalIndex(a, b *meta.GlobalIndexMeta) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.RowRangeStart == b.RowRangeStart && a.RowRangeEnd == b.RowRangeEnd &&
		a.IndexFieldID == b.IndexFieldID &&
		(a.ExtraFieldIDs == nil) == (b.ExtraFieldIDs == nil) && slices.Equal(a.ExtraFieldIDs, b.ExtraFieldIDs) &&
		sameBytes(a.IndexMeta, b.IndexMeta) && sameBytes(a.SourceMeta, b.SourceMeta)
}

func sameBytes(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

func samePtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// RouteChanges builds a maintainer call's index increment from the payloads it created and
// removed, as Java's maintainers route it: none when nothing changed, else one increment, for the
// compact snapshot when compact moves data files and for the append snapshot otherwise.
func RouteChanges(created, removed []*meta.IndexFileMeta, compact CompactIncrement) (appendInc, compactInc *IndexIncrement) {
	if len(created) == 0 && len(removed) == 0 {
		return nil, nil
	}
	inc := &IndexIncrement{NewIndexFiles: slices.Clone(created), DeletedIndexFiles: slices.Clone(removed)}
	if compact.HasDataTransition() && !mutation.On("compact-change-to-append") {
		return nil, inc
	}
	return inc, nil
}

// DeleteIndexFileQuietly deletes the index file file describes through fio, at its recorded
// external path or under p, like Java's IndexFile#delete: quietly, so a file that cannot be
// deleted is left behind as an orphan rather than failing the commit that retires it.
func DeleteIndexFileQuietly(ctx context.Context, fio fileio.FileIO, p paths.IndexPathFactory, file *meta.IndexFileMeta) {
	ext := ""
	if file.ExternalPath != nil {
		ext = *file.ExternalPath
	}
	fio.DeleteQuietly(ctx, p.ToPathOf(file.FileName, ext))
}
