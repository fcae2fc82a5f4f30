package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRootHoldsWithoutTheCheck skips the check, as a link swapped in after
// it would, and expects os.Root to refuse on its own.
func TestRootHoldsWithoutTheCheck(t *testing.T) {
	base := t.TempDir()
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, dest := range map[string]string{"up": "../outside", "etc": "/etc"} {
		if err := os.Symlink(dest, filepath.Join(ws, name)); err != nil {
			t.Skipf("symlinks are not available: %v", err)
		}
	}
	w, err := New(ws, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	unchecked := func(p string) target { return target{name: p, real: p} }

	tests := []struct {
		name string
		run  func() (string, error)
	}{
		{"read via relative link", func() (string, error) {
			return w.read(ctx, "up/secret.txt", unchecked("up/secret.txt"), lineRange{start: 1})
		}},
		{"read via absolute link", func() (string, error) {
			return w.read(ctx, "etc/hostname", unchecked("etc/hostname"), lineRange{start: 1})
		}},
		{"list via link", func() (string, error) {
			return w.list(ctx, "up", unchecked("up"), false, "")
		}},
		{"write via link", func() (string, error) {
			return w.write(ctx, "up/new.txt", unchecked("up/new.txt"), []byte("x"), false)
		}},
		{"overwrite via link", func() (string, error) {
			return w.write(ctx, "up/secret.txt", unchecked("up/secret.txt"), []byte("x"), true)
		}},
		{"parent", func() (string, error) {
			return w.read(ctx, "../outside/secret.txt", unchecked("../outside/secret.txt"), lineRange{start: 1})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.run()
			var r *RefusedError
			if !errors.As(err, &r) || !strings.Contains(r.Reason, "leads outside the workspace") {
				t.Fatalf("got %q, %v; want a refusal from os.Root", out, err)
			}
		})
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("outside holds %d entries, want only secret.txt", len(entries))
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(got) != "secret\n" {
		t.Errorf("secret.txt = %q; it must not change", got)
	}
}

func TestByteSize(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"},
		{1023, "1023 bytes"},
		{1024, "1 KiB"},
		{1536, "1.5 KiB"},
		{256 << 10, "256 KiB"},
		{1 << 20, "1 MiB"},
		{3 << 30, "3 GiB"},
	}
	for _, tt := range tests {
		if got := byteSize(tt.n); got != tt.want {
			t.Errorf("byteSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
