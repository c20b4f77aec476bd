package runner

import (
	"fmt"
	"testing"
)

// goRunner returns the runner of implementation go (compat/go; PKFT_IMPL_GO replaces it), through
// which the writer, compactor and maintainer cases run Go as they would run any other
// implementation's runner. Its supports file must declare cmds. A missing built-in runner is
// unavailable: a skip, or a failure under PKFT_REQUIRE_GO=1.
func goRunner(t *testing.T, runners map[string]*implRunner, cmds ...string) (*Process, error) {
	r := runners[GoName]
	if r == nil {
		return nil, fmt.Errorf("no implementation %s among the implementations (Builtins in impls.go)", GoName)
	}
	for _, c := range cmds {
		if !r.impl.Supports.Commands[c] {
			return nil, fmt.Errorf("%s does not declare command %s", r.impl.Supports.Path, c)
		}
	}
	return r.get(t)
}
