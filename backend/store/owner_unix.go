//go:build !windows

package store

import "syscall"

// pidLive reports whether a process with this pid exists (signal 0: no
// signal is sent; EPERM means it exists but is another user's).
func pidLive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
