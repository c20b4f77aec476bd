// Package testenv decides, for tests, whether the pieces outside Go (the native engine, the Java
// runner) are present, and whether their absence is a skip or a failure. make test sets
// PKFT_REQUIRE_NATIVE=1 and PKFT_REQUIRE_JAVA=1, turning every such skip into a failure.
package testenv

import (
	"os"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fulltext/native"
)

// RequireNativeEnv, RequireJavaEnv and RequirePypaimonEnv name the variables that make a missing
// piece a failure: the native engine, the Java runner, and the pypaimon environment
// (.cache/pypaimon-venv, made by make pypaimon-env) of the pypaimon table runner.
const (
	RequireNativeEnv   = "PKFT_REQUIRE_NATIVE"
	RequireJavaEnv     = "PKFT_REQUIRE_JAVA"
	RequirePypaimonEnv = "PKFT_REQUIRE_PYPAIMON"
	// RequireRustEnv covers the paimon-rust consumer runner (make rust-runner).
	RequireRustEnv = "PKFT_REQUIRE_RUST"
	// RequireGoEnv covers pkft's own runner of the protocol (compat/go, make go-runner).
	RequireGoEnv = "PKFT_REQUIRE_GO"
	// RequireJavaFullTextEnv covers what needs Java's full-text engine (Paimon's full-text
	// indexer and its native library) inside the Java runner.
	RequireJavaFullTextEnv = "PKFT_REQUIRE_JAVA_FULLTEXT"
)

// Required reports whether the variable env is set to 1.
func Required(env string) bool { return os.Getenv(env) == "1" }

// Native loads the engine library for a test. When it is missing the test is skipped with the
// loader's message, or failed with it when PKFT_REQUIRE_NATIVE=1.
func Native(t testing.TB) *native.Library {
	t.Helper()
	lib, err := native.Load(t.Context(), "")
	if err != nil {
		Missing(t, RequireNativeEnv, err.Error())
	}
	return lib
}

// Missing skips t, printing why, or fails it when the variable env requires the piece.
func Missing(t testing.TB, env, why string) {
	t.Helper()
	if Required(env) {
		t.Fatalf("%s (%s=1 makes this a failure)", why, env)
	}
	t.Skipf("skipped: %s (set %s=1 to make this a failure)", why, env)
}
