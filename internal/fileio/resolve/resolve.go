// Package resolve picks the FileIO of a table path by its scheme: the local file system for
// plain paths and file: URIs, S3 (internal/fileio/s3io) for s3:// and s3a:// URIs. Any other scheme
// is refused by name.
package resolve

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fileio/s3io"
)

// knownSchemes are the schemes a path names without "//" (file:/tmp/t, hdfs:/t): pkft's and
// those of the other file systems Paimon reads, refused by name.
var knownSchemes = map[string]bool{"file": true, "s3": true, "s3a": true, "s3n": true, "hdfs": true, "viewfs": true,
	"oss": true, "gs": true, "abfs": true, "abfss": true, "wasb": true, "wasbs": true, "cosn": true, "obs": true, "jfs": true}

// scheme returns the URI scheme of p ("" for a plain path): a colon before the first slash,
// followed by "//" or after a scheme pkft knows. Any other colon is part of a local path
// (./2024-01-31T10:00, a:b): a path is not taken for a URI of an unknown scheme.
func scheme(p string) string {
	colon := strings.IndexByte(p, ':')
	slash := strings.IndexByte(p, '/')
	if colon < 0 || (slash >= 0 && slash < colon) {
		return ""
	}
	s := strings.ToLower(p[:colon])
	if strings.HasPrefix(p[colon+1:], "//") || knownSchemes[s] {
		return s
	}
	return ""
}

// LocalForm returns p, or, when p is a local path whose first component holds a colon (a:b,
// 2024-01-31T10:00/t) and so would read as a URI to the layers below, p made absolute.
func LocalForm(p string) string {
	colon := strings.IndexByte(p, ':')
	slash := strings.IndexByte(p, '/')
	if colon < 0 || (slash >= 0 && slash < colon) || scheme(p) != "" {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return "./" + p
}

// ForPath returns the FileIO for the table at path. opts are file-system options (the S3 ones:
// s3.endpoint, s3.access-key, ...; see s3io.LoadConfig); an option the chosen file system does
// not take is refused by name, so a local path given S3 options is an error rather than a silent
// no-op. getenv (os.Getenv when nil) supplies the AWS_* environment variables.
func ForPath(path string, opts map[string]string, getenv func(string) string) (fileio.FileIO, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	switch s := scheme(path); s {
	case "", "file":
		if len(opts) > 0 {
			keys := make([]string, 0, len(opts))
			for k := range opts {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return nil, fmt.Errorf("path %s is on the local file system, which takes no file-system options (got %s)", path, strings.Join(keys, ", "))
		}
		return fileio.NewLocal(), nil
	case "s3", "s3a":
		cfg, err := s3io.LoadConfig(opts, getenv)
		if err != nil {
			return nil, fmt.Errorf("path %s: %w", path, err)
		}
		return s3io.New(cfg), nil
	default:
		return nil, fmt.Errorf("path %s: scheme %q is not supported (pkft reads local paths, file:, s3:// and s3a://)", path, s)
	}
}
