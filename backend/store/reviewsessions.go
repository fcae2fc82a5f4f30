package store

import (
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// SessionReviews keeps a session list (Page.Reviews) to the sessions with
// an ended turn a review filter picks: "rated down in the last week" is
// the sessions with a turn started in the last week whose own review or a
// step's has a thumb down. The rules are ListReviewed's (ReviewFilter):
// Rated is one of the Rated constants, Label one label (any case), Since
// bounds the turn's start.
type SessionReviews struct {
	Rated string     `json:"rated,omitempty"`
	Label string     `json:"label,omitempty"`
	Since *time.Time `json:"since,omitempty"`
}

// empty reports whether the filter keeps every session.
func (r *SessionReviews) empty() bool {
	return r == nil || (r.Rated == RatedAny && strings.TrimSpace(r.Label) == "" && r.Since == nil)
}

// check refuses a rating that is not one.
func (r *SessionReviews) check() error {
	if r == nil {
		return nil
	}
	switch r.Rated {
	case RatedAny, RatedReviewed, RatedUnreviewed, RatedUp, RatedDown:
		return nil
	}
	return apperr.New(apperr.Invalid, "%q is not a rating to filter sessions by: use reviewed, unreviewed, up or down.", r.Rated)
}

// reviewsFilter is the condition of Page.Reviews on the session alias: an
// ended turn of the session that the filter picks (turnReviewed). A
// rating check() did not accept picks nothing.
func (p Page) reviewsFilter(alias string) (string, []any) {
	r := p.Reviews
	if r.empty() {
		return "", nil
	}
	cond, args, err := turnReviewed("rt", ReviewFilter{Rated: r.Rated, Label: r.Label, Since: r.Since})
	if err != nil {
		return ` AND 0`, nil
	}
	return ` AND EXISTS (SELECT 1 FROM turns rt WHERE rt.session_id = ` + alias + `.id AND rt.state != 'running'` + cond + `)`, args
}
