package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/buildinfo"
	"github.com/agentdeck/agentdeck/backend/store"
)

// Service is what the frontend calls.
type Service struct {
	log       *slog.Logger
	info      buildinfo.Info
	db        *store.DB
	dbPath    string
	dbErr     error
	readyFile string
}

// Config holds what a Service is built from.
type Config struct {
	Logger *slog.Logger
	Info   buildinfo.Info
	// DB is the open database, or nil when opening failed with DBErr.
	DB     *store.DB
	DBPath string
	DBErr  error
	// ReadyFile, if set, receives the UI's ready report as JSON. The window
	// smoke test uses it to learn that the page rendered and called Go.
	ReadyFile string
}

// NewService returns a Service over its dependencies.
func NewService(cfg Config) *Service {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{log: log, info: cfg.Info, db: cfg.DB, dbPath: cfg.DBPath, dbErr: cfg.DBErr, readyFile: cfg.ReadyFile}
}

// Version returns the running binary's version.
func (s *Service) Version() buildinfo.Info { return s.info }

// Status describes the state of the backend for the UI's status line.
type Status struct {
	Version       string `json:"version"`
	DBPath        string `json:"db_path"`
	SchemaVersion int    `json:"schema_version"`
	// DBError is set when the database could not be opened; the UI shows it
	// and stays usable for settings.
	DBError *apperr.Error `json:"db_error,omitempty"`
}

// Status reports the version and the database's health.
func (s *Service) Status() Status {
	st := Status{Version: s.info.Version, DBPath: s.dbPath}
	if s.dbErr != nil {
		st.DBError = &apperr.Error{Code: apperr.CodeOf(s.dbErr), Message: apperr.MessageOf(s.dbErr)}
		return st
	}
	if s.db != nil {
		v, err := s.db.SchemaVersion(context.Background())
		if err != nil {
			s.log.Warn("reading schema version", "err", err)
		}
		st.SchemaVersion = v
	}
	return st
}

// ReadyReport is what the UI tells the backend once its shell is on screen.
type ReadyReport struct {
	// VersionShown is the version text as rendered in the page.
	VersionShown string `json:"version_shown"`
	// Regions lists the shell regions found in the DOM with a non-zero size.
	Regions []string `json:"regions"`
	Width   int      `json:"width"`
	Height  int      `json:"height"`
}

// UIReady records that the UI rendered. It is logged, and written to the
// ready file when one is configured.
func (s *Service) UIReady(r ReadyReport) error {
	s.log.Info("ui ready", "version_shown", r.VersionShown, "regions", r.Regions, "width", r.Width, "height", r.Height)
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
	return os.Rename(tmp, s.readyFile)
}

// ErrorReply maps any error to the {code, message} the frontend shows. The
// cause is logged by the caller, never sent.
func ErrorReply(err error) any {
	return &apperr.Error{Code: apperr.CodeOf(err), Message: apperr.MessageOf(err)}
}
