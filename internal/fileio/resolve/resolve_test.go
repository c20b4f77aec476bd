package resolve

import (
	"strings"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/fileio/s3io"
)

func TestForPath(t *testing.T) {
	for _, p := range []string{"/tmp/t", "rel/t", "file:/tmp/t", "file:///tmp/t", "FILE:/tmp/t"} {
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
