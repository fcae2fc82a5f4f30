package llm

// Budget is a monthly spending limit on one provider, in US dollars of
// estimated cost. Past 80% the app warns; past 100% it asks before each
// send or refuses, as OverLimit says, and headless runs refuse unless told
// to go over. Replays cost nothing and count for nothing.
type Budget struct {
	MonthlyUSD float64 `json:"monthly_usd"`
	// OverLimit is BudgetAsk or BudgetRefuse ("" asks).
	OverLimit string `json:"over_limit,omitempty"`
}

// What a send past the budget does.
const (
	BudgetAsk    = "ask"
	BudgetRefuse = "refuse"
)

// BudgetWarnShare is the share of a budget past which the app warns.
const BudgetWarnShare = 0.8

// Budget states.
const (
	BudgetOK      = "ok"
	BudgetWarning = "warning" // past BudgetWarnShare
	BudgetOver    = "over"    // at or past the budget
)

// State is where spent stands against the budget: BudgetOK, BudgetWarning
// or BudgetOver. A budget of zero or less is no budget.
func (b Budget) State(spent float64) string {
	switch {
	case b.MonthlyUSD <= 0:
		return BudgetOK
	case spent >= b.MonthlyUSD:
		return BudgetOver
	case spent >= BudgetWarnShare*b.MonthlyUSD:
		return BudgetWarning
	}
	return BudgetOK
}

// Refuses reports whether a send past the budget is refused rather than
// asked about.
func (b Budget) Refuses() bool { return b.OverLimit == BudgetRefuse }
