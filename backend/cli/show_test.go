package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// A running turn's plan in turns show is the live one: the last plan with
// every step event after it applied, not the plan as first published.
func TestTurnsShowLivePlanOfARunningTurn(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.db")
	ctx := context.Background()
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := db.CreateSession(ctx, store.Session{Title: "planning", Model: "m"})
	tr, err := db.StartTurn(ctx, store.Turn{SessionID: sess.ID, UserMessage: "do three things", Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	log := db.NewEventLog(tr.ID, store.EventLogOptions{})
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: sess.ID, TurnID: tr.ID, Sinks: []turn.Sink{log}})
	em.Emit(turn.Draft{Data: turn.PlanData{Steps: []turn.PlanStep{
		{Title: "Load", Status: "pending"}, {Title: "Compare", Status: "pending"}, {Title: "Write", Status: "pending"}}}})
	em.Emit(turn.Draft{Data: turn.StepStartData{StepIndex: 0, Description: "Load"}})
	em.Emit(turn.Draft{Data: turn.StepEndData{StepIndex: 0, Success: true}})
	em.Emit(turn.Draft{Data: turn.StepStartData{StepIndex: 1, Description: "Compare"}})
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	db.Close()

	r := agentdeck(t, path, "http://127.0.0.1:1/v1", nil, nil, "turns", "show", tr.ID, "--json")
	var v struct {
		State     string          `json:"state"`
		PlanSteps []turn.PlanStep `json:"plan_steps"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("%v: %s %s", err, r.stdout, r.stderr)
	}
	var got []string
	for _, s := range v.PlanSteps {
		got = append(got, s.Title+":"+s.Status)
	}
	if v.State != "running" || strings.Join(got, ",") != "Load:done,Compare:running,Write:pending" {
		t.Fatalf("state %s, plan %v", v.State, got)
	}
	text := agentdeck(t, path, "http://127.0.0.1:1/v1", nil, nil, "turns", "show", tr.ID)
	for _, want := range []string{"still running", "[x] 1. Load", "[>] 2. Compare", "[ ] 3. Write"} {
		if !strings.Contains(text.stdout, want) {
			t.Fatalf("turns show lacks %q:\n%s", want, text.stdout)
		}
	}
}
