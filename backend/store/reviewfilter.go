package store

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Ratings a ReviewFilter picks turns by.
const (
	RatedAny        = ""           // every turn, reviewed or not
	RatedReviewed   = "reviewed"   // a review of the turn or of a step
	RatedUnreviewed = "unreviewed" // no review at all
	RatedUp         = "up"         // a thumb up on the turn or a step
	RatedDown       = "down"       // a thumb down on the turn or a step
)

// ReviewFilter picks ended turns by where they are, when they started and
// how they were reviewed. A rating, score or label matches a turn when
// the turn's own review or a review of one of its steps has it, so a turn
// with one bad tool call is "rated down". Since and Until bound the
// turn's start.
type ReviewFilter struct {
	Project   string `json:"project,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	// Evals includes the turns evaluation cases ran as (hidden sessions);
	// by default only chats are listed.
	Evals    bool       `json:"evals,omitempty"`
	Rated    string     `json:"rated,omitempty"`
	MinScore int        `json:"min_score,omitempty"`
	MaxScore int        `json:"max_score,omitempty"`
	Label    string     `json:"label,omitempty"`
	Since    *time.Time `json:"since,omitempty"`
	Until    *time.Time `json:"until,omitempty"`
	// Limit is at most how many turns come back (default 200, at most
	// 5,000), newest first.
	Limit int `json:"limit,omitempty"`
}

// ReviewedTurn is a turn a ReviewFilter picked, with what a reviewer
// reads first and its reviews.
type ReviewedTurn struct {
	TurnID       string    `json:"turn_id"`
	SessionID    string    `json:"session_id"`
	SessionTitle string    `json:"session_title"`
	ProjectID    string    `json:"project_id"`
	Seq          int       `json:"seq"`
	State        string    `json:"state"`
	Model        string    `json:"model"`
	Workflow     string    `json:"workflow"`
	StartedAt    time.Time `json:"started_at"`
	UserMessage  string    `json:"user_message"`
	// Answer is the start of the final answer (AnswerPreview bytes at
	// most, cut at a character).
	Answer string `json:"answer"`
	// Reviews are the turn's own review (Step "") and its steps'.
	Reviews []turn.Review `json:"reviews"`
}

// AnswerPreview is how much of an answer a ReviewedTurn carries.
const AnswerPreview = 600

// ListReviewed lists the ended turns the filter picks, newest first, each
// with its reviews.
func (db *DB) ListReviewed(ctx context.Context, f ReviewFilter) ([]ReviewedTurn, error) {
	q, args, err := reviewQuery(f)
	if err != nil {
		return nil, err
	}
	rows, err := db.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, readError(err, "listing reviewed turns")
	}
	defer rows.Close()
	out := []ReviewedTurn{}
	var ids []string
	for rows.Next() {
		var t ReviewedTurn
		var started string
		if err := rows.Scan(&t.TurnID, &t.SessionID, &t.SessionTitle, &t.ProjectID, &t.Seq, &t.State, &t.Model, &t.Workflow, &started, &t.UserMessage, &t.Answer); err != nil {
			return nil, readError(err, "listing reviewed turns")
		}
		t.StartedAt, t.Answer, t.Reviews = parseTime(started), cutText(t.Answer, AnswerPreview), []turn.Review{}
		out = append(out, t)
		ids = append(ids, t.TurnID)
	}
	if err := rows.Err(); err != nil {
		return nil, readError(err, "listing reviewed turns")
	}
	reviews, err := db.ReviewsFor(ctx, ids)
	if err != nil {
		return nil, err
	}
	at := make(map[string]int, len(out))
	for i, t := range out {
		at[t.TurnID] = i
	}
	for _, r := range reviews {
		i := at[r.TurnID]
		out[i].Reviews = append(out[i].Reviews, r)
	}
	return out, nil
}

// reviewQuery is the query of ListReviewed.
func reviewQuery(f ReviewFilter) (string, []any, error) {
	q := `SELECT t.id, s.id, s.title, COALESCE(s.project_id, ''), t.seq, t.state, t.model, t.workflow, t.started_at, t.user_message, substr(t.final_text, 1, ?)
		FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.state != 'running'`
	args := []any{AnswerPreview + 4}
	if !f.Evals {
		q += ` AND s.kind = 'chat'`
	}
	q, args = votePlace(q, args, VoteFilter{Project: f.Project, SessionID: f.SessionID})
	cond, condArgs, err := turnReviewed("t", f)
	if err != nil {
		return "", nil, err
	}
	q, args = q+cond, append(args, condArgs...)
	q, args = q+` ORDER BY t.started_at DESC, t.id LIMIT ?`, append(args, clampLimit(f.Limit, 200, 5000))
	return q, args, nil
}

// turnReviewed is the condition, on the turns aliased t, that a turn
// started in f's time and its own review or a step's has f's rating,
// score and label: the one rule ListReviewed and the session list's
// review filter (Page.Reviews) share. A turn nobody reviewed has no
// score or label, so with RatedUnreviewed those are not read.
func turnReviewed(t string, f ReviewFilter) (string, []any, error) {
	var q string
	var args []any
	if f.Since != nil {
		q, args = q+` AND `+t+`.started_at >= ?`, append(args, fmtTime(*f.Since))
	}
	if f.Until != nil {
		q, args = q+` AND `+t+`.started_at < ?`, append(args, fmtTime(*f.Until))
	}
	if f.MinScore < 0 || f.MinScore > 5 || f.MaxScore < 0 || f.MaxScore > 5 {
		return "", nil, apperr.New(apperr.Invalid, "A score to filter by is 1 to 5.")
	}
	var cond []string
	switch f.Rated {
	case RatedAny, RatedReviewed:
	case RatedUnreviewed:
		return q + ` AND NOT EXISTS (SELECT 1 FROM reviews rv WHERE rv.turn_id = ` + t + `.id)`, args, nil
	case RatedUp:
		cond = append(cond, `rv.thumb = 1`)
	case RatedDown:
		cond = append(cond, `rv.thumb = -1`)
	default:
		return "", nil, apperr.New(apperr.Invalid, "%q is not a rating to filter by: use reviewed, unreviewed, up or down.", f.Rated)
	}
	if f.MinScore > 0 {
		cond, args = append(cond, `rv.score >= ?`), append(args, f.MinScore)
	}
	if f.MaxScore > 0 {
		cond, args = append(cond, `rv.score BETWEEN 1 AND ?`), append(args, f.MaxScore)
	}
	if l := strings.Join(strings.Fields(strings.ToLower(f.Label)), " "); l != "" {
		cond, args = append(cond, `EXISTS (SELECT 1 FROM review_labels rl WHERE rl.review_id = rv.id AND rl.label = ?)`), append(args, l)
	}
	if f.Rated == RatedReviewed || len(cond) > 0 {
		q += ` AND EXISTS (SELECT 1 FROM reviews rv WHERE rv.turn_id = ` + t + `.id`
		for _, c := range cond {
			q += ` AND ` + c
		}
		q += `)`
	}
	return q, args, nil
}

// cutText cuts s to at most n bytes at a character boundary, marking the
// cut with an ellipsis.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
