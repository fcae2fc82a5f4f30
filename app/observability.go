package app

import (
	"context"
	"encoding/base64"
	"errors"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/secrets"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/traces"
)

// The OpenTelemetry export of the window and serve: each turn, once
// stored, goes to the collector the settings name (or serve's
// --otlp-endpoint, which wins); the exporter's state is pushed on the
// bus as it changes (KindTraces) so Settings shows it without polling.

// ObservabilityView is what Settings → Observability shows.
type ObservabilityView struct {
	Settings store.Observability `json:"settings"`
	// HeadersSet says headers are kept in the keyring (never their
	// values); EnvHeaders that OTEL_EXPORTER_OTLP_HEADERS gives them.
	HeadersSet bool `json:"headers_set"`
	EnvHeaders bool `json:"env_headers"`
	// FromFlag is the endpoint serve was started with
	// (--otlp-endpoint): it is used, not the settings.
	FromFlag string                `json:"from_flag,omitempty"`
	Status   traces.ExporterStatus `json:"status"`
}

// ObservabilitySave is what Settings → Observability saves.
type ObservabilitySave struct {
	Settings store.Observability `json:"settings"`
	// Headers, if set, replace the kept headers: key=value pairs
	// separated by commas, URL-encoded, as OTEL_EXPORTER_OTLP_HEADERS.
	Headers string `json:"headers,omitempty"`
	// LangfusePublicKey and LangfuseSecretKey, if both set, replace the
	// kept headers with Langfuse's: Authorization: Basic
	// base64(public:secret), with x-langfuse-ingestion-version: 4.
	LangfusePublicKey string `json:"langfuse_public_key,omitempty"`
	LangfuseSecretKey string `json:"langfuse_secret_key,omitempty"`
	// ClearHeaders removes the kept headers.
	ClearHeaders bool `json:"clear_headers,omitempty"`
}

// TracesStatus is the bus's message of the exporter's state, sent as it
// changes.
type TracesStatus struct {
	Status traces.ExporterStatus `json:"status"`
}

// Kind implements Message.
func (TracesStatus) Kind() MessageKind { return KindTraces }

// tracing is the Service's part of the export.
type tracing struct {
	mu   sync.Mutex
	live *traces.Live
	flag *traces.Config
	// err is why the configured export could not start, shown as its
	// status.
	err string
}

// initTraces starts the export the settings (or flag) name, on live,
// and pushes its state on the bus.
func (s *Service) initTraces(ctx context.Context, live *traces.Live, flag *traces.Config) {
	if live == nil {
		return
	}
	s.tracing.live, s.tracing.flag = live, flag
	live.Watch(func(st traces.ExporterStatus) { s.bus.Publish(TracesStatus{st}) })
	s.applyTraces(ctx)
}

// applyTraces (re)starts the exporter from the flag or the settings.
func (s *Service) applyTraces(ctx context.Context) {
	t := &s.tracing
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.live == nil {
		return
	}
	t.err = ""
	cfg := t.flag
	if cfg == nil && s.db != nil {
		st, err := s.db.AppSettings(ctx)
		if err == nil && st.Observability.Enabled && st.Observability.Endpoint != "" {
			o := st.Observability
			cfg = &traces.Config{Endpoint: o.Endpoint, Protocol: o.Protocol, Content: o.Content}
		}
	}
	if cfg == nil {
		t.live.Set(nil, 0)
		return
	}
	c := *cfg
	h, err := traces.Headers(ctx, s.secrets, nil)
	if err == nil {
		c.Headers = h
		var exp *traces.Exporter
		if exp, err = traces.New(ctx, c, s.db, s.log, s.info.Version); err == nil {
			t.live.Set(exp, 0)
			return
		}
	}
	t.err = apperr.MessageOf(err)
	s.log.Warn("OpenTelemetry export not started", "endpoint", c.Endpoint, "err", t.err)
	t.live.Set(nil, 0)
	s.bus.Publish(TracesStatus{traces.ExporterStatus{State: traces.StateFailing, Endpoint: c.Endpoint, LastError: t.err}})
}

// observability is the view of the export now.
func (s *Service) observability(ctx context.Context) (ObservabilityView, error) {
	var v ObservabilityView
	if s.db != nil {
		st, err := s.db.AppSettings(ctx)
		if err != nil {
			return v, err
		}
		v.Settings = st.Observability
	}
	if s.secrets != nil {
		_, err := s.secrets.Get(ctx, traces.HeaderRef)
		v.HeadersSet = err == nil
	}
	v.EnvHeaders = os.Getenv(traces.EnvHeaders) != ""
	t := &s.tracing
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.flag != nil {
		v.FromFlag = t.flag.Endpoint
	}
	v.Status = traces.ExporterStatus{State: traces.StateOff}
	if t.live != nil {
		v.Status = t.live.Status()
	}
	if t.err != "" {
		v.Status.State, v.Status.LastError = traces.StateFailing, t.err
	}
	return v, nil
}

// saveObservability stores the settings and the headers, then restarts
// the export with them.
func (s *Service) saveObservability(ctx context.Context, req ObservabilitySave) (ObservabilityView, error) {
	o := req.Settings
	o.Endpoint = strings.TrimSpace(o.Endpoint)
	switch o.Protocol {
	case "":
		o.Protocol = traces.ProtocolHTTP
	case traces.ProtocolHTTP, traces.ProtocolGRPC:
	default:
		return ObservabilityView{}, apperr.New(apperr.Invalid, "The protocol must be HTTP or gRPC.")
	}
	if o.Enabled {
		if _, err := traces.NewClient(traces.Config{Endpoint: o.Endpoint, Protocol: o.Protocol}); err != nil {
			return ObservabilityView{}, err
		}
	}
	headers, err := headersToKeep(req)
	if err != nil {
		return ObservabilityView{}, err
	}
	if headers != "" || req.ClearHeaders {
		if s.secrets == nil {
			return ObservabilityView{}, apperr.New(apperr.Unavailable, "No keyring is available to keep the headers; set OTEL_EXPORTER_OTLP_HEADERS instead.")
		}
		if req.ClearHeaders && headers == "" {
			err = s.secrets.Delete(ctx, traces.HeaderRef)
		} else {
			err = s.secrets.Set(ctx, traces.HeaderRef, headers)
		}
		if err != nil && !errors.Is(err, secrets.ErrNotFound) {
			return ObservabilityView{}, apperr.Wrap(err, apperr.Unavailable, "Cannot keep the headers in the keyring.")
		}
	}
	st, err := s.db.AppSettings(ctx)
	if err != nil {
		return ObservabilityView{}, err
	}
	st.Observability = o
	if err := s.db.SaveAppSettings(ctx, st); err != nil {
		return ObservabilityView{}, err
	}
	s.applyTraces(ctx)
	return s.observability(ctx)
}

// headersToKeep is the headers string the request asks to keep, "" for
// no change: Langfuse's keys as its Basic authorization, or the headers
// as given, checked.
func headersToKeep(req ObservabilitySave) (string, error) {
	pub, sec := strings.TrimSpace(req.LangfusePublicKey), strings.TrimSpace(req.LangfuseSecretKey)
	if pub != "" || sec != "" {
		if pub == "" || sec == "" {
			return "", apperr.New(apperr.Invalid, "Enter both Langfuse keys: the public key (pk-lf-…) and the secret key (sk-lf-…).")
		}
		auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(pub+":"+sec))
		// Langfuse's API asks direct OpenTelemetry exporters for the
		// ingestion version header (docs/OBSERVABILITY.md).
		return "Authorization=" + url.PathEscape(auth) + ",x-langfuse-ingestion-version=4", nil
	}
	h := strings.TrimSpace(req.Headers)
	if h == "" {
		return "", nil
	}
	if _, err := traces.ParseHeaders(h); err != nil {
		return "", err
	}
	return h, nil
}
