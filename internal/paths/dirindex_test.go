package paths

import (
	"strings"
	"testing"
)

// A directory factory names distinct index-{uuid}-{N} files in its directory, counting from 0,
// and resolves recorded external paths as they are.
func TestDirIndexPathFactory(t *testing.T) {
	d := NewDirIndexPathFactory("/scratch")
	a, b := d.NewPath(), d.NewPath()
	if a == b || !strings.HasPrefix(a, "/scratch/index-") || !strings.HasSuffix(a, "-0") || !strings.HasSuffix(b, "-1") {
		t.Errorf("paths %q, %q", a, b)
	}
	if got := d.ToPathOf("index-x-0", ""); got != "/scratch/index-x-0" {
		t.Errorf("ToPathOf without external path = %q", got)
	}
	if got := d.ToPathOf("index-x-0", "/ext/index-x-0"); got != "/ext/index-x-0" {
		t.Errorf("ToPathOf with external path = %q", got)
	}
	if d.IsExternalPath() {
		t.Error("IsExternalPath = true")
	}
}
