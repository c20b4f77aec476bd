//go:build !pkftmutation

package mutation

// Enabled reports whether this build can activate mutations: false, it was built without the
// pkftmutation tag.
const Enabled = false

// On reports whether the mutation name is active: never, in a build without the pkftmutation
// tag.
func On(name string) bool { return false }
