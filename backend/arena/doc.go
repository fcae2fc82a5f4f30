// Package arena turns votes on side-by-side answers into a leaderboard.
//
// The rules:
//
//   - A vote compares the distinct targets (models or workflows, by label)
//     of one group. A vote with a winner is a win of the winner over each
//     other target of its vote; a vote with none (a tie, or both bad) is a
//     tie between every pair. A pair of a label with itself is skipped, and
//     a vote whose winner is not among its targets, or that has fewer than
//     two distinct targets, compares nothing and is not counted.
//   - Ratings are Bradley–Terry strengths fitted by maximum likelihood with
//     the MM algorithm (Hunter 2004), a tie counting as half a win to each
//     side.
//   - The prior: every target has one virtual tie against a virtual
//     opponent of the targets' mean strength (their geometric mean, which
//     the fit keeps at 1 as it goes). It keeps a target that won
//     every pair finite, and pulls a target with few votes toward the
//     middle; with many votes it weighs next to nothing.
//   - Scores are on the Elo scale: 1000 is the geometric mean of the
//     rated targets' strengths, and 400 points are 10:1 odds.
//   - The 95% interval (Low, High) is the 2.5th and 97.5th percentile of
//     the score over bootstrapRounds resamplings of the votes (with
//     replacement). The random source has a fixed seed and the votes are
//     put in a canonical order first, so the same votes give the same
//     board whatever order they come in. The interval is widened to the
//     normal approximation's (1.96 standard errors from the likelihood's
//     curvature, the prior included) where that is wider: a bootstrap of
//     a few votes resamples them to themselves (one vote: zero width),
//     so with few votes the interval is honestly wide. It always holds
//     the score.
//   - Ranks follow the score, best first; equal scores share a rank and
//     are ordered by name. A target asked for with no votes is listed
//     last, unranked (Rank 0), with zero scores and counts.
//
// The package reads nothing: the store gives it the votes.
package arena
