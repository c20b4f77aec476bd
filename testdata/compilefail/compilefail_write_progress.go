//go:build compilefail_write_progress

package compilefail

import (
	"context"

	"github.com/paimon-pkft/pkft"
)

// A writer reports no progress.
func writeProgress(ctx context.Context, tbl *pkft.Table) {
	_, _ = tbl.NewWriter(ctx, pkft.WithProgress(nil))
}
