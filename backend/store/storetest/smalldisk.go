package storetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/store"
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

// FillDisk writes a file into dir that leaves about leave bytes free on its
// disk (a small disk from SmallDisk), as other programs filling it would.
// It returns the file, to delete when the space should come back.
func FillDisk(t testing.TB, dir string, leave int64) string {
	t.Helper()
	free, err := store.DiskFree(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for left := free - leave; left > 0; left -= int64(len(chunk)) {
		if _, err := f.Write(chunk[:min(int64(len(chunk)), left)]); err != nil {
			t.Fatalf("filling the disk to leave %d bytes: %v", leave, err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	return path
}
