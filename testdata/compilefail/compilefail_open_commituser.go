//go:build compilefail_open_commituser

package compilefail

import (
	"context"

	"github.com/paimon-pkft/pkft"
)

// Open commits nothing.
func openCommitUser(ctx context.Context) {
	_, _ = pkft.Open(ctx, "t", pkft.WithCommitUser("u"))
}
