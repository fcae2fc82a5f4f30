//go:build windows

package store

import "golang.org/x/sys/windows"

// DiskFree is the space the current user may still use on the volume that
// holds dir.
func DiskFree(dir string) (int64, error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, err
	}
	var avail, total, free uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &free); err != nil {
		return 0, err
	}
	return int64(avail), nil
}
