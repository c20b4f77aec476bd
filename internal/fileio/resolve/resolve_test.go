package resolve

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fileio/s3io"
)

func TestForPath(t *testing.T) {
	for _, p := range []string{"/tmp/t", "rel/t", "file:/tmp/t", "file:///tmp/t", "FILE:/tmp/t", "a:b", "2024-01-31T10:00/t", "x:y:z"} {
		fio, err := ForPath(p, nil, nil)
		if _, ok := fio.(fileio.Local); err != nil || !ok {
			t.Errorf("ForPath(%q) = %T, %v; want the local FileIO", p, fio, err)
		}
	}
	env := func(k string) string { return map[string]string{"AWS_ENDPOINT_URL": "http://127.0.0.1:9"}[k] }
	for _, p := range []string{"s3://b/t", "s3a://b/t", "S3A://b/t"} {
		fio, err := ForPath(p, map[string]string{"s3.access-key": "a", "s3.secret-key": "b"}, env)
		if _, ok := fio.(*s3io.FS); err != nil || !ok {
			t.Errorf("ForPath(%q) = %T, %v; want the S3 FileIO", p, fio, err)
		}
	}
	for p, want := range map[string]string{
		"gs://b/t":  `scheme "gs" is not supported`,
		"hdfs:/t":   `scheme "hdfs" is not supported`,
		"gs:b/t":    `scheme "gs" is not supported`,
		"abc://b/t": `scheme "abc" is not supported`,
		"s3://b/t?": "",
	} {
		_, err := ForPath(p, nil, env)
		if want == "" {
			if err != nil {
				t.Errorf("ForPath(%q): %v", p, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ForPath(%q): %v, want %q", p, err, want)
		}
	}
}

// TestLocalForm: a local path whose first component holds a colon is made absolute (so no
// layer takes the colon for a scheme's); URIs and other paths are kept as they are.
func TestLocalForm(t *testing.T) {
	for _, p := range []string{"/tmp/a:b", "rel/a:b", "file:/tmp/t", "s3://b/t", "hdfs:/t", "gs://b/t"} {
		if got := LocalForm(p); got != p {
			t.Errorf("LocalForm(%q) = %q, want it unchanged", p, got)
		}
	}
	for _, p := range []string{"a:b", "2024-01-31T10:00/t"} {
		got := LocalForm(p)
		if !filepath.IsAbs(got) || !strings.HasSuffix(got, "/"+p) {
			t.Errorf("LocalForm(%q) = %q, want it absolute", p, got)
		}
	}
}
