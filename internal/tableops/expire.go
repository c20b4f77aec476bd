package tableops

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paimon-pkft/pkft/internal/expire"
	"github.com/paimon-pkft/pkft/internal/schema"
	"github.com/paimon-pkft/pkft/internal/table"
)

// ErrExpireAfterCommit reports that an operation's commit landed but the snapshot expiry Java's
// writer runs after it (TableCommitImpl#maintain) failed. What the commit published stays
// published; the next commit's expiry finishes the work.
var ErrExpireAfterCommit = errors.New("snapshot expiry after the commit failed")

// WithClock sets the clock the snapshot expiry after a commit reads (snapshot.time-retained is
// measured against it); default time.Now.
func WithClock(now func() time.Time) MaintainOption {
	return func(c *maintainConfig) { c.now = now }
}

// atCommitExpiry is the snapshot expiry an operation runs after its commit, resolved from the
// table's options before anything is written so that an option it cannot honour is refused
// first.
type atCommitExpiry struct {
	enabled bool
	cfg     expire.Config
	now     func() time.Time
}

// newAtCommitExpiry resolves the expiry of a writer of sch: none when write-only is set (as a
// table option or WithWriteOnly), else the table's retention options.
func newAtCommitExpiry(sch *schema.TableSchema, c maintainConfig) (*atCommitExpiry, error) {
	on, err := expire.AtCommit(sch.Options)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupportedTable, err)
	}
	cfg, err := expire.FromOptions(sch.Options)
	if _, ok := errors.AsType[*expire.RetentionError](err); ok {
		return nil, err // Java refuses it as well: no limitation of the Go writer
	} else if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupportedTable, err)
	}
	now := c.now
	if now == nil {
		now = time.Now
	}
	return &atCommitExpiry{enabled: on && !c.writeOnly, cfg: cfg, now: now}, nil
}

// run expires the table's snapshots after a commit; it returns the number expired.
func (x *atCommitExpiry) run(ctx context.Context, t *table.Table) (int, error) {
	if x == nil || !x.enabled {
		return 0, nil
	}
	res, err := expire.Expire(ctx, t, x.cfg, x.now().UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrExpireAfterCommit, err)
	}
	return res.Expired, nil
}
