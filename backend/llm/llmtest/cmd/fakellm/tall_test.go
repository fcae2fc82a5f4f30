package main

import (
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

func TestTall(t *testing.T) {
	tests := []struct {
		msg       string
		wantDelay time.Duration
	}{
		{"give a tall answer 2", 80 * time.Millisecond},
		{"give a tall answer 2 slowly", 250 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			r := tall(tt.msg)
			if r.Delay != tt.wantDelay {
				t.Errorf("delay %v, want %v", r.Delay, tt.wantDelay)
			}
			text := llmtest.Content(r.Chunks)
			if got := strings.Count(text, "\n<p>tall 2 line "); got != tallLines {
				t.Errorf("%d lines, want %d", got, tallLines)
			}
			if !strings.HasPrefix(text, "Tall answer 2 begins.\n\n```html\n<p>tall 2 line 1</p>\n") {
				t.Errorf("text begins %.60q", text)
			}
		})
	}
}
