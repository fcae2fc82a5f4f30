package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new" {
		t.Fatalf("read %q %v", got, err)
	}
	if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}

	// A folder that is not there: an error, the old file untouched, no
	// temporary file left behind.
	if err := Write(filepath.Join(dir, "missing", "x.yaml"), []byte("x"), 0o644); err == nil {
		t.Fatal("writing into a missing folder succeeded")
	}
	// A path that is a folder: the rename fails, the temporary file goes.
	if err := os.Mkdir(filepath.Join(dir, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "taken", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "taken"), []byte("x"), 0o644); err == nil {
		t.Fatal("writing over a folder succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("left in the folder: %v", names)
	}
}
