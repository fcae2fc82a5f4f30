package app

import (
	"bytes"
	"context"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/usage"
)

// UsageRequest asks for usage over a span of days.
type UsageRequest struct {
	// Since and Until are days (YYYY-MM-DD, this machine's calendar);
	// Until is inclusive. Empty: the last 30 days, up to today.
	Since string `json:"since,omitempty"`
	Until string `json:"until,omitempty"`
	// By is model, provider, workflow or day ("" by model).
	By string `json:"by,omitempty"`
}

// UsageView is the Usage page: the report and its charts.
type UsageView struct {
	Report store.UsageReport `json:"report"`
	Charts []usage.Chart     `json:"charts"`
	// Since and Until are the days shown (Until inclusive).
	Since string `json:"since"`
	Until string `json:"until"`
}

// usageQuery reads req's span: the last 30 days by default.
func usageQuery(req UsageRequest, now time.Time) (store.UsageQuery, string, string, error) {
	day := func(s string, def time.Time) (time.Time, error) {
		if s == "" {
			return def, nil
		}
		t, err := time.ParseInLocation(time.DateOnly, s, time.Local)
		if err != nil {
			return time.Time{}, apperr.New(apperr.Invalid, "%q is not a day; write it as YYYY-MM-DD.", s)
		}
		return t, nil
	}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.Local)
	since, err := day(req.Since, today.AddDate(0, 0, -29))
	if err != nil {
		return store.UsageQuery{}, "", "", err
	}
	until, err := day(req.Until, today)
	if err != nil {
		return store.UsageQuery{}, "", "", err
	}
	if until.Before(since) {
		return store.UsageQuery{}, "", "", apperr.New(apperr.Invalid, "The span ends (%s) before it starts (%s).", until.Format(time.DateOnly), since.Format(time.DateOnly))
	}
	q := store.UsageQuery{Since: since, Until: until.AddDate(0, 0, 1), By: req.By}
	return q, since.Format(time.DateOnly), until.Format(time.DateOnly), nil
}

func (s *Service) usage(ctx context.Context, req UsageRequest) (UsageView, error) {
	q, since, until, err := usageQuery(req, time.Now())
	if err != nil {
		return UsageView{}, err
	}
	rep, err := s.db.Usage(ctx, q)
	if err != nil {
		return UsageView{}, err
	}
	charts, err := usage.Charts(s.charts, rep)
	if err != nil {
		return UsageView{}, apperr.Wrap(err, apperr.Internal, "The usage charts could not be drawn")
	}
	return UsageView{Report: rep, Charts: charts, Since: since, Until: until}, nil
}

func (s *Service) usageCSV(ctx context.Context, req UsageRequest) (ExportReply, error) {
	q, since, until, err := usageQuery(req, time.Now())
	if err != nil {
		return ExportReply{}, err
	}
	rep, err := s.db.Usage(ctx, q)
	if err != nil {
		return ExportReply{}, err
	}
	var b bytes.Buffer
	if err := usage.WriteCSV(&b, rep); err != nil {
		return ExportReply{}, err
	}
	return ExportReply{Filename: "agentdeck-usage-" + since + "-to-" + until + "-by-" + rep.By + ".csv", Content: b.String()}, nil
}

// overBudget is whether a send may go past the provider's spent budget:
// the person agreed, and the provider asks rather than refuses.
func (s *Service) overBudget(ctx context.Context, agreed bool, sessionID, provider string) bool {
	if !agreed {
		return false
	}
	if provider == "" && sessionID != "" {
		if sess, err := s.db.GetSession(ctx, sessionID); err == nil {
			provider = sess.Provider
		}
	}
	b, err := s.runner.Budget(ctx, provider)
	return err == nil && !b.Budget.Refuses()
}

// modelFacts is what is known of a model on a provider, for Settings.
func (s *Service) modelFacts(ctx context.Context, provider, model string) (runner.Facts, error) {
	if model == "" {
		return runner.Facts{}, apperr.New(apperr.Invalid, "Name a model.")
	}
	return s.runner.ModelFacts(ctx, provider, model)
}

// budgetState is where the provider's monthly budget stands.
func (s *Service) budgetState(ctx context.Context, provider string) (runner.BudgetState, error) {
	b, err := s.runner.Budget(ctx, provider)
	if err == nil && b.State == "" {
		b.State = llm.BudgetOK
	}
	return b, err
}
