package secrets

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// Store keeps secrets under references. Implementations are safe for
// concurrent use.
type Store interface {
	// Get returns the secret stored under ref, or an error wrapping
	// ErrNotFound when there is none.
	Get(ctx context.Context, ref string) (string, error)
	// Set stores secret under ref, replacing any previous one.
	Set(ctx context.Context, ref, secret string) error
	// Delete removes the secret under ref. Deleting an absent secret is not
	// an error.
	Delete(ctx context.Context, ref string) error
}

// ErrNotFound is wrapped by the error Get returns when nothing is stored
// under a reference. It is an *apperr.Error with code NotFound.
var ErrNotFound error = apperr.New(apperr.NotFound, "No key is stored for this: add one in the key field.")

// The backends Open can choose.
const (
	BackendKeyring = "keyring"
	BackendFile    = "file"
)

// DefaultProbeTimeout bounds Open's keyring probe. A working keyring
// answers in milliseconds; a D-Bus session without a secret service can
// hang for much longer.
const DefaultProbeTimeout = 3 * time.Second

// Open returns the OS keyring under service when a probe (set, get and
// delete of a throwaway entry) succeeds within DefaultProbeTimeout, else the
// file store at fallbackPath. The second result is BackendKeyring or
// BackendFile. A nil log discards.
func Open(ctx context.Context, service, fallbackPath string, log *slog.Logger) (Store, string) {
	return openWith(ctx, service, fallbackPath, log, osKeyring{}, DefaultProbeTimeout)
}

// openWith is Open with the keyring and probe timeout injected, so tests do
// not depend on the machine's keyring.
func openWith(ctx context.Context, service, fallbackPath string, log *slog.Logger, kr keyringAPI, timeout time.Duration) (Store, string) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	store := &keyringStore{service: service, kr: kr}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := probe(pctx, store); err != nil {
		log.Info("secrets: the OS keyring is not usable; keeping keys in a file readable only by this user",
			"path", fallbackPath, "err", err)
		return NewFile(fallbackPath), BackendFile
	}
	log.Debug("secrets: keeping keys in the OS keyring", "service", service)
	return store, BackendKeyring
}

// probe round-trips a random entry under a random reference, so two
// instances probing at once cannot confuse each other.
func probe(ctx context.Context, s Store) error {
	ref := ".agentdeck-probe-" + randomHex(8)
	want := randomHex(16)
	if err := s.Set(ctx, ref, want); err != nil {
		return err
	}
	got, err := s.Get(ctx, ref)
	if err != nil {
		return err
	}
	if err := s.Delete(ctx, ref); err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("the keyring returned a different value than was stored")
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// Mask returns secret in a form safe to show: "sk-…abcd". At most the last
// four characters are shown, plus a vendor prefix such as "sk-" or "gsk_";
// secrets shorter than 16 characters are fully masked. Mask("") is "".
func Mask(secret string) string {
	const (
		hidden     = "••••"
		minReveal  = 16 // shorter secrets show nothing
		tail       = 4
		minCovered = 8 // characters that stay hidden between prefix and tail
	)
	r := []rune(secret)
	switch {
	case len(r) == 0:
		return ""
	case len(r) < minReveal:
		return hidden
	}
	prefix := vendorPrefix(secret)
	if len(r)-len(prefix)-tail < minCovered {
		prefix = ""
	}
	return prefix + "…" + string(r[len(r)-tail:])
}

// vendorPrefix returns a leading "sk-", "gsk_", "xai-" and the like: one to
// four ASCII letters and a dash or underscore. These name the vendor, not
// the key.
func vendorPrefix(s string) string {
	for i := 0; i < len(s) && i <= 4; i++ {
		c := s[i]
		switch {
		case (c == '-' || c == '_') && i > 0:
			return s[:i+1]
		case c < 0x80 && unicode.IsLetter(rune(c)):
		default:
			return ""
		}
	}
	return ""
}

// checkRef rejects references no backend can store sensibly.
func checkRef(ref string) error {
	if strings.TrimSpace(ref) == "" {
		return apperr.New(apperr.Invalid, "A secret needs a reference name.")
	}
	if len(ref) > 256 || strings.IndexFunc(ref, unicode.IsControl) >= 0 {
		return apperr.New(apperr.Invalid, "The secret reference %q is not valid: use at most 256 printable characters.", ref)
	}
	return nil
}
