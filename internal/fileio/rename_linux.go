//go:build linux

package fileio

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace publishes src as dst and fails with ErrExists when dst is
// taken. renameat2(RENAME_NOREPLACE) does it in one atomic step; file systems
// without support for the flag fall back to link(2) + unlink(2).
func renameNoReplace(src, dst string) error {
	err := unix.Renameat2(unix.AT_FDCWD, src, unix.AT_FDCWD, dst, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST):
		return ErrExists
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.ENOTSUP):
		return linkAndUnlink(src, dst)
	default:
		return err
	}
}
