package runner

import (
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/store"
)

// TestFactsMemoHoldsForFactsRetry: an answer put in the memo is served
// until factsRetry has passed, then not (so the server is asked again),
// and entries are per key.
func TestFactsMemoHoldsForFactsRetry(t *testing.T) {
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	m := factsMemo{now: func() time.Time { return now }}
	k := factsKey{"p", "llamacpp", "http://127.0.0.1:1/v1", "qwen3"}
	other := factsKey{"p", "llamacpp", "http://127.0.0.1:2/v1", "qwen3"}
	if _, _, ok := m.get(k); ok {
		t.Fatal("an empty memo served an answer")
	}
	m.put(k, store.ModelInfo{Provider: "p", Model: "qwen3", Window: 4096}, "could not be asked")
	cases := []struct {
		after time.Duration
		key   factsKey
		want  bool
	}{
		{0, k, true},
		{factsRetry - time.Second, k, true},
		{0, other, false}, // the provider now points at another server
		{factsRetry, k, false},
	}
	start := now
	for _, c := range cases {
		now = start.Add(c.after)
		info, note, ok := m.get(c.key)
		if ok != c.want {
			t.Fatalf("after %v, key %v: served %v, want %v", c.after, c.key, ok, c.want)
		}
		if ok && (info.Window != 4096 || note != "could not be asked") {
			t.Fatalf("after %v: served %+v %q", c.after, info, note)
		}
	}
	m.put(other, store.ModelInfo{}, "")
	if len(m.entries) != 1 {
		t.Fatalf("an expired entry was kept: %d entries", len(m.entries))
	}
}
