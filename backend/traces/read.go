package traces

import (
	"context"
	"errors"
	"iter"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// ReadTurns hands fn each turn of a stored session that keep keeps (nil
// keeps all), with its session, as the store reads them for an export:
// the record a trace is built from.
func ReadTurns(ctx context.Context, src export.Source, sessionID string, keep func(*export.Turn) bool, fn func(*export.Session, *export.Turn) error) error {
	s := &turnSink{keep: keep, fn: fn}
	err := src.ReadSession(ctx, sessionID, export.Load{}, s)
	if errors.Is(err, errEnough) {
		return nil
	}
	return err
}

// ReadTurn returns one stored turn with its session.
func ReadTurn(ctx context.Context, src export.Source, sessionID, turnID string) (*export.Session, *export.Turn, error) {
	var sess *export.Session
	var got *export.Turn
	err := ReadTurns(ctx, src, sessionID, func(t *export.Turn) bool { return t.ID == turnID }, func(s *export.Session, t *export.Turn) error {
		sess, got = s, t
		return errEnough
	})
	if err == nil && got == nil {
		err = apperr.New(apperr.NotFound, "There is no turn %s in session %s.", turnID, sessionID)
	}
	return sess, got, err
}

// errEnough stops a read once the turn sought is found.
var errEnough = errors.New("enough")

type turnSink struct {
	sess export.Session
	keep func(*export.Turn) bool
	fn   func(*export.Session, *export.Turn) error
}

func (s *turnSink) Head(h *export.Head) error { s.sess = h.Session; return nil }
func (s *turnSink) Turn(t *export.Turn, _ iter.Seq[turn.Event]) error {
	if s.keep != nil && !s.keep(t) {
		return nil
	}
	return s.fn(&s.sess, t)
}
func (s *turnSink) Image(*export.Image) error                { return nil }
func (s *turnSink) Document(*export.KnowledgeDocument) error { return nil }
func (s *turnSink) Capture(*export.Capture) error            { return nil }
