//go:build !linux

package app

// releaseStartPages does nothing where the binary's pages are not
// released (trim_linux.go says why Linux does it).
func releaseStartPages() (int, error) { return 0, nil }
