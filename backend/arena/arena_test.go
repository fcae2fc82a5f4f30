package arena

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// votes repeats a vote n times.
func votes(n int, winner string, targets ...string) []Vote {
	out := make([]Vote, n)
	for i := range out {
		out[i] = Vote{Targets: targets, Winner: winner}
	}
	return out
}

func concat(vs ...[]Vote) []Vote { return slices.Concat(vs...) }

func rating(t *testing.T, b Board, target string) Rating {
	t.Helper()
	for _, r := range b.Ratings {
		if r.Target == target {
			return r
		}
	}
	t.Fatalf("%s is not on the board %+v", target, b.Ratings)
	return Rating{}
}

func TestRate(t *testing.T) {
	tests := []struct {
		name    string
		votes   []Vote
		targets []string
		check   func(t *testing.T, b Board)
	}{
		{
			name:  "symmetric votes give equal scores",
			votes: concat(votes(5, "a", "a", "b"), votes(5, "b", "a", "b")),
			check: func(t *testing.T, b Board) {
				a, bb := rating(t, b, "a"), rating(t, b, "b")
				if a.Score != 1000 || bb.Score != 1000 || a.Rank != 1 || bb.Rank != 1 {
					t.Fatalf("a %+v, b %+v: want both 1000, both rank 1", a, bb)
				}
				if b.Ratings[0].Target != "a" {
					t.Fatal("equal scores are ordered by name")
				}
				if a.Wins != 5 || a.Losses != 5 || a.Votes != 10 {
					t.Fatalf("a's counts: %+v", a)
				}
			},
		},
		{
			name:  "a dominant target ranks first and stays finite",
			votes: concat(votes(10, "x", "x", "y"), votes(10, "x", "x", "z"), votes(4, "y", "y", "z"), votes(3, "z", "y", "z")),
			check: func(t *testing.T, b Board) {
				order := []string{b.Ratings[0].Target, b.Ratings[1].Target, b.Ratings[2].Target}
				if !reflect.DeepEqual(order, []string{"x", "y", "z"}) {
					t.Fatalf("order %v", order)
				}
				x := b.Ratings[0]
				if x.Rank != 1 || x.Score <= 1000 || x.Score > 2000 || x.Losses != 0 || x.Wins != 20 {
					t.Fatalf("x: %+v", x)
				}
				if b.Votes != 27 || b.Comparisons != 27 {
					t.Fatalf("votes %d comparisons %d", b.Votes, b.Comparisons)
				}
			},
		},
		{
			name:  "ties count half to each side",
			votes: concat(votes(2, "a", "a", "b"), votes(4, "", "a", "b")),
			check: func(t *testing.T, b Board) {
				a, bb := rating(t, b, "a"), rating(t, b, "b")
				if a.Score <= bb.Score || a.Ties != 4 || bb.Ties != 4 || a.Wins != 2 || bb.Losses != 2 {
					t.Fatalf("a %+v b %+v", a, bb)
				}
				// 4 wins in 6 against 2: odds under 2:1 with the prior's pull.
				if d := a.Score - bb.Score; d <= 0 || d >= 400*0.302 {
					t.Fatalf("a is %.1f above b; want above 0, below 2:1 odds (120.4)", d)
				}
			},
		},
		{
			name:  "only ties",
			votes: concat(votes(3, "", "a", "b", "c"), votes(2, "", "a", "b")),
			check: func(t *testing.T, b Board) {
				for _, r := range b.Ratings {
					if r.Score != 1000 || r.Rank != 1 || r.Wins != 0 || r.Losses != 0 {
						t.Fatalf("%+v: only ties leave every target at 1000", r)
					}
				}
				if a := rating(t, b, "a"); a.Ties != 3*2+2 || a.Votes != 5 {
					t.Fatalf("a: %+v", a)
				}
				if b.Comparisons != 3*3+2 {
					t.Fatalf("comparisons %d", b.Comparisons)
				}
			},
		},
		{
			name:    "a target with no votes is listed last, unranked",
			votes:   votes(3, "b", "a", "b"),
			targets: []string{"new", "a", "b", "also new", "new"},
			check: func(t *testing.T, b Board) {
				if len(b.Ratings) != 4 {
					t.Fatalf("ratings %+v", b.Ratings)
				}
				for i, want := range []string{"also new", "new"} {
					r := b.Ratings[2+i]
					if r != (Rating{Target: want}) {
						t.Fatalf("rating %d = %+v; want %s with nothing", 2+i, r, want)
					}
				}
				if b.Ratings[0].Target != "b" || b.Ratings[0].Rank != 1 || b.Ratings[1].Rank != 2 {
					t.Fatalf("rated: %+v", b.Ratings[:2])
				}
			},
		},
		{
			name:  "one vote",
			votes: votes(1, "a", "a", "b"),
			check: func(t *testing.T, b Board) {
				a, bb := rating(t, b, "a"), rating(t, b, "b")
				if a.Score <= 1000 || bb.Score >= 1000 || math.Abs(a.Score+bb.Score-2000) > 0.1 {
					t.Fatalf("a %+v b %+v", a, bb)
				}
				// One vote resampled is that vote, so the bootstrap alone
				// would claim certainty; the normal approximation keeps
				// the interval honest: hundreds of points wide.
				if a.Low >= a.Score || a.High <= a.Score || a.High-a.Low < 300 {
					t.Fatalf("a's interval %v–%v around %v", a.Low, a.High, a.Score)
				}
			},
		},
		{
			name:  "no votes at all",
			votes: []Vote{{Targets: []string{"a", "a"}, Winner: "a"}, {Targets: []string{"a"}}, {Targets: []string{"a", "b"}, Winner: "c"}},
			check: func(t *testing.T, b Board) {
				if b.Votes != 0 || b.Comparisons != 0 || len(b.Ratings) != 0 || b.Method != Method {
					t.Fatalf("board %+v", b)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := Rate(tt.votes, tt.targets)
			for _, r := range b.Ratings {
				if r.Rank > 0 && (r.Low > r.Score || r.High < r.Score) {
					t.Errorf("%s: interval %v–%v does not hold the score %v", r.Target, r.Low, r.High, r.Score)
				}
			}
			tt.check(t, b)
		})
	}
}

// The interval holds the score and narrows as the same mix of votes
// grows.
func TestRateIntervalNarrowsWithMoreVotes(t *testing.T) {
	width := func(n int) float64 {
		b := Rate(concat(votes(2*n, "a", "a", "b"), votes(n, "b", "a", "b"), votes(n, "", "a", "b")), nil)
		a := rating(t, b, "a")
		if a.Low > a.Score || a.High < a.Score || a.Low == a.High {
			t.Fatalf("n=%d: a %+v", n, a)
		}
		return a.High - a.Low
	}
	w5, w50, w500 := width(5), width(50), width(500)
	if w50 >= w5 || w500 >= w50 {
		t.Fatalf("widths %v, %v, %v: want them narrowing", w5, w50, w500)
	}
}

// The same votes give the same board, in whatever order they come.
func TestRateIsDeterministic(t *testing.T) {
	vs := randomVotes(300, 5, 1)
	first := Rate(vs, []string{"t9"})
	shuffled := slices.Clone(vs)
	rand.New(rand.NewPCG(7, 7)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, again := range []Board{Rate(vs, []string{"t9"}), Rate(shuffled, []string{"t9"})} {
		if !reflect.DeepEqual(first, again) {
			t.Fatalf("boards differ:\n%+v\n%+v", first, again)
		}
	}
}

func TestPairs(t *testing.T) {
	tests := []struct {
		name string
		vote Vote
		want []Comparison
	}{
		{"a win of three", Vote{Targets: []string{"a", "b", "c"}, Winner: "b"},
			[]Comparison{{"b", "a", AWins}, {"b", "c", AWins}}},
		{"a tie of three", Vote{Targets: []string{"a", "b", "c"}},
			[]Comparison{{"a", "b", Tie}, {"a", "c", Tie}, {"b", "c", Tie}}},
		{"a win of four", Vote{Targets: []string{"a", "b", "c", "d"}, Winner: "d"},
			[]Comparison{{"d", "a", AWins}, {"d", "b", AWins}, {"d", "c", AWins}}},
		{"both bad of four", Vote{Targets: []string{"a", "b", "c", "d"}},
			[]Comparison{{"a", "b", Tie}, {"a", "c", Tie}, {"a", "d", Tie}, {"b", "c", Tie}, {"b", "d", Tie}, {"c", "d", Tie}}},
		{"a label with itself is skipped", Vote{Targets: []string{"a", "a", "b"}, Winner: "a"},
			[]Comparison{{"a", "b", AWins}}},
		{"a tie of one label twice", Vote{Targets: []string{"a", "a"}}, nil},
		{"a winner not among the targets", Vote{Targets: []string{"a", "b"}, Winner: "z"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Pairs(tt.vote); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Pairs = %v; want %v", got, tt.want)
			}
		})
	}
}

// randomVotes casts n votes over k targets whose true strengths rise
// with their index, each comparing 2 to 4 of them.
func randomVotes(n, k int, seed uint64) []Vote {
	rng := rand.New(rand.NewPCG(seed, seed))
	out := make([]Vote, n)
	for i := range out {
		m := 2 + rng.IntN(3)
		idx := rng.Perm(k)[:m]
		v := Vote{}
		best := -1
		for _, j := range idx {
			v.Targets = append(v.Targets, fmt.Sprintf("t%d", j))
			best = max(best, j)
		}
		switch r := rng.Float64(); {
		case r < 0.15:
		case r < 0.75:
			v.Winner = fmt.Sprintf("t%d", best)
		default:
			v.Winner = v.Targets[rng.IntN(m)]
		}
		out[i] = v
	}
	return out
}

// Stronger targets (a higher index) come out on top of many votes.
func TestRateFindsTheOrder(t *testing.T) {
	b := Rate(randomVotes(3000, 6, 3), nil)
	for i, r := range b.Ratings {
		if want := fmt.Sprintf("t%d", 5-i); r.Target != want {
			t.Fatalf("place %d is %s; want %s (%+v)", i+1, r.Target, want, b.Ratings)
		}
	}
}

func BenchmarkRate10000Votes8Targets(b *testing.B) {
	vs := randomVotes(10000, 8, 1)
	b.ReportAllocs()
	for b.Loop() {
		Rate(vs, nil)
	}
}
