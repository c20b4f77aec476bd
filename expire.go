package pkft

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paimon-pkft/pkft/internal/expire"
	"github.com/paimon-pkft/pkft/internal/tableops"
)

// ErrExpireAfterCommit reports that an operation's commit landed but the snapshot expiry that
// follows every commit (as Java's writer expires snapshots after its commits) failed. What was
// committed stays committed; the next commit's expiry finishes the work. [Writer.Commit] returns
// its result with this error.
var ErrExpireAfterCommit = tableops.ErrExpireAfterCommit

// ExpireOption configures [Table.ExpireSnapshots].
type ExpireOption interface{ applyExpire(*expireConfig) }

type expireConfig struct {
	retainMax, retainMin, maxDeletes *int
	olderThan                        *time.Time
	now                              func() time.Time
}

type expireOptionFunc func(*expireConfig)

func (f expireOptionFunc) applyExpire(c *expireConfig) { f(c) }

// WithRetainMax keeps at most n snapshots (default: the table's snapshot.num-retained.max).
func WithRetainMax(n int) ExpireOption {
	return expireOptionFunc(func(c *expireConfig) { c.retainMax = &n })
}

// WithRetainMin keeps at least n snapshots (default: the table's snapshot.num-retained.min).
func WithRetainMin(n int) ExpireOption {
	return expireOptionFunc(func(c *expireConfig) { c.retainMin = &n })
}

// WithMaxDeletes expires at most n snapshots in this call (default: the table's
// snapshot.expire.limit).
func WithMaxDeletes(n int) ExpireOption {
	return expireOptionFunc(func(c *expireConfig) { c.maxDeletes = &n })
}

// WithExpireClock sets the clock the default time window (snapshot.time-retained before now) is
// measured against; default time.Now.
func WithExpireClock(now func() time.Time) ExpireOption {
	return expireOptionFunc(func(c *expireConfig) { c.now = now })
}

// ExpireResult is the outcome of [Table.ExpireSnapshots].
type ExpireResult struct {
	// Expired is the number of snapshots expired (the result of Paimon's expire_snapshots).
	Expired int `json:"expired"`
	// EarliestSnapshotID is the earliest snapshot left, 0 when nothing expired.
	EarliestSnapshotID int64 `json:"earliestSnapshotId,omitempty"`
}

// ExpireSnapshots expires the table's snapshots as Paimon's expire_snapshots procedure does:
// the retention of the table's options (snapshot.num-retained.min and .max,
// snapshot.time-retained, snapshot.expire.limit, snapshot.clean-empty-directories), each
// overridden by its option, with the snapshots that tags hold and that consumers still read
// protected. It deletes the data, changelog, deletion-vector and index files, manifests and
// statistics only expired snapshots reference, then the snapshot files, and moves the EARLIEST
// hint. A bound out of range (retain min below 1, retain max below retain min, max deletes
// below 1) and a changelog lifecycle decoupled from the snapshots are refused before anything is
// deleted.
func (t *Table) ExpireSnapshots(ctx context.Context, opts ...ExpireOption) (*ExpireResult, error) {
	var c expireConfig
	for _, o := range opts {
		if o != nil {
			o.applyExpire(&c)
		}
	}
	s, err := t.latestSchema(ctx)
	if err != nil {
		return nil, err
	}
	cfg, err := expire.FromOptions(s.Options)
	if err != nil {
		return nil, fmt.Errorf("expire snapshots of %s: %w", t.path, err)
	}
	if c.retainMax != nil {
		cfg.RetainMax = *c.retainMax
	}
	if c.retainMin != nil {
		cfg.RetainMin = *c.retainMin
	}
	if c.maxDeletes != nil {
		cfg.MaxDeletes = *c.maxDeletes
	}
	now := time.Now
	if c.now != nil {
		now = c.now
	}
	nowMillis := now().UnixMilli()
	if c.olderThan != nil {
		cfg.TimeRetained = 0
		nowMillis = c.olderThan.UnixMilli()
	}
	if cfg.RetainMax < cfg.RetainMin && cfg.RetainMin >= 1 {
		from := "the table's " + expire.OptNumRetainedMin
		if c.retainMin != nil {
			from = "given"
		} else if _, set := s.Options[expire.OptNumRetainedMin]; !set {
			from = "the default of " + expire.OptNumRetainedMin
		}
		return nil, fmt.Errorf("expire snapshots of %s: retain max %d is less than retain min %d (%s): Java Paimon's expire_snapshots refuses this too (retainMax must not be less than retainMin); give a retain min of at most %d as well (WithRetainMin; pkft expire-snapshots --retain-min)",
			t.path, cfg.RetainMax, cfg.RetainMin, from, cfg.RetainMax)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("expire snapshots of %s: %w", t.path, err)
	}
	res, err := expire.Expire(ctx, t.t, cfg, nowMillis)
	if err != nil {
		return nil, fmt.Errorf("expire snapshots of %s: %w", t.path, err)
	}
	out := &ExpireResult{Expired: res.Expired}
	if res.Expired > 0 {
		out.EarliestSnapshotID = res.EndExclusive
	}
	return out, nil
}

// errorsIsExpire reports whether err is an expiry failure after a landed commit.
func errorsIsExpire(err error) bool { return errors.Is(err, tableops.ErrExpireAfterCommit) }
