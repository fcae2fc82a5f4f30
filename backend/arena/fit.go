package arena

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// bootstrapRounds is how many resamplings the interval is read from.
const bootstrapRounds = 400

// The fit stops when no strength moves by more than tolerance (relative),
// or after maxIterations.
const (
	tolerance     = 1e-8
	maxIterations = 1000
)

// pair is one comparison by target index: wins is what a earned against b
// (1 a win, 0.5 a tie, 0 a loss).
type pair struct {
	a, b int
	wins float64
}

// fitVote is a vote that compares something, as pairs of indexes, and
// how many votes cast the same.
type fitVote struct {
	key   string
	pairs []pair
	times int
}

// fit is the votes of one board, indexed: names are the targets that
// have pairs, in order of name; counts their votes and pair results;
// votes the distinct votes, and of the ones cast (in a canonical order)
// which distinct vote each is.
type fit struct {
	names  []string
	counts []Rating
	votes  []fitVote
	of     []int
	cast   int
}

func newFit(votes []Vote) *fit {
	f := &fit{}
	index := map[string]int{}
	var expanded [][]Comparison
	for _, v := range votes {
		ps := Pairs(v)
		if len(ps) == 0 {
			continue
		}
		expanded = append(expanded, ps)
		for _, p := range ps {
			for _, n := range []string{p.A, p.B} {
				if _, ok := index[n]; !ok {
					index[n] = -1
					f.names = append(f.names, n)
				}
			}
		}
	}
	slices.Sort(f.names)
	for i, n := range f.names {
		index[n] = i
	}
	f.counts = make([]Rating, len(f.names))
	for _, ps := range expanded {
		fv := fitVote{}
		in := map[int]bool{}
		var key []string
		for _, p := range ps {
			a, b := index[p.A], index[p.B]
			in[a], in[b] = true, true
			w := 0.5
			switch p.Result {
			case AWins:
				w = 1
				f.counts[a].Wins++
				f.counts[b].Losses++
			case BWins:
				w = 0
				f.counts[a].Losses++
				f.counts[b].Wins++
			default:
				f.counts[a].Ties++
				f.counts[b].Ties++
			}
			fv.pairs = append(fv.pairs, pair{a: a, b: b, wins: w})
			key = append(key, p.A+"\x00"+p.B+"\x00"+string(p.Result))
		}
		for i := range in {
			f.counts[i].Votes++
		}
		// The same pairs in another order are the same vote.
		slices.Sort(key)
		fv.key, fv.times = strings.Join(key, "\x01"), 1
		f.votes = append(f.votes, fv)
	}
	f.cast = len(f.votes)
	// A canonical order, so the bootstrap's draws do not depend on the
	// order the votes came in; the same vote cast again is fitted once,
	// counted as often.
	slices.SortStableFunc(f.votes, func(a, b fitVote) int { return strings.Compare(a.key, b.key) })
	distinct := f.votes[:0]
	for _, v := range f.votes {
		if n := len(distinct); n > 0 && distinct[n-1].key == v.key {
			distinct[n-1].times++
		} else {
			distinct = append(distinct, v)
		}
		f.of = append(f.of, len(distinct)-1)
	}
	f.votes = distinct
	return f
}

// weightsOnce is each vote counted once: the fit of the votes as cast.
func (f *fit) weightsOnce() []float64 {
	w := make([]float64, len(f.votes))
	for i, v := range f.votes {
		w[i] = float64(v.times)
	}
	return w
}

// scores fits the strengths with each vote counted weight times,
// starting from start (nil: all equal), and returns them on the Elo
// scale with the strengths.
func (f *fit) scores(weight, start []float64) (elo, strength []float64) {
	k := len(f.names)
	if k == 0 {
		return nil, nil
	}
	// n[i*k+j] is how many times i and j met, won[i] what i earned.
	n := make([]float64, k*k)
	won := make([]float64, k)
	for v, fv := range f.votes {
		w := weight[v]
		if w == 0 {
			continue
		}
		for _, p := range fv.pairs {
			n[p.a*k+p.b] += w
			n[p.b*k+p.a] += w
			won[p.a] += w * p.wins
			won[p.b] += w * (1 - p.wins)
		}
	}
	p := mm(n, won, k, start)
	var logMean float64
	for _, s := range p {
		logMean += math.Log10(s)
	}
	logMean /= float64(k)
	out := make([]float64, k)
	for i, s := range p {
		out[i] = 1000 + 400*(math.Log10(s)-logMean)
	}
	return out, p
}

// mm is Hunter's MM iteration for Bradley–Terry with the prior: each
// target also tied once with a virtual opponent of mean strength (half a
// win, one meeting). After each sweep the strengths are scaled to a
// geometric mean of 1, where the virtual opponent stands: the likelihood
// alone says nothing of the common scale, and fixing it each sweep is
// what lets the iteration converge in tens of sweeps, not thousands. It
// starts from start when given (the bootstrap starts from the fit of the
// votes as cast).
func mm(n, won []float64, k int, start []float64) []float64 {
	p, next := make([]float64, k), make([]float64, k)
	for i := range p {
		p[i] = 1
	}
	if len(start) == k {
		copy(p, start)
	}
	for range maxIterations {
		var logSum float64
		for i := range k {
			denom := 1 / (p[i] + 1)
			for j, m := range n[i*k : i*k+k] {
				if m > 0 {
					denom += m / (p[i] + p[j])
				}
			}
			next[i] = (won[i] + 0.5) / denom
			logSum += math.Log(next[i])
		}
		scale := math.Exp(-logSum / float64(k))
		moved := 0.0
		for i := range k {
			next[i] *= scale
			moved = max(moved, math.Abs(next[i]-p[i])/p[i])
		}
		p, next = next, p
		if moved < tolerance {
			break
		}
	}
	return p
}

// bootstrap resamples the votes rounds times, with a fixed seed, and
// returns each target's 2.5th and 97.5th percentile score.
func (f *fit) bootstrap(rounds int, start []float64) (low, high []float64) {
	k, nv := len(f.names), f.cast
	low, high = make([]float64, k), make([]float64, k)
	if k == 0 {
		return low, high
	}
	rng := rand.New(rand.NewPCG(44, 2026))
	samples := make([][]float64, k)
	weight := make([]float64, len(f.votes))
	for range rounds {
		clear(weight)
		for range nv {
			weight[f.of[rng.IntN(nv)]]++
		}
		elo, _ := f.scores(weight, start)
		for i, s := range elo {
			samples[i] = append(samples[i], s)
		}
	}
	for i, s := range samples {
		slices.Sort(s)
		low[i], high[i] = percentile(s, 0.025), percentile(s, 0.975)
	}
	return low, high
}

// percentile reads q of sorted s, interpolating between neighbours.
func percentile(s []float64, q float64) float64 {
	x := q * float64(len(s)-1)
	i := int(x)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (x-float64(i))*(s[i+1]-s[i])
}

// normalHalfWidth is each target's 95% half-width by the normal
// approximation: 1.96 standard errors of its log-strength, from the
// likelihood's curvature with the prior's virtual tie (the diagonal of
// the information, each target read as if the others were known), on
// the Elo scale. A bootstrap of a few votes resamples them to
// themselves and claims a certainty they do not give (one vote: an
// interval of zero width); this does not.
func (f *fit) normalHalfWidth(strength []float64) []float64 {
	k := len(f.names)
	info := make([]float64, k)
	for i, s := range strength {
		info[i] = s / ((s + 1) * (s + 1)) // the virtual tie with the mean, strength 1
	}
	for _, fv := range f.votes {
		for _, p := range fv.pairs {
			a, b := strength[p.a], strength[p.b]
			x := float64(fv.times) * a * b / ((a + b) * (a + b))
			info[p.a] += x
			info[p.b] += x
		}
	}
	out := make([]float64, k)
	for i, x := range info {
		out[i] = 1.96 / math.Sqrt(x) * 400 / math.Ln10
	}
	return out
}
