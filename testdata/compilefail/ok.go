// Package compilefail holds calls that must not compile: each file under a build tag passes an
// operation an option of another (TestOptionsOfOtherOperationsDoNotCompile builds each). This
// file, built without tags, shows every operation taking the options it does honour.
package compilefail

import (
	"context"
	"time"

	"github.com/paimon-pkft/pkft"
)

func honoured(ctx context.Context, tbl *pkft.Table) {
	_, _ = pkft.Open(ctx, "t", pkft.WithEngineLibrary("lib.so"))
	_, _ = tbl.Maintain(ctx, pkft.WithDryRun(true), pkft.WithPartition(nil), pkft.WithBucket(0),
		pkft.WithParallelism(1), pkft.WithProgress(nil), pkft.WithCommitUser("u"))
	_, _ = tbl.Compact(ctx, pkft.WithPartition(nil), pkft.WithBucket(0), pkft.WithParallelism(1),
		pkft.WithProgress(nil), pkft.WithCommitUser("u"))
	_, _ = tbl.NewWriter(ctx, pkft.WithCommitUser("u"))
	_, _ = tbl.Search(ctx, "q", pkft.WithColumn("c"), pkft.WithLimit(1), pkft.WithSnapshot(1),
		pkft.WithPartition(nil), pkft.WithParallelism(1))
	_, _ = tbl.RemoveOrphanFiles(ctx, pkft.WithOlderThan(time.Time{}), pkft.WithDryRun(true), pkft.WithParallelism(1))
}
