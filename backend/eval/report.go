package eval

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/agentdeck/agentdeck/backend/store"
)

// Reading a run back: its results with their outcomes, a summary per
// model, and the comparison of two runs case by case. The command line
// and the window show the same RunReport and RunDiff.

// CellResult is a cell's stored result (a store.EvalResult) with its
// outcomes read.
type CellResult struct {
	ID        string          `json:"id"`
	CaseID    string          `json:"case_id"`
	Model     string          `json:"model"`
	Repeat    int             `json:"repeat"`
	State     string          `json:"state"`
	Score     float64         `json:"score"`
	Outcomes  []AssertOutcome `json:"outcomes"`
	Error     string          `json:"error,omitempty"`
	LatencyMS int64           `json:"latency_ms"`
	Tokens    int64           `json:"tokens"`
	CostUSD   *float64        `json:"cost_usd,omitempty"`
	SessionID string          `json:"session_id,omitempty"`
	TurnID    string          `json:"turn_id,omitempty"`
	// Answer is the start of its turn's final answer (store.EvalAnswerPreview
	// characters at most); AnswerMore says there is more to read whole.
	// A model's text: shown as text only.
	Answer     string `json:"answer"`
	AnswerMore bool   `json:"answer_more"`
}

// Reason is why a result did not pass, in a line: its error, else its
// first failing assertion's reason ("" for a pass).
func (r CellResult) Reason() string {
	if r.State == store.EvalPassed {
		return ""
	}
	if r.Error != "" {
		return r.Error
	}
	for _, o := range r.Outcomes {
		if !o.Passed {
			return o.Kind + ": " + o.Reason
		}
	}
	return r.State
}

// ModelSummary is how one model did in a run.
type ModelSummary struct {
	Model     string  `json:"model"`
	Total     int     `json:"total"`
	Passed    int     `json:"passed"`
	Failed    int     `json:"failed"`
	Errors    int     `json:"errors"`
	Cancelled int     `json:"cancelled"`
	PassRate  float64 `json:"pass_rate"` // of the results that ended passed or failed
	MeanScore float64 `json:"mean_score"`
	// MedianLatencyMS is the median latency of its cases' turns.
	MedianLatencyMS int64   `json:"median_latency_ms"`
	CostUSD         float64 `json:"cost_usd"`
	// Unpriced counts results whose cost is unknown (not in CostUSD).
	Unpriced int `json:"unpriced"`
}

// RunReport is a run with its results, in the suite's order (case, model,
// repeat), and a summary per model, in the order of the suite's models.
type RunReport struct {
	Run     store.EvalRun  `json:"run"`
	Results []CellResult   `json:"results"`
	Models  []ModelSummary `json:"models"`
	Passed  int            `json:"passed"`
	// Total counts the results there are; Planned is the run's cases ×
	// models × repeats, more than Total while it runs or when stopped early.
	Total   int `json:"total"`
	Planned int `json:"planned"`
}

// AllPassed says whether every result passed (and there was one).
func (r RunReport) AllPassed() bool { return r.Total > 0 && r.Passed == r.Total }

// ReportStore is what reading a run's report needs of the database.
type ReportStore interface {
	EvalRun(ctx context.Context, id string) (store.EvalRun, error)
	EvalResults(ctx context.Context, runID string) ([]store.EvalResult, error)
}

// ReportOf reads run id and its results into its report.
func ReportOf(ctx context.Context, db ReportStore, id string) (RunReport, error) {
	run, err := db.EvalRun(ctx, id)
	if err != nil {
		return RunReport{}, err
	}
	results, err := db.EvalResults(ctx, id)
	if err != nil {
		return RunReport{}, err
	}
	return NewReport(run, results), nil
}

// NewReport reads a run's stored results into a RunReport.
func NewReport(run store.EvalRun, stored []store.EvalResult) RunReport {
	rep := RunReport{Run: run, Results: make([]CellResult, 0, len(stored))}
	var order []string
	var suite Suite
	if json.Unmarshal(run.Suite, &suite) == nil {
		order = append(order, suite.Models...)
	}
	rep.Planned = Planned(suite)
	byModel := map[string]*ModelSummary{}
	latencies := map[string][]int64{}
	for _, s := range stored {
		r := CellResult{ID: s.ID, CaseID: s.CaseID, Model: s.Model, Repeat: s.Repeat, State: s.State, Score: s.Score, Error: s.Error,
			LatencyMS: s.LatencyMS, Tokens: s.Tokens, CostUSD: s.CostUSD, SessionID: s.SessionID, TurnID: s.TurnID,
			Answer: s.Answer, AnswerMore: s.AnswerMore}
		_ = json.Unmarshal(s.Outcomes, &r.Outcomes)
		if r.Outcomes == nil {
			r.Outcomes = []AssertOutcome{}
		}
		rep.Results = append(rep.Results, r)
		m := byModel[r.Model]
		if m == nil {
			m = &ModelSummary{Model: r.Model}
			byModel[r.Model] = m
			if !contains(order, r.Model) {
				order = append(order, r.Model)
			}
		}
		m.Total++
		rep.Total++
		switch r.State {
		case store.EvalPassed:
			m.Passed++
			rep.Passed++
		case store.EvalFailedCase:
			m.Failed++
		case store.EvalError:
			m.Errors++
		case store.EvalCancelled:
			m.Cancelled++
		}
		m.MeanScore += r.Score
		if r.CostUSD != nil {
			m.CostUSD += *r.CostUSD
		} else if r.State != store.EvalRunning {
			m.Unpriced++
		}
		if r.TurnID != "" {
			latencies[r.Model] = append(latencies[r.Model], r.LatencyMS)
		}
	}
	for _, name := range order {
		m := byModel[name]
		if m == nil {
			continue
		}
		if judged := m.Passed + m.Failed; judged > 0 {
			m.PassRate = float64(m.Passed) / float64(judged)
		}
		if m.Total > 0 {
			m.MeanScore /= float64(m.Total)
		}
		m.MedianLatencyMS = median(latencies[name])
		rep.Models = append(rep.Models, *m)
	}
	rep.Planned = max(rep.Planned, rep.Total)
	sortResults(rep.Results, &suite)
	return rep
}

// Planned is how many cells a run of s has: its cases × models × repeats.
func Planned(s Suite) int { return len(s.Cases) * len(s.Models) * max(s.Repeat, 1) }

// PlannedOf is Planned of the suite a run stored (0 if it cannot be read).
func PlannedOf(run store.EvalRun) int {
	var s Suite
	if json.Unmarshal(run.Suite, &s) != nil {
		return 0
	}
	return Planned(s)
}

// sortResults puts results in the suite's order (case, model, repeat)
// rather than the order they started in, which concurrency shuffles.
func sortResults(results []CellResult, s *Suite) {
	index := func(list []string, v string) int {
		if i := slices.Index(list, v); i >= 0 {
			return i
		}
		return len(list)
	}
	cases := make([]string, len(s.Cases))
	for i, c := range s.Cases {
		cases[i] = c.ID
	}
	slices.SortStableFunc(results, func(a, b CellResult) int {
		return cmp.Or(
			cmp.Compare(index(cases, a.CaseID), index(cases, b.CaseID)), strings.Compare(a.CaseID, b.CaseID),
			cmp.Compare(index(s.Models, a.Model), index(s.Models, b.Model)), strings.Compare(a.Model, b.Model),
			cmp.Compare(a.Repeat, b.Repeat))
	})
}

func median(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]int64(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// RunDiff compares two runs cell by cell (a case × model × repeat in both).
type RunDiff struct {
	A string `json:"a"`
	B string `json:"b"`
	// Regressions passed in A and not in B; Fixes the reverse;
	// StillFailing passed in neither.
	Regressions  []DiffCell `json:"regressions"`
	Fixes        []DiffCell `json:"fixes"`
	StillFailing []DiffCell `json:"still_failing"`
	// Same counts the cells that passed in both.
	Same int `json:"same"`
	// OnlyA and OnlyB are cells one run has and the other does not.
	OnlyA []DiffCell `json:"only_a"`
	OnlyB []DiffCell `json:"only_b"`
	// Running are cells still running in either run: not yet a
	// regression or a fix.
	Running []DiffCell `json:"running"`
}

// DiffCell is one cell of a RunDiff, with its result in each run that has it.
type DiffCell struct {
	CaseID string      `json:"case_id"`
	Model  string      `json:"model"`
	Repeat int         `json:"repeat"`
	A      *CellResult `json:"a,omitempty"`
	B      *CellResult `json:"b,omitempty"`
}

// DiffRuns compares run a with run b, in b's order (then a's cells b lacks).
func DiffRuns(a, b RunReport) RunDiff {
	d := RunDiff{A: a.Run.ID, B: b.Run.ID, Regressions: []DiffCell{}, Fixes: []DiffCell{}, StillFailing: []DiffCell{}, OnlyA: []DiffCell{}, OnlyB: []DiffCell{}, Running: []DiffCell{}}
	type cell struct {
		c, m string
		r    int
	}
	inA := map[cell]*CellResult{}
	for i := range a.Results {
		r := &a.Results[i]
		inA[cell{r.CaseID, r.Model, r.Repeat}] = r
	}
	seen := map[cell]bool{}
	for i := range b.Results {
		rb := &b.Results[i]
		k := cell{rb.CaseID, rb.Model, rb.Repeat}
		seen[k] = true
		ra := inA[k]
		dc := DiffCell{CaseID: rb.CaseID, Model: rb.Model, Repeat: rb.Repeat, A: ra, B: rb}
		switch pa, pb := ra != nil && ra.State == store.EvalPassed, rb.State == store.EvalPassed; {
		case ra == nil:
			d.OnlyB = append(d.OnlyB, dc)
		case ra.State == store.EvalRunning || rb.State == store.EvalRunning:
			d.Running = append(d.Running, dc)
		case pa && !pb:
			d.Regressions = append(d.Regressions, dc)
		case !pa && pb:
			d.Fixes = append(d.Fixes, dc)
		case !pa && !pb:
			d.StillFailing = append(d.StillFailing, dc)
		default:
			d.Same++
		}
	}
	for i := range a.Results {
		ra := &a.Results[i]
		if k := (cell{ra.CaseID, ra.Model, ra.Repeat}); !seen[k] {
			d.OnlyA = append(d.OnlyA, DiffCell{CaseID: ra.CaseID, Model: ra.Model, Repeat: ra.Repeat, A: ra})
		}
	}
	return d
}
