package bench

import (
	"os/exec"
	"syscall"
)

// killWithParent has the kernel kill cmd's process when the bench dies.
func killWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
