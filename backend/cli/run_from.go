package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/timeline"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// run --from TURN_ID:STEP re-runs a stored turn from one of its steps
// (time travel, docs/RECORDINGS.md#time-travel): everything before the
// step comes from the turn's recordings, the one edit is made there, and
// the rest runs live with run's usual model and approval flags. The new
// turn is a version of the original in the original's session.

// fromFlags are run's flags for a re-run from a step.
type fromFlags struct {
	ref, message, system, toolResult, reply string
	stage                                   repeated
	noSideEffects                           bool
}

// The edit flags: a re-run makes one edit.
var editFlags = []string{"edit-message", "edit-system-prompt", "edit-tool-result", "edit-reply", "edit-stage"}

// samplingFlags are run's settings flags a re-run takes as its settings
// edit, with --model and --provider.
var samplingFlags = []string{"temperature", "top-p", "max-tokens", "seed", "stop", "reasoning-effort"}

// notWithFrom are run's flags a re-run cannot use, and why: it runs the
// original's message, workflow and settings, in the original's session.
var notWithFrom = map[string]string{
	"session":        "the re-run goes into the original's session",
	"parent":         "the re-run is a new version of the original",
	"continue":       "continue an answer with run --session ID --continue TURN_ID",
	"workflow":       "the re-run runs the original's workflow",
	"project":        "the re-run goes into the original's session",
	"attach":         "the re-run has the original's files",
	"image":          "the re-run sends the original's images",
	"system":         "to change the system prompt, pass --edit-system-prompt TEXT",
	"max-steps":      "the re-run has the original's limits",
	"max-tool-calls": "the re-run has the original's limits",
	"token-budget":   "the re-run has the original's limits",
	"timeout":        "the re-run has the original's limits",
}

func (ff *fromFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&ff.ref, "from", "", "re-run the stored turn TURN_ID from its step STEP (`TURN_ID:STEP`; agentdeck turns show TURN_ID lists the steps): the steps before it come from the turn's recordings (no model call, no side effect), then one edit, then live. --model, --provider and the sampling flags given with --from and no --edit-* flag are the edit: the settings of the live calls (at the start or a model call)")
	fs.StringVar(&ff.message, "edit-message", "", "with --from TURN_ID:start: the user message the turn is sent instead")
	fs.StringVar(&ff.system, "edit-system-prompt", "", "with --from TURN_ID:start: the system prompt (the session's instructions) instead")
	fs.StringVar(&ff.toolResult, "edit-tool-result", "", "with --from TURN_ID:toolN: what the tool should have returned, read from `FILE` (- reads stdin)")
	fs.StringVar(&ff.reply, "edit-reply", "", "with --from TURN_ID:callN: what the model should have said at that call; the turn goes on from it")
	fs.Var(&ff.stage, "edit-stage", "with --from TURN_ID:stageN: set `KEY=VALUE` of the stage's agent from that stage on (repeatable): system_prompt, model, temperature, top_p, max_tokens, seed, reasoning_effort")
	fs.BoolVar(&ff.noSideEffects, "no-side-effects", false, "with --from: answer a side-effecting tool call after the step from the original's same call, and refuse one it never made")
}

// given are the flags of fs the command line set.
func given(fs *flag.FlagSet) map[string]bool {
	out := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { out[fl.Name] = true })
	return out
}

// cmdRunFrom re-runs a turn from a step; f's flags are parsed and its
// model picked. It returns ExitUsage for flags that do not go together.
func cmdRunFrom(ctx context.Context, fs *flag.FlagSet, f runFlags, prompt string, force bool, env Env) int {
	set := given(fs)
	if !set["model"] {
		// AGENTDECK_MODEL is a new turn's model: a re-run's live part
		// keeps the original's unless --model says otherwise.
		f.model = ""
	}
	if f.from.ref == "" {
		fmt.Fprintln(env.Stderr, "agentdeck: the --edit-* and --no-side-effects flags change a re-run from a step: pass --from TURN_ID:STEP")
		return ExitUsage
	}
	turnID, step, err := timeline.ParseRef(f.from.ref)
	if err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: --from: %v\n", err)
		return ExitUsage
	}
	if msg := f.fromConflict(set, prompt); msg != "" {
		fmt.Fprintf(env.Stderr, "agentdeck: %s\n", msg)
		return ExitUsage
	}
	db, path, mode, code := f.openToRun(ctx, "start the re-run", force, env)
	if db == nil {
		return code
	}
	defer db.Close()
	orig, err := db.GetTurn(ctx, turnID, true)
	if err != nil {
		return fail(env, err)
	}
	edit, err := f.from.edit(set, f, orig, step, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: %v\n", err)
		return ExitUsage
	}
	sess, err := db.GetSession(ctx, orig.SessionID)
	if err != nil {
		return fail(env, err)
	}
	if f.baseURL == "" && f.provider == "" && edit.Settings.Provider == "" && sess.Provider == "" {
		fmt.Fprintln(env.Stderr, "agentdeck: no model server for the live part: pass --base-url URL (or set OPENAI_BASE_URL), or --provider NAME")
		return ExitUsage
	}
	eng, err := setup.Build(ctx, db, f.mcp.options(setup.Options{DataDir: dataDir(path), Logger: quietLogger(env, path)}))
	if err != nil {
		return fail(env, err)
	}
	defer f.otlp.closeEngine(eng, env)
	if code := f.otlp.start(ctx, eng, db, env, path); code != ExitOK {
		return code
	}
	if code := connectMCP(ctx, eng, f.mcp, env); code != ExitOK {
		return code
	}
	return rerunTurn(ctx, eng, f, sess, runner.From{TurnID: orig.ID, Step: step, Edit: edit, NoSideEffects: f.from.noSideEffects}, mode, force, env)
}

// fromConflict says why flags given with --from do not go with it ("" when
// they do).
func (f runFlags) fromConflict(set map[string]bool, prompt string) string {
	if prompt != "" || len(f.imageFiles) > 0 {
		return "run --from takes no PROMPT: it re-runs the turn's own message; to change it, pass --edit-message TEXT"
	}
	if len(f.models) > 1 {
		return "run --from re-runs one turn: give one --model for its live part"
	}
	for _, name := range slices.Sorted(maps.Keys(notWithFrom)) {
		if set[name] {
			return fmt.Sprintf("--%s does not go with --from: %s", name, notWithFrom[name])
		}
	}
	var edits []string
	for _, name := range editFlags {
		if set[name] {
			edits = append(edits, "--"+name)
		}
	}
	if len(edits) > 1 {
		return fmt.Sprintf("a re-run makes one edit, and %s are %d: keep one (re-run the new turn from a later step for the next)", strings.Join(edits, " and "), len(edits))
	}
	if len(edits) == 1 {
		for _, name := range samplingFlags {
			if set[name] {
				return fmt.Sprintf("--%s is a settings edit, and a re-run makes one edit: drop it or %s", name, edits[0])
			}
		}
	}
	return ""
}

// edit is the one edit the flags ask for. --model, --provider and the
// sampling flags with no --edit-* flag are a settings edit where one fits
// (the start, a model call); at a tool result or a stage, --model and
// --provider alone only pick the live part's model (Request.Model).
func (ff fromFlags) edit(set map[string]bool, f runFlags, orig store.TurnDetail, step string, env Env) (runner.Edit, error) {
	switch {
	case set["edit-message"]:
		return runner.Edit{Kind: runner.EditMessage, Text: ff.message}, nil
	case set["edit-system-prompt"]:
		return runner.Edit{Kind: runner.EditSystemPrompt, Text: ff.system}, nil
	case set["edit-reply"]:
		return runner.Edit{Kind: runner.EditReply, Text: ff.reply}, nil
	case set["edit-tool-result"]:
		text, err := readEditFile(ff.toolResult, env)
		return runner.Edit{Kind: runner.EditToolResult, Text: text}, err
	case set["edit-stage"]:
		kv := map[string]string{}
		for _, s := range ff.stage {
			k, v, ok := strings.Cut(s, "=")
			if !ok || strings.TrimSpace(k) == "" {
				return runner.Edit{}, fmt.Errorf("--edit-stage takes KEY=VALUE, not %q (keys: system_prompt, model, temperature, top_p, max_tokens, seed, reasoning_effort)", s)
			}
			kv[strings.TrimSpace(k)] = v
		}
		return runner.Edit{Kind: runner.EditStage, Stage: kv}, nil
	}
	sampling := slices.ContainsFunc(samplingFlags, func(n string) bool { return set[n] })
	if !sampling && f.model == "" && f.provider == "" {
		return runner.Edit{}, nil
	}
	if s, ok := timeline.Find(timeline.Steps(orig.Events), step); ok && !sampling && (s.Kind == timeline.KindTool || s.Kind == timeline.KindStage) {
		return runner.Edit{}, nil // the model of the live part: Request.Model
	}
	settings := turn.RunSettings{Provider: f.provider, Model: f.model, Sampling: f.settings.s.Sampling}
	return runner.Edit{Kind: runner.EditSettings, Settings: settings}, nil
}

// readEditFile reads --edit-tool-result's file; "-" is stdin.
func readEditFile(name string, env Env) (string, error) {
	var r io.Reader
	if name == "-" {
		r = env.Stdin
		if r == nil {
			r = os.Stdin
		}
	} else {
		file, err := os.Open(name)
		if err != nil {
			return "", fmt.Errorf("--edit-tool-result: cannot read %s: %w", name, err)
		}
		defer file.Close()
		r = file
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("--edit-tool-result: cannot read %s: %w", name, err)
	}
	return string(b), nil
}

// rerunTurn starts the re-run in the original's session and prints it as
// it streams, as run does.
func rerunTurn(ctx context.Context, eng *setup.Engine, f runFlags, sess store.Session, from runner.From, mode recording.Mode, force bool, env Env) int {
	var sink turn.Sink
	if f.json {
		sink = &jsonPrinter{w: env.Stdout}
	} else {
		sink = &humanPrinter{out: env.Stdout, err: env.Stderr, dim: colorful(env)}
	}
	h, err := eng.Runner.Start(ctx, runner.Request{
		SessionID:  sess.ID,
		Model:      f.model,
		Provider:   f.provider,
		BaseURL:    f.baseURL,
		APIKey:     env.Getenv(f.apiKeyEnv),
		Capture:    mode,
		Approver:   agent.PolicyApprover{AllowAll: f.approve == "all"},
		Workspace:  f.workspace,
		Force:      force,
		OverBudget: f.overBudget,
		From:       &from,
		Sinks:      []turn.Sink{sink},
	})
	if err != nil {
		return fail(env, err)
	}
	res := waitTurn(ctx, eng.Runner, h, env)
	if !f.json {
		// The line run ends with, which scripts read, then the link.
		fmt.Fprintf(env.Stderr, "session %s  turn %s\nre-run of %s from %s; what changed: agentdeck turns diff %s %s\n", sess.ID, h.TurnID, from.TurnID, from.Step, from.TurnID, h.TurnID)
	}
	return exitCode(res)
}
