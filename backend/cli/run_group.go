package cli

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Side by side: `agentdeck run --model A --model B PROMPT` (or --models
// A,B) sends the prompt to 2 to store.MaxColumns targets at once, as the
// columns of one group (runner.StartGroup), each its own turn.
//
// Rules:
//   - A target is "provider/model" when the part before its first "/"
//     names a configured provider (eval's --models spells targets so);
//     else it is a model of --provider, the session's provider, or
//     --base-url. A target that names its provider goes through the
//     configured providers only: --base-url cannot be given with it, and
//     OPENAI_BASE_URL is not used. One target is a turn as it always was,
//     its model taken as written.
//   - Text: each column's answer is printed whole under a header naming
//     its target, as the column ends (streamed tokens of several columns
//     would interleave); its progress goes to stderr, each line led by the
//     target. --json: every event line carries "target" and "slot".
//   - Ctrl+C stops every column (StopGroup); each stores its partial
//     answer. Exit 0 when every column answered, 1 when any failed, 130
//     when stopped.
//   - With --session and no --parent, a run to the same targets as the
//     group the session shows side by side (Session.OpenGroupID) follows
//     that group: each column goes on with its own branch. Other targets,
//     or --parent, start a new group after the session's active turn (or
//     the turn --parent names).

// sideBySideRun is what runTurn has settled before the targets are read.
type sideBySideRun struct {
	sess   store.Session // the session --session names; zero for a new one
	proj   store.Project
	prompt string
	mode   recording.Mode
	force  bool
}

// groupStore is what a side-by-side run reads of the database besides
// runStore: the group the session shows.
type groupStore interface {
	GetGroup(ctx context.Context, id string) (store.TurnGroup, error)
}

var _ groupStore = (*store.DB)(nil)

// runSideBySide sends the prompt to every target of f.models at once and
// prints the columns as they end.
func runSideBySide(ctx context.Context, db runStore, eng *setup.Engine, f runFlags, run sideBySideRun, env Env) int {
	sess := run.sess
	targets, baseURL, problem, err := groupTargets(ctx, db, f, sess)
	if err != nil {
		return fail(env, err)
	}
	if problem != "" {
		fmt.Fprintf(env.Stderr, "agentdeck: %s\n", problem)
		return ExitUsage
	}
	for _, t := range targets {
		if len(f.images) > 0 && !llm.SeesImages(t.Model) {
			fmt.Fprintf(env.Stderr, "agentdeck: note: %s is not known to see images; if it refuses them, its column says so\n", t.Model)
		}
	}
	if code := connectMCP(ctx, eng, f.mcp, env); code != ExitOK {
		return code
	}
	var follows string
	if f.session != "" && f.parent == "" && sess.OpenGroupID != "" {
		if follows, err = followed(ctx, db, sess.OpenGroupID, targets); err != nil {
			return fail(env, err)
		}
	}
	if f.session == "" {
		first := f
		first.model, first.provider = targets[0].Model, targets[0].Provider
		if sess, err = newRunSession(ctx, db, first, run.proj, run.prompt); err != nil {
			return fail(env, err)
		}
	}
	out := &sideBySide{stdout: env.Stdout, stderr: env.Stderr}
	if f.json {
		out.json = &jsonPrinter{w: env.Stdout}
	}
	req := f.request(sess.ID, run.prompt, run.mode, run.force, env)
	req.BaseURL = baseURL
	gh, err := eng.Runner.StartGroup(ctx, runner.GroupRequest{Request: req, Targets: targets, Follows: follows, ColumnSinks: out.sinks})
	if err != nil {
		return startFailed(ctx, db, f, sess, err, env)
	}
	done := make(chan struct{})
	go func() {
		gh.Wait()
		close(done)
	}()
	if !untilDone(ctx, done, func() { _ = eng.Runner.StopGroup(gh.Group.ID) }, env) {
		return ExitCancelled
	}
	out.finish()
	code := groupExit(gh)
	if !f.json {
		fmt.Fprintf(env.Stderr, "session %s  group %s\n", sess.ID, gh.Group.ID)
		for _, h := range gh.Handles {
			fmt.Fprintf(env.Stderr, "  %s  turn %s  %s\n", h.Target, h.TurnID, outcomeWord(h.Wait()))
		}
	}
	if baseURL == "" {
		var warned []string
		for _, t := range gh.Group.Targets {
			if name := cmp.Or(t.Provider, sess.Provider); name != "" && !slices.Contains(warned, name) {
				warned = append(warned, name)
				warnBudget(ctx, eng.Runner, name, env)
			}
		}
	}
	return code
}

// groupTargets reads f.models as the group's targets (see the rules
// above). baseURL is the server of the targets that name no provider, ""
// when they go through providers; problem is a usage error.
func groupTargets(ctx context.Context, db providerLister, f runFlags, sess store.Session) (targets []store.GroupTarget, baseURL, problem string, err error) {
	named := ""
	for _, m := range f.models {
		t := store.GroupTarget{Model: m, Workflow: f.workflow}
		if p, name, ok := strings.Cut(m, "/"); ok && p != "" {
			_, isProvider, err := providerNamed(ctx, db, p)
			if err != nil {
				return nil, "", "", err
			}
			if isProvider && name == "" {
				return nil, "", fmt.Sprintf("%q names the provider %s but no model: write provider/model", m, p), nil
			}
			if isProvider {
				t.Provider, t.Model, named = p, name, m
			}
		}
		targets = append(targets, t)
	}
	baseURL = f.baseURL
	if named != "" {
		if f.baseURLGiven {
			return nil, "", fmt.Sprintf("%s names a configured provider, and --base-url would send every column to one server: drop --base-url (give the other targets as provider/model, or --provider NAME)", named), nil
		}
		baseURL = ""
	}
	fallback := cmp.Or(f.provider, sess.Provider)
	for i, t := range targets {
		switch {
		case t.Provider != "" || baseURL != "":
		case fallback == "":
			return nil, "", fmt.Sprintf("no model server for %s: write it as provider/model, or pass --provider NAME (or --base-url URL when no target names a provider)", t.Model), nil
		default:
			targets[i].Provider = fallback
		}
	}
	return targets, baseURL, "", nil
}

// followed is the group a run in an existing session goes on from: the
// group the session shows side by side, when the run asks the same
// targets (in any order); "" for a new group after the active turn.
func followed(ctx context.Context, db groupStore, groupID string, targets []store.GroupTarget) (string, error) {
	g, err := db.GetGroup(ctx, groupID)
	if err != nil {
		return "", err
	}
	if !sameTargets(g.Targets, targets) {
		return "", nil
	}
	return g.ID, nil
}

// sameTargets reports whether b asks what a asked, in any order. A
// provider or workflow left to the session's matches any.
func sameTargets(a, b []store.GroupTarget) bool {
	if len(a) != len(b) {
		return false
	}
	used := make([]bool, len(a))
	for _, t := range b {
		found := false
		for i, u := range a {
			if !used[i] && u.Model == t.Model && matches(u.Provider, t.Provider) && matches(u.Workflow, t.Workflow) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// matches is two settings that may each be left to the session ("").
func matches(a, b string) bool { return a == "" || b == "" || a == b }

// groupExit is the run's exit code: 130 when a column was stopped, 1 when
// any failed, 0 when every column answered.
func groupExit(gh runner.GroupHandle) int {
	code := ExitOK
	for _, h := range gh.Handles {
		switch res := h.Wait(); {
		case res.Cancelled:
			return ExitCancelled
		case !res.OK:
			code = ExitFailed
		}
	}
	return code
}

// outcomeWord says how a column ended, for the summary on stderr.
func outcomeWord(res turn.Result) string {
	switch {
	case res.Cancelled:
		return "stopped"
	case res.OK:
		return "answered"
	case res.Error != "":
		return "failed: " + clip(res.Error, 160)
	}
	return "failed"
}
