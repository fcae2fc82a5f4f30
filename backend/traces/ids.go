package traces

import (
	"context"
	"crypto/sha256"
	"encoding/binary"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"
)

// The ids of a turn's trace are derived from the record, never drawn at
// random: the trace id is the turn's id (a UUID, 16 bytes, as a trace id
// is), and a span's id the first 8 bytes of SHA-256 of the turn's id and
// the span's step. Exporting a turn twice, live and again from the past,
// gives the same ids, so a backend that keeps both shows one trace.

// stepKey carries the step a span is started for to ids.
type stepKey struct{}

type stepIDs struct {
	trace trace.TraceID
	turn  string
	step  string
}

func withStep(ctx context.Context, traceID trace.TraceID, turnID, step string) context.Context {
	return context.WithValue(ctx, stepKey{}, stepIDs{trace: traceID, turn: turnID, step: step})
}

// traceIDOf is the turn's id as a trace id; a turn id that is not a UUID
// (none is, but a file may be edited) is hashed instead.
func traceIDOf(turnID string) trace.TraceID {
	var id trace.TraceID
	if u, err := uuid.Parse(turnID); err == nil && u != uuid.Nil {
		copy(id[:], u[:])
		return id
	}
	sum := sha256.Sum256([]byte("agentdeck turn " + turnID))
	copy(id[:], sum[:16])
	return id
}

func spanIDOf(turnID, step string) trace.SpanID {
	var id trace.SpanID
	sum := sha256.Sum256([]byte(turnID + "/" + step))
	copy(id[:], sum[:8])
	if binary.BigEndian.Uint64(id[:]) == 0 {
		id[7] = 1 // an all-zero span id is invalid
	}
	return id
}

// ids is the SDK's IDGenerator for the spans Build starts: each span
// start carries its step in the context (withStep).
type ids struct{}

func (ids) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	s, _ := ctx.Value(stepKey{}).(stepIDs)
	return s.trace, spanIDOf(s.turn, s.step)
}

func (ids) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	s, _ := ctx.Value(stepKey{}).(stepIDs)
	return spanIDOf(s.turn, s.step)
}
