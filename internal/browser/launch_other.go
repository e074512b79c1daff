//go:build !unix

package browser

import "os/exec"

// ownGroup: no process groups here; Close ends the browser process only.
func ownGroup(cmd *exec.Cmd) {}

// signalGroup ends the browser process.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}

// groupAlive: the browser process is waited for; nothing else is known.
func groupAlive(cmd *exec.Cmd) bool { return false }
