//go:build !linux

package bench

import "os/exec"

// killWithParent does nothing where the kernel has no parent-death signal: the busy process
// checks its parent itself (spinChild).
func killWithParent(*exec.Cmd) {}
