package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/sandbox"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// Replay asks Start to replay a recorded turn instead of calling a model.
//
// The replay runs the original's workflow with the original's limits; its
// model calls are served from the original turn's recordings in call order
// (recording.ReplayTurn); side-effecting tools never run and give back what they
// gave the original; read-only tools run, and a result that differs from
// the original's is reported; approvals are answered as the original's
// were. Every difference is a replay_divergence event of the replaying
// turn.
type Replay struct {
	TurnID string // the turn to replay
	// Strict fails a model call whose request differs from the recording.
	Strict bool
}

// runSpec is how a turn was run, stored with it (store.SetTurnRun) so a
// replay runs it the same way.
type runSpec struct {
	Limits   turn.Limits          `json:"limits"`
	Workflow *workflow.Definition `json:"workflow,omitempty"`
	// Capture is the turn's recording setting: with it a turn without
	// recordings tells "recording was off" from "its recordings were
	// lost" (a salvage that could not keep them). Empty in turns stored
	// before it was kept.
	Capture recording.Mode `json:"capture,omitempty"`
	// Settings are what the turn ran with and where each came from
	// (settings.go); nil in turns stored before they were kept.
	Settings *turn.Resolved `json:"settings,omitempty"`
	// Agents are, per agent, what its workflow file set over Settings
	// (agentRuns), for the turn's diagnostics.
	Agents map[string]store.AgentRun `json:"agents,omitempty"`
	// Rerun is set on a turn re-run from a step of another (rerun.go).
	Rerun *rerunSpec `json:"rerun,omitempty"`
	// Sandbox are the limits run_code was offered with; nil when it was
	// not (turns stored before it existed), so a replay offers the tools
	// the original was offered, and runs scripts under the same limits.
	Sandbox *sandbox.Limits `json:"sandbox,omitempty"`
}

// replaySource is what a replay needs of the original turn.
type replaySource struct {
	orig      store.TurnDetail
	spec      runSpec
	calls     int                // recorded model calls
	results   []store.ToolResult // in call order
	approvals []store.Approval
	// importedFrom is the app an imported turn ran in ("" for others).
	importedFrom string
}

// importedFrom is the app a turn another app's history was imported from
// ran in (export/foreign marks its run), "" for any other turn.
func importedFrom(run json.RawMessage) string {
	var from struct {
		App string `json:"imported_from"`
	}
	_ = json.Unmarshal(run, &from)
	return from.App
}

// loadReplay reads the original turn and refuses one that cannot be
// replayed: it made model calls and recorded none.
func loadReplay(ctx context.Context, db replayStore, rp *Replay) (*replaySource, error) {
	orig, err := db.GetTurn(ctx, rp.TurnID, false)
	if err != nil {
		return nil, err
	}
	src, err := readSource(ctx, db, orig)
	if err != nil {
		return nil, err
	}
	return src, src.replayable()
}

// readSource reads what a replay or a re-run needs of the original turn.
func readSource(ctx context.Context, db replayStore, orig store.TurnDetail) (*replaySource, error) {
	src := &replaySource{orig: orig}
	raw, err := db.TurnRun(ctx, orig.ID)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &src.spec); err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "how turn %s ran could not be read", orig.ID)
	}
	src.importedFrom = importedFrom(raw)
	if src.calls, err = db.TurnRecordings(orig.ID).Count(ctx); err != nil {
		return nil, err
	}
	if src.results, err = db.ToolResults(ctx, orig.ID); err != nil {
		return nil, err
	}
	if src.approvals, err = db.ListApprovals(ctx, orig.ID); err != nil {
		return nil, err
	}
	return src, nil
}

// replayable refuses a turn that made model calls and recorded none,
// saying why it has none.
func (src *replaySource) replayable() error {
	orig := src.orig
	if src.importedFrom != "" && src.calls == 0 {
		return apperr.New(apperr.Invalid, "Turn #%d was imported from %s: it has no recorded model calls to replay. Re-run it instead.", orig.Seq, src.importedFrom)
	}
	made, answered := 0, 0
	for _, s := range orig.Stages {
		for _, c := range s.Diagnostics.ModelCalls {
			made++
			if c.OK {
				answered++
			}
		}
	}
	switch {
	case src.calls > 0 || made == 0:
		return nil
	case answered == 0:
		// Failed calls are not recorded: a replay of them would only
		// pretend to ask the model again.
		return apperr.New(apperr.Invalid, "Turn #%d has no recorded model calls to replay: its model calls failed. Re-run it instead.", orig.Seq)
	case src.spec.Capture == recording.Off:
		return apperr.New(apperr.Invalid, "Turn #%d has no recorded model calls (recording was off when it ran), so it cannot be replayed. Re-run it instead.", orig.Seq)
	case src.spec.Capture != "":
		return apperr.New(apperr.Invalid, "Turn #%d was recorded, but the recordings of its %s are lost: the database was damaged, or salvaged without them. It cannot be replayed; re-run it instead.", orig.Seq, modelCalls(answered))
	default:
		return apperr.New(apperr.Invalid, "Turn #%d has no recorded model calls: recording was off when it ran, or its recordings were lost with damage to the database. It cannot be replayed; re-run it instead.", orig.Seq)
	}
}

// client serves the original's recordings and reports divergences as
// events of the replaying turn; link links each served recording to the
// replaying turn.
func (s *replaySource) client(recordings store.TurnRecordings, link store.Captures, strict bool, em *turn.Emitter) *recording.TurnReplay {
	return recording.ReplayTurn(recording.ReplayOptions{
		Source: recordings,
		Link:   link,
		Strict: strict,
		OnDivergence: func(d recording.Divergence) {
			em.Emit(turn.Draft{Data: turn.ReplayDivergenceData{Call: d.Call, Kind: d.Kind, Message: d.Message, Diffs: d.Diffs}})
		},
	})
}

// missingCalls reports, at the end of the replay, recorded calls the
// replay never asked for.
func (s *replaySource) missingCalls(c *recording.TurnReplay, em *turn.Emitter) {
	if made := c.Calls(); made < s.calls {
		em.Emit(turn.Draft{Data: turn.ReplayDivergenceData{Kind: "missing_calls",
			Message: fmt.Sprintf("the replay made %d of the original turn's %d model calls", made, s.calls)}})
	}
}

// callKey identifies a tool call by what it asked: a replay's calls carry
// the original's arguments, since the model's answers are the recorded ones.
func callKey(name string, args []byte) string {
	return name + "\x00" + recording.CanonicalArguments(string(args))
}

// results queues the original's results of the calls that ran, per call.
type results struct {
	mu   sync.Mutex
	byIt map[string][]store.ToolResult
}

func (s *replaySource) ranResults() *results { return s.ranResultsExcept(nil) }

// ranResultsExcept leaves out the calls with the given ids.
func (s *replaySource) ranResultsExcept(ids map[string]bool) *results {
	q := &results{byIt: map[string][]store.ToolResult{}}
	for _, res := range s.results {
		if res.Ran && !ids[res.CallID] {
			k := callKey(res.Name, res.Args)
			q.byIt[k] = append(q.byIt[k], res)
		}
	}
	return q
}

// next takes the original's result of the next call like this one.
func (q *results) next(key string) (store.ToolResult, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	rs := q.byIt[key]
	if len(rs) == 0 {
		return store.ToolResult{}, false
	}
	q.byIt[key] = rs[1:]
	return rs[0], true
}

// has reports whether a call like this one ran in the original.
func (q *results) has(key string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.byIt[key]) > 0
}

// replayTool stands in for a tool during a replay.
type replayTool struct {
	inner tool.Tool
	orig  *results
	em    *turn.Emitter
	// edited are the calls whose results a re-run typed: a replay of that
	// re-run gives them back, even from a tool it would run again.
	edited map[string]bool
	// served gives back the original's result of every call, read-only
	// ones too: a re-run's calls before its step (they are the original's
	// state there, not a fresh look).
	served bool
}

func (t replayTool) Spec() tool.Spec { return t.inner.Spec() }

func (t replayTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	spec := t.inner.Spec()
	name := spec.Name
	rec, ok := t.orig.next(callKey(name, args))
	if ok && t.edited[tool.CallID(ctx)] {
		return rec.Output, nil
	}
	if spec.SideEffects || spec.Recorded || t.served {
		if !ok {
			why := "it changes things outside the conversation"
			if !spec.SideEffects {
				why = "its result is recorded (what it reads may have changed since)"
			}
			t.diverged("tool_not_recorded", fmt.Sprintf("%s was not run: %s, and the original turn has no result for this call", name, why), nil)
			return "", fmt.Errorf("not run in a replay: the original turn has no result for this call")
		}
		if rec.Error != "" {
			return "", replayedError(rec.Error)
		}
		if r, isReplayer := t.inner.(tool.Replayer); isReplayer {
			r.Replayed(ctx, args, rec.Output)
		}
		return rec.Output, nil
	}
	out, err := t.inner.Execute(ctx, args)
	if ok && ctx.Err() == nil {
		t.compare(name, rec, out, err)
	}
	return out, err
}

// compare reports a read-only tool whose result changed since the original.
func (t replayTool) compare(name string, rec store.ToolResult, out string, err error) {
	got, want := out, rec.Output
	if err != nil {
		got = "Error: " + err.Error()
	}
	if rec.Error != "" {
		want = "Error: " + rec.Error
	}
	if got == want || (rec.Error != "" && err != nil && strings.HasSuffix(rec.Error, err.Error())) {
		return
	}
	t.diverged("tool_result", fmt.Sprintf("%s gave a different result than in the original turn", name),
		[]string{"original: " + clip(want, 300), "replay: " + clip(got, 300)})
}

func (t replayTool) diverged(kind, msg string, diffs []string) {
	t.em.Emit(turn.Draft{Data: turn.ReplayDivergenceData{Kind: kind, Message: msg, Diffs: diffs}})
}

// replayedError is a tool error given back as the original gave it: the
// agent prefixes "Error: " itself.
type replayedError string

func (e replayedError) Error() string { return strings.TrimPrefix(string(e), "Error: ") }

// wrapper puts a tool of the turn behind its replay stand-in; the tools
// it wraps share the queue of the original's results.
func (s *replaySource) wrapper(em *turn.Emitter) func(tool.Tool) tool.Tool {
	q := s.ranResults()
	edited := s.spec.Rerun.editedCalls()
	return func(t tool.Tool) tool.Tool { return replayTool{inner: t, orig: q, em: em, edited: edited} }
}

// called reports whether the original turn called the tool name.
func (s *replaySource) called(name string) bool {
	for _, res := range s.results {
		if res.Name == name {
			return true
		}
	}
	return false
}

// replayApprover answers approval requests as the original turn's were
// answered. A call the original never asked about (allowed "always"
// earlier in its session) is allowed when it ran in the original, and
// denied otherwise.
type replayApprover struct {
	mu      sync.Mutex
	answers map[string][]turn.Answer
	ran     *results
}

func (s *replaySource) approver() *replayApprover {
	a := &replayApprover{answers: map[string][]turn.Answer{}, ran: s.ranResults()}
	for _, ap := range s.approvals {
		k := callKey(ap.Tool, ap.Args)
		a.answers[k] = append(a.answers[k], ap.Answer)
	}
	return a
}

func (a *replayApprover) Approve(_ context.Context, req agent.ApprovalRequest) (turn.Answer, error) {
	k := callKey(req.Tool, req.Args)
	a.mu.Lock()
	defer a.mu.Unlock()
	if as := a.answers[k]; len(as) > 0 {
		a.answers[k] = as[1:]
		return as[0], nil
	}
	if a.ran.has(k) {
		return turn.AllowOnce, nil
	}
	return turn.Deny, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// modelCalls is "1 model call" or "n model calls".
func modelCalls(n int) string {
	if n == 1 {
		return "1 model call"
	}
	return fmt.Sprintf("%d model calls", n)
}

// prepareReplay loads the turn to replay and makes req run it as it ran.
func (r *Runner) prepareReplay(ctx context.Context, req Request) (*replaySource, Request, error) {
	src, err := loadReplay(ctx, r.cfg.DB, req.Replay)
	if err != nil {
		return nil, req, err
	}
	req, err = r.asOriginal(ctx, req, src)
	req.Model = src.agentModel() // a re-run's agents asked for it, its live calls were rewritten
	return src, req, err
}

// asOriginal makes req send what the original turn sent: its message,
// images, history, workflow, model, limits and workspace.
func (r *Runner) asOriginal(ctx context.Context, req Request, src *replaySource) (Request, error) {
	orig := src.orig
	history, err := r.pathHistory(ctx, orig.ParentTurnID)
	if err != nil {
		return req, err
	}
	if history == nil {
		history = []llm.Message{}
	}
	req.Message, req.History, req.Workflow, req.Model = orig.UserMessage, history, orig.Workflow, orig.Model
	if req.Images, err = r.cfg.DB.UserImages(ctx, orig.ID); err != nil {
		return req, err
	}
	if src.spec.Workflow != nil || src.spec.Limits != (turn.Limits{}) {
		req.Limits = src.spec.Limits
	}
	if req.Workspace == "" {
		if origSess, err := r.cfg.DB.GetSession(ctx, orig.SessionID); err == nil {
			req.Workspace = origSess.Workspace
		}
	}
	req.Attach = nil
	return req, nil
}

// firstSource is the original turn a replay or a re-run runs as, nil for
// a new turn.
func firstSource(replay *replaySource, rr *rerun) *replaySource {
	if rr != nil {
		return rr.src
	}
	return replay
}

// resolveWorkflow is the turn's workflow: a replay's is the original's as
// it ran (older turns: by name).
func (r *Runner) resolveWorkflow(name string, replay *replaySource) (*workflow.Definition, error) {
	if replay != nil && replay.spec.Workflow != nil {
		return replay.spec.Workflow, nil
	}
	return r.workflow(name)
}
