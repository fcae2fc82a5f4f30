package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

type runFlags struct {
	db, session, parent, cont, workflow, baseURL, model, provider, apiKeyEnv, capture, workspace, approve string
	maxSteps, maxToolCalls, tokenBudget                                                                   int
	timeout                                                                                               time.Duration
	attach, imageFiles                                                                                    repeated
	json, overBudget                                                                                      bool
	mcp                                                                                                   mcpFlags
	// settings are a new session's (or with --session, this turn's).
	settings settingFlags
	// images are the files of --image, read (readImages).
	images []llm.Image
	// models are the targets of --model (repeatable) and --models, in the
	// order given: one is a turn as ever (model), 2 to store.MaxColumns
	// run side by side (run_group.go).
	models []string
	// baseURLGiven is set when --base-url was passed, not taken from
	// OPENAI_BASE_URL.
	baseURLGiven bool
	// from re-runs a stored turn from a step (run_from.go).
	from fromFlags
	// otlp sends each turn to an OpenTelemetry collector (otlp.go).
	otlp otlpFlags
}

func cmdRun(ctx context.Context, args []string, env Env) int {
	fs := newFlagSet("run", env)
	var f runFlags
	fs.StringVar(&f.db, "db", "", "database file (default: the user data directory; env AGENTDECK_DB)")
	fs.StringVar(&f.session, "session", "", "continue this session (default: a new one); models side by side that are the targets of the group it shows go on in each column's own branch")
	fs.StringVar(&f.parent, "parent", "", "with --session: follow this turn instead of the session's latest (given an existing turn's parent, a new version of that turn)")
	fs.StringVar(&f.cont, "continue", "", "with --session and no PROMPT: continue the answer of this turn (stopped, or ended at a limit)")
	fs.StringVar(&f.workflow, "workflow", "", "workflow name or file (default chat)")
	fs.StringVar(&f.baseURL, "base-url", env.Getenv("OPENAI_BASE_URL"), "OpenAI-compatible base URL (env OPENAI_BASE_URL)")
	fs.Var(&modelList{list: &f.models}, "model", "the `model` (env AGENTDECK_MODEL); give it 2 to 4 times to ask models side by side: each answer is printed whole under its target's name as it ends (streamed tokens of several would be unreadable), --json lines carry \"target\" and \"slot\", provider/model names a configured provider, Ctrl+C stops them all, exit 1 if any failed")
	fs.Var(&modelList{list: &f.models, split: true}, eval.FlagModels, "models side by side, comma-separated as agentdeck eval takes them: --models `a,b` is --model a --model b")
	fs.StringVar(&f.provider, "provider", "", "a configured provider instead of --base-url")
	fs.StringVar(&f.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "environment variable holding the API key (keys are never flags)")
	fs.StringVar(&f.capture, "capture", "record", "off|record|replay|auto")
	fs.IntVar(&f.maxSteps, "max-steps", 0, "maximum model calls (default 25)")
	fs.IntVar(&f.maxToolCalls, "max-tool-calls", 0, "maximum tool calls (default 50)")
	fs.IntVar(&f.tokenBudget, "token-budget", 0, "maximum total tokens (default none)")
	fs.DurationVar(&f.timeout, "timeout", 0, "wall-clock limit, e.g. 2m (default none)")
	fs.StringVar(&f.workspace, "workspace", "", "folder the file tools may use")
	fs.Var(&f.attach, "attach", "attach a CSV, TSV, JSON, JSONL or XLSX file as tables, or a document (PDF, DOCX, Markdown, HTML, text) the model searches and cites (repeatable)")
	fs.Var(&f.imageFiles, "image", "send a PNG, JPEG, WebP or GIF image (at most 20 MB) with the message, for a model that sees (repeatable)")
	fs.StringVar(&f.approve, "approve", "none", "all|none: allow or deny tools with side effects")
	fs.BoolVar(&f.json, "json", false, "print events as NDJSON on stdout")
	fs.BoolVar(&f.overBudget, "over-budget", false, "send even though the provider's monthly budget is spent")
	force := forceFlagOf(fs)
	f.mcp.register(fs)
	f.settings.register(fs)
	f.from.register(fs)
	f.otlp.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return ExitUsage
	}
	if code := f.otlp.check(env); code != ExitOK {
		return code
	}
	fs.Visit(func(fl *flag.Flag) { f.baseURLGiven = f.baseURLGiven || fl.Name == "base-url" })
	if code := f.pickModels(env); code != ExitOK {
		return code
	}
	if set := given(fs); set["from"] || set["no-side-effects"] || slices.ContainsFunc(editFlags, func(n string) bool { return set[n] }) {
		return cmdRunFrom(ctx, fs, f, strings.TrimSpace(strings.Join(pos, " ")), *force, env)
	}
	if err := f.settings.s.Validate(); err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: %v\n", err)
		return ExitUsage
	}
	if f.settings.project != "" && f.session != "" {
		fmt.Fprintln(env.Stderr, "agentdeck: --project starts a new session in a project; to move a session, use agentdeck sessions move")
		return ExitUsage
	}
	prompt := strings.TrimSpace(strings.Join(pos, " "))
	if code := f.checkPrompt(prompt, env); code != ExitOK {
		return code
	}
	if f.images, err = readImages(f.imageFiles); err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: %v\n", err)
		return ExitUsage
	}
	db, path, mode, code := f.openToRun(ctx, "start the turn", *force, env)
	if db == nil {
		return code
	}
	defer db.Close()
	eng, err := setup.Build(ctx, db, f.mcp.options(setup.Options{DataDir: dataDir(path), Logger: quietLogger(env, path)}))
	if err != nil {
		return fail(env, err)
	}
	defer f.otlp.closeEngine(eng, env)
	if code := f.otlp.start(ctx, eng, db, env, path); code != ExitOK {
		return code
	}
	return runTurn(ctx, db, eng, f, prompt, mode, *force, env)
}

// openToRun checks the flags every turn of run takes (--approve, the MCP
// flags, --capture) and opens the database for writing; db is nil when it
// cannot, and code says why.
func (f runFlags) openToRun(ctx context.Context, what string, force bool, env Env) (db *store.DB, path string, mode recording.Mode, code int) {
	if f.approve != "all" && f.approve != "none" {
		fmt.Fprintln(env.Stderr, "agentdeck: --approve must be all or none")
		return nil, "", mode, ExitUsage
	}
	if code := f.mcp.check(env); code != ExitOK {
		return nil, "", mode, code
	}
	mode, err := recording.ParseMode(f.capture)
	if err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: %v\n", err)
		return nil, "", mode, ExitUsage
	}
	if db, path, code = openDB(ctx, f.db, env); db == nil {
		return nil, "", mode, code
	}
	if code := mayWrite(db, what, force, env); code != ExitOK {
		db.Close()
		return nil, "", mode, code
	}
	return db, path, mode, ExitOK
}

// modelList is --model, given once or more, and --models a,b (split):
// both add to one list of targets, in the order given.
type modelList struct {
	list  *[]string
	split bool
}

func (m *modelList) String() string {
	if m == nil || m.list == nil {
		return ""
	}
	return strings.Join(*m.list, ",")
}

func (m *modelList) Set(v string) error {
	if m.split {
		*m.list = append(*m.list, splitModels(v)...)
	} else {
		*m.list = append(*m.list, v)
	}
	return nil
}

// splitModels is a comma-separated list of models (eval's and run's
// --models); blank ones are skipped (a trailing comma).
func splitModels(s string) []string {
	var out []string
	for _, m := range strings.Split(s, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// pickModels reads the targets: none is $AGENTDECK_MODEL, one is the
// turn's model as it always was, more run side by side (at most
// store.MaxColumns).
func (f *runFlags) pickModels(env Env) int {
	switch n := len(f.models); {
	case n == 0:
		f.model = env.Getenv("AGENTDECK_MODEL")
	case n == 1:
		f.model, f.models = f.models[0], nil
	case n > store.MaxColumns:
		fmt.Fprintf(env.Stderr, "agentdeck: side by side runs 2 to %d models at once, not %d: pass fewer --model (or --models) values\n", store.MaxColumns, n)
		return ExitUsage
	case n > 1 && f.cont != "":
		fmt.Fprintln(env.Stderr, "agentdeck: --continue goes on with one turn's answer: give one --model with it, not several")
		return ExitUsage
	}
	return ExitOK
}

// checkPrompt refuses a run with nothing to send (images alone are a
// message), and a continuation given a message or images too: a
// continuation sends no message of its own (the runner sends the partial
// answer, or an instruction to go on), so they would be silently lost.
func (f runFlags) checkPrompt(prompt string, env Env) int {
	switch {
	case f.cont != "" && prompt != "":
		fmt.Fprintln(env.Stderr, "agentdeck: --continue takes no PROMPT: the turn goes on with the answer it continues (send a new message without --continue)")
		return ExitUsage
	case f.cont != "" && len(f.imageFiles) > 0:
		fmt.Fprintln(env.Stderr, "agentdeck: --continue takes no --image: the turn goes on with the answer it continues (send a new message without --continue)")
		return ExitUsage
	case f.cont != "" && f.parent != "":
		fmt.Fprintln(env.Stderr, "agentdeck: --continue and --parent cannot be used together: a continuation follows the turn it continues")
		return ExitUsage
	case f.cont == "" && prompt == "" && len(f.imageFiles) == 0:
		fmt.Fprintln(env.Stderr, "agentdeck: no prompt: agentdeck run [flags] PROMPT (or --image FILE, or --session ID --continue TURN_ID)")
		return ExitUsage
	}
	return ExitOK
}

// runStore is what run uses of the database besides the engine: the
// session the turn goes into, and a provider's default model.
type runStore interface {
	GetSession(ctx context.Context, id string) (store.Session, error)
	GetProject(ctx context.Context, idOrName string) (store.Project, error)
	providerLister
	sessionWriter
	groupStore
}

// sessionWriter makes the session a turn of run or replay goes into, and
// deletes it again when the turn cannot start.
type sessionWriter interface {
	CreateSession(ctx context.Context, s store.Session) (store.Session, error)
	DeleteSession(ctx context.Context, id string) error
}

var _ runStore = (*store.DB)(nil)

// runTurn runs the prompt as a turn of the session --session names, or of
// a new one, and prints it as it streams.
func runTurn(ctx context.Context, db runStore, eng *setup.Engine, f runFlags, prompt string, mode recording.Mode, force bool, env Env) int {
	// A message that cannot be sent leaves no new session behind: check
	// what can be checked first, and delete the session if Start refuses.
	var sess store.Session
	var err error
	if f.session != "" {
		if sess, err = db.GetSession(ctx, f.session); err != nil {
			return fail(env, err)
		}
	}
	proj, err := runProject(ctx, db, f.settings.project, sess)
	if err != nil {
		return fail(env, err)
	}
	sess.Provider = cmp.Or(sess.Provider, proj.Settings.Provider) // what the checks below see
	sess.Model = cmp.Or(sess.Model, proj.Settings.Model)
	if f.parent != "" && f.session == "" {
		fmt.Fprintln(env.Stderr, "agentdeck: --parent needs --session: the turn to follow is in a session")
		return ExitUsage
	}
	if f.cont != "" && f.session == "" {
		fmt.Fprintln(env.Stderr, "agentdeck: --continue needs --session: the turn to continue is in a session")
		return ExitUsage
	}
	if len(f.models) > 1 {
		return runSideBySide(ctx, db, eng, f, sideBySideRun{sess: sess, proj: proj, prompt: prompt, mode: mode, force: force}, env)
	}
	if f.baseURL == "" && f.provider == "" && sess.Provider == "" {
		fmt.Fprintln(env.Stderr, "agentdeck: no model server: pass --base-url URL (or set OPENAI_BASE_URL), or --provider NAME")
		return ExitUsage
	}
	if f.model == "" && sess.Model == "" && f.provider != "" {
		// The provider's own default model, as the window uses it.
		if p, ok, err := providerNamed(ctx, db, f.provider); err == nil && ok {
			f.model = p.DefaultModel
		}
	}
	if f.model == "" && sess.Model == "" {
		fmt.Fprintln(env.Stderr, "agentdeck: no model: pass --model, set AGENTDECK_MODEL, or give the provider a default model (agentdeck providers add NAME --model MODEL)")
		return ExitUsage
	}
	if model := cmp.Or(f.model, sess.Model); len(f.images) > 0 && !llm.SeesImages(model) {
		fmt.Fprintf(env.Stderr, "agentdeck: note: %s is not known to see images; if it refuses them, pick a vision model (such as qwen2.5vl, llava or gemma3) with --model\n", model)
	}
	// The turn starts once the MCP servers are up, so its first model
	// call is offered their tools (a usage error above does not wait).
	if code := connectMCP(ctx, eng, f.mcp, env); code != ExitOK {
		return code
	}
	if f.session == "" {
		if sess, err = newRunSession(ctx, db, f, proj, prompt); err != nil {
			return fail(env, err)
		}
	}
	var sink turn.Sink
	if f.json {
		sink = &jsonPrinter{w: env.Stdout}
	} else {
		sink = &humanPrinter{out: env.Stdout, err: env.Stderr, dim: colorful(env)}
	}
	req := f.request(sess.ID, prompt, mode, force, env)
	req.Sinks = []turn.Sink{sink}
	h, err := eng.Runner.Start(ctx, req)
	if err != nil {
		return startFailed(ctx, db, f, sess, err, env)
	}
	res := waitTurn(ctx, eng.Runner, h, env)
	if !f.json {
		fmt.Fprintf(env.Stderr, "session %s  turn %s\n", sess.ID, h.TurnID)
	}
	if name := cmp.Or(f.provider, sess.Provider); f.baseURL == "" && name != "" {
		warnBudget(ctx, eng.Runner, name, env)
	}
	return exitCode(res)
}

// request is the turn the flags ask for; the columns of a side-by-side
// run share it.
func (f runFlags) request(sessionID, prompt string, mode recording.Mode, force bool, env Env) runner.Request {
	return runner.Request{
		SessionID:  sessionID,
		Message:    prompt,
		Images:     f.images,
		Parent:     f.parent,
		Continue:   f.cont,
		Workflow:   f.workflow,
		Model:      f.model,
		Provider:   f.provider,
		BaseURL:    f.baseURL,
		APIKey:     env.Getenv(f.apiKeyEnv),
		Limits:     turn.Limits{MaxSteps: f.maxSteps, MaxToolCalls: f.maxToolCalls, TokenBudget: f.tokenBudget, Timeout: f.timeout},
		Settings:   turnSettings(f),
		Capture:    mode,
		Approver:   agent.PolicyApprover{AllowAll: f.approve == "all"},
		Attach:     f.attach,
		Workspace:  f.workspace,
		Force:      force,
		OverBudget: f.overBudget,
	}
}

// startFailed says why the runner refused the turn (or the group), and
// deletes the session made for it: a message that cannot be sent leaves
// no new session behind.
func startFailed(ctx context.Context, db sessionWriter, f runFlags, sess store.Session, err error, env Env) int {
	if f.session == "" {
		_ = db.DeleteSession(context.WithoutCancel(ctx), sess.ID)
	}
	if apperr.CodeOf(err) == apperr.OverBudget {
		fmt.Fprintf(env.Stderr, "agentdeck: %s\nagentdeck: pass --over-budget to send anyway.\n", apperr.MessageOf(err))
		return ExitFailed
	}
	return fail(env, err)
}

// warnBudget says on stderr when the provider's spending this month has
// passed 80% of its budget.
func warnBudget(ctx context.Context, r *runner.Runner, provider string, env Env) {
	b, err := r.Budget(ctx, provider)
	if err != nil || b.State == llm.BudgetOK {
		return
	}
	fmt.Fprintf(env.Stderr, "agentdeck: %.0f%% of this month's budget for %s is spent: $%.2f of $%.2f\n",
		100*b.SpentUSD/b.Budget.MonthlyUSD, provider, b.SpentUSD, b.Budget.MonthlyUSD)
}

// runProject is the project of the run's session: the one --project
// names for a new session, else the session's own (none: the zero one).
func runProject(ctx context.Context, db runStore, name string, sess store.Session) (store.Project, error) {
	id := cmp.Or(name, sess.ProjectID)
	if id == "" {
		return store.Project{}, nil
	}
	p, err := db.GetProject(ctx, id)
	if err != nil && name == "" && apperr.CodeOf(err) == apperr.NotFound {
		return store.Project{}, nil // a session's project deleted meanwhile
	}
	return p, err
}

// turnSettings is the turn's own layer: the settings flags apply to this
// turn only when it goes into an existing session (a new session holds
// them).
func turnSettings(f runFlags) turn.RunSettings {
	if f.session == "" {
		return turn.RunSettings{}
	}
	return f.settings.s
}

// newRunSession creates the session of a run, titled after the prompt,
// or the images sent without one, in the project given, with the
// settings the flags set.
func newRunSession(ctx context.Context, db sessionWriter, f runFlags, proj store.Project, prompt string) (store.Session, error) {
	title := prompt
	if title == "" {
		var names []string
		for _, im := range f.images {
			names = append(names, im.Name)
		}
		title = strings.Join(names, ", ")
	}
	if len([]rune(title)) > 60 {
		title = string([]rune(title)[:60]) + "…"
	}
	workflow := f.workflow
	if proj.Settings.Workflow == "" {
		workflow = firstNonEmpty(workflow, "chat") // else the project's holds
	}
	return db.CreateSession(ctx, store.Session{Title: title, Model: f.model, Provider: f.provider, Workflow: workflow, Workspace: f.workspace,
		ProjectID: proj.ID, Settings: f.settings.s})
}

// waitTurn waits for the turn; the first signal stops it (the partial
// answer is stored, the process exits 130 within a second), a second one
// exits at once.
func waitTurn(ctx context.Context, r *runner.Runner, h *runner.Handle, env Env) turn.Result {
	if !untilDone(ctx, h.Done(), func() { _ = r.Stop(h.TurnID) }, env) {
		return turn.Result{Cancelled: true}
	}
	return h.Wait()
}

// untilDone waits for done. The first signal, or ctx's end, calls stop
// (what runs stops and stores its partial answer); a second signal exits
// at once, and untilDone returns false.
func untilDone(ctx context.Context, done <-chan struct{}, stop func(), env Env) bool {
	signals := env.Signals
	stopped := false
	ctxDone := ctx.Done()
	for {
		select {
		case <-done:
			return true
		case <-ctxDone:
			ctxDone = nil
			stopped = true
			stop()
		case <-signals:
			if stopped {
				fmt.Fprintln(env.Stderr, "agentdeck: stopped at once")
				env.Exit(ExitCancelled)
				return false
			}
			fmt.Fprintln(env.Stderr, "\nagentdeck: stopping (press Ctrl+C again to quit at once)")
			stopped = true
			stop()
		}
	}
}

func exitCode(res turn.Result) int {
	switch {
	case res.Cancelled:
		return ExitCancelled
	case res.OK:
		return ExitOK
	}
	return ExitFailed
}
