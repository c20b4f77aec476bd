//go:build compilefail_compact_dryrun

package compilefail

import (
	"context"

	"github.com/paimon-pkft/pkft"
)

// Compact does not take a dry run: it would compact for real.
func compactDryRun(ctx context.Context, tbl *pkft.Table) {
	_, _ = tbl.Compact(ctx, pkft.WithDryRun(true))
}
