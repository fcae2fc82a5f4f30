package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
)

// ReplayReport says whether a replay reproduced the original turn.
type ReplayReport struct {
	OriginalTurnID string `json:"original_turn_id"`
	ReplayTurnID   string `json:"replay_turn_id"`
	SessionID      string `json:"session_id"`
	FinalTextMatch bool   `json:"final_text_match"`
	EventsMatch    bool   `json:"events_match"`
	Matched        bool   `json:"matched"`
	Error          string `json:"error,omitempty"`
}

// cmdReplay re-runs a recorded turn offline from its captures, in a new
// session so the original stays as it was, and compares the two.
func cmdReplay(ctx context.Context, args []string, env Env) int {
	fs := newFlagSet("replay", env)
	dbFlag := dbFlagOf(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil || len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "agentdeck: usage: agentdeck replay TURN_ID [--json]")
		return ExitUsage
	}
	db, path, code := openDB(ctx, *dbFlag, env)
	if db == nil {
		return code
	}
	defer db.Close()
	orig, err := db.GetTurn(ctx, pos[0], true)
	if err != nil {
		return fail(env, err)
	}
	sess, err := db.GetSession(ctx, orig.SessionID)
	if err != nil {
		return fail(env, err)
	}
	history, err := db.History(ctx, sess.ID, orig.Seq)
	if err != nil {
		return fail(env, err)
	}
	if history == nil {
		history = []llm.Message{}
	}
	eng, err := setup.Build(ctx, db, setup.Options{DataDir: dataDir(path), Logger: quietLogger(env)})
	if err != nil {
		return fail(env, err)
	}
	defer eng.Close()
	settings, _ := json.Marshal(map[string]string{"source_turn_id": orig.ID, "kind": "replay"})
	copySess, err := db.CreateSession(ctx, store.Session{Title: fmt.Sprintf("Replay of %s #%d", sess.Title, orig.Seq), Model: orig.Model, Workflow: orig.Workflow, Settings: settings})
	if err != nil {
		return fail(env, err)
	}
	var events []agent.Event
	h, err := eng.Runner.Start(ctx, runner.Request{
		SessionID: copySess.ID,
		Message:   orig.UserMessage,
		Workflow:  orig.Workflow,
		Model:     orig.Model,
		BaseURL:   "http://replay.invalid/v1", // never contacted: replay mode serves captures only
		Capture:   llm.CaptureReplay,
		History:   history,
		Approver:  agent.PolicyApprover{},
		Sinks: []agent.Sink{agent.SinkFunc(func(e agent.Event) error {
			events = append(events, e)
			return nil
		})},
	})
	if err != nil {
		return fail(env, err)
	}
	res := waitTurn(ctx, eng.Runner, h, env)
	rep := ReplayReport{OriginalTurnID: orig.ID, ReplayTurnID: h.TurnID, SessionID: copySess.ID, Error: res.Error}
	rep.FinalTextMatch = res.FinalText == orig.FinalText
	rep.EventsMatch = slices.Equal(eventTypes(orig.Events), eventTypes(events))
	rep.Matched = rep.FinalTextMatch && rep.EventsMatch && res.OK
	if *asJSON {
		printJSON(env, rep)
	} else {
		fmt.Fprintf(env.Stdout, "replayed turn %s as %s\nfinal text: %s\nevent types: %s\n", orig.ID, h.TurnID, matchWord(rep.FinalTextMatch), matchWord(rep.EventsMatch))
		if res.Error != "" {
			fmt.Fprintf(env.Stderr, "agentdeck: %s\n", res.Error)
		}
	}
	if !rep.Matched {
		return ExitFailed
	}
	return ExitOK
}

// eventTypes is the sequence of event types, tokens collapsed into runs
// (a replay may deliver the same text in the same chunks, but the
// comparison should not depend on it).
func eventTypes(evs []agent.Event) []string {
	var out []string
	for _, e := range evs {
		t := string(e.Type)
		if n := len(out); t == string(agent.EventToken) && n > 0 && out[n-1] == t {
			continue
		}
		out = append(out, t)
	}
	return out
}

func matchWord(ok bool) string {
	if ok {
		return "matches the original"
	}
	return "DIFFERS from the original"
}
