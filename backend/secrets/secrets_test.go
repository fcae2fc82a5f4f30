package secrets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zalando/go-keyring"
	"go.uber.org/goleak"
)

// fakeKeyring is an in-memory keyringAPI. failWith makes every call fail;
// hang makes every call block until release is closed.
type fakeKeyring struct {
	mu       sync.Mutex
	m        map[string]string
	failWith error
	hang     chan struct{}
	corrupt  bool // Get returns a different value
}

func newFake() *fakeKeyring { return &fakeKeyring{m: map[string]string{}} }

func (f *fakeKeyring) wait() error {
	if f.hang != nil {
		<-f.hang
	}
	return f.failWith
}

func (f *fakeKeyring) Set(service, user, secret string) error {
	if err := f.wait(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m[service+"/"+user] = secret
	return nil
}

func (f *fakeKeyring) Get(service, user string) (string, error) {
	if err := f.wait(); err != nil {
		return "", err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.m[service+"/"+user]
	if !ok {
		return "", keyring.ErrNotFound
	}
	if f.corrupt {
		v += "x"
	}
	return v, nil
}

func (f *fakeKeyring) Delete(service, user string) error {
	if err := f.wait(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.m[service+"/"+user]; !ok {
		return keyring.ErrNotFound
	}
	delete(f.m, service+"/"+user)
	return nil
}

// TestOpen drives openWith with fakes. The real keyring is never probed: on a
// developer machine that would write to the user's keyring, and on this
// headless machine the outcome would depend on D-Bus.
func TestOpen(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	hung := newFake()
	hung.hang = make(chan struct{})
	defer close(hung.hang) // lets the abandoned keyring goroutine finish before goleak looks
	broken := newFake()
	broken.corrupt = true
	noService := newFake()
	noService.failWith = errors.New("The name org.freedesktop.secrets was not provided by any .service files")

	tests := []struct {
		name    string
		kr      *fakeKeyring
		want    string
		wantLog string
	}{
		{"keyring works", newFake(), BackendKeyring, ""},
		{"no secret service", noService, BackendFile, "org.freedesktop.secrets"},
		{"keyring hangs", hung, BackendFile, "did not answer"},
		{"keyring returns other value", broken, BackendFile, "different value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, nil))
			path := filepath.Join(t.TempDir(), "secrets.json")
			start := time.Now()
			s, kind := openWith(context.Background(), "agentdeck-test", path, log, tt.kr, 100*time.Millisecond)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("Open took %v with a 100ms probe timeout", d)
			}
			if kind != tt.want {
				t.Fatalf("backend = %q, want %q", kind, tt.want)
			}
			if !strings.Contains(logs.String(), tt.wantLog) {
				t.Errorf("log %q does not mention %q", logs.String(), tt.wantLog)
			}
			if tt.want == BackendKeyring {
				if n := len(tt.kr.m); n != 0 {
					t.Errorf("the probe left %d entries in the keyring", n)
				}
			}
			// Whatever was chosen works.
			ctx := context.Background()
			if tt.kr == hung {
				return // the file store is used; the fake stays blocked
			}
			if err := s.Set(ctx, "provider/x", "sk-value"); err != nil {
				t.Fatal(err)
			}
			if got, err := s.Get(ctx, "provider/x"); err != nil || got != "sk-value" {
				t.Fatalf("Get = %q, %v", got, err)
			}
		})
	}
}

func TestKeyringStore(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	s := &keyringStore{service: "svc", kr: f}
	if _, err := s.Get(ctx, "r"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get absent = %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx, "r"); err != nil {
		t.Fatalf("Delete absent = %v", err)
	}
	if err := s.Set(ctx, "r", "secret"); err != nil {
		t.Fatal(err)
	}
	if f.m["svc/r"] != "secret" {
		t.Errorf("stored under %v", f.m)
	}
	if got, err := s.Get(ctx, "r"); err != nil || got != "secret" {
		t.Fatalf("Get = %q, %v", got, err)
	}
	if err := s.Delete(ctx, "r"); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, "", "x"); err == nil {
		t.Error("Set with an empty ref succeeded")
	}

	f.failWith = fmt.Errorf("security: add-generic-password -w %s failed", "sk-very-secret-value-1234")
	err := s.Set(ctx, "r", "sk-very-secret-value-1234")
	if err == nil || strings.Contains(err.Error(), "sk-very-secret-value-1234") {
		t.Errorf("Set error = %v, want an error without the secret", err)
	}
}

func TestKeyringStoreHonoursContext(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFake()
	f.hang = make(chan struct{})
	defer close(f.hang)
	s := &keyringStore{service: "svc", kr: f}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := s.Get(ctx, "r")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Get on a hung keyring = %v, want DeadlineExceeded", err)
	}
}

func TestMask(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"abc", "••••"},
		{"sk-abcdefgh", "••••"},
		{"0123456789abcde", "••••"},                  // 15: too short to show anything
		{"0123456789abcdef", "…cdef"},                // 16
		{"sk-proj-0123456789abcdefWXYZ", "sk-…WXYZ"}, // vendor prefix kept
		{"gsk_0123456789abcdefWXYZ", "gsk_…WXYZ"},    // underscore prefix
		{"sk-or-v1-0123456789abcdef", "sk-…cdef"},    // only the first segment
		{"sk-0123456789ab", "••••"},                  // short with a prefix
		{"abcd-0123456wxyz", "…wxyz"},                // the prefix would leave < 8 hidden
		{"toolongprefix-0123456789abcd", "…abcd"},    // not a vendor prefix
		{"1a-0123456789abcdef", "…cdef"},             // a prefix is letters only
		{"ünïcödé-ünïcödé-ünïcödé", "…cödé"},         // runes, not bytes
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Mask(tt.in); got != tt.want {
				t.Errorf("Mask(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
