package store

import "os"

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
// time cannot be read (macOS), a live pid counts as alive. procStat is per
// platform: /proc on Linux, GetProcessTimes on Windows.
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

// processStart reads the process's start time (clock ticks since boot on
// Linux, the creation time on Windows); "" where it cannot be read.
func processStart(pid int) string {
	_, s := procStat(pid)
	return s
}
