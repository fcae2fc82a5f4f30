package export

import (
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in   string
		want Format
		ok   bool
	}{
		{"json", JSON, true},
		{".JSON", JSON, true},
		{"md", Markdown, true},
		{" Markdown ", Markdown, true},
		{"jsonl", JSONL, true},
		{".jsonl", JSONL, true},
		{"csv", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseFormat(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Fatalf("ParseFormat(%q) = %q, %v", tt.in, got, err)
			}
			if err != nil && apperr.CodeOf(err) != apperr.Invalid {
				t.Fatalf("code %s", apperr.CodeOf(err))
			}
			if tt.ok && got.Extension() != "."+string(tt.want) {
				t.Fatalf("extension %q", got.Extension())
			}
		})
	}
}
