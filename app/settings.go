package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/secrets"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// What the API does for the settings screens, the status line and the
// ready report. Only the provider list and its changes need the database.

func (s *Service) listProviders(ctx context.Context) ([]ProviderView, error) {
	ps, err := s.db.ListProviders(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ProviderView, 0, len(ps))
	for _, p := range ps {
		v := ProviderView{Provider: p}
		if p.APIKeyRef != "" && s.secrets != nil {
			if k, err := s.secrets.Get(ctx, p.APIKeyRef); err == nil {
				v.HasKey, v.MaskedKey = true, secrets.Mask(k)
			}
		}
		out = append(out, v)
	}
	return out, nil
}

func (s *Service) saveProvider(ctx context.Context, in ProviderInput) error {
	p := in.Provider
	if key := strings.TrimSpace(in.APIKey); key != "" {
		if s.secrets == nil {
			return apperr.New(apperr.Unavailable, "No secret store is available to keep the API key.")
		}
		p.APIKeyRef = "provider:" + p.Name
		if err := s.secrets.Set(ctx, p.APIKeyRef, key); err != nil {
			return err
		}
	}
	return s.db.SaveProvider(ctx, p)
}

func (s *Service) deleteProvider(ctx context.Context, name string) error {
	if s.secrets != nil {
		_ = s.secrets.Delete(ctx, "provider:"+name)
	}
	return s.db.DeleteProvider(ctx, name)
}

// testProvider lists the provider's models; a failure is the reply's
// Error, in the words of the model server's error (llm.Error) when there is one.
func (s *Service) testProvider(ctx context.Context, in ProviderInput) TestReply {
	key := in.APIKey
	if key == "" && in.Provider.APIKeyRef != "" && s.secrets != nil {
		key, _ = s.secrets.Get(ctx, in.Provider.APIKeyRef)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	models, err := catalog.ListModels(ctx, s.httpClient(), in.Provider.BaseURL, key)
	if err != nil {
		var le *llm.Error
		if errors.As(err, &le) {
			return TestReply{Error: le.Message}
		}
		return TestReply{Error: apperr.MessageOf(err)}
	}
	return TestReply{OK: true, Models: models}
}

func (s *Service) httpClient() *http.Client { return &http.Client{} }

func (s *Service) listWorkflows() WorkflowList {
	defs, problems := s.workflows()
	out := WorkflowList{Problems: problems}
	for _, d := range defs {
		out.Workflows = append(out.Workflows, WorkflowInfo{Name: d.Name, Description: d.Description, Kind: d.Kind, Source: d.Source})
	}
	return out
}

// validateWorkflow returns the problems of a workflow file's text, none
// when it is valid.
func validateWorkflow(name, content string) ([]workflow.Problem, error) {
	_, err := workflow.Parse(name, []byte(content))
	var ps workflow.Problems
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &ps):
		return ps, nil
	}
	return nil, err
}

func (s *Service) status(ctx context.Context) Status {
	st := Status{Version: s.info.Version, DBPath: s.dbPath}
	if s.dbErr != nil {
		st.DBError = safe(s.dbErr)
		return st
	}
	if s.db == nil {
		return st
	}
	v, err := s.db.SchemaVersion(ctx)
	if err != nil {
		s.log.Warn("reading schema version", "err", err)
	}
	st.SchemaVersion = v
	if ps, err := s.db.ListProviders(ctx); err == nil {
		st.Providers = len(ps)
	}
	if met, reason := s.db.Damaged(); met {
		st.Damaged = fmt.Sprintf("The database %s is damaged: %s. What is readable still shows; a new message is saved into it only if you confirm. "+
			"To rescue it, quit and run `agentdeck db salvage NEW_FILE --db %s`, then start Agentdeck with --db NEW_FILE.", s.dbPath, reason, s.dbPath)
	}
	return st
}

func (s *Service) uiReady(r ReadyReport) error {
	s.log.Info("ui ready", "version_shown", r.VersionShown, "regions", r.Regions, "width", r.Width, "height", r.Height)
	s.trimmed.Do(func() { go s.trimAfterStart() })
	if s.readyFile == "" {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not record the ready report")
	}
	tmp := s.readyFile + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "could not write the ready file")
	}
	if err := os.Rename(tmp, s.readyFile); err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "could not write the ready file")
	}
	return nil
}
