// Package arena turns votes on side-by-side answers into a leaderboard.
//
// A vote compares the targets (models or workflows) of one group: a win
// is a win of its winner over each other target, a tie and "both bad"
// are ties between every pair. Ratings are Bradley–Terry strengths,
// fitted by maximum likelihood with ties as half a win each, shown on
// the Elo scale (400 points is 10:1 odds, 1000 the mean), with a 95%
// interval from a bootstrap over the votes. A target with no votes has
// no rating, only its count of zero. The package reads nothing: the
// store gives it the comparisons.
package arena

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

// Rate fits the board of the votes; targets lists every target to show,
// those with no votes included (the votes' own are added).
func Rate(votes []Vote, targets []string) Board {
	panic("arena.Rate: being written (issue 44)")
}
