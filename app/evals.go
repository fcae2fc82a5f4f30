package app

import (
	"context"
	"sync"

	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/store"
)

// Evaluations as the window reads them: the runs, one run's report (its
// matrix of results and a summary per model), two runs compared case by
// case, and a case made from a turn (Add to evaluation). The command
// line prints the same eval.RunReport and eval.RunDiff.

// EvalRunSummary is a run in the list, with how it did.
type EvalRunSummary struct {
	Run    store.EvalRun `json:"run"`
	Passed int           `json:"passed"`
	// Total counts its results; Planned its cases × models × repeats, more
	// than Total while it runs or when it was stopped early.
	Total   int `json:"total"`
	Planned int `json:"planned"`
}

// evalRuns lists the runs, newest first (of one suite when suite is set).
func (s *Service) evalRuns(ctx context.Context, suite string) ([]EvalRunSummary, error) {
	runs, err := s.db.EvalRunTallies(ctx, suite, 200)
	if err != nil {
		return nil, err
	}
	out := make([]EvalRunSummary, 0, len(runs))
	for _, r := range runs {
		out = append(out, EvalRunSummary{Run: r.Run, Passed: r.Passed, Total: r.Results, Planned: max(eval.PlannedOf(r.Run), r.Results)})
	}
	return out, nil
}

// evalReport is one run with its results.
func (s *Service) evalReport(ctx context.Context, id string) (eval.RunReport, error) {
	run, err := s.db.EvalRun(ctx, id)
	if err != nil {
		return eval.RunReport{}, err
	}
	results, err := s.db.EvalResults(ctx, id)
	if err != nil {
		return eval.RunReport{}, err
	}
	return eval.NewReport(run, results), nil
}

// evalDiff compares run a with run b.
func (s *Service) evalDiff(ctx context.Context, a, b string) (eval.RunDiff, error) {
	var reps [2]eval.RunReport
	var errs [2]error
	var wg sync.WaitGroup
	for i, id := range []string{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i], errs[i] = s.evalReport(ctx, id)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return eval.RunDiff{}, err
		}
	}
	return eval.DiffRuns(reps[0], reps[1]), nil
}

// evalCaseFromTurn is a suite of one case made from a turn, as YAML to
// edit and save: the turn's model is the suite's.
func (s *Service) evalCaseFromTurn(ctx context.Context, turnID string) (string, error) {
	t, err := s.db.GetTurn(ctx, turnID, false)
	if err != nil {
		return "", err
	}
	sess, err := s.db.GetSession(ctx, t.SessionID)
	if err != nil {
		return "", err
	}
	// The turn's own branch, not the session's active one: an earlier
	// version of a message is made into a case as it was asked.
	history, err := s.db.PathHistory(ctx, t.ParentTurnID)
	if err != nil {
		return "", err
	}
	suite := eval.Suite{Name: "from-" + sess.ID[:min(8, len(sess.ID))], Workflow: t.Workflow, Cases: []eval.Case{eval.FromTurn(t, history)}}
	if sess.Provider != "" && t.Model != "" {
		suite.Models = []string{sess.Provider + "/" + t.Model}
	}
	y, err := eval.SuiteYAML(suite)
	return string(y), err
}

// evalAgreement is how often run id's judge agrees with the thumbs a
// person gave its cells' turns (their turn reviews, not their steps').
func (s *Service) evalAgreement(ctx context.Context, id string) (eval.Agreement, error) {
	rep, err := s.evalReport(ctx, id)
	if err != nil {
		return eval.Agreement{}, err
	}
	ids := make([]string, 0, len(rep.Results))
	for _, r := range rep.Results {
		if r.TurnID != "" {
			ids = append(ids, r.TurnID)
		}
	}
	reviews, err := s.db.ReviewsFor(ctx, ids)
	if err != nil {
		return eval.Agreement{}, err
	}
	thumbs := make(map[string]int, len(reviews))
	for _, rv := range reviews {
		if rv.Step == "" {
			thumbs[rv.TurnID] = rv.Thumb
		}
	}
	return eval.JudgeAgreement(rep.Results, thumbs), nil
}
