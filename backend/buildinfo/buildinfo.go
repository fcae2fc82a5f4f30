// Package buildinfo holds the version and commit stamped into the binary
// at link time. scripts/version.sh makes the version from git (the tag,
// or 0.0.0~git<date>.<sha> for an untagged build); make passes both with
//
//	-ldflags "-X github.com/agentdeck/agentdeck/backend/buildinfo.Version=...
//	          -X github.com/agentdeck/agentdeck/backend/buildinfo.Commit=..."
//
// A plain `go build` leaves Version "dev" and takes the commit from the
// VCS stamp the Go toolchain records.
package buildinfo

import "runtime/debug"

// Version is the app's version; "dev" when not stamped.
var Version = "dev"

// Commit is the source's commit hash; "" when not stamped (Read then
// asks the Go toolchain's VCS stamp).
var Commit = ""

// Info describes the running binary.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"go_version"`
}

// Read returns the version, the commit and the Go version.
func Read() Info {
	info := Info{Version: Version, Commit: short(Commit)}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info.GoVersion = bi.GoVersion
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && info.Commit == "" {
				info.Commit = short(s.Value)
			}
		}
	}
	return info
}

// short is a commit hash's first 12 characters.
func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}
