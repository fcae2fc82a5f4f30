package cli

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/secrets"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/traces"
)

// otlpFlags send each turn to an OpenTelemetry collector as it ends
// (run, serve). Headers, which carry keys, are never flags: they come
// from OTEL_EXPORTER_OTLP_HEADERS or the keyring.
type otlpFlags struct {
	endpoint, protocol string
	content            bool
}

func (o *otlpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.endpoint, "otlp-endpoint", "", "send each turn as it ends to this OpenTelemetry collector, e.g. http://127.0.0.1:4318 (HTTP: /v1/traces is added to a URL without a path) or 127.0.0.1:4317 with --otlp-protocol grpc; headers come from OTEL_EXPORTER_OTLP_HEADERS or the keyring, never a flag")
	fs.StringVar(&o.protocol, "otlp-protocol", traces.ProtocolHTTP, "http (HTTP/protobuf) or grpc")
	fs.BoolVar(&o.content, "otlp-content", false, "add message contents to the traces (prompts, answers, tool arguments and results)")
}

// check refuses a protocol that is neither http nor grpc.
func (o *otlpFlags) check(env Env) int {
	if o.protocol != traces.ProtocolHTTP && o.protocol != traces.ProtocolGRPC {
		fmt.Fprintf(env.Stderr, "agentdeck: --otlp-protocol must be http or grpc, not %q\n", o.protocol)
		return ExitUsage
	}
	return ExitOK
}

// config is the flags' exporter configuration, nil without an endpoint.
func (o *otlpFlags) config() *traces.Config {
	if o.endpoint == "" {
		return nil
	}
	return &traces.Config{Endpoint: o.endpoint, Protocol: o.protocol, Content: o.content}
}

// start sets the engine's exporter when --otlp-endpoint was given. The
// exporter is shut down, what it holds sent within setup.TracesFlush,
// when the engine closes.
func (o *otlpFlags) start(ctx context.Context, eng *setup.Engine, src export.Source, env Env, path string) int {
	cfg := o.config()
	if cfg == nil {
		return ExitOK
	}
	h, err := traces.Headers(ctx, eng.Secrets, env.Getenv)
	if err != nil {
		return fail(env, err)
	}
	cfg.Headers = h
	exp, err := traces.New(ctx, *cfg, src, quietLogger(env, path), env.Info.Version)
	if err != nil {
		return fail(env, err)
	}
	eng.Traces.Set(exp, 0)
	return ExitOK
}

// report says on stderr, once the engine has closed, what the export
// lost; the command's exit code does not change: a dead collector never
// fails a turn.
func (o *otlpFlags) report(st traces.ExporterStatus, env Env) {
	if o.endpoint != "" && st.Dropped > 0 {
		fmt.Fprintf(env.Stderr, "agentdeck: warning: %d trace spans were not sent to %s: %s\n", st.Dropped, o.endpoint, st.LastError)
	}
}

// closeEngine closes the engine, sending the queued traces, and reports
// what the export lost.
func (o *otlpFlags) closeEngine(eng *setup.Engine, env Env) {
	var last traces.ExporterStatus
	eng.Traces.Watch(func(s traces.ExporterStatus) { last = s })
	_ = eng.Close()
	o.report(last, env)
}

// otlpSecrets opens the keyring for the headers only when the
// environment gives none (its probe can take seconds).
func otlpHeaders(ctx context.Context, env Env, dbPath string) (map[string]string, error) {
	var sec secrets.Store
	if env.Getenv(traces.EnvHeaders) == "" {
		sec, _ = secrets.Open(ctx, "agentdeck", filepath.Join(dataDir(dbPath), "secrets.json"), nil)
	}
	return traces.Headers(ctx, sec, env.Getenv)
}

// day reads a YYYY-MM-DD date, the start of that day in local time.
func day(s, flagName string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation("2006-01-02", s, time.Local)
	if err != nil {
		return time.Time{}, apperr.New(apperr.Invalid, "--%s takes a date as YYYY-MM-DD, not %q", flagName, s)
	}
	return t, nil
}
