package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"time"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/paths"
)

// ErrSnapshotExists reports that a commit lost the race for its snapshot id:
// snapshot-N already exists with other content. It wraps fileio.ErrExists.
var ErrSnapshotExists = fmt.Errorf("snapshot already exists: %w", fileio.ErrExists)

// Manager finds, reads and commits the snapshots of one table branch, like
// Java's SnapshotManager (file-system mode, without a catalog snapshot
// loader or cache).
type Manager struct {
	fio    fileio.FileIO
	root   string
	branch string
}

// NewManager returns the snapshot manager of a table; branch "" means main.
func NewManager(fio fileio.FileIO, tableRoot, branch string) *Manager {
	if paths.IsJavaWhitespaceOnly(branch) {
		branch = paths.MainBranch
	}
	return &Manager{fio: fio, root: tableRoot, branch: branch}
}

// Branch is the branch the manager works on.
func (m *Manager) Branch() string { return m.branch }

// Dir is the snapshot directory, {branch root}/snapshot.
func (m *Manager) Dir() string {
	return paths.SnapshotDirPath(paths.BranchPath(m.root, m.branch))
}

// Path is the file of snapshot id, {branch root}/snapshot/snapshot-ID.
func (m *Manager) Path(id int64) string {
	return paths.Join(m.Dir(), paths.SnapshotPrefix+strconv.FormatInt(id, 10))
}

// Snapshot reads snapshot id. A missing snapshot yields an error for which
// errors.Is(err, fs.ErrNotExist) holds.
func (m *Manager) Snapshot(ctx context.Context, id int64) (*Snapshot, error) {
	p := m.Path(id)
	data, err := m.fio.ReadFile(ctx, p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, m.missing(ctx, id, err)
		}
		return nil, fmt.Errorf("read snapshot %d: %w", id, err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("read snapshot %d from %s: %w", id, p, err)
	}
	if s.ID != id {
		return nil, fmt.Errorf("read snapshot %d from %s: the file records id %d, which disagrees with its name", id, p, s.ID)
	}
	return s, nil
}

// missingError is a snapshot that does not exist, said in the table's terms (expired, not yet
// committed); it unwraps to the file system's error.
type missingError struct {
	msg string
	err error
}

func (e *missingError) Error() string { return e.msg }
func (e *missingError) Unwrap() error { return e.err }

// missing explains why snapshot id, whose file read failed with err (not found), is not there:
// expired when it is below the earliest snapshot, not committed yet when above the latest.
func (m *Manager) missing(ctx context.Context, id int64, err error) error {
	if earliest, ok, e := m.EarliestID(ctx); e == nil && ok && id < earliest {
		return &missingError{fmt.Sprintf("snapshot %d has expired; the earliest is %d", id, earliest), err}
	}
	if latest, ok, e := m.LatestID(ctx); e == nil && ok && id > latest {
		return &missingError{fmt.Sprintf("snapshot %d does not exist; the latest is %d", id, latest), err}
	} else if e == nil && !ok {
		return &missingError{fmt.Sprintf("snapshot %d does not exist; the table has no snapshot", id), err}
	}
	return fmt.Errorf("read snapshot %d: %w", id, err)
}

// Exists reports whether snapshot id exists.
func (m *Manager) Exists(ctx context.Context, id int64) (bool, error) {
	ok, err := m.fio.Exists(ctx, m.Path(id))
	if err != nil {
		return false, fmt.Errorf("check snapshot %d: %w", id, err)
	}
	return ok, nil
}

// IDs lists the ids of all snapshot files, ascending. Names with the
// snapshot- prefix whose suffix is not a number are skipped (Java would fail
// on them).
func (m *Manager) IDs(ctx context.Context) ([]int64, error) {
	entries, err := m.fio.List(ctx, m.Dir())
	if err != nil {
		return nil, fmt.Errorf("list snapshots: %w", err)
	}
	var ids []int64
	for _, e := range entries {
		if id, ok := paths.ParseVersionedName(e.Name, paths.SnapshotPrefix); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// readHint reads a hint file (LATEST or EARLIEST). Like Java's
// HintFileUtils.readHint, any failure - missing file, I/O error, content
// that is not a long - means "no hint".
func (m *Manager) readHint(ctx context.Context, name string) (int64, bool) {
	data, err := m.fio.ReadFile(ctx, paths.Join(m.Dir(), name))
	if err != nil {
		return 0, false
	}
	// Java reads the file line by line and concatenates the lines, dropping
	// line terminators, then calls Long.parseLong.
	data = bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r"), nil), []byte("\n"), nil)
	v, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// LatestID returns the id of the latest snapshot, ok = false when the table
// has none. As in Java's HintFileUtils.findLatest, the LATEST hint is trusted
// when it is positive and the snapshot after it does not exist; otherwise the
// directory is listed.
func (m *Manager) LatestID(ctx context.Context) (id int64, ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return 0, false, fmt.Errorf("find latest snapshot: %w", err)
	}
	if hint, found := m.readHint(ctx, paths.LatestHint); found && hint > 0 {
		next, err := m.Exists(ctx, hint+1)
		if err != nil {
			return 0, false, fmt.Errorf("find latest snapshot: %w", err)
		}
		if !next {
			return hint, true, nil
		}
	}
	ids, err := m.IDs(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("find latest snapshot: %w", err)
	}
	if len(ids) == 0 {
		return 0, false, nil
	}
	return ids[len(ids)-1], true, nil
}

// EarliestID returns the id of the earliest snapshot, ok = false when the
// table has none. The EARLIEST hint is trusted when that snapshot exists;
// otherwise the directory is listed (HintFileUtils.findEarliest).
func (m *Manager) EarliestID(ctx context.Context) (id int64, ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return 0, false, fmt.Errorf("find earliest snapshot: %w", err)
	}
	if hint, found := m.readHint(ctx, paths.EarliestHint); found {
		exists, err := m.Exists(ctx, hint)
		if err != nil {
			return 0, false, fmt.Errorf("find earliest snapshot: %w", err)
		}
		if exists {
			return hint, true, nil
		}
	}
	ids, err := m.IDs(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("find earliest snapshot: %w", err)
	}
	if len(ids) == 0 {
		return 0, false, nil
	}
	return ids[0], true, nil
}

// Latest reads the latest snapshot; it returns nil, nil for a table without
// snapshots.
func (m *Manager) Latest(ctx context.Context) (*Snapshot, error) {
	id, ok, err := m.LatestID(ctx)
	if err != nil || !ok {
		return nil, err
	}
	return m.Snapshot(ctx, id)
}

// Commit publishes s as snapshot-{s.ID} without overwriting, then updates the
// LATEST hint. It returns an error wrapping ErrSnapshotExists (and so
// fileio.ErrExists) when another writer committed that id first; the caller
// may then retry with the next id. As in Java's RenamingSnapshotCommit, an
// existing file with exactly this snapshot's content counts as committed.
// Updating the hint is best effort: the snapshot is committed once the file
// is published, and a stale hint is corrected by LatestID's checks.
func (m *Manager) Commit(ctx context.Context, s *Snapshot) error {
	data, err := s.Marshal()
	if err != nil {
		return fmt.Errorf("commit snapshot %d: %w", s.ID, err)
	}
	p := m.Path(s.ID)
	if err := m.fio.WriteFileAtomic(ctx, p, data); err != nil {
		if !errors.Is(err, fileio.ErrExists) {
			return fmt.Errorf("commit snapshot %d: %w", s.ID, err)
		}
		existing, rerr := m.fio.ReadFile(ctx, p)
		if rerr != nil || !bytes.Equal(existing, data) {
			return fmt.Errorf("commit snapshot %d: %w", s.ID, ErrSnapshotExists)
		}
	}
	// Like HintFileUtils.commitHint, try the hint three times; a hint that still cannot be
	// written does not undo the commit.
	for attempt := 0; attempt < 3; attempt++ {
		if m.CommitLatestHint(ctx, s.ID) == nil {
			break
		}
		select {
		case <-time.After(time.Duration(attempt+1) * 100 * time.Millisecond):
		case <-ctx.Done():
			return nil
		}
	}
	return nil
}

// CommitLatestHint writes the LATEST hint.
func (m *Manager) CommitLatestHint(ctx context.Context, id int64) error {
	return m.commitHint(ctx, paths.LatestHint, id)
}

// CommitEarliestHint writes the EARLIEST hint.
func (m *Manager) CommitEarliestHint(ctx context.Context, id int64) error {
	return m.commitHint(ctx, paths.EarliestHint, id)
}

func (m *Manager) commitHint(ctx context.Context, name string, id int64) error {
	if err := m.fio.OverwriteFile(ctx, paths.Join(m.Dir(), name), []byte(strconv.FormatInt(id, 10))); err != nil {
		return fmt.Errorf("write %s hint %d: %w", name, id, err)
	}
	return nil
}
