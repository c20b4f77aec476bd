//go:build compilefail_orphan_commituser

package compilefail

import (
	"context"

	"github.com/paimon-pkft/pkft"
)

// RemoveOrphanFiles commits nothing: a commit user would be ignored.
func orphanCommitUser(ctx context.Context, tbl *pkft.Table) {
	_, _ = tbl.RemoveOrphanFiles(ctx, pkft.WithCommitUser("x"))
}
