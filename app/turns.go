package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// What the API does with sessions and turns, beyond handing a call to the
// store. Each method is called through the API, with the database open.

func (s *Service) createSession(ctx context.Context, req NewSession) (store.Session, error) {
	st := s.settings()
	var p store.Project
	if req.ProjectID != "" {
		var err error
		if p, err = s.db.GetProject(ctx, req.ProjectID); err != nil {
			return store.Session{}, err
		}
	}
	ps := p.Settings
	provider := firstOf(req.Provider, ps.Provider, st.DefaultProvider)
	model := firstOf(req.Model, ps.Model)
	if model == "" && (ps.Provider == "" || ps.Provider == st.DefaultProvider) {
		model = st.DefaultModel // the default model is the default provider's
	}
	return s.db.CreateSession(ctx, store.Session{
		Title:     req.Title,
		Provider:  provider,
		Model:     model,
		Workflow:  firstOf(req.Workflow, ps.Workflow, st.DefaultWorkflow, "chat"),
		Workspace: req.Workspace,
		ProjectID: p.ID,
		Settings:  req.Settings,
	})
}

func (s *Service) sendMessage(ctx context.Context, req SendRequest) (TurnRef, error) {
	if strings.TrimSpace(req.Message) == "" && req.Continue == "" && len(req.Images) == 0 {
		return TurnRef{}, apperr.New(apperr.Invalid, "The message is empty.")
	}
	images, err := imagesOf(req.Images)
	if err != nil {
		return TurnRef{}, err
	}
	st := s.settings()
	// Limits the request leaves unset come from the session's settings,
	// resolved by the runner (app defaults → project → session).
	lim := req.Limits
	// A turn left running by a dead process must not refuse the message:
	// mark it interrupted now, and tell the UIs (StartTurn would also
	// recover it, but silently).
	if req.SessionID != "" {
		s.recoverOrphans(ctx, req.SessionID)
	}
	adopt, err := s.providerFor(ctx, req.SessionID, st)
	if err != nil {
		return TurnRef{}, err
	}
	ref, err := s.start(ctx, runner.Request{
		SessionID:  req.SessionID,
		Message:    req.Message,
		Workflow:   req.Workflow,
		Model:      req.Model,
		Provider:   adopt.Provider,
		Limits:     lim,
		Capture:    recording.Mode(st.Capture),
		Approver:   s.approvals,
		Attach:     req.Attach,
		Force:      req.Force,
		OverBudget: s.overBudget(ctx, req.OverBudget, req.SessionID, adopt.Provider),
		Parent:     req.Parent,
		VersionOf:  req.VersionOf,
		Continue:   req.Continue,
		Images:     images,
		Settings:   req.Settings,
	})
	if err == nil {
		// The files are the session's tables now; uploads among them go.
		s.consumeUploads(req.Attach)
	}
	if err == nil && adopt.ID != "" {
		// From now on the session runs there: the window shows it, and
		// its next turns (and `agentdeck run --session`) use it.
		if uerr := s.db.UpdateSession(context.WithoutCancel(ctx), adopt); uerr != nil {
			s.log.Warn("recording the provider a session continued on", "session", adopt.ID, "err", uerr)
		}
	}
	return ref, err
}

// imagesOf decodes the images a message carries, checking each is an
// image of a type models read (by its bytes, whatever it says it is) and
// not over store.MaxImageBytes.
func imagesOf(in []ImageData) ([]llm.Image, error) {
	var out []llm.Image
	for i, d := range in {
		name := firstOf(d.Name, fmt.Sprintf("Image %d", i+1))
		b, err := base64.StdEncoding.DecodeString(d.Data)
		if err != nil {
			return nil, apperr.New(apperr.Invalid, "%s could not be read (its data is not base64). Add it again.", name)
		}
		im, err := store.ImageOfBytes(name, b)
		if err != nil {
			return nil, err
		}
		// The page's name, and its measure of a WebP, which Go cannot read.
		im.Name = d.Name
		if im.Width == 0 {
			im.Width, im.Height = d.Width, d.Height
		}
		out = append(out, im)
	}
	return out, nil
}

// providerFor is what continues a session that names no provider: one
// made by `agentdeck run --base-url`, whose server was a flag, stored
// nowhere. It runs on the default provider, and the session as it will
// then be is returned to be saved once the turn started; a session that
// names its provider gives the zero Session.
func (s *Service) providerFor(ctx context.Context, sessionID string, st Settings) (store.Session, error) {
	if sessionID == "" {
		return store.Session{}, nil
	}
	sess, err := s.db.GetSession(ctx, sessionID)
	if err != nil || sess.Provider != "" {
		return store.Session{}, err
	}
	if st.DefaultProvider == "" {
		return store.Session{}, apperr.New(apperr.Invalid, "This session names no provider (one started by \"agentdeck run --base-url\" keeps none: its server's address was not saved). Pick a model next to the message box, or choose a default provider in Settings.")
	}
	sess.Provider = st.DefaultProvider
	return sess, nil
}

// start runs a turn with the hub as its live sink.
func (s *Service) start(ctx context.Context, req runner.Request) (TurnRef, error) {
	req.TurnSinks = func(turnID string) []turn.Sink { return []turn.Sink{s.hub.Sink(turnID)} }
	h, err := s.runner.Start(ctx, req)
	if err != nil {
		return TurnRef{}, err
	}
	go func() {
		<-h.Done()
		s.hub.Ended(h.TurnID)
	}()
	return TurnRef{TurnID: h.TurnID, SessionID: h.SessionID, Seq: h.Seq}, nil
}

func (s *Service) stopTurn(ctx context.Context, turnID string) error {
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

// rerun runs a past turn again in a new session: a replay from its
// recordings, or its message live with other options.
func (s *Service) rerun(ctx context.Context, turnID string, opts RerunOptions, replay bool) (TurnRef, error) {
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
	provider := firstOf(opts.Provider, sess.Provider)
	if !replay {
		// A turn of a session made by `agentdeck run --base-url` (no
		// provider) runs again on the default one, as it continues.
		provider = firstOf(provider, s.settings().DefaultProvider)
	}
	copySess, err := s.db.CreateSession(ctx, store.Session{
		Title:     kind + " of " + sess.Title + " #" + itoa(orig.Seq),
		Provider:  provider,
		Model:     firstOf(opts.Model, orig.Model, sess.Model),
		Workflow:  firstOf(opts.Workflow, orig.Workflow, sess.Workflow),
		Workspace: sess.Workspace,
		// The copy runs with the original session's own settings.
		Settings: sess.Settings,
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
		req.Message, req.History, req.Capture, req.Limits = orig.UserMessage, runner.JoinContinued(history), recording.Record, s.settings().Limits
		if req.Images, err = s.db.UserImages(ctx, orig.ID); err != nil {
			return TurnRef{}, err
		}
	}
	ref, err := s.start(ctx, req)
	if err != nil {
		// A replay that cannot start leaves no empty session behind.
		_ = s.db.DeleteSession(context.WithoutCancel(ctx), copySess.ID)
	}
	return ref, err
}

func (s *Service) exportSession(ctx context.Context, id string, format export.Format, opts ExportOptions) (ExportReply, error) {
	f, err := export.ParseFormat(string(format))
	if err != nil {
		return ExportReply{}, err
	}
	sess, err := s.db.GetSession(ctx, id)
	if err != nil {
		return ExportReply{}, err
	}
	var buf bytes.Buffer
	if err := export.Write(ctx, s.db, id, f, &buf, export.Options{AllBranches: opts.AllBranches}); err != nil {
		return ExportReply{}, err
	}
	return ExportReply{Filename: fileSafe(sess.Title) + f.Extension(), Content: buf.String()}, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._ -]+`)
