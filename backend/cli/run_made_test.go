package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Artifacts and code runs read as one line each in the human output of
// agentdeck run and turns show.
func TestProgressLineSaysArtifactsAndCodeRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data turn.Payload
		want string
	}{
		{"artifact", turn.ArtifactData{Key: "html", Title: "Counter", Kind: "html", Content: "<p>12345</p>", Source: turn.ArtifactFromBlock},
			`artifact: "Counter" (html, 12 bytes; open the session in the app to see it)`},
		{"code run", turn.CodeRunData{Code: "x = 1\nprint(x)\n", Output: "1\n", Steps: 40}, "code run: 2 lines, 40 steps, ok"},
		{"at a limit", turn.CodeRunData{Code: "while True: pass", Steps: 100000, Error: &turn.CodeError{Message: "too many steps", Limit: "steps"}},
			"code run: 1 line, 100000 steps, stopped at the steps limit: too many steps"},
		{"an error", turn.CodeRunData{Code: "x = y", Steps: 3, Error: &turn.CodeError{Message: "undefined: y", Line: 1, Col: 5}},
			"code run: 1 line, 3 steps, failed at line 1:5: undefined: y"},
		{"an error with no place", turn.CodeRunData{Code: "load('x')", Error: &turn.CodeError{Message: "load is not allowed"}},
			"code run: 1 line, 0 steps, failed: load is not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(tt.data)
			if got := progressLine(turn.Event{Type: tt.data.EventType(), Data: raw}); got != tt.want {
				t.Errorf("progressLine = %q, want %q", got, tt.want)
			}
		})
	}
}

// agentdeck run says an answer's page is an artifact (stderr; the answer
// on stdout is the text as written), and turns show lists it.
func TestRunAndShowSayArtifacts(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	answer := "A page:\n\n```html\n<title>Clock</title><p>tick</p>\n```"
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text(answer, 3)})
	db := filepath.Join(t.TempDir(), "a.db")
	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "Make a page")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	line := `artifact: "Clock" (html, 32 bytes; open the session in the app to see it)`
	if !strings.Contains(r.stderr, line) || strings.TrimSpace(r.stdout) != answer {
		t.Fatalf("stdout %q\nstderr %q", r.stdout, r.stderr)
	}
	_, id := idsOf(t, r.stderr)
	if show := agentdeck(t, db, srv.URL(), nil, nil, "turns", "show", id); !strings.Contains(show.stdout, line) {
		t.Fatalf("turns show:\n%s", show.stdout)
	}
}
