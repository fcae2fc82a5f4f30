package app

import (
	"context"

	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Human review: a thumb, a score, labels and a note on a turn or one of
// its steps (turn.Review), the turns a filter picks with their reviews
// (the review queue, "rated down last week"), and the labels in use.

// SaveReview stores a review of a turn or a step, replacing the one
// before; a review that says nothing removes it.
func (a *API) SaveReview(r turn.Review) (turn.Review, error) {
	return call(a, needDB, func(ctx context.Context) (turn.Review, error) { return a.s.db.SaveReview(ctx, r) })
}

// ReviewsFor returns the reviews of the turns named and of their steps.
func (a *API) ReviewsFor(turnIDs []string) ([]turn.Review, error) {
	return call(a, needDB, func(ctx context.Context) ([]turn.Review, error) { return a.s.db.ReviewsFor(ctx, turnIDs) })
}

// ListReviewed lists the ended turns a filter picks, newest first, each
// with its reviews: the review queue walks them.
func (a *API) ListReviewed(f store.ReviewFilter) ([]store.ReviewedTurn, error) {
	return call(a, needDB, func(ctx context.Context) ([]store.ReviewedTurn, error) { return a.s.db.ListReviewed(ctx, f) })
}

// ReviewLabels lists the labels in use that start with prefix, most used
// first: what a label field completes from.
func (a *API) ReviewLabels(prefix string) ([]store.LabelCount, error) {
	return call(a, needDB, func(ctx context.Context) ([]store.LabelCount, error) { return a.s.db.ReviewLabels(ctx, prefix, 20) })
}
