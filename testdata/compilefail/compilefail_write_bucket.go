//go:build compilefail_write_bucket

package compilefail

import (
	"context"

	"github.com/paimon-pkft/pkft"
)

// A writer writes every bucket its rows hash to; it cannot be restricted to one.
func writeBucket(ctx context.Context, tbl *pkft.Table) {
	_, _ = tbl.NewWriter(ctx, pkft.WithBucket(1))
}
