package runner_test

import (
	"slices"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/timeline"
)

// A call of the original that failed has no recording: a re-run from a
// step after it fails it again as it failed (no model call, the same
// error), so the calls after it get their own recordings, and the turn
// goes on as the original did. The pipeline's fact-check stage fails
// here, and the pipeline continues without it.
func TestRerunAfterAFailedCall(t *testing.T) {
	g, wt, orig := failedPipeline(t)
	failed := stepWhere(t, orig.steps, func(s timeline.TimelineStep) bool { return s.Kind == timeline.KindCall && !s.Recorded })
	if failed.ID != "call4" {
		t.Fatalf("the failed call is %s, want call4: %+v", failed.ID, orig.steps)
	}
	for _, step := range orig.steps {
		what := "from " + step.ID
		// The calls from the step on, the failed one among them when it
		// is at or after the step.
		n := step.N
		if step.Kind != timeline.KindCall {
			n = callsBefore(orig.steps, step) + 1
		}
		g.srv.Enqueue(wt.script[n-1:]...)
		re := g.turnOf(t, g.req("", "", &runner.From{TurnID: orig.id, Step: step.ID}))
		if re.res.FinalText != orig.res.FinalText || re.res.OK != orig.res.OK {
			t.Fatalf("%s: ok %v (%s), %q, want %q", what, re.res.OK, re.res.Error, re.res.FinalText, orig.res.FinalText)
		}
		sameRequests(t, what, re.reqs, orig.reqs[n-1:])
		if d := divergences(t, re.rec); len(d) != 0 {
			t.Fatalf("%s: diverged %+v", what, d)
		}
		if got, want := stageResults(re.res), stageResults(orig.res); !slices.Equal(got, want) {
			t.Fatalf("%s: stages\n%v\nwant\n%v", what, got, want)
		}
		if g.srv.Pending() != 0 {
			t.Fatalf("%s: %d replies left", what, g.srv.Pending())
		}
	}
}

// callsBefore is how many model calls, failed or not, came before step.
func callsBefore(steps []timeline.TimelineStep, step timeline.TimelineStep) int {
	n := 0
	for _, s := range steps {
		if s.Kind == timeline.KindCall && s.Seq < step.Seq {
			n++
		}
	}
	return n
}

// A replay of a turn with a failed call fails it again in its place: the
// calls after it get their own recordings, with no divergence.
func TestReplayFailsAFailedCallAgain(t *testing.T) {
	g, _, orig := failedPipeline(t)
	again := g.turnOf(t, runner.Request{SessionID: g.sess.ID, Replay: &runner.Replay{TurnID: orig.id, Strict: true}})
	if again.res.FinalText != orig.res.FinalText || len(again.reqs) != 0 {
		t.Fatalf("replay: %q (%s), %d model calls", again.res.FinalText, again.res.Error, len(again.reqs))
	}
	if d := divergences(t, again.rec); len(d) != 0 {
		t.Fatalf("diverged: %+v", d)
	}
	if got, want := stageResults(again.res), stageResults(orig.res); !slices.Equal(got, want) {
		t.Fatalf("stages\n%v\nwant\n%v", got, want)
	}
}

// failedPipeline records the pipeline's turn with its fact-checker's call
// refused by the server.
func failedPipeline(t *testing.T) (*rerunRig, workflowTurn, recorded) {
	t.Helper()
	g := newRerunRig(t)
	wt := builtinTurns()[5]
	wt.script = slices.Clone(wt.script)
	wt.script[3] = llmtest.ErrorReply(400, "invalid_request_error", "the fact-checker's request was refused")
	return g, wt, recordOriginal(t, g, wt)
}
