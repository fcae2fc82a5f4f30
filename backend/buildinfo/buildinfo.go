// Package buildinfo holds the version stamped into the binary at link time.
package buildinfo

import "runtime/debug"

// Version is set with -ldflags "-X github.com/agentdeck/agentdeck/backend/buildinfo.Version=...".
var Version = "dev"

// Info describes the running binary.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"go_version"`
}

// Read returns the version and the VCS revision recorded by the Go toolchain.
func Read() Info {
	info := Info{Version: Version}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info.GoVersion = bi.GoVersion
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				info.Commit = s.Value[:12]
			}
		}
	}
	return info
}
