package cli

import (
	"fmt"
	"io"

	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// printSteps prints a turn's steps, each an id `run --from TURN_ID:STEP`
// takes, and for a re-run where it came from and where it went live.
func printSteps(w io.Writer, v TurnView) {
	if v.FromStep != "" {
		from := v.FromTurnID
		if from == "" {
			from = "a deleted turn"
		}
		fmt.Fprintf(w, "re-run of %s from step %s%s\n", from, v.FromStep, editNote(v.FromEdit))
		if lf := v.LiveFrom; lf != nil {
			fmt.Fprintf(w, "live after %d recorded %s and %d %s\n", lf.RecordedCalls, eval.Plural(lf.RecordedCalls, "model call", "model calls"),
				lf.RecordedTools, eval.Plural(lf.RecordedTools, "tool result", "tool results"))
		} else {
			fmt.Fprintln(w, "never went live: every step came from the recordings")
		}
	}
	fmt.Fprintf(w, "Steps (re-run from one: agentdeck run --from %s:STEP):\n", v.ID)
	for _, s := range v.Steps {
		note := ""
		if s.Live {
			note = "  · live"
		}
		fmt.Fprintf(w, "  %-8s %s%s\n", s.ID, s.Label(), note)
	}
}

// liveFrom is a re-run's live_from event's data (nil when it has none).
func liveFrom(events []turn.Event) *turn.LiveFromData {
	for _, e := range events {
		if e.Type == turn.EventLiveFrom {
			d := eventData[turn.LiveFromData](e)
			return &d
		}
	}
	return nil
}
