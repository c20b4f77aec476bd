//go:build compilefail_write_dryrun

package compilefail

import (
	"context"

	"github.com/paimon-pkft/pkft"
)

// A write has no dry run.
func writeDryRun(ctx context.Context, tbl *pkft.Table) {
	_, _ = tbl.NewWriter(ctx, pkft.WithDryRun(true))
}
