// Package atomicfile writes files whole or not at all: through a synced
// temporary file in the same folder and a rename, so a reader, a crash or
// a full disk sees the old content or the new, never part of it.
//
// Rules: the temporary file is removed on every failure; the folder is
// synced after the rename where the platform allows it (not Windows,
// where the rename is atomic by itself).
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Write replaces path's content with data, with mode perm (ignored on
// Windows). The folder must exist.
func Write(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("creating a temporary file beside %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if runtime.GOOS != "windows" {
		if err = tmp.Chmod(perm); err != nil {
			return fmt.Errorf("setting the mode of %s: %w", tmp.Name(), err)
		}
	}
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", tmp.Name(), err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("renaming into %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// syncDir makes the rename durable where the platform allows it.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
