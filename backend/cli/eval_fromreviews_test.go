package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// TestEvalFromReviews: turns recorded with agentdeck run and reviewed
// become a suite file with eval from-reviews (each case starting from its
// recorded turn), which agentdeck eval then runs: what the review asked
// for is what passes. Made again into the same file, it adds nothing.
func TestEvalFromReviews(t *testing.T) {
	t.Parallel()
	var fixed atomic.Bool // after the reviews: the model answers as the reviewer wanted
	srv := llmtest.NewServer(t)
	srv.Respond(func(r llmtest.Request) llmtest.Reply {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "A reviewer rated") {
				return llmtest.Reply{Chunks: llmtest.Text(`{"passed": true, "score": 0.8, "feedback": "says Paris"}`, 2)}
			}
		}
		switch last := r.Messages[len(r.Messages)-1].Content; {
		case strings.Contains(last, "France") && fixed.Load():
			return llmtest.Reply{Chunks: llmtest.Text("Paris.", 2)}
		case strings.Contains(last, "France"):
			return llmtest.Reply{Chunks: llmtest.Text("Lyon.", 2)}
		case strings.Contains(last, "Spain"):
			return llmtest.Reply{Chunks: llmtest.Text("Madrid is the capital of Spain.", 2)}
		}
		return llmtest.Reply{Chunks: llmtest.Text("Hello.", 2)}
	})
	db, _, dir := evalSetup(t, srv, geoSuite)
	for _, m := range []string{"Capital of France?", "Capital of Spain?", "Hello?"} {
		if r := agentdeck(t, db, "", nil, nil, "run", "--provider", "fake", "--model", "m", m); r.code != 0 {
			t.Fatalf("run %q: %d %s", m, r.code, r.stderr)
		}
	}
	reviewTurns(t, db, map[string]turn.Review{
		"Capital of France?": {Thumb: -1, Labels: []string{"wrong city"}, Note: "Lyon is not the capital: say Paris."},
		"Capital of Spain?":  {Thumb: 1, Score: 5},
	})
	fixed.Store(true)

	out := filepath.Join(dir, "reviews.yaml")
	r := agentdeck(t, db, "", nil, nil, "eval", "from-reviews", "--rated", "reviewed", "--since", "1d", "--name", "reviewed", "-o", out)
	if r.code != 0 || !strings.Contains(r.stderr, "Wrote 2 cases to "+out) {
		t.Fatalf("from-reviews: %d %q", r.code, r.stderr)
	}
	s, err := eval.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "reviewed" || len(s.Cases) != 2 || s.Cases[0].From == nil || s.Cases[0].From.Step != "start" || s.Cases[0].Prompt != "" ||
		!strings.Contains(s.Cases[1].Description, "rated down: wrong city — Lyon is not the capital") || s.Cases[1].Assert[0].Judge == nil {
		t.Fatalf("the suite written: %+v", s)
	}

	r = agentdeck(t, db, "", nil, nil, "eval", out, "--json")
	if r.code != ExitOK {
		t.Fatalf("eval of the suite made: %d %s\n%s", r.code, r.stderr, r.stdout)
	}
	if rep := parseReport(t, r); rep.Passed != 2 {
		t.Fatalf("report %+v", rep)
	}

	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"to stdout", []string{"--rated", "down", "--label", "Wrong City"}, ExitOK, "from:"},
		{"every turn there already", []string{"--rated", "reviewed", "-o", out}, ExitFailed, "already has a case of every turn picked (2)"},
		{"no turns match", []string{"--rated", "up", "--label", "wrong city"}, ExitFailed, "No turns match the filter"},
		{"a bad rating", []string{"--rated", "sideways"}, ExitUsage, `"sideways" is not a rating`},
		{"a bad since", []string{"--since", "last week"}, ExitUsage, "--since"},
		{"a bad until", []string{"--until", "12/01"}, ExitUsage, "--until"},
		{"an unknown project", []string{"--project", "nope"}, ExitFailed, "nope"},
		{"a file that is not a suite", []string{"-o", filepath.Join(dir, "suite.yaml.txt")}, ExitUsage, "not a suite that reads"},
		{"arguments", []string{"extra"}, ExitUsage, "usage: agentdeck eval from-reviews"},
	}
	if err := os.WriteFile(filepath.Join(dir, "suite.yaml.txt"), []byte("just: notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := agentdeck(t, db, "", nil, nil, append([]string{"eval", "from-reviews"}, tt.args...)...)
			if r.code != tt.code || !strings.Contains(r.stderr+r.stdout, tt.want) {
				t.Fatalf("exit %d (want %d), stdout %q stderr %q; want %q", r.code, tt.code, r.stdout, r.stderr, tt.want)
			}
		})
	}
}

// reviewTurns saves a review of each turn of the database, picked by its
// message.
func reviewTurns(t *testing.T, path string, reviews map[string]turn.Review) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	turns, err := db.ListReviewed(ctx, store.ReviewFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range turns {
		if r, ok := reviews[tr.UserMessage]; ok {
			r.TurnID = tr.TurnID
			if _, err := db.SaveReview(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
	}
}
