package commit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/paimon-pkft/pkft/internal/snapshot"
	"github.com/paimon-pkft/pkft/internal/table"
)

// publishSnapshot publishes next without overwriting. It returns false, nil when another writer
// took the snapshot id first. When publication fails otherwise (for example a link+unlink
// publication whose link landed but whose unlink failed), it re-reads snapshot-N to learn whether
// next landed anyway; if that cannot be established it returns an UncertainCommitError, and the
// caller must not delete anything next references.
func publishSnapshot(ctx context.Context, t *table.Table, next *snapshot.Snapshot) (bool, error) {
	err := t.Snapshots.Commit(ctx, next)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, snapshot.ErrSnapshotExists) {
		return false, nil
	}
	landed, rerr := t.Snapshots.Snapshot(context.WithoutCancel(ctx), next.ID)
	switch {
	case rerr == nil && landed.UUID != nil && next.UUID != nil && *landed.UUID == *next.UUID:
		_ = t.Snapshots.CommitLatestHint(ctx, next.ID) // best effort, as after any commit
		return true, nil
	case rerr == nil:
		return false, nil
	case errors.Is(rerr, fs.ErrNotExist):
		return false, fmt.Errorf("commit snapshot %d: %w", next.ID, err)
	default:
		return false, &UncertainCommitError{ID: next.ID, Err: errors.Join(err, rerr)}
	}
}
