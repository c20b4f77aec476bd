package fileio

import (
	"errors"
	"io/fs"
	"os"
)

// linkAndUnlink creates dst as a hard link of src (which fails if dst exists)
// and then removes src. Only regular files can be published this way.
func linkAndUnlink(src, dst string) error {
	if err := os.Link(src, dst); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ErrExists
		}
		return err
	}
	if err := os.Remove(src); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
