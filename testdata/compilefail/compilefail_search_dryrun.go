//go:build compilefail_search_dryrun

package compilefail

import (
	"context"

	"github.com/paimon-pkft/pkft"
)

// A search writes nothing; it has no dry run.
func searchDryRun(ctx context.Context, tbl *pkft.Table) {
	_, _ = tbl.Search(ctx, "q", pkft.WithDryRun(true))
}
