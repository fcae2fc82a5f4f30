package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// SaveReview stores a person's review of a turn or of one step of it,
// replacing the one before (its id and creation time are kept). A review
// that says nothing (turn.Review.Empty) removes the one stored, and comes
// back with no id.
func (db *DB) SaveReview(ctx context.Context, r turn.Review) (turn.Review, error) {
	r, err := r.Normalize()
	if err != nil {
		return r, apperr.New(apperr.Invalid, "%s.", upperFirst(err.Error()))
	}
	now := time.Now().UTC()
	err = db.tx(ctx, "saving the review", func(tx *sql.Tx) error {
		var state string
		err := tx.QueryRowContext(ctx, `SELECT state FROM turns WHERE id = ?`, r.TurnID).Scan(&state)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return apperr.New(apperr.NotFound, "There is no turn %s: it may have been deleted.", r.TurnID)
		case err != nil:
			return err
		}
		if r.Empty() {
			r.ID = ""
			_, err := tx.ExecContext(ctx, `DELETE FROM reviews WHERE turn_id = ? AND step = ?`, r.TurnID, r.Step)
			return err
		}
		labels, _ := json.Marshal(r.Labels)
		var created string
		if err := tx.QueryRowContext(ctx, `INSERT INTO reviews (id, turn_id, step, thumb, score, labels, note, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (turn_id, step) DO UPDATE SET thumb = excluded.thumb, score = excluded.score,
				labels = excluded.labels, note = excluded.note, updated_at = excluded.updated_at
			RETURNING id, created_at`,
			turn.NewID(), r.TurnID, r.Step, r.Thumb, r.Score, string(labels), r.Note, fmtTime(now), fmtTime(now)).Scan(&r.ID, &created); err != nil {
			return err
		}
		r.CreatedAt, r.UpdatedAt = parseTime(created), now
		return storeLabels(ctx, tx, r.ID, r.Labels)
	})
	return r, err
}

// storeLabels makes review_labels say exactly labels for the review.
func storeLabels(ctx context.Context, tx *sql.Tx, reviewID string, labels []string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM review_labels WHERE review_id = ?`, reviewID); err != nil {
		return err
	}
	for _, l := range labels {
		if _, err := tx.ExecContext(ctx, `INSERT INTO review_labels (review_id, label) VALUES (?, ?)`, reviewID, l); err != nil {
			return err
		}
	}
	return nil
}

func upperFirst(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}

// ReviewsFor returns the reviews of the turns named, of the turns
// themselves and of their steps, by turn and step.
func (db *DB) ReviewsFor(ctx context.Context, turnIDs []string) ([]turn.Review, error) {
	out := []turn.Review{}
	for start := 0; start < len(turnIDs); start += 500 {
		ids := turnIDs[start:min(start+500, len(turnIDs))]
		args := make([]any, len(ids))
		for i, id := range ids {
			args[i] = id
		}
		rows, err := db.reader.QueryContext(ctx, reviewColumns+` FROM reviews WHERE turn_id IN (?`+strings.Repeat(`, ?`, len(ids)-1)+`) ORDER BY turn_id, step`, args...)
		if err != nil {
			return nil, readError(err, "reading reviews")
		}
		for rows.Next() {
			r, err := scanReview(rows)
			if err != nil {
				rows.Close()
				return nil, readError(err, "reading reviews")
			}
			out = append(out, r)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, readError(err, "reading reviews")
		}
	}
	return out, nil
}

const reviewColumns = `SELECT id, turn_id, step, thumb, score, labels, note, created_at, updated_at`

func scanReview(rows interface{ Scan(...any) error }) (turn.Review, error) {
	var r turn.Review
	var labels, created, updated string
	if err := rows.Scan(&r.ID, &r.TurnID, &r.Step, &r.Thumb, &r.Score, &labels, &r.Note, &created, &updated); err != nil {
		return r, err
	}
	r.Labels = []string{}
	if err := json.Unmarshal([]byte(labels), &r.Labels); err != nil {
		return r, err
	}
	r.CreatedAt, r.UpdatedAt = parseTime(created), parseTime(updated)
	return r, nil
}

// LabelCount is a label and how many reviews carry it.
type LabelCount struct {
	Label string `json:"label"`
	Count int    `json:"count"`
}

// ReviewLabels lists the labels in use that start with prefix (any case),
// most used first, at most limit (default 20, at most 200): what a label
// field completes from.
func (db *DB) ReviewLabels(ctx context.Context, prefix string, limit int) ([]LabelCount, error) {
	prefix = strings.ToLower(strings.TrimSpace(prefix))
	rows, err := db.reader.QueryContext(ctx, `SELECT label, COUNT(*) FROM review_labels
		WHERE substr(label, 1, length(?)) = ? GROUP BY label ORDER BY COUNT(*) DESC, label LIMIT ?`,
		prefix, prefix, clampLimit(limit, 20, 200))
	if err != nil {
		return nil, readError(err, "listing review labels")
	}
	defer rows.Close()
	out := []LabelCount{}
	for rows.Next() {
		var l LabelCount
		if err := rows.Scan(&l.Label, &l.Count); err != nil {
			return nil, readError(err, "listing review labels")
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, readError(err, "listing review labels")
	}
	return out, nil
}
