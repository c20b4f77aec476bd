package paths

import (
	"fmt"
	"strings"
)

// CheckFileName rejects a file name recorded in table metadata (a manifest, manifest list, index
// manifest, data file, extra file, index file or statistics file name) that is not a single path
// component in its directory: empty, ".", "..", or containing a path separator, a NUL byte or a
// scheme. Such a name would resolve outside the directory it is recorded for (for example
// "../../etc/x" or "/tmp/x"), so a reader must refuse it before opening or deleting anything.
// what names the kind of file for the error message.
func CheckFileName(what, name string) error {
	bad := ""
	switch {
	case name == "":
		bad = "is empty"
	case name == "." || name == "..":
		bad = "is a relative directory reference"
	case strings.ContainsAny(name, "/\\"):
		bad = "contains a path separator"
	case strings.IndexByte(name, 0) >= 0:
		bad = "contains a NUL byte"
	case strings.Contains(name, ":"):
		// Java's Path would parse "x:..." as a URI with a scheme; a recorded name never has one.
		bad = "contains a scheme separator ':'"
	}
	if bad == "" {
		return nil
	}
	return fmt.Errorf("%s name %q %s: it would resolve outside its directory in the table", what, name, bad)
}
