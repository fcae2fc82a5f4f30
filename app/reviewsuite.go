package app

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/store"
)

// From review to tests: "Make a suite from these" turns the turns a review
// filter picks into cases (eval.SuiteFromReviewed), saved as a new suite
// file in the evaluations folder or added to one there, the way
// SaveEvalCases saves Add to evaluation's cases.

// ReviewSuiteMake makes a suite of the turns Filter picks: a new suite
// called Name, or, with File, the cases added to that suite file of the
// evaluations folder.
type ReviewSuiteMake struct {
	Filter store.ReviewFilter `json:"filter"`
	Name   string             `json:"name,omitempty"`
	File   string             `json:"file,omitempty"`
}

// ReviewSuiteMade is the suite as saved: Added cases made, Skipped turns
// the suite already had a case of (the same id).
type ReviewSuiteMade struct {
	Suite   EvalSuiteInfo `json:"suite"`
	Added   int           `json:"added"`
	Skipped int           `json:"skipped"`
}

// SuiteFromReviewed makes an evaluation suite of the turns a review filter
// picks ("Make a suite from these"): each case starts from its recorded
// turn; a rated-down turn's labels and note are what it must not do again,
// a kept turn's answer the reference. It is saved as a new suite file, or
// added to the suite file named.
func (a *API) SuiteFromReviewed(req ReviewSuiteMake) (ReviewSuiteMade, error) {
	return call(a, needDB, func(ctx context.Context) (ReviewSuiteMade, error) { return a.s.suiteFromReviewed(ctx, req) })
}

func (s *Service) suiteFromReviewed(ctx context.Context, req ReviewSuiteMake) (ReviewSuiteMade, error) {
	name, file := strings.TrimSpace(req.Name), req.File
	var opts eval.ReviewSuiteOptions
	var have map[string]bool
	if file == "" {
		if name == "" {
			return ReviewSuiteMade{}, apperr.New(apperr.Invalid, "Name the new suite, or pick a suite to add the cases to.")
		}
		file = slugFile(name)
		path, err := s.suitePath(file)
		if err != nil {
			return ReviewSuiteMade{}, err
		}
		if _, err := os.Stat(path); err == nil {
			return ReviewSuiteMade{}, apperr.New(apperr.Conflict, "A suite file %s already exists: add the cases to it, or give the new suite another name.", file)
		}
		opts.Name = name
	} else {
		old, err := s.existingSuite(file)
		if err != nil {
			return ReviewSuiteMade{}, err
		}
		opts.Name, opts.Models, have = old.Name, old.Models, map[string]bool{}
		for _, c := range old.Cases {
			have[c.ID] = true
		}
	}
	suite, err := eval.SuiteFromReviewed(ctx, s.db, req.Filter, opts)
	if err != nil {
		return ReviewSuiteMade{}, err
	}
	made := ReviewSuiteMade{}
	kept := suite.Cases[:0]
	for _, c := range suite.Cases {
		if have[c.ID] {
			made.Skipped++
			continue
		}
		kept = append(kept, c)
	}
	if suite.Cases = kept; len(kept) == 0 {
		return ReviewSuiteMade{}, apperr.New(apperr.Conflict, "%s already has a case of every turn picked (%d): nothing to add.", file, made.Skipped)
	}
	y, err := eval.SuiteYAML(suite)
	if err != nil {
		return ReviewSuiteMade{}, err
	}
	saved, err := s.saveEvalCases(EvalCasesSave{File: file, Name: name, YAML: string(y)})
	if err != nil {
		return ReviewSuiteMade{}, err
	}
	if len(saved.Problems) > 0 {
		return ReviewSuiteMade{}, apperr.New(apperr.Invalid, "The suite made from the reviews would not read back, so nothing was saved: %s", saved.Problems[0].Error())
	}
	made.Suite, made.Added = saved.Suite, len(kept)
	s.log.Info("suite made from reviews", "file", saved.Suite.Path, "added", made.Added, "skipped", made.Skipped)
	return made, nil
}

// existingSuite is the suite file of the folder cases are added to; one
// missing or with problems is an error saying what to do.
func (s *Service) existingSuite(file string) (*eval.Suite, error) {
	path, err := s.suitePath(file)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, apperr.New(apperr.NotFound, "There is no suite file %s in the evaluations folder: pick one from the list, or make a new suite.", file)
	}
	suite, err := eval.Load(path)
	if err != nil {
		ps := problemsOf(path, err)
		return nil, apperr.Wrap(err, apperr.Invalid, "%s is not a suite that reads (%s): mend it first, or make a new suite.", file, ps[0].Error())
	}
	return suite, nil
}
