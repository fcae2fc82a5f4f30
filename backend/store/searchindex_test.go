package store

import (
	"context"
	"slices"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// storeEventTurn stores one finished turn holding msgs whose events
// include payloads, stored before the result as the runner does.
func storeEventTurn(t *testing.T, db *DB, sessionID string, msgs []llm.Message, payloads ...turn.Payload) Turn {
	t.Helper()
	tr, err := db.StartTurn(ctx, Turn{SessionID: sessionID, UserMessage: msgs[0].Content, Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	log := db.NewEventLog(tr.ID, EventLogOptions{})
	rec := &turntest.Recorder{}
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: sessionID, TurnID: tr.ID, Sinks: []turn.Sink{log, rec}})
	turn.RunTurn(ctx, em, func(context.Context) turn.Result {
		for _, p := range payloads {
			em.Emit(turn.Draft{Data: p})
		}
		return turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, Termination: turn.Termination{Kind: turn.TermNaturalCompletion},
			FinalText: msgs[len(msgs)-1].Content, Messages: msgs}
	}, func(res turn.Result) {
		if err := log.Flush(); err != nil {
			t.Error(err)
		}
		if err := db.FinishTurn(ctx, tr.ID, 0, res); err != nil {
			t.Error(err)
		}
	})
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	turntest.Check(t, rec.Events())
	return tr
}

// artifactTurn is a turn that made an artifact with create_artifact, ran
// a script with run_code, and answered with an html block; word is in the
// artifact's event only.
func artifactTurn(t *testing.T, db *DB, sessionID, word string) Turn {
	t.Helper()
	page := "<title>Gazebo planner</title><p>pergola page</p>"
	return storeEventTurn(t, db, sessionID,
		[]llm.Message{
			{Role: llm.RoleUser, Content: "Plan the garden"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
				{ID: "a1", Name: "create_artifact", Arguments: `{"title":"Hedge map","kind":"svg","content":"<svg><text>topiary</text></svg>"}`},
				{ID: "r1", Name: "run_code", Arguments: `{"code":"print(sum([1, 2]))"}`}}},
			{Role: llm.RoleTool, ToolCallID: "a1", Name: "create_artifact", Content: "The artifact is shown"},
			{Role: llm.RoleTool, ToolCallID: "r1", Name: "run_code", Content: "3"},
			{Role: llm.RoleAssistant, Content: "Here:\n```html\n" + page + "\n```"},
		},
		turn.ArtifactData{Key: "hedge-map", Title: "Hedge map", Kind: "svg", Content: "<svg><text>topiary " + word + "</text></svg>", Source: turn.ArtifactFromTool, CallID: "a1"},
		turn.CodeRunData{CallID: "r1", Code: "print(sum([1, 2]))\nmarmalade = 1", Output: "3 wombats\n", Error: &turn.CodeError{Message: "quince is not defined", Line: 2, Col: 1}},
		turn.ArtifactData{Key: "html", Title: "Gazebo planner", Kind: "html", Content: page, Source: turn.ArtifactFromBlock},
	)
}

// Artifacts and code runs are found by their text, under their own kinds;
// the tool calls they came from are not found again by their arguments.
func TestSearchFindsArtifactsAndCodeRuns(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "Garden")
	tr := artifactTurn(t, db, s.ID, "lupin")
	tests := []struct {
		query string
		kinds []string // of every hit, best first
	}{
		{"topiary", []string{HitArtifact}},
		{"lupin", []string{HitArtifact}},
		{"hedge map", []string{HitArtifact}},
		{"wombats", []string{HitCodeRun}},
		{"marmalade", []string{HitCodeRun}},
		{"quince", []string{HitCodeRun}},
		// A block artifact is in the answer's text too.
		{"pergola", []string{HitArtifact, HitMessage}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits, err := db.Search(ctx, tt.query, 10)
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, h := range hits {
				if h.TurnID != tr.ID {
					t.Fatalf("hit of another turn: %+v", h)
				}
				kinds = append(kinds, h.Kind)
			}
			slices.Sort(kinds)
			if want := slices.Sorted(slices.Values(tt.kinds)); !slices.Equal(kinds, want) {
				t.Fatalf("kinds %v, want %v", kinds, tt.kinds)
			}
		})
	}
}
