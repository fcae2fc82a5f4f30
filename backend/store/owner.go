package store

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Owner identifies the process that runs a turn. Several processes may use
// one database (the desktop app and a CLI run): a turn is "running" only
// while its owner lives. The start time guards against a reused pid.
type Owner struct {
	PID   int
	Start string
}

// CurrentOwner returns this process's identity.
func CurrentOwner() Owner {
	pid := os.Getpid()
	return Owner{PID: pid, Start: processStart(pid)}
}

// alive reports whether the owner process still runs. Where the start time
// cannot be read (not Linux), a live pid counts as alive.
func (o Owner) alive() bool {
	if o.PID <= 0 {
		return false
	}
	if err := syscall.Kill(o.PID, 0); err != nil && err != syscall.EPERM {
		return false
	}
	if o.Start == "" {
		return true
	}
	now := processStart(o.PID)
	return now == "" || now == o.Start
}

// processStart reads the process's start time (in clock ticks since boot)
// from /proc; "" where /proc is not available.
func processStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) may hold spaces and parentheses; fields
	// after the last ')' are plain. starttime is field 22.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}
