package app

import (
	"context"
	"io"
	"log/slog"
	"runtime"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/buildinfo"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// API is the one list of what the UI may call. The window binds it (Wails
// binds every exported method of a bound type, so API has these methods
// and nothing else) and the browser mode serves the same methods over HTTP
// (serve.go looks them up on this type and on nothing else). The
// frontend's types of the calls are generated from these signatures
// (frontend/typegen), and a test checks that api.ts calls each of them.
//
// Every method has the same shape, (T, error), and goes through call:
// methods that read or write history first need the database (needDB),
// and every error leaves as an *apperr.Error, a code and a message safe to
// show; an error without a code becomes "internal" with a generic message,
// its cause goes to the log.
type API struct{ s *Service }

// need says whether a call needs the database.
type need bool

const (
	anyTime need = false // works without the database: settings, status
	needDB  need = true  // reads or writes history
)

// call runs one API method: the one readiness check and the one mapping
// of errors for every method.
func call[T any](a *API, n need, f func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	if n == needDB {
		if err := a.s.ready(); err != nil {
			return zero, err
		}
	}
	v, err := f(a.s.ctx())
	if err != nil {
		return zero, a.s.reply(callerName(), err)
	}
	return v, nil
}

// done is the reply of a method with nothing to return.
func done(err error) (Done, error) { return Done{}, err }

// ---- sessions ----

// ListSessions pages through sessions, most recent first.
func (a *API) ListSessions(p store.Page) (store.SessionPage, error) {
	return call(a, needDB, func(ctx context.Context) (store.SessionPage, error) { return a.s.db.ListSessions(ctx, p) })
}

// CreateSession starts a new session with the default model and workflow
// unless others are given.
func (a *API) CreateSession(req NewSession) (store.Session, error) {
	return call(a, needDB, func(ctx context.Context) (store.Session, error) { return a.s.createSession(ctx, req) })
}

// GetSession returns one session.
func (a *API) GetSession(id string) (store.Session, error) {
	return call(a, needDB, func(ctx context.Context) (store.Session, error) { return a.s.db.GetSession(ctx, id) })
}

// RenameSession changes a session's title.
func (a *API) RenameSession(id, title string) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.db.RenameSession(ctx, id, title)) })
}

// UpdateSession saves a session's model, provider, workflow and workspace.
func (a *API) UpdateSession(sess store.Session) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.db.UpdateSession(ctx, sess)) })
}

// DeleteSession deletes a session for good (see store.DeleteSession).
func (a *API) DeleteSession(id string) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.db.DeleteSession(ctx, id)) })
}

// SearchSessions finds text across every session.
func (a *API) SearchSessions(query string, limit int) ([]store.SearchHit, error) {
	return call(a, needDB, func(ctx context.Context) ([]store.SearchHit, error) { return a.s.db.Search(ctx, query, limit) })
}

// ExportSession exports a session as json, md or jsonl. JSON holds every
// branch; Markdown and JSONL the active one unless opts say all branches.
func (a *API) ExportSession(id string, format export.Format, opts ExportOptions) (ExportReply, error) {
	return call(a, needDB, func(ctx context.Context) (ExportReply, error) { return a.s.exportSession(ctx, id, format, opts) })
}

// ImportSession imports a session exported as JSON.
func (a *API) ImportSession(content string) (store.Session, error) {
	return call(a, needDB, func(ctx context.Context) (store.Session, error) {
		return a.s.db.Import(ctx, strings.NewReader(content))
	})
}

// ---- turns ----

// SendMessage starts a turn. Its events arrive on the event stream; the
// reply comes as soon as the turn is recorded. In a damaged database it
// fails with apperr.Damaged, saying why, unless req.Force is set: the UI
// asks the person and sends again with Force.
func (a *API) SendMessage(req SendRequest) (TurnRef, error) {
	return call(a, needDB, func(ctx context.Context) (TurnRef, error) { return a.s.sendMessage(ctx, req) })
}

// UploadAttachment stores a file the page sent, its name and its bytes in
// base64 (at most MaxUploadBytes), for a message to attach: give the path
// it answers in SendRequest.Attach. A browser, and the window's file
// picker, know a file's bytes but not its path. The upload waits in
// uploads/ beside the database: a message that attaches it loads it into
// the session's tables, which DeleteSession deletes, and removes it; one
// that no message attached is removed a day later.
func (a *API) UploadAttachment(name, content string) (UploadedFile, error) {
	return call(a, needDB, func(context.Context) (UploadedFile, error) { return a.s.upload(name, content) })
}

// uploadStream is UploadAttachment with the base64 read from r as it
// arrives: the browser mode's (servebody.go). Unexported, so the window
// does not bind it.
func (a *API) uploadStream(name string, r io.Reader) (UploadedFile, error) {
	return call(a, needDB, func(context.Context) (UploadedFile, error) { return a.s.uploadFrom(name, r) })
}

// StopTurn stops a running turn; stopping a finished turn does nothing. A
// turn left running by a process that is gone is marked interrupted at
// once; one that another live Agentdeck process runs cannot be stopped
// from here (a Conflict that says where it runs).
func (a *API) StopTurn(turnID string) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.stopTurn(ctx, turnID)) })
}

// GetTurn loads a turn with its messages, stages, diagnostics, plan and
// charts, and its events when asked.
func (a *API) GetTurn(turnID string, withEvents bool) (store.TurnDetail, error) {
	return call(a, needDB, func(ctx context.Context) (store.TurnDetail, error) {
		return a.s.db.GetTurn(ctx, turnID, withEvents)
	})
}

// ListTurns pages through a session's turns, newest first.
func (a *API) ListTurns(sessionID string, p store.Page) (store.TurnPage, error) {
	return call(a, needDB, func(ctx context.Context) (store.TurnPage, error) { return a.s.db.ListTurns(ctx, sessionID, p) })
}

// EventsAfter returns a turn's events after a seq: what a UI asks for when
// it (re)opens a turn or sees a gap.
func (a *API) EventsAfter(turnID string, afterSeq int64) ([]turn.Event, error) {
	return call(a, needDB, func(ctx context.Context) ([]turn.Event, error) { return a.s.hub.EventsAfter(ctx, turnID, afterSeq) })
}

// ReplayTurn re-runs a recorded turn offline from its captures, in a new
// session named after it, so the original is left as it was.
func (a *API) ReplayTurn(turnID string) (TurnRef, error) {
	return call(a, needDB, func(ctx context.Context) (TurnRef, error) { return a.s.rerun(ctx, turnID, RerunOptions{}, true) })
}

// RerunTurn runs a past turn's message again, live, with another model or
// workflow, in a new session, for comparison.
func (a *API) RerunTurn(turnID string, opts RerunOptions) (TurnRef, error) {
	return call(a, needDB, func(ctx context.Context) (TurnRef, error) { return a.s.rerun(ctx, turnID, opts, false) })
}

// ListBranch pages through a session's active branch, newest first: the
// conversation as it reads now, with the versions of each turn.
func (a *API) ListBranch(sessionID string, p store.Page) (store.BranchPage, error) {
	return call(a, needDB, func(ctx context.Context) (store.BranchPage, error) { return a.s.db.ListBranch(ctx, sessionID, p) })
}

// GetImage reads an image stored with a message, with its bytes, to show.
func (a *API) GetImage(id string) (ImageData, error) {
	return call(a, needDB, func(ctx context.Context) (ImageData, error) {
		im, err := a.s.db.Image(ctx, id)
		return imageData(im), err
	})
}

// ImageFile reads an image file of this machine, for a message to send:
// one dropped on the window, which the page knows only by its path (the
// window's web view gives it no bytes). It must be a PNG, JPEG, WebP or
// GIF by its bytes, and at most 20 MB.
func (a *API) ImageFile(path string) (ImageData, error) {
	return call(a, anyTime, func(ctx context.Context) (ImageData, error) {
		im, err := store.ReadImageFile(path)
		return imageData(im), err
	})
}

// ClipboardImage reads the image on the clipboard, for a message to send:
// in the Linux window, whose web view hands a paste of an image to the
// page empty. Elsewhere it answers unavailable: the page has the image.
func (a *API) ClipboardImage() (ImageData, error) {
	return call(a, anyTime, a.s.clipboardImage)
}

// SessionTree lists a session's turns, oldest first, each naming the turn
// it follows, and its active branch from the first message to the active
// turn.
func (a *API) SessionTree(sessionID string) (TurnTree, error) {
	return call(a, needDB, func(ctx context.Context) (TurnTree, error) {
		turns, active, err := a.s.db.SessionTree(ctx, sessionID)
		if turns == nil {
			turns = []store.Turn{}
		}
		if active == nil {
			active = []string{}
		}
		return TurnTree{Turns: turns, ActivePath: active}, err
	})
}

// SwitchBranch makes the branch through a turn (another version of a
// message) the session's active one; it answers the active turn now: the
// newest turn that follows it.
func (a *API) SwitchBranch(turnID string) (TurnRef, error) {
	return call(a, needDB, func(ctx context.Context) (TurnRef, error) {
		active, err := a.s.db.SwitchBranch(ctx, turnID)
		if err != nil {
			return TurnRef{}, err
		}
		t, err := a.s.db.GetTurn(ctx, active, false)
		return TurnRef{TurnID: active, SessionID: t.SessionID, Seq: t.Seq}, err
	})
}

// CountTurnsFrom is how many turns DeleteTurn would delete: the turn and
// every turn that follows it, for the confirmation.
func (a *API) CountTurnsFrom(turnID string) (int, error) {
	return call(a, needDB, func(ctx context.Context) (int, error) { return a.s.db.CountTurnsFrom(ctx, turnID) })
}

// DeleteTurn deletes a version of a turn and every turn that follows it
// (see store.DeleteTurn); it answers how many went.
func (a *API) DeleteTurn(turnID string) (int, error) {
	return call(a, needDB, func(ctx context.Context) (int, error) { return a.s.db.DeleteTurn(ctx, turnID) })
}

// ForkSession starts a new session from a turn: a copy of the branch up
// to it, naming where it came from.
func (a *API) ForkSession(turnID string) (store.Session, error) {
	return call(a, needDB, func(ctx context.Context) (store.Session, error) { return a.s.db.ForkSession(ctx, turnID) })
}

// PendingApprovals lists tool calls waiting for the person.
func (a *API) PendingApprovals() ([]PendingApproval, error) {
	return call(a, anyTime, func(context.Context) ([]PendingApproval, error) { return a.s.approvals.list(), nil })
}

// AnswerApproval answers Allow once, Always (this tool, this session) or Deny.
func (a *API) AnswerApproval(ans ApprovalAnswer) (Done, error) {
	return call(a, anyTime, func(context.Context) (Done, error) {
		return done(a.s.approvals.answer(ans.TurnID, ans.CallID, ans.Answer))
	})
}

// ---- providers, workflows and settings ----

// ListProviders lists the saved providers.
func (a *API) ListProviders() ([]ProviderView, error) {
	return call(a, needDB, a.s.listProviders)
}

// Presets lists the built-in provider presets.
func (a *API) Presets() ([]llm.Provider, error) {
	return call(a, anyTime, func(context.Context) ([]llm.Provider, error) { return catalog.Presets(), nil })
}

// SaveProvider stores a provider definition, and its key in the keyring.
func (a *API) SaveProvider(input ProviderInput) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.saveProvider(ctx, input)) })
}

// DeleteProvider removes a provider and its stored key.
func (a *API) DeleteProvider(name string) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.deleteProvider(ctx, name)) })
}

// TestProvider lists a provider's models with its stored key (or the key
// given), to check that the base URL and key work.
func (a *API) TestProvider(input ProviderInput) (TestReply, error) {
	return call(a, anyTime, func(ctx context.Context) (TestReply, error) { return a.s.testProvider(ctx, input), nil })
}

// DetectLocal finds local model servers on their default ports.
func (a *API) DetectLocal() ([]llm.Detected, error) {
	return call(a, anyTime, func(ctx context.Context) ([]llm.Detected, error) {
		return catalog.DetectLocal(ctx, a.s.httpClient(), catalog.Presets(), 0), nil
	})
}

// ListWorkflows lists built-in and user workflows.
func (a *API) ListWorkflows() (WorkflowList, error) {
	return call(a, anyTime, func(context.Context) (WorkflowList, error) { return a.s.listWorkflows(), nil })
}

// ValidateWorkflow checks a workflow file's text; no problems is a valid file.
func (a *API) ValidateWorkflow(name, content string) ([]workflow.Problem, error) {
	return call(a, anyTime, func(context.Context) ([]workflow.Problem, error) { return validateWorkflow(name, content) })
}

// GetSettings returns the preferences.
func (a *API) GetSettings() (Settings, error) {
	return call(a, needDB, func(ctx context.Context) (Settings, error) { return a.s.db.AppSettings(ctx) })
}

// SaveSettings stores the preferences.
func (a *API) SaveSettings(st Settings) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.db.SaveAppSettings(ctx, st)) })
}

// GetObservability says where turns are sent as OpenTelemetry traces,
// whether headers are kept (never their values), and the exporter's
// state, which the bus then pushes as it changes (KindTraces).
func (a *API) GetObservability() (ObservabilityView, error) {
	return call(a, needDB, func(ctx context.Context) (ObservabilityView, error) { return a.s.observability(ctx) })
}

// SaveObservability stores the OpenTelemetry export's settings, keeps its
// headers in the keyring, and restarts the export with them.
func (a *API) SaveObservability(req ObservabilitySave) (ObservabilityView, error) {
	return call(a, needDB, func(ctx context.Context) (ObservabilityView, error) { return a.s.saveObservability(ctx, req) })
}

// ---- usage, cost and context ----

// ContextMeter says how full the model's context would be with the draft:
// the system prompt, tools, the conversation on the path, images and the
// draft against the model's window, and where the provider's budget
// stands.
func (a *API) ContextMeter(req runner.MeterRequest) (runner.Meter, error) {
	return call(a, needDB, func(ctx context.Context) (runner.Meter, error) { return a.s.runner.Meter(ctx, req) })
}

// Usage is tokens and cost over a span of days, grouped as asked, with
// the Usage page's charts.
func (a *API) Usage(req UsageRequest) (UsageView, error) {
	return call(a, needDB, func(ctx context.Context) (UsageView, error) { return a.s.usage(ctx, req) })
}

// UsageCSV is the same usage as CSV, a row a group.
func (a *API) UsageCSV(req UsageRequest) (ExportReply, error) {
	return call(a, needDB, func(ctx context.Context) (ExportReply, error) { return a.s.usageCSV(ctx, req) })
}

// ModelFacts is a model's window and price on a provider, and where each
// came from; the server is asked when nothing it said is kept.
func (a *API) ModelFacts(provider, model string) (runner.Facts, error) {
	return call(a, needDB, func(ctx context.Context) (runner.Facts, error) { return a.s.modelFacts(ctx, provider, model) })
}

// BudgetState is where a provider's monthly budget stands.
func (a *API) BudgetState(provider string) (runner.BudgetState, error) {
	return call(a, needDB, func(ctx context.Context) (runner.BudgetState, error) { return a.s.budgetState(ctx, provider) })
}

// ---- evaluations ----

// EvalRuns lists evaluation runs, newest first, with how each did; of one
// suite when suite is set.
func (a *API) EvalRuns(suite string) ([]EvalRunSummary, error) {
	return call(a, needDB, func(ctx context.Context) ([]EvalRunSummary, error) { return a.s.evalRuns(ctx, suite) })
}

// EvalReport is one run: its results (each cell of the matrix, linked to
// its turn) and a summary per model.
func (a *API) EvalReport(runID string) (eval.RunReport, error) {
	return call(a, needDB, func(ctx context.Context) (eval.RunReport, error) { return a.s.evalReport(ctx, runID) })
}

// EvalAnswer is the whole answer of one result of a run (EvalReport
// carries its first store.EvalAnswerPreview characters), for a cell a
// person opened whose answer goes on.
func (a *API) EvalAnswer(resultID string) (string, error) {
	return call(a, needDB, func(ctx context.Context) (string, error) { return a.s.db.EvalAnswer(ctx, resultID) })
}

// EvalAgreement is how often a run's LLM judge agrees with the thumbs a
// person gave its cells (each cell's turn review): the cells with both,
// and how many of them agree.
func (a *API) EvalAgreement(runID string) (eval.Agreement, error) {
	return call(a, needDB, func(ctx context.Context) (eval.Agreement, error) { return a.s.evalAgreement(ctx, runID) })
}

// EvalDiff compares two runs case by case: regressions, fixes, still failing.
func (a *API) EvalDiff(runA, runB string) (eval.RunDiff, error) {
	return call(a, needDB, func(ctx context.Context) (eval.RunDiff, error) { return a.s.evalDiff(ctx, runA, runB) })
}

// EvalCaseFromTurn is a suite of one case made from a turn (Add to
// evaluation), as YAML to edit: its message, and its answer as a
// reference the next runs are compared with.
func (a *API) EvalCaseFromTurn(turnID string) (string, error) {
	return call(a, needDB, func(ctx context.Context) (string, error) { return a.s.evalCaseFromTurn(ctx, turnID) })
}

// EvalSuites lists the suite files in the data folder's evals/, each read
// as a run reads it (with its problems, if it has any).
func (a *API) EvalSuites() ([]EvalSuiteInfo, error) {
	return call(a, needDB, func(context.Context) ([]EvalSuiteInfo, error) { return a.s.evalSuites() })
}

// SaveEvalCases adds cases (Add to evaluation's, edited) to a suite file,
// or starts a new one; a suite that would not read back is not saved, and
// its problems are the answer.
func (a *API) SaveEvalCases(req EvalCasesSave) (EvalCasesSaved, error) {
	return call(a, needDB, func(context.Context) (EvalCasesSaved, error) { return a.s.saveEvalCases(req) })
}

// CreateExampleSuite writes the example suite (every assertion kind) into
// the evaluations folder, to run or edit; a file of its name that is not
// the example is never overwritten.
func (a *API) CreateExampleSuite() (EvalSuiteInfo, error) {
	return call(a, needDB, func(context.Context) (EvalSuiteInfo, error) { return a.s.createExampleSuite() })
}

// StartEval starts running a suite file and returns the run, running; its
// progress comes as EvalProgress events.
func (a *API) StartEval(req EvalStart) (store.EvalRun, error) {
	return call(a, needDB, func(ctx context.Context) (store.EvalRun, error) { return a.s.startEval(ctx, req) })
}

// StopEval stops a run this app started: its running cases are stored
// cancelled, and the run ends cancelled.
func (a *API) StopEval(runID string) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.stopEval(ctx, runID)) })
}

// ---- the app itself ----

// Status reports the version and the database's health. It answers
// without a database: the UI shows why there is none.
func (a *API) Status() (Status, error) {
	return call(a, anyTime, func(ctx context.Context) (Status, error) { return a.s.status(ctx), nil })
}

// Version returns the running binary's version.
func (a *API) Version() (buildinfo.Info, error) {
	return call(a, anyTime, func(context.Context) (buildinfo.Info, error) { return a.s.info, nil })
}

// About is what the About box shows: the version and commit, the
// platform, the data folder and the database's size, and the project's
// links. It answers without a database, saying why there is none.
func (a *API) About() (AboutInfo, error) {
	return call(a, anyTime, func(context.Context) (AboutInfo, error) { return a.s.about(), nil })
}

// UIReady records that the UI rendered. It is logged, and written to the
// ready file when one is configured.
func (a *API) UIReady(r ReadyReport) (Done, error) {
	return call(a, anyTime, func(context.Context) (Done, error) { return done(a.s.uiReady(r)) })
}

// reply is err as the UI gets it: its code and a message safe to show,
// never its cause, which is logged with the method that failed.
func (s *Service) reply(method string, err error) *apperr.Error {
	e := safe(err)
	level := slog.LevelWarn
	if e.Code == apperr.Internal {
		level = slog.LevelError
	}
	s.log.Log(context.Background(), level, "call failed", "method", method, "code", e.Code, "err", err)
	return e
}

// callerName is the API method that called call, for the log.
func callerName() string {
	pc, _, _, ok := runtime.Caller(2)
	if !ok {
		return "?"
	}
	name := runtime.FuncForPC(pc).Name()
	return name[strings.LastIndexByte(name, '.')+1:]
}
