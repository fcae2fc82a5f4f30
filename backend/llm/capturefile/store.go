// Package capturefile keeps llm captures as a folder of JSON files, one per
// key (<key>.json), so recordings can be reviewed, diffed and checked in.
//
// Writes are atomic: a capture is written to a temporary file in the same
// folder, synced, and renamed over <key>.json, so a reader sees the old
// capture or the new one, never a torn file. Temporary files start with a
// dot and are ignored when listing.
package capturefile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/atomicfile"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
)

// Store is a folder of captures. It is safe for concurrent use: each write
// goes through its own temporary file, and the last rename wins.
type Store struct {
	dir string
}

var (
	_ recording.Store  = (*Store)(nil)
	_ recording.Lister = (*Store)(nil)
)

// Open returns the store in dir, creating the folder when it is missing.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("capturefile: create capture folder: %w", err)
	}
	return &Store{dir: dir}, nil
}

// Dir is the store's folder.
func (s *Store) Dir() string { return s.dir }

// Path is the file that holds the capture for key.
func (s *Store) Path(key string) string {
	return filepath.Join(s.dir, key+".json")
}

// GetCapture reads <key>.json; it returns (nil, nil) when there is none.
func (s *Store) GetCapture(ctx context.Context, key string) (*recording.Capture, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path := s.Path(key)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("capturefile: read %s: %w", path, err)
	}
	var c recording.Capture
	if err := decode(path, data, &c); err != nil {
		return nil, err
	}
	if c.Key != key {
		return nil, fmt.Errorf("capturefile: %s holds the capture for key %q, not %q; rename or delete the file", path, c.Key, key)
	}
	c.Request = compact(c.Request)
	return &c, nil
}

// PutCapture writes c to <c.Key>.json atomically, replacing any earlier
// capture of that key.
func (s *Store) PutCapture(ctx context.Context, c *recording.Capture) error {
	if c == nil {
		return errors.New("capturefile: nil capture")
	}
	if err := checkKey(c.Key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep prompts readable in review
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("capturefile: encode capture %s: %w", c.Key, err)
	}
	if err := atomicfile.Write(s.Path(c.Key), buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("capturefile: %w", err)
	}
	return nil
}

// CaptureRequests lists the captures of model ("" for all), newest first,
// at most limit of them (limit <= 0 for all). Chunks and Response are left
// empty. A corrupt file fails the listing with an error naming it.
func (s *Store) CaptureRequests(ctx context.Context, model string, limit int) ([]recording.Capture, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("capturefile: list %s: %w", s.dir, err)
	}
	var out []recording.Capture
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		path := filepath.Join(s.dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("capturefile: read %s: %w", path, err)
		}
		// Decoding into a header skips building the chunks and response.
		var h header
		if err := decode(path, data, &h); err != nil {
			return nil, err
		}
		if model != "" && h.Model != model {
			continue
		}
		out = append(out, recording.Capture{Key: h.Key, Request: compact(h.Request), Model: h.Model, RecordedAt: h.RecordedAt})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].RecordedAt.Equal(out[j].RecordedAt) {
			return out[i].RecordedAt.After(out[j].RecordedAt)
		}
		return out[i].Key < out[j].Key
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

type header struct {
	Key        string          `json:"key"`
	Request    json.RawMessage `json:"request"`
	Model      string          `json:"model"`
	RecordedAt time.Time       `json:"recorded_at"`
}

func decode(path string, data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("capturefile: %s is corrupt (%v); delete it or record it again", path, err)
	}
	return nil
}

// compact undoes the indentation the file added, so Request is again the
// exact canonical form Key hashed.
func compact(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return raw
	}
	return buf.Bytes()
}

// checkKey keeps keys to plain file names, so a key can never point
// outside the folder.
func checkKey(key string) error {
	if key == "" || len(key) > 200 {
		return fmt.Errorf("capturefile: invalid capture key %q", key)
	}
	for _, r := range key {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_'
		if !ok {
			return fmt.Errorf("capturefile: invalid capture key %q: only letters, digits, '-' and '_' are allowed", key)
		}
	}
	return nil
}
