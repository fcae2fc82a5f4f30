package store

import (
	"os"
	"strconv"
	"strings"
)

// Owner identifies the process that runs a turn. Several processes may use
// one database (the desktop app and a CLI run): a turn is "running" only
// while its owner lives. The start time guards against a reused pid.
type Owner struct {
	PID   int
	Start string
}

// CurrentOwner returns this process's identity.
func CurrentOwner() Owner { return OwnerOf(os.Getpid()) }

// OwnerOf returns the identity of the running process pid: its pid and
// start time (empty if it cannot be read, e.g. the process is gone).
func OwnerOf(pid int) Owner { return Owner{PID: pid, Start: processStart(pid)} }

// Alive reports whether the owner process still runs. A process that
// exited but is not yet reaped (a zombie) is gone, and so is a new
// process that reuses the pid (its start time differs). Where the start
// time cannot be read (not Linux), a live pid counts as alive.
func (o Owner) Alive() bool {
	if o.PID <= 0 {
		return false
	}
	if !pidLive(o.PID) {
		return false
	}
	state, start := procStat(o.PID)
	if state == "Z" || state == "X" {
		return false
	}
	if o.Start == "" {
		return true
	}
	return start == "" || start == o.Start
}

// processStart reads the process's start time (in clock ticks since boot);
// "" where /proc is not available.
func processStart(pid int) string {
	_, s := procStat(pid)
	return s
}

// procStat reads state (field 3) and starttime (field 22) from /proc.
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
