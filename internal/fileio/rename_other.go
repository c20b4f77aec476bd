//go:build !linux

package fileio

// renameNoReplace publishes src as dst and fails with ErrExists when dst is
// taken, using link(2) + unlink(2).
func renameNoReplace(src, dst string) error {
	return linkAndUnlink(src, dst)
}
