// Package testtables prepares copies of the golden tables for tests (test support only).
package testtables

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
)

// AddFullText adds, to the local table at dir, a schema that indexes its content column with
// the full-text index (every level of a table written without the index is then unindexed).
func AddFullText(ctx context.Context, dir string) error {
	s, err := table.Open(fileio.NewLocal(), dir).LatestSchema(ctx)
	if err != nil {
		return err
	}
	next := *s
	next.ID = s.ID + 1
	next.Options = map[string]string{pkfulltext.ColumnsOption: "content"}
	for k, v := range s.Options {
		next.Options[k] = v
	}
	next.OptionOrder = append(slices.Clone(s.OptionOrder), pkfulltext.ColumnsOption)
	if err := os.WriteFile(filepath.Join(dir, "schema", schema.FileName(next.ID)), next.Marshal(), 0o644); err != nil {
		return fmt.Errorf("add the full-text index to %s: %w", dir, err)
	}
	return nil
}
