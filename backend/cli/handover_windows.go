//go:build windows

package cli

import "os/exec"

// ownProcessGroup does nothing on Windows: a console's Ctrl+C reaches
// every process attached to it, and Signal cannot pass one on.
func ownProcessGroup(*exec.Cmd) {}
