package runner_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// NoSideEffects: a side-effecting call after the step is answered from
// the original when it is the same call, refused when the original never
// made it, and never runs; the person is not asked about either.
func TestRerunWithNoSideEffects(t *testing.T) {
	chat := builtinTurns()[0]
	tests := []struct {
		name, step string
		live       []llmtest.Reply
		results    func(orig []string) []string // the re-run's tool results
		final      string
	}{
		{name: "the same calls, from the start", step: "start", live: chat.script,
			results: func(orig []string) []string { return orig }, final: "Logged two lines; HI."},
		{name: "the same call, from call2", step: "call2", live: chat.script[1:],
			results: func(orig []string) []string { return orig }, final: "Logged two lines; HI."},
		{name: "a call the original never made", step: "call2", live: []llmtest.Reply{
			calls([3]string{"a3", "append_line", `{"line":"three"}`}), replyText("Could not log the third line."),
		}, results: func(orig []string) []string {
			out := []string{"append_line: appended one", "append_line: not run: this re-run runs nothing with side effects, and the original turn made no call to append_line with these arguments", "shout: HI"}
			slices.Sort(out)
			return out
		}, final: "Could not log the third line."},
	}
	same := workflowTurn{name: "the same call twice", workflow: "chat", message: "Log x twice.", script: []llmtest.Reply{
		calls([3]string{"a1", "append_line", `{"line":"x"}`}), calls([3]string{"a2", "append_line", `{"line":"x"}`}), replyText("Logged x twice."),
	}}
	tests = append(tests, struct {
		name, step string
		live       []llmtest.Reply
		results    func(orig []string) []string
		final      string
	}{name: "alike calls before and after the step: the result after it", step: "call2", live: same.script[1:],
		results: func(orig []string) []string {
			return []string{"append_line: appended x as line 1", "append_line: appended x as line 2"}
		}, final: "Logged x twice."})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newRerunRig(t)
			wt := chat
			if strings.HasPrefix(tt.name, "alike calls") {
				wt = same
			}
			orig := recordOriginal(t, g, wt)
			g.srv.Enqueue(tt.live...)
			re := g.turnOf(t, g.req("", "", &runner.From{TurnID: orig.id, Step: tt.step, NoSideEffects: true}))
			if re.res.FinalText != tt.final {
				t.Fatalf("final text %q (%s), want %q", re.res.FinalText, re.res.Error, tt.final)
			}
			if re.lines != 0 || re.approved != 0 {
				t.Fatalf("append_line ran %d times and the person was asked %d times, want 0 and 0", re.lines, re.approved)
			}
			if got, want := toolResults(t, re.rec), tt.results(toolResults(t, orig.rec)); !slices.Equal(got, want) {
				t.Fatalf("tool results\n%q\nwant\n%q", got, want)
			}
		})
	}
}

// denyOne denies the call that appends "one" and allows the rest,
// counting what it was asked.
type denyOne struct{ countingApprover }

func (a *denyOne) Approve(ctx context.Context, req agent.ApprovalRequest) (turn.Answer, error) {
	a.countingApprover.Approve(ctx, req)
	if strings.Contains(string(req.Args), `"one"`) {
		return turn.Deny, nil
	}
	return turn.AllowOnce, nil
}

// Approvals before the step are answered as the original's were (a denied
// call stays denied, without asking); after it the person is asked.
func TestRerunAnswersEarlierApprovalsAsTheOriginal(t *testing.T) {
	g := newRerunRig(t)
	chat := builtinTurns()[0]
	g.srv.Enqueue(chat.script...)
	ap := &denyOne{}
	req := g.req(chat.workflow, chat.message, nil)
	req.Approver = ap
	res, rec, id := run(t, g.r, req)
	if !res.OK || ap.asked() != 2 || g.lines(t) != 1 {
		t.Fatalf("the original: ok %v, asked %d, %d lines", res.OK, ap.asked(), g.lines(t))
	}
	g.srv.Enqueue(chat.script[1:]...)
	re := g.turnOf(t, g.req("", "", &runner.From{TurnID: id, Step: "call2"})) // an approver that allows all
	if re.approved != 1 || re.lines != 1 {
		t.Fatalf("the person was asked %d times and %d lines were appended, want 1 and 1 (the call after the step)", re.approved, re.lines)
	}
	if got, want := toolResults(t, re.rec), toolResults(t, rec); !slices.Equal(got, want) {
		t.Fatalf("tool results\n%q\nwant\n%q (the denied call stays denied)", got, want)
	}
}

// Deleting the original keeps the re-run replayable: the recordings it
// was served are linked to it, and its events are its own.
func TestRerunOutlivesItsOriginal(t *testing.T) {
	g := newRerunRig(t)
	chat := builtinTurns()[0]
	orig := recordOriginal(t, g, chat)
	g.srv.Enqueue(chat.script[2:]...)
	re := g.turnOf(t, g.req("", "", &runner.From{TurnID: orig.id, Step: "tool3", Edit: runner.Edit{Kind: runner.EditToolResult, Text: "the log is full"}}))
	if !re.res.OK {
		t.Fatalf("re-run: %s", re.res.Error)
	}
	if _, err := g.db.DeleteTurn(bg, orig.id); err != nil {
		t.Fatal(err)
	}
	tr, err := g.db.GetTurn(bg, re.id, true)
	if err != nil {
		t.Fatalf("the re-run went with its original: %v", err)
	}
	if tr.FromTurnID != "" || tr.FromStep != "tool3" || tr.FromEdit != "tool_result" {
		t.Fatalf("the re-run's link after the delete: from %q %q %q (the turn is gone, the step and edit stay)", tr.FromTurnID, tr.FromStep, tr.FromEdit)
	}
	again := g.turnOf(t, runner.Request{SessionID: g.sess.ID, Replay: &runner.Replay{TurnID: re.id, Strict: true}})
	if !again.res.OK || again.res.FinalText != re.res.FinalText || len(again.reqs) != 0 || again.lines != 0 {
		t.Fatalf("replay after the delete: ok %v (%s), %q, %d model calls, %d lines", again.res.OK, again.res.Error, again.res.FinalText, len(again.reqs), again.lines)
	}
	if d := divergences(t, again.rec); len(d) != 0 {
		t.Fatalf("diverged: %+v", d)
	}
	if got, want := toolResults(t, again.rec), toolResults(t, re.rec); !slices.Equal(got, want) {
		t.Fatalf("tool results\n%q\nwant\n%q", got, want)
	}
}

// A re-run of a re-run: the first re-run's settings edit holds for the
// calls of it the second serves from its recordings, which it serves
// without divergence, and its replay too.
func TestRerunOfARerun(t *testing.T) {
	g := newRerunRig(t)
	chat := builtinTurns()[0]
	orig := recordOriginal(t, g, chat)
	g.srv.Enqueue(chat.script...)
	first := g.turnOf(t, g.req("", "", &runner.From{TurnID: orig.id, Step: "start", Edit: runner.Edit{Kind: runner.EditSettings, Settings: turn.RunSettings{Model: "m2"}}}))
	if !first.res.OK || first.reqs[0].Model != "m2" {
		t.Fatalf("first re-run: %s, model %q", first.res.Error, first.reqs[0].Model)
	}
	g.srv.Enqueue(chat.script[2:]...)
	second := g.turnOf(t, g.req("", "", &runner.From{TurnID: first.id, Step: "call3", Edit: runner.Edit{Kind: runner.EditSettings, Settings: turn.RunSettings{Model: "m3"}}}))
	if !second.res.OK || second.res.FinalText != orig.res.FinalText {
		t.Fatalf("second re-run: %s %q", second.res.Error, second.res.FinalText)
	}
	want := slices.Clone(orig.reqs[2:])
	want[0].Model = "m3"
	sameRequests(t, "re-run of a re-run", second.reqs, want)
	if d := divergences(t, second.rec); len(d) != 0 {
		t.Fatalf("the re-run of a re-run diverged from its recordings: %+v", d)
	}
	again := g.turnOf(t, runner.Request{SessionID: g.sess.ID, Replay: &runner.Replay{TurnID: second.id, Strict: true}})
	if !again.res.OK || again.res.FinalText != second.res.FinalText {
		t.Fatalf("replay of the re-run of a re-run: %s", again.res.Error)
	}
	if d := divergences(t, again.rec); len(d) != 0 {
		t.Fatalf("diverged: %+v", d)
	}
}

// The plan at a step is the original's: the plan tool's calls before it
// run again over the original's arguments and publish the same plan.
func TestRerunRebuildsThePlan(t *testing.T) {
	g := newRerunRig(t)
	wt := workflowTurn{name: "plan", workflow: "chat", message: "Plan, log, answer.", script: []llmtest.Reply{
		calls([3]string{"p1", "update_plan", `{"steps":[{"title":"Log","status":"running"},{"title":"Answer","status":"pending"}]}`}),
		calls([3]string{"a1", "append_line", `{"line":"planned"}`}),
		replyText("Logged."),
	}}
	orig := recordOriginal(t, g, wt)
	g.srv.Enqueue(wt.script[2:]...)
	re := g.turnOf(t, g.req("", "", &runner.From{TurnID: orig.id, Step: "call3"}))
	plans := func(r recorded) []string {
		var out []string
		for _, e := range r.rec.Of(turn.EventPlanGenerated) {
			out = append(out, string(e.Data))
		}
		return out
	}
	if got, want := plans(re), plans(orig); len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("plans\n%v\nwant\n%v", got, want)
	}
	if re.lines != 0 || len(re.reqs) != 1 {
		t.Fatalf("%d lines, %d model calls", re.lines, len(re.reqs))
	}
}
