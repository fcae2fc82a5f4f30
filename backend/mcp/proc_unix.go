//go:build unix

package mcp

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup puts a stdio server in a process group of its own, so
// that stopping it also stops what it started (npx runs node, uvx runs
// python), and a Ctrl-C meant for the CLI does not reach it before the
// Manager has closed it in order.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills the server and everything in its group. It is
// harmless when they are already gone.
func killProcessGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}
