// Package expire expires the snapshots of a table as Paimon 2.0.0's writer does after each commit
// (ExpireSnapshotsImpl, SnapshotDeletion, FileDeletionBase) and as its expire_snapshots procedure
// does: it picks the snapshots to expire from the retention options, deletes the data files and
// changelog files that only they reference, then the manifests, index files, index manifests and
// statistics that no retained snapshot or tag references, then the snapshot files, and finally
// moves the EARLIEST hint. A kill at any point leaves every retained snapshot whole; the next
// expiry finishes the work.
package expire

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-pkft/pkft/internal/mergetree"
)

// The table options expiry reads (CoreOptions at release-2.0.0).
const (
	OptNumRetainedMin        = "snapshot.num-retained.min"
	OptNumRetainedMax        = "snapshot.num-retained.max"
	OptTimeRetained          = "snapshot.time-retained"
	OptExpireLimit           = "snapshot.expire.limit"
	OptCleanEmptyDirectories = "snapshot.clean-empty-directories"
	// OptCleanEmptyDirectoriesFallback is the deprecated key of snapshot.clean-empty-directories.
	OptCleanEmptyDirectoriesFallback = "snapshot.expire.clean-empty-directories"
	OptWriteOnly                     = "write-only"
	OptWriteOnlyFallback             = "write.compaction-skip"
	OptChangelogNumRetainedMin       = "changelog.num-retained.min"
	OptChangelogNumRetainedMax       = "changelog.num-retained.max"
	OptChangelogTimeRetained         = "changelog.time-retained"
)

// Defaults of Paimon 2.0.0.
const (
	DefaultRetainMin    = 10
	DefaultRetainMax    = math.MaxInt32
	DefaultTimeRetained = time.Hour
	DefaultMaxDeletes   = 50
)

// ErrDecoupledChangelog reports changelog retention options that decouple the changelog's
// lifecycle from the snapshots' (Java then keeps expired snapshots' changelog as long-lived
// changelog files through ExpireChangelogImpl, which pkft does not port).
var ErrDecoupledChangelog = errors.New("changelog lifecycle decoupled from snapshots (changelog.num-retained.*, changelog.time-retained) is not supported by pkft's snapshot expiry")

// RetentionError is a retention Java Paimon refuses as well: the table options
// SchemaValidation checks at creation and alteration, or a procedure's bounds ExpireSnapshotsImpl
// checks. It is not a limitation of pkft.
type RetentionError struct{ msg string }

func (e *RetentionError) Error() string { return e.msg }

// checkOptionBounds checks the retention options as Java's SchemaValidation does, in its order
// and with its messages: snapshot.num-retained.min at least 1 and not larger than
// snapshot.num-retained.max, then the same of the changelog's (each changelog option falling
// back to its snapshot counterpart, as CoreOptions#changelogNumRetainMin and Max do). c holds
// the snapshot retention read from opts.
func checkOptionBounds(opts map[string]string, c Config) error {
	val := func(key string, v int, fallback string) string {
		switch {
		case hasKey(opts, key):
			return fmt.Sprintf("%s is %d", key, v)
		case fallback != "" && hasKey(opts, fallback):
			return fmt.Sprintf("%s is %d, the value of %s it falls back to", key, v, fallback)
		case fallback != "":
			return fmt.Sprintf("%s is %d, the default of %s it falls back to", key, v, fallback)
		}
		return fmt.Sprintf("%s is %d, its default", key, v)
	}
	atLeastOne := func(key string, v int, fallback string) error {
		return &RetentionError{fmt.Sprintf("%s should be at least 1 (%s); Java Paimon's SchemaValidation refuses it too",
			key, val(key, v, fallback))}
	}
	notLarger := func(minKey string, lo int, minFallback, maxKey string, hi int, maxFallback string) error {
		fix := fmt.Sprintf("set %s to at most %d as well", minKey, hi)
		if hi < 1 {
			// The minimum cannot follow: it must be at least 1.
			fix = fmt.Sprintf("%s must be at least 1, since %s must be", maxKey, minKey)
		}
		return &RetentionError{fmt.Sprintf("%s should not be larger than %s (%s, %s); Java Paimon's SchemaValidation refuses it too: %s",
			minKey, maxKey, val(minKey, lo, minFallback), val(maxKey, hi, maxFallback), fix)}
	}
	if c.RetainMin < 1 {
		return atLeastOne(OptNumRetainedMin, c.RetainMin, "")
	}
	if c.RetainMin > c.RetainMax {
		return notLarger(OptNumRetainedMin, c.RetainMin, "", OptNumRetainedMax, c.RetainMax, "")
	}
	changelogMin, changelogMax := c.RetainMin, c.RetainMax
	var err error
	if v, ok := opts[OptChangelogNumRetainedMin]; ok {
		if changelogMin, err = parseInt(OptChangelogNumRetainedMin, v); err != nil {
			return err
		}
	}
	if v, ok := opts[OptChangelogNumRetainedMax]; ok {
		if changelogMax, err = parseInt(OptChangelogNumRetainedMax, v); err != nil {
			return err
		}
	}
	if changelogMin < 1 {
		return atLeastOne(OptChangelogNumRetainedMin, changelogMin, OptNumRetainedMin)
	}
	if changelogMin > changelogMax {
		return notLarger(OptChangelogNumRetainedMin, changelogMin, OptNumRetainedMin, OptChangelogNumRetainedMax, changelogMax, OptNumRetainedMax)
	}
	return nil
}

// Config is what one expiry keeps (Java's ExpireConfig, snapshot half).
type Config struct {
	// RetainMin is the fewest snapshots kept (snapshot.num-retained.min); at least 1.
	RetainMin int
	// RetainMax is the most snapshots kept (snapshot.num-retained.max); at least RetainMin.
	RetainMax int
	// TimeRetained keeps every snapshot whose successor is younger (snapshot.time-retained).
	TimeRetained time.Duration
	// MaxDeletes is the most snapshots expired at a time (snapshot.expire.limit); at least 1.
	MaxDeletes int
	// CleanEmptyDirectories deletes the bucket and partition directories left empty
	// (snapshot.clean-empty-directories).
	CleanEmptyDirectories bool
}

// DefaultConfig is Paimon 2.0.0's default retention.
func DefaultConfig() Config {
	return Config{RetainMin: DefaultRetainMin, RetainMax: DefaultRetainMax, TimeRetained: DefaultTimeRetained, MaxDeletes: DefaultMaxDeletes}
}

// Validate checks the bounds Java's options and ExpireSnapshotsImpl check.
func (c Config) Validate() error {
	if c.RetainMin < 1 {
		return fmt.Errorf("%s must be at least 1, got %d", OptNumRetainedMin, c.RetainMin)
	}
	if c.RetainMax < c.RetainMin {
		return &RetentionError{fmt.Sprintf("retain max %d is less than retain min %d; Java Paimon refuses it too (retainMax (%d) must not be less than retainMin (%d))",
			c.RetainMax, c.RetainMin, c.RetainMax, c.RetainMin)}
	}
	if c.MaxDeletes < 1 {
		return fmt.Errorf("%s must be at least 1, got %d", OptExpireLimit, c.MaxDeletes)
	}
	if c.TimeRetained < 0 {
		return fmt.Errorf("%s must not be negative, got %s", OptTimeRetained, c.TimeRetained)
	}
	return nil
}

// AtCommit reports whether a writer expires snapshots after its commits: not when write-only is
// true (Java's newExpireRunnable returns null then).
func AtCommit(opts map[string]string) (bool, error) {
	v, ok := opts[OptWriteOnly]
	if !ok {
		v, ok = opts[OptWriteOnlyFallback]
	}
	if !ok {
		return true, nil
	}
	b, err := parseBool(OptWriteOnly, v)
	return !b, err
}

// FromOptions reads the retention of a table's options with Paimon's defaults and fallback keys.
// Changelog retention options that decouple the changelog from the snapshots are refused with
// ErrDecoupledChangelog, naming them.
func FromOptions(opts map[string]string) (Config, error) {
	c := DefaultConfig()
	var err error
	if v, ok := opts[OptNumRetainedMin]; ok {
		if c.RetainMin, err = parseInt(OptNumRetainedMin, v); err != nil {
			return c, err
		}
	}
	if v, ok := opts[OptNumRetainedMax]; ok {
		if c.RetainMax, err = parseInt(OptNumRetainedMax, v); err != nil {
			return c, err
		}
	}
	if v, ok := opts[OptTimeRetained]; ok {
		ms, err := mergetree.ParseDurationMillis(v)
		if err != nil {
			return c, fmt.Errorf("option %s: %w", OptTimeRetained, err)
		}
		c.TimeRetained = time.Duration(ms) * time.Millisecond
	}
	if v, ok := opts[OptExpireLimit]; ok {
		if c.MaxDeletes, err = parseInt(OptExpireLimit, v); err != nil {
			return c, err
		}
	}
	v, ok := opts[OptCleanEmptyDirectories]
	if !ok {
		v, ok = opts[OptCleanEmptyDirectoriesFallback]
	}
	if ok {
		if c.CleanEmptyDirectories, err = parseBool(OptCleanEmptyDirectories, v); err != nil {
			return c, err
		}
	}
	if err := checkOptionBounds(opts, c); err != nil {
		return c, err
	}
	if err := checkChangelogCoupled(opts, c); err != nil {
		return c, err
	}
	return c, c.Validate()
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// checkChangelogCoupled refuses what CoreOptions#changelogLifecycleDecoupled calls decoupled: a
// changelog retention above the snapshot retention (each changelog option defaults to its
// snapshot counterpart).
func checkChangelogCoupled(opts map[string]string, c Config) error {
	var bad []string
	if v, ok := opts[OptChangelogNumRetainedMax]; ok {
		n, err := parseInt(OptChangelogNumRetainedMax, v)
		if err != nil {
			return err
		}
		if n > c.RetainMax {
			bad = append(bad, OptChangelogNumRetainedMax+"="+v)
		}
	}
	if v, ok := opts[OptChangelogNumRetainedMin]; ok {
		n, err := parseInt(OptChangelogNumRetainedMin, v)
		if err != nil {
			return err
		}
		if n > c.RetainMin {
			bad = append(bad, OptChangelogNumRetainedMin+"="+v)
		}
	}
	if v, ok := opts[OptChangelogTimeRetained]; ok {
		ms, err := mergetree.ParseDurationMillis(v)
		if err != nil {
			return fmt.Errorf("option %s: %w", OptChangelogTimeRetained, err)
		}
		if time.Duration(ms)*time.Millisecond > c.TimeRetained {
			bad = append(bad, OptChangelogTimeRetained+"="+v)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: %s", ErrDecoupledChangelog, strings.Join(bad, ", "))
	}
	return nil
}

func parseInt(key, v string) (int, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("option %s: cannot parse %q as an integer", key, v)
	}
	return int(n), nil
}

func parseBool(key, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("option %s: cannot parse %q as a boolean", key, v)
}
