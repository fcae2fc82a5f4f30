package storetest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// SmallDisk mounts a tmpfs of size (e.g. "8m") on a new temp folder and
// unmounts it when the test ends: a real file system that fills up, which
// is the only way to see the write-ahead log grow against a full disk. It
// needs root and a working mount; otherwise it returns "" and why not, and
// the test falls back to SQLite's page limit (store.DB.LimitPages).
func SmallDisk(t testing.TB, size string) (dir, whyNot string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return "", "not root"
	}
	dir = t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		return "", "mount failed: " + strings.TrimSpace(string(out)) + " (" + err.Error() + ")"
	}
	// Registered after TempDir's own cleanup, so it runs before it: the
	// folder is unmounted, then removed.
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("unmounting the small disk %s: %v %s", dir, err, out)
		}
	})
	return dir, ""
}
