package secrets

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zalando/go-keyring"
)

// NewKeyring returns a Store in the OS keyring; each reference is an entry
// (an account, in keyring terms) under service. Calls honour ctx: when the
// keyring hangs, the call returns ctx's error and the stuck request is left
// to finish in the background.
func NewKeyring(service string) Store {
	return &keyringStore{service: service, kr: osKeyring{}}
}

// keyringAPI is the part of go-keyring used here; tests substitute a fake.
type keyringAPI interface {
	Set(service, user, secret string) error
	Get(service, user string) (string, error)
	Delete(service, user string) error
}

type osKeyring struct{}

func (osKeyring) Set(service, user, secret string) error   { return keyring.Set(service, user, secret) }
func (osKeyring) Get(service, user string) (string, error) { return keyring.Get(service, user) }
func (osKeyring) Delete(service, user string) error        { return keyring.Delete(service, user) }

type keyringStore struct {
	service string
	kr      keyringAPI
}

func (s *keyringStore) Get(ctx context.Context, ref string) (string, error) {
	if err := checkRef(ref); err != nil {
		return "", err
	}
	var secret string
	err := call(ctx, func() error {
		var err error
		secret, err = s.kr.Get(s.service, ref)
		return err
	})
	switch {
	case errors.Is(err, keyring.ErrNotFound):
		return "", fmt.Errorf("secret %q: %w", ref, ErrNotFound)
	case err != nil:
		return "", fmt.Errorf("reading secret %q from the OS keyring: %w", ref, err)
	}
	return secret, nil
}

func (s *keyringStore) Set(ctx context.Context, ref, secret string) error {
	if err := checkRef(ref); err != nil {
		return err
	}
	err := call(ctx, func() error { return s.kr.Set(s.service, ref, secret) })
	if err != nil {
		// Some backends report the command they ran; keep the secret out.
		if secret != "" && strings.Contains(err.Error(), secret) {
			err = errors.New(strings.ReplaceAll(err.Error(), secret, Mask(secret)))
		}
		return fmt.Errorf("storing secret %q in the OS keyring: %w", ref, err)
	}
	return nil
}

func (s *keyringStore) Delete(ctx context.Context, ref string) error {
	if err := checkRef(ref); err != nil {
		return err
	}
	err := call(ctx, func() error { return s.kr.Delete(s.service, ref) })
	if err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("deleting secret %q from the OS keyring: %w", ref, err)
	}
	return nil
}

// call runs f, returning early when ctx ends. go-keyring has no
// cancellation, so a hung f keeps its goroutine until the keyring answers;
// the buffered channel lets it finish without a reader.
func call(ctx context.Context, f func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("the OS keyring did not answer: %w", ctx.Err())
	}
}
