//go:build unix

package browser

import (
	"errors"
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so that Close ends
// the browser and every process it started, and a terminal's Ctrl-C
// reaches wgpu-prof, which then closes it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends SIGTERM (kill: SIGKILL) to cmd's process group.
func signalGroup(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, sig)
	}
}

// groupAlive reports whether a process of cmd's group is left.
func groupAlive(cmd *exec.Cmd) bool {
	return cmd.Process != nil && !errors.Is(syscall.Kill(-cmd.Process.Pid, 0), syscall.ESRCH)
}
