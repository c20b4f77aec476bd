//go:build pkftmutation

package mutation

import "os"

// Enabled reports whether this build can activate mutations: true, it was built with the
// pkftmutation tag.
const Enabled = true

// On reports whether the mutation name is the one PKFT_MUTATION selects.
func On(name string) bool { return name != "" && os.Getenv(Env) == name }
