//go:build compilefail_maintain_limit

package compilefail

import (
	"context"

	"github.com/paimon-pkft/pkft"
)

// A limit is a search option.
func maintainLimit(ctx context.Context, tbl *pkft.Table) {
	_, _ = tbl.Maintain(ctx, pkft.WithLimit(3))
}
