package eval

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// turnJudge is the judge a Runner uses unless given another: the critic
// runs as a turn of its own, in an evaluation session named after the
// case, so what it was asked and what it answered are stored, can be
// opened and are recorded like any call. Under a replay run its call is
// served from the recordings (the request is the same: the same rubric,
// prompt and answer), so a replayed judge says what it said.
type turnJudge struct {
	r       *Runner
	title   string // the case's session title
	capture recording.Mode
}

func (j turnJudge) Judge(ctx context.Context, model, rubric, prompt, answer string) (Judged, error) {
	provider, name, ok := strings.Cut(model, "/")
	if !ok || provider == "" || name == "" {
		return Judged{}, apperr.New(apperr.Invalid, "The judge's model %q is not a provider/model.", model)
	}
	sess, err := j.r.db.CreateSession(ctx, store.Session{Title: j.title + " · judge", Kind: store.SessionEval, Provider: provider, Model: name})
	if err != nil {
		return Judged{}, err
	}
	system, user := JudgePrompt(rubric, prompt, answer)
	h, err := j.r.turns.Start(ctx, runner.Request{SessionID: sess.ID, Message: system + "\n\n" + user, Workflow: "chat",
		Provider: provider, Model: name, Capture: j.capture})
	if err != nil {
		return Judged{}, err
	}
	out := Judged{SessionID: sess.ID, TurnID: h.TurnID}
	res := j.r.wait(ctx, h)
	if !res.OK || strings.TrimSpace(res.FinalText) == "" {
		why := res.Error
		if why == "" {
			why = fmt.Sprintf("it ended %s with no answer", res.Termination.Kind)
		}
		return out, apperr.New(apperr.Unavailable, "The judge %s gave no verdict: %s", model, why)
	}
	out.Verdict = workflow.ParseVerdict(res.FinalText)
	return out, nil
}
