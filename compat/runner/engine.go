package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/paimon-pkft/pkft/compat/protocol"
	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
)

// BuiltArchive is an archive one side built: where it is and what its builder reported.
type BuiltArchive struct {
	Path      string
	RowCount  int64
	IndexMeta *string
}

// EngineSide builds and searches archives: the Go binding, or a runner on another client of the
// same engine.
type EngineSide interface {
	Name() string
	Build(ctx context.Context, dir string, texts []*string, options []fulltext.Option) (BuiltArchive, error)
	Search(ctx context.Context, path, query string, limit int) ([]fulltext.Hit, error)
}

// GoSide is the Go binding of the engine.
type GoSide struct{ Lib *native.Library }

// Name implements EngineSide.
func (GoSide) Name() string { return "go" }

// Build implements EngineSide: row ids are positions in texts; nulls occupy their id.
func (g GoSide) Build(ctx context.Context, dir string, texts []*string, options []fulltext.Option) (BuiltArchive, error) {
	w, err := g.Lib.NewWriter(options)
	if err != nil {
		return BuiltArchive{}, err
	}
	defer w.Close()
	for i, t := range texts {
		if t == nil {
			continue
		}
		if err := w.Add(int64(i), *t); err != nil {
			return BuiltArchive{}, err
		}
	}
	f, err := os.CreateTemp(dir, "go-full-text-*")
	if err != nil {
		return BuiltArchive{}, err
	}
	if _, err := w.WriteTo(ctx, f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return BuiltArchive{}, err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return BuiltArchive{}, err
	}
	return BuiltArchive{Path: f.Name(), RowCount: int64(len(texts))}, nil
}

// Search implements EngineSide.
func (g GoSide) Search(ctx context.Context, path, query string, limit int) ([]fulltext.Hit, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := g.Lib.OpenReader(ctx, f, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	return r.Search(ctx, query, limit)
}

// RunnerSide is an engine client behind a runner process (Java or Python), driven through the
// archive-build and archive-search commands.
type RunnerSide struct {
	Label string
	Proc  *Process
}

// Name implements EngineSide.
func (r RunnerSide) Name() string { return r.Label }

// Build implements EngineSide.
func (r RunnerSide) Build(ctx context.Context, dir string, texts []*string, options []fulltext.Option) (BuiltArchive, error) {
	args := protocol.ArchiveBuildRequest{Dir: dir, Texts: texts, Options: make([]protocol.ArchiveBuildRequestOption, len(options))}
	for i, o := range options {
		args.Options[i] = protocol.ArchiveBuildRequestOption{Key: o.Key, Value: o.Value}
	}
	var res protocol.ArchiveBuildResponse
	if err := r.Proc.Call(ctx, "archive-build", args, &res); err != nil {
		return BuiltArchive{}, err
	}
	built := BuiltArchive{Path: filepath.Join(dir, res.FileName), RowCount: res.RowCount}
	if res.IndexMeta != "" {
		// The engine runner of compat/python, which no schema validates, answers null: none.
		built.IndexMeta = &res.IndexMeta
	}
	return built, nil
}

// Search implements EngineSide.
func (r RunnerSide) Search(ctx context.Context, path, query string, limit int) ([]fulltext.Hit, error) {
	var res protocol.ArchiveSearchResponse
	if err := r.Proc.Call(ctx, "archive-search", protocol.ArchiveSearchRequest{Path: path, Query: query, Limit: int64(limit)}, &res); err != nil {
		return nil, err
	}
	if len(res.RowIDs) != len(res.Scores) {
		return nil, fmt.Errorf("%s runner: %d row ids but %d scores", r.Label, len(res.RowIDs), len(res.Scores))
	}
	hits := make([]fulltext.Hit, len(res.RowIDs))
	for i := range hits {
		hits[i] = fulltext.Hit{RowID: res.RowIDs[i], Score: float32(res.Scores[i])}
	}
	return hits, nil
}

// openSized opens an archive file for positioned reads and returns its size.
func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}
