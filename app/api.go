package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/mcp"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/secrets"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// The methods below are the one API of the app: bound to the window by
// Wails and served over HTTP by the browser mode. Every request and reply
// is a plain struct with snake_case JSON.

// ListSessions pages through sessions, most recent first.
func (s *Service) ListSessions(p store.Page) (store.SessionPage, error) {
	if err := s.ready(); err != nil {
		return store.SessionPage{}, err
	}
	return s.db.ListSessions(s.ctx(), p)
}

// NewSession is what CreateSession needs; empty fields take the defaults.
type NewSession struct {
	Title     string `json:"title"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	Workflow  string `json:"workflow"`
	Workspace string `json:"workspace"`
}

// CreateSession starts a new session with the default model and workflow
// unless others are given.
func (s *Service) CreateSession(req NewSession) (store.Session, error) {
	if err := s.ready(); err != nil {
		return store.Session{}, err
	}
	st := s.settings()
	return s.db.CreateSession(s.ctx(), store.Session{
		Title:     req.Title,
		Provider:  firstOf(req.Provider, st.DefaultProvider),
		Model:     firstOf(req.Model, st.DefaultModel),
		Workflow:  firstOf(req.Workflow, st.DefaultWorkflow, "chat"),
		Workspace: req.Workspace,
	})
}

// GetSession returns one session.
func (s *Service) GetSession(id string) (store.Session, error) {
	if err := s.ready(); err != nil {
		return store.Session{}, err
	}
	return s.db.GetSession(s.ctx(), id)
}

// RenameSession changes a session's title.
func (s *Service) RenameSession(id, title string) error {
	if err := s.ready(); err != nil {
		return err
	}
	return s.db.RenameSession(s.ctx(), id, title)
}

// UpdateSession saves a session's model, provider, workflow and workspace.
func (s *Service) UpdateSession(sess store.Session) error {
	if err := s.ready(); err != nil {
		return err
	}
	return s.db.UpdateSession(s.ctx(), sess)
}

// DeleteSession deletes a session for good (see store.DeleteSession).
func (s *Service) DeleteSession(id string) error {
	if err := s.ready(); err != nil {
		return err
	}
	return s.db.DeleteSession(s.ctx(), id)
}

// SearchSessions finds text across every session.
func (s *Service) SearchSessions(query string, limit int) ([]store.SearchHit, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	return s.db.Search(s.ctx(), query, limit)
}

// SendRequest sends a message to a session.
type SendRequest struct {
	SessionID string      `json:"session_id"`
	Message   string      `json:"message"`
	Workflow  string      `json:"workflow,omitempty"`
	Model     string      `json:"model,omitempty"`
	Limits    turn.Limits `json:"limits"`
	// Attach lists files (paths on this machine) to load as tables.
	Attach []string `json:"attach,omitempty"`
	// Force stores the turn even when the database is damaged: the person
	// saw the Damaged error of a first try and confirmed.
	Force bool `json:"force,omitempty"`
}

// TurnRef names a started turn.
type TurnRef struct {
	TurnID    string `json:"turn_id"`
	SessionID string `json:"session_id"`
}

// SendMessage starts a turn. Its events arrive on the event stream; the
// reply comes as soon as the turn is recorded. In a damaged database it
// fails with apperr.Damaged, saying why, unless req.Force is set: the UI
// asks the person and sends again with Force.
func (s *Service) SendMessage(req SendRequest) (TurnRef, error) {
	if err := s.ready(); err != nil {
		return TurnRef{}, err
	}
	if strings.TrimSpace(req.Message) == "" {
		return TurnRef{}, apperr.New(apperr.Invalid, "The message is empty.")
	}
	st := s.settings()
	lim := req.Limits
	if lim == (turn.Limits{}) {
		lim = st.Limits
	}
	// A turn left running by a dead process must not refuse the message:
	// mark it interrupted now, and tell the UIs (StartTurn would also
	// recover it, but silently).
	if req.SessionID != "" {
		s.recoverOrphans(s.ctx(), req.SessionID)
	}
	return s.start(runner.Request{
		SessionID: req.SessionID,
		Message:   req.Message,
		Workflow:  req.Workflow,
		Model:     req.Model,
		Limits:    lim,
		Capture:   llm.CaptureMode(st.Capture),
		Approver:  s.approvals,
		Attach:    req.Attach,
		Force:     req.Force,
	})
}

// start runs a turn with the hub as its live sink.
func (s *Service) start(req runner.Request) (TurnRef, error) {
	req.TurnSinks = func(turnID string) []turn.Sink { return []turn.Sink{s.hub.Sink(turnID)} }
	h, err := s.runner.Start(s.ctx(), req)
	if err != nil {
		return TurnRef{}, err
	}
	go func() {
		<-h.Done()
		s.hub.Ended(h.TurnID)
	}()
	return TurnRef{TurnID: h.TurnID, SessionID: h.SessionID}, nil
}

// StopTurn stops a running turn; stopping a finished turn does nothing. A
// turn left running by a process that is gone is marked interrupted at
// once; one that another live Agentdeck process runs cannot be stopped
// from here (a Conflict that says where it runs).
func (s *Service) StopTurn(turnID string) error {
	if err := s.ready(); err != nil {
		return err
	}
	ctx := s.ctx()
	own, err := s.db.TurnOwnership(ctx, turnID)
	switch {
	case apperr.CodeOf(err) == apperr.NotFound:
		return nil
	case err != nil:
		return err
	case own.State != store.StateRunning:
		return nil
	case own.Mine:
		return s.runner.Stop(turnID)
	case !own.Gone:
		return apperr.New(apperr.Conflict, "This turn is running in another Agentdeck process (pid %d). Stop it there: Ctrl+C in its terminal, or Stop in its window.", own.Owner.PID)
	}
	ok, err := s.db.RecoverTurn(ctx, turnID)
	if err != nil {
		return err
	}
	if ok {
		s.announce([]store.Orphan{{TurnID: turnID, SessionID: own.SessionID, OwnerPID: own.Owner.PID}})
	}
	return nil
}

// GetTurn loads a turn with its messages, stages, diagnostics, plan and
// charts, and its events when asked.
func (s *Service) GetTurn(turnID string, withEvents bool) (store.TurnDetail, error) {
	if err := s.ready(); err != nil {
		return store.TurnDetail{}, err
	}
	return s.db.GetTurn(s.ctx(), turnID, withEvents)
}

// ListTurns pages through a session's turns, newest first.
func (s *Service) ListTurns(sessionID string, p store.Page) (store.TurnPage, error) {
	if err := s.ready(); err != nil {
		return store.TurnPage{}, err
	}
	return s.db.ListTurns(s.ctx(), sessionID, p)
}

// EventsAfter returns a turn's events after a seq: what a UI asks for when
// it (re)opens a turn or sees a gap.
func (s *Service) EventsAfter(turnID string, afterSeq int64) ([]turn.Event, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	return s.hub.EventsAfter(s.ctx(), turnID, afterSeq)
}

// ReplayTurn re-runs a recorded turn offline from its captures, in a new
// session named after it, so the original is left as it was.
func (s *Service) ReplayTurn(turnID string) (TurnRef, error) {
	return s.rerun(turnID, RerunOptions{}, true)
}

// RerunOptions change what a re-run uses.
type RerunOptions struct {
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	Workflow string `json:"workflow,omitempty"`
}

// RerunTurn runs a past turn's message again, live, with another model or
// workflow, in a new session, for comparison.
func (s *Service) RerunTurn(turnID string, opts RerunOptions) (TurnRef, error) {
	return s.rerun(turnID, opts, false)
}

func (s *Service) rerun(turnID string, opts RerunOptions, replay bool) (TurnRef, error) {
	if err := s.ready(); err != nil {
		return TurnRef{}, err
	}
	ctx := s.ctx()
	orig, err := s.db.GetTurn(ctx, turnID, false)
	if err != nil {
		return TurnRef{}, err
	}
	sess, err := s.db.GetSession(ctx, orig.SessionID)
	if err != nil {
		return TurnRef{}, err
	}
	kind := "Re-run"
	if replay {
		kind = "Replay"
	}
	settings, _ := json.Marshal(map[string]any{"source_turn_id": turnID, "kind": strings.ToLower(kind)})
	copySess, err := s.db.CreateSession(ctx, store.Session{
		Title:     kind + " of " + sess.Title + " #" + itoa(orig.Seq),
		Provider:  firstOf(opts.Provider, sess.Provider),
		Model:     firstOf(opts.Model, orig.Model, sess.Model),
		Workflow:  firstOf(opts.Workflow, orig.Workflow, sess.Workflow),
		Workspace: sess.Workspace,
		Settings:  settings,
	})
	if err != nil {
		return TurnRef{}, err
	}
	req := runner.Request{SessionID: copySess.ID, Approver: s.approvals}
	if replay {
		// The turn's own recordings, workflow, limits and approvals.
		req.Replay = &runner.Replay{TurnID: orig.ID}
	} else {
		history, err := s.db.History(ctx, sess.ID, orig.Seq)
		if err != nil {
			return TurnRef{}, err
		}
		if history == nil {
			history = []llm.Message{}
		}
		req.Message, req.History, req.Capture, req.Limits = orig.UserMessage, history, llm.CaptureRecord, s.settings().Limits
	}
	ref, err := s.start(req)
	if err != nil {
		// A replay that cannot start leaves no empty session behind.
		_ = s.db.DeleteSession(context.WithoutCancel(ctx), copySess.ID)
	}
	return ref, err
}

// ExportReply is an exported session.
type ExportReply struct {
	Filename string `json:"filename"`
	Content  string `json:"content"`
}

// ExportSession exports a session as json, md or jsonl.
func (s *Service) ExportSession(id, format string) (ExportReply, error) {
	if err := s.ready(); err != nil {
		return ExportReply{}, err
	}
	f, err := store.ParseExportFormat(format)
	if err != nil {
		return ExportReply{}, err
	}
	sess, err := s.db.GetSession(s.ctx(), id)
	if err != nil {
		return ExportReply{}, err
	}
	var buf bytes.Buffer
	if err := s.db.Export(s.ctx(), id, f, &buf, store.ExportOptions{}); err != nil {
		return ExportReply{}, err
	}
	return ExportReply{Filename: fileSafe(sess.Title) + "." + string(f), Content: buf.String()}, nil
}

// ImportSession imports a session exported as JSON.
func (s *Service) ImportSession(content string) (store.Session, error) {
	if err := s.ready(); err != nil {
		return store.Session{}, err
	}
	return s.db.Import(s.ctx(), strings.NewReader(content))
}

// ProviderView is a provider as the UI sees it: the key is never sent,
// only whether one is stored and its masked tail.
type ProviderView struct {
	llm.Provider
	HasKey    bool   `json:"has_key"`
	MaskedKey string `json:"masked_key"`
}

// ListProviders lists the saved providers and the presets.
func (s *Service) ListProviders() ([]ProviderView, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	ps, err := s.db.ListProviders(s.ctx())
	if err != nil {
		return nil, err
	}
	out := make([]ProviderView, 0, len(ps))
	for _, p := range ps {
		v := ProviderView{Provider: p}
		if p.APIKeyRef != "" && s.secrets != nil {
			if k, err := s.secrets.Get(s.ctx(), p.APIKeyRef); err == nil {
				v.HasKey, v.MaskedKey = true, secrets.Mask(k)
			}
		}
		out = append(out, v)
	}
	return out, nil
}

// Presets lists the built-in provider presets.
func (s *Service) Presets() []llm.Provider { return llm.Presets() }

// ProviderInput saves a provider; APIKey, when set, goes to the keyring.
type ProviderInput struct {
	Provider llm.Provider `json:"provider"`
	APIKey   string       `json:"api_key,omitempty"`
}

// SaveProvider stores a provider definition, and its key in the keyring.
func (s *Service) SaveProvider(in ProviderInput) error {
	if err := s.ready(); err != nil {
		return err
	}
	p := in.Provider
	if key := strings.TrimSpace(in.APIKey); key != "" {
		if s.secrets == nil {
			return apperr.New(apperr.Unavailable, "No secret store is available to keep the API key.")
		}
		p.APIKeyRef = "provider:" + p.Name
		if err := s.secrets.Set(s.ctx(), p.APIKeyRef, key); err != nil {
			return err
		}
	}
	return s.db.SaveProvider(s.ctx(), p)
}

// DeleteProvider removes a provider and its stored key.
func (s *Service) DeleteProvider(name string) error {
	if err := s.ready(); err != nil {
		return err
	}
	if s.secrets != nil {
		_ = s.secrets.Delete(s.ctx(), "provider:"+name)
	}
	return s.db.DeleteProvider(s.ctx(), name)
}

// TestReply is the outcome of a connection test.
type TestReply struct {
	OK     bool     `json:"ok"`
	Models []string `json:"models"`
	Error  string   `json:"error,omitempty"`
}

// TestProvider lists a provider's models with its stored key (or the key
// given), to check that the base URL and key work.
func (s *Service) TestProvider(in ProviderInput) TestReply {
	key := in.APIKey
	if key == "" && in.Provider.APIKeyRef != "" && s.secrets != nil {
		key, _ = s.secrets.Get(s.ctx(), in.Provider.APIKeyRef)
	}
	ctx, cancel := context.WithTimeout(s.ctx(), 10*time.Second)
	defer cancel()
	models, err := llm.ListModels(ctx, s.httpClient(), in.Provider.BaseURL, key)
	if err != nil {
		return TestReply{Error: llmMessage(err)}
	}
	return TestReply{OK: true, Models: models}
}

// DetectLocal finds local model servers on their default ports.
func (s *Service) DetectLocal() []llm.Detected {
	return llm.DetectLocal(s.ctx(), s.httpClient(), llm.Presets(), 0)
}

// WorkflowList is the workflows a session can use, and the problems of
// workflow files that did not load.
type WorkflowList struct {
	Workflows []WorkflowInfo     `json:"workflows"`
	Problems  []workflow.Problem `json:"problems"`
}

// WorkflowInfo describes one workflow.
type WorkflowInfo struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Kind        workflow.Kind `json:"kind"`
	Source      string        `json:"source"`
}

// ListWorkflows lists built-in and user workflows.
func (s *Service) ListWorkflows() WorkflowList {
	defs, problems := s.workflows()
	out := WorkflowList{Problems: problems}
	for _, d := range defs {
		out.Workflows = append(out.Workflows, WorkflowInfo{Name: d.Name, Description: d.Description, Kind: d.Kind, Source: d.Source})
	}
	return out
}

// ValidateWorkflow checks a workflow file's text.
func (s *Service) ValidateWorkflow(name, content string) []workflow.Problem {
	_, err := workflow.Parse(name, []byte(content))
	if err == nil {
		return nil
	}
	var ps workflow.Problems
	if asProblems(err, &ps) {
		return ps
	}
	return []workflow.Problem{{File: name, Message: err.Error()}}
}

// PendingApprovals lists tool calls waiting for the person.
func (s *Service) PendingApprovals() []PendingApproval { return s.approvals.list() }

// ApprovalAnswer answers a pending approval.
type ApprovalAnswer struct {
	CallID string      `json:"call_id"`
	Answer turn.Answer `json:"answer"`
}

// AnswerApproval answers Allow once, Always (this tool, this session) or Deny.
func (s *Service) AnswerApproval(a ApprovalAnswer) error {
	return s.approvals.answer(a.CallID, a.Answer)
}

func (s *Service) httpClient() *http.Client { return &http.Client{} }

func llmMessage(err error) string {
	var le *llm.Error
	if e, ok := err.(*llm.Error); ok {
		le = e
		return le.Message
	}
	return apperr.MessageOf(err)
}

// MCPServers is the MCP configuration's state.
type MCPServers struct {
	ConfigPath string             `json:"config_path"`
	Servers    []mcp.ServerStatus `json:"servers"`
	Error      string             `json:"error,omitempty"`
}

// ListMCPServers reports the configured MCP servers and their tools.
func (s *Service) ListMCPServers() MCPServers {
	if s.mcp == nil {
		return MCPServers{Servers: []mcp.ServerStatus{}}
	}
	st, err := s.mcp.MCPStatus()
	out := MCPServers{ConfigPath: s.mcp.MCPConfigPath(), Servers: st}
	if err != nil {
		out.Error = apperr.MessageOf(err)
		if out.Error == apperr.MessageOf(nil) {
			out.Error = err.Error()
		}
	}
	if out.Servers == nil {
		out.Servers = []mcp.ServerStatus{}
	}
	return out
}

// ReloadMCPServers reconnects the MCP servers after the file changed.
func (s *Service) ReloadMCPServers() MCPServers {
	if s.mcp != nil {
		s.mcp.ReloadMCP(s.ctx())
	}
	return s.ListMCPServers()
}

// Attachment is a file a person attached, as a table.
type Attachment struct {
	SessionID string `json:"session_id"`
	Name      string `json:"name"`
	// Content is the file's bytes, base64-encoded (browser uploads).
	Content string `json:"content"`
}

// UploadAttachment stores a file sent by a browser (which cannot give a
// path) in the session's folder and returns its path, to pass in
// SendRequest.Attach.
func (s *Service) UploadAttachment(a Attachment) (string, error) {
	if err := s.ready(); err != nil {
		return "", err
	}
	if _, err := s.db.GetSession(s.ctx(), a.SessionID); err != nil {
		return "", err
	}
	data, err := base64.StdEncoding.DecodeString(a.Content)
	if err != nil {
		return "", apperr.New(apperr.Invalid, "The upload was not valid base64.")
	}
	name := fileSafe(filepath.Base(a.Name))
	dir := filepath.Join(store.SessionDir(s.dbPath, a.SessionID), "uploads")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", apperr.Wrap(err, apperr.Unavailable, "Could not save the upload")
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", apperr.Wrap(err, apperr.Unavailable, "Could not save the upload (is the disk full?)")
	}
	return path, nil
}
