package secrets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/atomicfile"
)

// maxFileSize bounds the secrets file; a few hundred keys take kilobytes.
const maxFileSize = 1 << 20

// NewFile returns a Store in a JSON file mapping references to secrets. The
// file is written atomically with mode 0600, its directory created 0700,
// and a file that group or others can access is refused. The mutex orders
// writers within this process only.
func NewFile(path string) Store {
	return &fileStore{path: path}
}

type fileStore struct {
	path string
	mu   sync.Mutex
}

func (s *fileStore) Get(ctx context.Context, ref string) (string, error) {
	if err := ready(ctx, ref); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return "", err
	}
	secret, ok := m[ref]
	if !ok {
		return "", fmt.Errorf("secret %q: %w", ref, ErrNotFound)
	}
	return secret, nil
}

func (s *fileStore) Set(ctx context.Context, ref, secret string) error {
	return s.change(ctx, ref, func(m map[string]string) bool {
		m[ref] = secret
		return true
	})
}

func (s *fileStore) Delete(ctx context.Context, ref string) error {
	return s.change(ctx, ref, func(m map[string]string) bool {
		if _, ok := m[ref]; !ok {
			return false
		}
		delete(m, ref)
		return true
	})
}

// change loads the secrets, lets edit change them, and saves them when it
// did, all under the store's lock.
func (s *fileStore) change(ctx context.Context, ref string, edit func(map[string]string) bool) error {
	if err := ready(ctx, ref); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return err
	}
	if !edit(m) {
		return nil
	}
	return s.save(m)
}

func ready(ctx context.Context, ref string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return checkRef(ref)
}

// load reads the file; a missing file is an empty store. Errors never quote
// the content.
func (s *fileStore) load() (map[string]string, error) {
	m := map[string]string{}
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "The secrets file %s cannot be opened.", s.path)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "The secrets file %s cannot be read.", s.path)
	}
	if !fi.Mode().IsRegular() {
		return nil, apperr.New(apperr.Unavailable, "The secrets file %s is not a regular file.", s.path)
	}
	if err := checkPrivate(s.path, fi.Mode()); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "The secrets file %s cannot be read.", s.path)
	}
	if len(data) > maxFileSize {
		return nil, apperr.New(apperr.Unavailable, "The secrets file %s is larger than %d KB: it is not one Agentdeck wrote.", s.path, maxFileSize>>10)
	}
	if len(data) == 0 {
		return m, nil
	}
	// The decoder's error is dropped: it can quote a character of a secret.
	if json.Unmarshal(data, &m) != nil {
		return nil, apperr.New(apperr.Unavailable,
			"The secrets file %s is damaged: restore it from a backup, or delete it and enter the keys again.", s.path)
	}
	return m, nil
}

// checkPrivate refuses a file other users may have read. Windows has no
// permission bits; there the file inherits the ACL of the user's profile.
func checkPrivate(path string, mode fs.FileMode) error {
	if runtime.GOOS == "windows" || mode.Perm()&0o077 == 0 {
		return nil
	}
	return apperr.New(apperr.Unavailable,
		"The secrets file %s can be read by other users (mode %04o), so Agentdeck will not use it: run `chmod 600 %s`, and consider replacing the keys in it.",
		path, mode.Perm(), path)
}

// save writes m to a temporary file in the same directory and renames it
// over the old file, so readers and crashes see the old or the new content.
func (s *fileStore) save(m map[string]string) (err error) {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "The folder for the secrets file, %s, cannot be created.", dir)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding secrets: %w", err)
	}
	if err := atomicfile.Write(s.path, append(data, '\n'), 0o600); err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "The secrets file %s cannot be written.", s.path)
	}
	return nil
}
