package cli

import (
	"context"
	"fmt"
	"slices"

	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// ReplayReport says whether a replay reproduced the original turn.
type ReplayReport struct {
	OriginalTurnID string                      `json:"original_turn_id"`
	ReplayTurnID   string                      `json:"replay_turn_id"`
	SessionID      string                      `json:"session_id"`
	FinalTextMatch bool                        `json:"final_text_match"`
	EventsMatch    bool                        `json:"events_match"`
	Divergences    []turn.ReplayDivergenceData `json:"divergences"`
	Matched        bool                        `json:"matched"`
	Error          string                      `json:"error,omitempty"`
}

// cmdReplay re-runs a recorded turn offline from its own recordings, in a
// new session so the original stays as it was, and compares the two.
func cmdReplay(ctx context.Context, args []string, env Env) int {
	fs := newFlagSet("replay", env)
	fs.Usage = func() {
		fmt.Fprint(env.Stderr, `Usage: agentdeck replay TURN_ID [flags]

Replays a stored turn offline, all of it from its own recordings: no model
is called and nothing with a side effect runs again, in a new session, and
says whether the replay matched. Replay stays offline.

To re-run a turn from one of its steps with one change (a message, a tool
result, a reply, the model or a stage's settings) and run live after it,
use agentdeck run --from TURN_ID:STEP (agentdeck run --help; the steps are
listed by agentdeck turns show TURN_ID).

Flags:
`)
		fs.PrintDefaults()
	}
	dbFlag := dbFlagOf(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	strict := fs.Bool("strict", false, "fail when a model request differs from the recorded one")
	force := forceFlagOf(fs)
	var mcpf mcpFlags
	mcpf.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil || len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "agentdeck: usage: agentdeck replay TURN_ID [--strict] [--json] [--force] [--no-mcp | --mcp-config FILE]")
		return ExitUsage
	}
	if code := mcpf.check(env); code != ExitOK {
		return code
	}
	db, path, code := openDB(ctx, *dbFlag, env)
	if db == nil {
		return code
	}
	defer db.Close()
	if code := mayWrite(db, "start the replay", *force, env); code != ExitOK {
		return code
	}
	orig, err := db.GetTurn(ctx, pos[0], true)
	if err != nil {
		return fail(env, err)
	}
	sess, err := db.GetSession(ctx, orig.SessionID)
	if err != nil {
		return fail(env, err)
	}
	eng, err := setup.Build(ctx, db, mcpf.options(setup.Options{DataDir: dataDir(path), Logger: quietLogger(env, path)}))
	if err != nil {
		return fail(env, err)
	}
	defer eng.Close()
	// The replay offers the model the tools the original had: the MCP
	// servers' read-only tools run again, the others give back the
	// original's results (runner.Replay).
	if code := connectMCP(ctx, eng, mcpf, env); code != ExitOK {
		return code
	}
	return replayTurn(ctx, db, eng, orig, sess, *strict, *force, *asJSON, env)
}

// replayTurn replays orig, a turn of sess, in a new session, compares the
// two and prints how they compare.
func replayTurn(ctx context.Context, db sessionWriter, eng *setup.Engine, orig store.TurnDetail, sess store.Session, strict, force, asJSON bool, env Env) int {
	copySess, err := db.CreateSession(ctx, store.Session{Title: fmt.Sprintf("Replay of %s #%d", sess.Title, orig.Seq), Model: orig.Model,
		Workflow: orig.Workflow, Workspace: sess.Workspace, Settings: sess.Settings})
	if err != nil {
		return fail(env, err)
	}
	var events []turn.Event
	h, err := eng.Runner.Start(ctx, runner.Request{
		SessionID: copySess.ID,
		Replay:    &runner.Replay{TurnID: orig.ID, Strict: strict},
		Force:     force,
		Sinks: []turn.Sink{turn.SinkFunc(func(e turn.Event) error {
			events = append(events, e)
			return nil
		})},
	})
	if err != nil {
		_ = db.DeleteSession(ctx, copySess.ID)
		return fail(env, err)
	}
	res := waitTurn(ctx, eng.Runner, h, env)
	rep := ReplayReport{OriginalTurnID: orig.ID, ReplayTurnID: h.TurnID, SessionID: copySess.ID, Error: res.Error, Divergences: []turn.ReplayDivergenceData{}}
	for _, e := range events {
		if e.Type == turn.EventReplayDivergence {
			d := eventData[turn.ReplayDivergenceData](e)
			rep.Divergences = append(rep.Divergences, d)
		}
	}
	rep.FinalTextMatch = res.FinalText == orig.FinalText
	rep.EventsMatch = slices.Equal(eventTypes(orig.Events), eventTypes(events))
	rep.Matched = rep.FinalTextMatch && rep.EventsMatch && len(rep.Divergences) == 0 && res.OK == (orig.State == store.StateCompleted)
	if asJSON {
		printJSON(env, rep)
	} else {
		printReplay(env, rep, orig.ID, res)
	}
	if !rep.Matched {
		return ExitFailed
	}
	return ExitOK
}

func printReplay(env Env, rep ReplayReport, origID string, res turn.Result) {
	fmt.Fprintf(env.Stdout, "replayed turn %s as %s\nfinal text: %s\nevent types: %s\n", origID, rep.ReplayTurnID, matchWord(rep.FinalTextMatch), matchWord(rep.EventsMatch))
	for _, d := range rep.Divergences {
		where := ""
		if d.Call > 0 {
			where = fmt.Sprintf("model call %d: ", d.Call)
		}
		fmt.Fprintf(env.Stdout, "diverged: %s%s\n", where, d.Message)
		for _, x := range d.Diffs {
			fmt.Fprintf(env.Stdout, "  %s\n", x)
		}
	}
	if res.Error != "" {
		fmt.Fprintf(env.Stderr, "agentdeck: %s\n", res.Error)
	}
}

// eventTypes is the sequence of event types, tokens collapsed into runs
// (a replay may deliver the same text in the same chunks, but the
// comparison should not depend on it).
func eventTypes(evs []turn.Event) []string {
	var out []string
	for _, e := range evs {
		t := string(e.Type)
		if n := len(out); t == string(turn.EventToken) && n > 0 && out[n-1] == t {
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
