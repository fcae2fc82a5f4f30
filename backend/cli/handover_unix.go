//go:build !windows

package cli

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup keeps a terminal's Ctrl+C from reaching the command
// as well as this process, which passes it on once.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
