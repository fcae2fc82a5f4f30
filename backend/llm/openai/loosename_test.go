package openai

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// looseNameMapped is looseName as it was written first: both names mapped
// into new slices, then compared with Unicode case folding.
func looseNameMapped(name []byte, k string) bool {
	drop := func(r rune) rune {
		if r == '_' || r == '-' {
			return -1
		}
		return r
	}
	return bytes.EqualFold(bytes.Map(drop, name), bytes.Map(drop, []byte(k)))
}

// TestLooseNameMatchesAtLeastTheMapped: the allocation-free looseName
// matches every name the mapped one did (matching more only sends a chunk
// the slow way), and exactly the same ASCII names.
func TestLooseNameMatchesAtLeastTheMapped(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, k string
		want    bool
	}{
		{"finishReason", "finish_reason", true},
		{"FINISH-REASON", "finish_reason", true},
		{"finish__reason_", "finish_reason", true},
		{"finish", "finish_reason", false},
		{"choice", "choices", false},
		{"ſ", "s", true}, // U+017F folds to s
		{"id", "usage", false},
		{"", "", true},
	} {
		if got := looseName([]byte(tt.name), tt.k); got != tt.want {
			t.Errorf("looseName(%q, %q) = %v, want %v", tt.name, tt.k, got, tt.want)
		}
	}
	r := rand.New(rand.NewPCG(4, 8))
	const alphabet = "aAcCeEhHiIoOsSuU_-rRnN"
	for range 20000 {
		name := make([]byte, r.IntN(9))
		for i := range name {
			name[i] = alphabet[r.IntN(len(alphabet))]
		}
		for _, k := range append(append([]string{}, chunkNames...), choiceNames...) {
			if old, now := looseNameMapped(name, k), looseName(name, k); old != now {
				t.Fatalf("looseName(%q, %q) = %v, the mapped one %v", name, k, now, old)
			}
		}
	}
}
