// What the executors share. Each executor declares its spec in a file of
// its own and registers it in init (executor.go is the registry).

package workflow

import (
	"cmp"
	"strings"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// outcomeOf is one agent stage's outcome as a stage's: its own final text
// as the output, a limit named by the stage, and a failure's message as the
// agent gave it.
func outcomeOf(sr turn.StageResult, res turn.Result) stageOutcome {
	out := stageOutcome{outcome: sr.Outcome, term: sr.Termination}
	if strings.TrimSpace(res.FinalText) != "" {
		out.output = output{text: res.FinalText, stageID: sr.ID}
	}
	if out.term.Kind.IsLimit() {
		out.term.Stage = sr.Name
	}
	if sr.Outcome == turn.OutcomeFailed {
		out.reason = cmp.Or(res.Error, sr.Termination.Error, sr.Termination.String())
		out.source = res.ErrorSource
	}
	return out
}

// normScore brings a score to 0..1: critics may score 0..10.
func normScore(s float64) float64 {
	if s > 1 {
		s /= 10
	}
	return min(max(s, 0), 1)
}
