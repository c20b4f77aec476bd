//go:build compilefail_search_bucket

package compilefail

import (
	"context"

	"github.com/paimon-pkft/pkft"
)

// A search cannot be restricted to a bucket.
func searchBucket(ctx context.Context, tbl *pkft.Table) {
	_, _ = tbl.Search(ctx, "q", pkft.WithBucket(1))
}
