//go:build !unix

package mcp

import (
	"os"
	"os/exec"
)

// ownProcessGroup is a no-op here. On Windows a job object would be the way
// to stop a server's own children too; until then only the server itself is
// killed.
func ownProcessGroup(*exec.Cmd) {}

// killProcessGroup kills the server. It is harmless when it is already gone.
func killProcessGroup(p *os.Process) {
	_ = p.Kill()
}
