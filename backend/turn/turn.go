package turn

import (
	"context"
	"fmt"
	"runtime/debug"
)

// RunTurn runs fn as one whole turn and guarantees its ending: exactly one
// terminal event (final_answer, cancelled or error) followed by
// turn_completed, even if fn panics.
//
// before, if given, runs after fn and before the ending events: the app
// uses it to make the turn's state durable before anyone is told it ended.
func RunTurn(ctx context.Context, em *Emitter, fn func(ctx context.Context) Result, before ...func(Result)) (res Result) {
	defer func() {
		if v := recover(); v != nil {
			em.log.Error("turn panicked", "panic", v, "stack", string(debug.Stack()))
			msg := fmt.Sprintf("Agentdeck hit an internal error and stopped this turn (%v). Your conversation is saved.", v)
			res = Result{
				Messages:    res.Messages,
				Outcome:     OutcomeFailed,
				Termination: Termination{Kind: TermFailed, Error: msg},
				Error:       msg,
				ErrorSource: "internal",
			}
		}
		for _, b := range before {
			func() {
				defer func() {
					if v := recover(); v != nil {
						em.log.Error("turn end hook panicked", "panic", v)
					}
				}()
				b(res)
			}()
		}
		emitEnding(em, res)
	}()
	return fn(ctx)
}

func emitEnding(em *Emitter, res Result) {
	if !em.hasTerminal() {
		switch {
		case res.Cancelled:
			em.Emit(Draft{Data: CancelledData{PartialText: res.FinalText}})
		case !res.OK:
			src := res.ErrorSource
			if src == "" {
				src = "internal"
			}
			em.Emit(Draft{Data: ErrorData{Source: src, Message: res.Error}})
		default:
			em.Emit(Draft{Data: FinalAnswerData{Text: res.FinalText}})
		}
	}
	em.Emit(Draft{Data: TurnCompletedData{Result: res}})
}
