package protocol

import (
	"fmt"
	"strings"
)

// Version is the version of the runner protocol, MAJOR.MINOR (compat/PROTOCOL.md, "Versions"):
// every runner answers ping with it as protocolVersion. A change a runner of the previous version
// cannot serve (a command or field it must answer differently) raises MAJOR; an addition every
// such runner still serves raises MINOR.
const Version = "1.0"

// VersionError is a runner that answers ping with a protocol version of another major version
// than Version, or with none.
type VersionError struct {
	Runner string
	// Got is the runner's protocolVersion, "" when its ping has none.
	Got string
}

func (e *VersionError) Error() string {
	want := major(Version)
	if e.Got == "" {
		return fmt.Sprintf("the %s runner's ping has no protocolVersion: this harness speaks protocol version %s, and a runner answers ping with protocolVersion %s.x (compat/PROTOCOL.md, \"Versions\")",
			e.Runner, Version, want)
	}
	return fmt.Sprintf("the %s runner speaks protocol version %s, this harness speaks protocol version %s: a runner must answer ping with protocolVersion %s.x (compat/PROTOCOL.md, \"Versions\")",
		e.Runner, e.Got, Version, want)
}

// CheckVersion tells whether the runner named runner, whose ping answered protocolVersion got,
// speaks this protocol: the major versions agree (any minor version does). Otherwise it returns a
// *VersionError naming the runner, its version and the expected one.
func CheckVersion(runner, got string) error {
	if got == "" || major(got) != major(Version) {
		return &VersionError{Runner: runner, Got: got}
	}
	return nil
}

// major returns the part of v before its first dot.
func major(v string) string {
	m, _, _ := strings.Cut(v, ".")
	return m
}
