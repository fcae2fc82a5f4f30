package eval_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// recordTurn runs message as a real turn of session on the scripted
// server, which answers with replies, and returns the turn's id.
func recordTurn(t *testing.T, eng *setup.Engine, srv *llmtest.Server, session, message string, replies ...llmtest.Reply) string {
	t.Helper()
	srv.Enqueue(replies...)
	h, err := eng.Runner.Start(context.Background(), runner.Request{SessionID: session, Message: message, Provider: "fake", Model: "m", Approver: agent.PolicyApprover{AllowAll: true}})
	if err != nil {
		t.Fatal(err)
	}
	if res := h.Wait(); !res.OK {
		t.Fatalf("recording %q: %+v", message, res)
	}
	return h.TurnID
}

// TestSuiteFromReviewed: real turns, reviewed in the store, become cases
// that start from their recorded turn: a kept answer as a reference, a
// rated-down turn's labels as assertions where the suite language has
// them and its note as a judge's rubric. The suite made reads back
// through the suite loader (which checks it against the schema), and
// runs: each case replays its turn from its step on the scripted server.
func TestSuiteFromReviewed(t *testing.T) {
	ctx := context.Background()
	dir, db, eng, srv := fakeEngine(t)
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("buy milk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sess, err := db.CreateSession(ctx, store.Session{Title: "files", Provider: "fake", Model: "m", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	good := recordTurn(t, eng, srv, sess.ID, "What is the capital of France?", llmtest.Reply{Chunks: llmtest.Text("Paris is the capital of France.", 3)})
	refused := recordTurn(t, eng, srv, sess.ID, "What does notes.txt say?", llmtest.Reply{Chunks: llmtest.Text("I cannot read files.", 3)})
	looped := recordTurn(t, eng, srv, sess.ID, "Log a line, then tell me.",
		llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "w1", "write_file", `{"path":"log.txt","content":"ran\n"}`, 3), "tool_calls")},
		llmtest.Reply{Chunks: llmtest.Text("Done, done, done.", 3)})
	recordTurn(t, eng, srv, sess.ID, "Unreviewed?", llmtest.Reply{Chunks: llmtest.Text("Yes.", 2)})

	for _, r := range []turn.Review{
		{TurnID: good, Thumb: 1, Score: 5},
		{TurnID: refused, Thumb: -1, Labels: []string{"Should use read_file", "refused"}, Note: "It has read_file: it must read the file, not refuse.\nAsked twice."},
		{TurnID: looped, Step: "call2", Thumb: -1, Labels: []string{"looped", "missing chart"}},
	} {
		if _, err := db.SaveReview(ctx, r); err != nil {
			t.Fatal(err)
		}
	}

	type wantCase struct {
		turn, step, kinds string
	}
	future := time.Now().Add(time.Hour)
	tests := []struct {
		name   string
		filter store.ReviewFilter
		want   []wantCase
		code   apperr.Code
	}{
		{"rated down", store.ReviewFilter{Rated: store.RatedDown}, []wantCase{
			{looped, "call2", "termination,chart"},
			{refused, "start", "tool_called,judge,termination"},
		}, ""},
		{"rated up", store.ReviewFilter{Rated: store.RatedUp}, []wantCase{{good, "start", "similar_to,termination"}}, ""},
		{"by label", store.ReviewFilter{Label: "refused"}, []wantCase{{refused, "start", "tool_called,judge,termination"}}, ""},
		{"nothing matches", store.ReviewFilter{Rated: store.RatedDown, Since: &future}, nil, apperr.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := eval.SuiteFromReviewed(ctx, db, tt.filter, eval.ReviewSuiteOptions{Name: "from reviews"})
			if tt.code != "" {
				if apperr.CodeOf(err) != tt.code || !strings.Contains(err.Error(), "No turns match") {
					t.Fatalf("err = %v, want %s saying no turns match", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			y, err := eval.SuiteYAML(s)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "reviews.yaml")
			if err := os.WriteFile(path, y, 0o644); err != nil {
				t.Fatal(err)
			}
			back, err := eval.Load(path)
			if err != nil {
				t.Fatalf("the suite made does not load: %v\n%s", err, y)
			}
			if len(back.Models) != 1 || back.Models[0] != "fake/m" || len(back.Cases) != len(tt.want) {
				t.Fatalf("models %v, %d cases; want fake/m, %d\n%s", back.Models, len(back.Cases), len(tt.want), y)
			}
			for i, w := range tt.want {
				c := back.Cases[i]
				var kinds []string
				for _, a := range c.Assert {
					kinds = append(kinds, a.Kind())
					if a.Judge != nil && (a.Judge.Model != "fake/m" || !strings.Contains(a.Judge.Rubric, "not refuse")) {
						t.Errorf("judge %+v; want the note as its rubric, on fake/m", a.Judge)
					}
				}
				if c.From == nil || c.From.Turn != w.turn || c.From.Step != w.step || c.Prompt != "" || strings.Join(kinds, ",") != w.kinds {
					t.Errorf("case %d: from %+v, assertions %v; want %s at %s with %s", i, c.From, kinds, w.turn, w.step, w.kinds)
				}
				if !strings.Contains(c.Description, w.turn) || c.ID != eval.ReviewCaseID(messageOf(t, db, w.turn), w.turn) {
					t.Errorf("case %d: id %q, description %q", i, c.ID, c.Description)
				}
			}
		})
	}

	t.Run("runs from the recorded turns", func(t *testing.T) {
		s, err := eval.SuiteFromReviewed(ctx, db, store.ReviewFilter{Rated: store.RatedReviewed}, eval.ReviewSuiteOptions{Name: "reviews"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(s.Cases[1].Description, `rated down: refused, should use read_file — It has read_file`) {
			t.Fatalf("description %q", s.Cases[1].Description)
		}
		run := newRun(t, db, s, "record", "")
		cr := eval.NewCellRunner(db, eng.Runner, nil, nil)
		cells := []struct {
			at      int
			replies []llmtest.Reply
			calls   int
			state   string
		}{
			// From call2: the write_file call and its tool result are served from the recording.
			{0, []llmtest.Reply{{Chunks: llmtest.Text("Logged one line.", 2)}}, 1, store.EvalFailedCase}, // no chart
			{1, []llmtest.Reply{
				{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "r1", "read_file", `{"path":"notes.txt"}`, 3), "tool_calls")},
				{Chunks: llmtest.Text("notes.txt says: buy milk.", 2)},
				{Chunks: llmtest.Text(`{"passed": true, "score": 0.9, "feedback": "it read the file"}`, 2)},
			}, 3, store.EvalPassed},
			{2, []llmtest.Reply{{Chunks: llmtest.Text("Paris is the capital of France.", 2)}}, 1, store.EvalPassed},
		}
		for _, c := range cells {
			id := s.Cases[c.at].ID
			before := len(srv.Requests())
			srv.Enqueue(c.replies...)
			out, err := runCell(ctx, t, db, cr, eval.Cell{RunID: run.ID, CaseID: id, Model: "fake/m", Repeat: 1})
			if err != nil || out.State != c.state {
				t.Fatalf("case %s: %+v %v; want %s", id, out, err, c.state)
			}
			if n := len(srv.Requests()) - before; n != c.calls {
				t.Fatalf("case %s made %d model calls; want %d, what came before its step served from the recording", id, n, c.calls)
			}
			tr, err := db.GetTurn(ctx, out.TurnID, false)
			if err != nil || tr.FromStep != s.Cases[c.at].From.Step {
				t.Fatalf("case %s's turn: from %q %v; want a re-run from %s", id, tr.FromStep, err, s.Cases[c.at].From.Step)
			}
		}
	})
}

func messageOf(t *testing.T, db *store.DB, turnID string) string {
	t.Helper()
	tr, err := db.GetTurn(context.Background(), turnID, false)
	if err != nil {
		t.Fatal(err)
	}
	return tr.UserMessage
}
