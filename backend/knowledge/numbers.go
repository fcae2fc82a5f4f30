package knowledge

import "sync"

// Numbers hands out the numbers a turn's answer cites its sources by
// ([1], [2], ...): one per turn, shared by every tool that gives the model
// something to cite (search_knowledge, fetch_url), so a number is unique
// in the turn. Safe for concurrent use.
type Numbers struct {
	mu   sync.Mutex
	last int
}

// Take reserves k consecutive numbers and returns the first.
func (n *Numbers) Take(k int) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	first := n.last + 1
	n.last += k
	return first
}

// Seen records that numbers up to last were given (a replay giving back
// recorded sources), so later ones follow them.
func (n *Numbers) Seen(last int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.last = max(n.last, last)
}
