// Package mutation seeds the faults of the conformance gate's mutation catalogue
// (compat/mutations): each named mutation breaks one rule of the maintainer the way a port could
// break it, so that `make mutations` can measure whether the conformance cases catch it.
//
// The broken behaviour exists only in a build with the tag pkftmutation, and only the mutation
// the environment variable PKFT_MUTATION names is active. In every other build [On] is a constant
// false, so the compiler removes the mutated branches: a normal build has no mutation.
package mutation

// Env is the environment variable that selects the active mutation in a pkftmutation build.
const Env = "PKFT_MUTATION"
