package runner

import (
	"slices"
	"testing"
)

// TestJavaFlags checks the runner's JVM compiles with C1 alone unless the optimizing compiler is
// asked for (the bench's measurements of Java's steady state).
func TestJavaFlags(t *testing.T) {
	if got := javaFlags(nil); !slices.Equal(got, []string{"-XX:TieredStopAtLevel=1"}) {
		t.Errorf("default JVM flags %v, want C1 only", got)
	}
	if got := javaFlags([]JavaOption{WithOptimizingJIT()}); len(got) != 0 {
		t.Errorf("JVM flags with the optimizing JIT %v, want none (the JVM's tiered default)", got)
	}
}
