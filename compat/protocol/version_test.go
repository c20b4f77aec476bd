package protocol

import (
	"errors"
	"strings"
	"testing"
)

// A runner of the same major version passes, whatever its minor version; one of another major
// version, or with none, is a *VersionError naming the runner, its version and the expected one.
func TestCheckVersion(t *testing.T) {
	for _, ok := range []string{Version, "1.0", "1.7", "1.12"} {
		if err := CheckVersion("cpp", ok); err != nil {
			t.Errorf("CheckVersion(%q): %v, want nil", ok, err)
		}
	}
	for _, got := range []string{"2.0", "0.9", "10.0", "", "1x"} {
		err := CheckVersion("cpp", got)
		var ve *VersionError
		if !errors.As(err, &ve) || ve.Runner != "cpp" || ve.Got != got {
			t.Fatalf("CheckVersion(%q): %v, want a VersionError of runner cpp", got, err)
		}
		msg := err.Error()
		for _, want := range []string{"the cpp runner", "speaks protocol version " + Version, "protocolVersion 1.x"} {
			if !strings.Contains(msg, want) {
				t.Errorf("CheckVersion(%q): %q does not say %q", got, msg, want)
			}
		}
		if got != "" && !strings.Contains(msg, "speaks protocol version "+got+",") {
			t.Errorf("CheckVersion(%q): %q does not name the runner's version", got, msg)
		}
	}
}
