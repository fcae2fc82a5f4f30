//go:build !windows

package store

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// pidLive reports whether a process with this pid exists (signal 0: no
// signal is sent; EPERM means it exists but is another user's).
func pidLive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// procStat reads state (field 3) and starttime (field 22) from /proc;
// "", "" where there is no /proc (macOS).
func procStat(pid int) (state, start string) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", ""
	}
	// The command name (field 2) may hold spaces and parentheses; fields
	// after the last ')' are plain.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return "", ""
	}
	return f[0], f[19]
}
