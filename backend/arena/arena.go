package arena

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Result is how one pair came out.
type Result string

// The results of a pair.
const (
	AWins Result = "a"
	BWins Result = "b"
	Tie   Result = "tie"
)

// Comparison is one pair of targets a vote compared.
type Comparison struct {
	A, B   string
	Result Result
}

// Rating is one target's place on a board.
type Rating struct {
	Target string `json:"target"`
	// Rank is 1 for the best; targets with no votes come last, unranked (0).
	Rank int `json:"rank"`
	// Score is the Elo-scale strength; Low and High bound its 95%
	// interval. All three are 0 for a target with no votes.
	Score float64 `json:"score"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	// Votes counts the votes that compared the target; Wins, Losses and
	// Ties count its pairs.
	Votes  int `json:"votes"`
	Wins   int `json:"wins"`
	Losses int `json:"losses"`
	Ties   int `json:"ties"`
}

// Board is a leaderboard over some votes.
type Board struct {
	// Method names how the ratings were fitted.
	Method string `json:"method"`
	// Votes counts the votes behind the board; Comparisons their pairs.
	Votes       int      `json:"votes"`
	Comparisons int      `json:"comparisons"`
	Ratings     []Rating `json:"ratings"`
}

// Vote is one vote as the board reads it: the targets of its group, and
// its winner ("" for a tie or both bad).
type Vote struct {
	Targets []string
	Winner  string
}

// Method is what Board.Method says of how a board is fitted.
const Method = "bradley-terry (ties half), 95% bootstrap or normal, the wider"

// Pairs expands a vote into the pairs it compared (see the package doc):
// nil when it compares nothing.
func Pairs(v Vote) []Comparison {
	labels := distinct(v.Targets)
	if len(labels) < 2 || (v.Winner != "" && !contains(labels, v.Winner)) {
		return nil
	}
	var out []Comparison
	if v.Winner != "" {
		for _, l := range labels {
			if l != v.Winner {
				out = append(out, Comparison{A: v.Winner, B: l, Result: AWins})
			}
		}
		return out
	}
	for i, a := range labels {
		for _, b := range labels[i+1:] {
			out = append(out, Comparison{A: a, B: b, Result: Tie})
		}
	}
	return out
}

// Rate fits the board of the votes; targets lists every target to show,
// those with no votes included (the votes' own are added).
func Rate(votes []Vote, targets []string) Board {
	f := newFit(votes)
	board := Board{Method: Method, Votes: f.cast, Ratings: []Rating{}}
	for _, v := range f.votes {
		board.Comparisons += v.times * len(v.pairs)
	}
	scores, strength := f.scores(f.weightsOnce(), nil)
	low, high := f.bootstrap(bootstrapRounds, strength)
	half := f.normalHalfWidth(strength)
	for i, name := range f.names {
		r := f.counts[i]
		r.Target, r.Score = name, round(scores[i])
		r.Low, r.High = round(min(low[i], scores[i]-half[i])), round(max(high[i], scores[i]+half[i]))
		board.Ratings = append(board.Ratings, r)
	}
	rank(board.Ratings)
	seen := map[string]bool{}
	for _, name := range f.names {
		seen[name] = true
	}
	var unrated []string
	for _, t := range targets {
		if !seen[t] && t != "" {
			seen[t] = true
			unrated = append(unrated, t)
		}
	}
	slices.Sort(unrated)
	for _, t := range unrated {
		board.Ratings = append(board.Ratings, Rating{Target: t})
	}
	return board
}

// rank orders rated targets by score, best first, and numbers them; equal
// scores share a rank and go by name.
func rank(rs []Rating) {
	slices.SortFunc(rs, func(a, b Rating) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.Target, b.Target)
	})
	for i := range rs {
		rs[i].Rank = i + 1
		if i > 0 && rs[i].Score == rs[i-1].Score {
			rs[i].Rank = rs[i-1].Rank
		}
	}
}

// round keeps a tenth of a point: finer is noise, and equal strengths
// then compare equal.
func round(x float64) float64 { return math.Round(x*10) / 10 }

func distinct(labels []string) []string {
	var out []string
	for _, l := range labels {
		if l != "" && !contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

func contains(s []string, x string) bool { return slices.Contains(s, x) }
