package secrets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

func TestFileRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "nested", "deeper", "secrets.json")
	s := NewFile(path)

	if _, err := s.Get(ctx, "provider/openai"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get before any Set = %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx, "provider/openai"); err != nil {
		t.Fatalf("Delete of an absent secret: %v", err)
	}
	steps := []struct{ ref, secret string }{
		{"provider/openai", "sk-first"},
		{"provider/groq", "gsk_second"},
		{"provider/openai", "sk-replaced \"quoted\" ünïcode\n"},
	}
	for _, st := range steps {
		if err := s.Set(ctx, st.ref, st.secret); err != nil {
			t.Fatalf("Set(%q): %v", st.ref, err)
		}
	}
	// A second store on the same file sees what the first wrote.
	s2 := NewFile(path)
	for ref, want := range map[string]string{"provider/openai": steps[2].secret, "provider/groq": "gsk_second"} {
		got, err := s2.Get(ctx, ref)
		if err != nil || got != want {
			t.Errorf("Get(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
	if err := s2.Delete(ctx, "provider/openai"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Get(ctx, "provider/openai")
	if !errors.Is(err, ErrNotFound) || apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("Get after Delete = %v, want ErrNotFound with code not_found", err)
	}
	if got, _ := s.Get(ctx, "provider/groq"); got != "gsk_second" {
		t.Errorf("Delete removed another secret: %q", got)
	}
}

func TestFilePermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no permission bits on Windows")
	}
	dir := filepath.Join(t.TempDir(), "agentdeck")
	path := filepath.Join(dir, "secrets.json")
	if err := NewFile(path).Set(context.Background(), "r", "v"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want os.FileMode
	}{{path, 0o600}, {dir, 0o700}} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != c.want {
			t.Errorf("%s has mode %04o, want %04o", c.path, got, c.want)
		}
	}
}

func TestFileRefusesReadableFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no permission bits on Windows")
	}
	ctx := context.Background()
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660} {
		t.Run(fmt.Sprintf("%04o", mode), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "secrets.json")
			if err := os.WriteFile(path, []byte(`{"r":"sk-leaked"}`), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, mode); err != nil {
				t.Fatal(err)
			}
			s := NewFile(path)
			_, err := s.Get(ctx, "r")
			if err == nil {
				t.Fatal("Get read a group/world-readable file")
			}
			msg := apperr.MessageOf(err)
			if !strings.Contains(msg, "chmod 600 "+path) || apperr.CodeOf(err) != apperr.Unavailable {
				t.Errorf("error = %q (%s), want a chmod 600 hint with code unavailable", msg, apperr.CodeOf(err))
			}
			if strings.Contains(err.Error(), "sk-leaked") {
				t.Errorf("error quotes the secret: %v", err)
			}
			if err := s.Set(ctx, "r2", "v"); err == nil {
				t.Error("Set rewrote a group/world-readable file")
			}
			if err := os.Chmod(path, 0o600); err != nil {
				t.Fatal(err)
			}
			if got, err := s.Get(ctx, "r"); err != nil || got != "sk-leaked" {
				t.Errorf("after chmod 600: Get = %q, %v", got, err)
			}
		})
	}
}

func TestFileDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secrets.json")
	if err := os.WriteFile(path, []byte(`{"r": sk-unquoted}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := NewFile(path).Get(context.Background(), "r")
	if err == nil || !strings.Contains(apperr.MessageOf(err), "damaged") {
		t.Fatalf("Get = %v, want a damaged-file error", err)
	}
	if strings.Contains(err.Error(), "sk-unquoted") || strings.Contains(err.Error(), "'s'") {
		t.Errorf("error quotes the content: %v", err)
	}
}

func TestFileAtomicWriteLeavesNoTemp(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "secrets.json")
	s := NewFile(path)
	for i := range 20 {
		if err := s.Set(ctx, fmt.Sprint("r", i%3), fmt.Sprint("v", i)); err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			if err := s.Delete(ctx, "r0"); err != nil {
				t.Fatal(err)
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "secrets.json" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only secrets.json", names)
	}
}

func TestFileConcurrentSet(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "secrets.json")
	s := NewFile(path)
	const n = 32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ref := fmt.Sprint("provider/p", i)
			if err := s.Set(ctx, ref, fmt.Sprint("secret-", i)); err != nil {
				t.Error(err)
			}
			if _, err := s.Get(ctx, ref); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	fresh := NewFile(path)
	for i := range n {
		got, err := fresh.Get(ctx, fmt.Sprint("provider/p", i))
		if want := fmt.Sprint("secret-", i); err != nil || got != want {
			t.Errorf("p%d = %q, %v; want %q (lost update)", i, got, err, want)
		}
	}
}

func TestFileBadInput(t *testing.T) {
	s := NewFile(filepath.Join(t.TempDir(), "secrets.json"))
	for _, ref := range []string{"", "  ", "a\nb", strings.Repeat("x", 257)} {
		if err := s.Set(context.Background(), ref, "v"); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("Set(%q) = %v, want an invalid error", ref, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Get(ctx, "r"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a cancelled ctx = %v", err)
	}
}
