package traces

import (
	"context"
	"errors"
	"maps"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/secrets"
)

// Config says where traces go.
type Config struct {
	// Endpoint is the collector: for HTTP a URL (http://127.0.0.1:4318;
	// without a path, /v1/traces is added), for gRPC host:port or a URL
	// (127.0.0.1:4317, http://127.0.0.1:4317). "" is off.
	Endpoint string
	// Protocol is "http" (HTTP/protobuf, the default) or "grpc".
	Protocol string
	// Headers are sent with every request (Authorization, ...): from
	// OTEL_EXPORTER_OTLP_HEADERS or the keyring (HeaderRef), never a flag,
	// never logged or stored in the database.
	Headers map[string]string
	// Content adds message contents (Options.Content).
	Content bool
	// Timeout bounds one request; zero: 10 s.
	Timeout time.Duration
	// Retry has the SDK try a failed request again (backing off from
	// 200 ms) until Timeout: for a past export, which a user waits for.
	// The live exporter does not retry: a turn's spans are tried once
	// and dropped if the collector fails, so a dead collector never holds
	// a shutdown (the next turn tries again).
	Retry bool
}

// The protocols.
const (
	ProtocolHTTP = "http"
	ProtocolGRPC = "grpc"
)

// HeaderRef is where the keyring keeps the headers, as one string in
// OTEL_EXPORTER_OTLP_HEADERS's format.
const HeaderRef = "otlp-headers"

// EnvHeaders is the standard variable the headers may come from.
const EnvHeaders = "OTEL_EXPORTER_OTLP_HEADERS"

// ParseHeaders reads headers in OTEL_EXPORTER_OTLP_HEADERS's format:
// key=value pairs separated by commas, each URL-encoded. A pair without
// "=" is refused, naming its place, not its value.
func ParseHeaders(s string) (map[string]string, error) {
	out := map[string]string{}
	for i, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		key, kerr := url.PathUnescape(strings.TrimSpace(k))
		val, verr := url.PathUnescape(strings.TrimSpace(v))
		if !ok || key == "" || kerr != nil || verr != nil {
			return nil, apperr.New(apperr.Invalid, "Header %d of the OTLP headers is not key=value (URL-encoded, pairs separated by commas); fix it and try again.", i+1)
		}
		out[key] = val
	}
	return out, nil
}

// Headers gathers the headers: OTEL_EXPORTER_OTLP_HEADERS's when it is
// set (getenv; nil: os.Getenv), else the keyring's (HeaderRef; sec may be
// nil). Neither is an error when absent.
func Headers(ctx context.Context, sec secrets.Store, getenv func(string) string) (map[string]string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if s := getenv(EnvHeaders); s != "" {
		h, err := ParseHeaders(s)
		if err != nil {
			return nil, apperr.New(apperr.Invalid, "%s is not key=value pairs separated by commas (URL-encoded); fix it and try again.", EnvHeaders)
		}
		return h, nil
	}
	out := map[string]string{}
	if sec != nil {
		s, err := sec.Get(ctx, HeaderRef)
		switch {
		case err == nil:
			h, err := ParseHeaders(s)
			if err != nil {
				return nil, apperr.New(apperr.Invalid, "The OTLP headers kept in the keyring cannot be read; enter them again in Settings → Observability.")
			}
			maps.Copy(out, h)
		case !errors.Is(err, secrets.ErrNotFound):
			return nil, apperr.Wrap(err, apperr.Unavailable, "Cannot read the OTLP headers from the keyring.")
		}
	}
	return out, nil
}

// The SDK's retry and gRPC's reconnect backoff.
const (
	retryFirst = 200 * time.Millisecond
	retryMax   = 2 * time.Second
)

// NewClient returns the OTLP client cfg names, not yet started.
func NewClient(cfg Config) (otlptrace.Client, error) {
	u, err := endpointURL(cfg)
	if err != nil {
		return nil, err
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	switch cfg.Protocol {
	case "", ProtocolHTTP:
		if u.Path == "" || u.Path == "/" {
			u.Path = "/v1/traces"
		}
		opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(u.String()), otlptracehttp.WithTimeout(timeout),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: cfg.Retry, InitialInterval: retryFirst, MaxInterval: retryMax, MaxElapsedTime: timeout})}
		if len(cfg.Headers) > 0 {
			opts = append(opts, otlptracehttp.WithHeaders(cfg.Headers))
		}
		return otlptracehttp.NewClient(opts...), nil
	case ProtocolGRPC:
		// grpc.NewClient underneath never blocks on connecting (no
		// WithBlock); a short reconnect backoff lets a collector that
		// comes back be reached by the next turn.
		opts := []otlptracegrpc.Option{otlptracegrpc.WithEndpointURL(u.String()), otlptracegrpc.WithTimeout(timeout),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: cfg.Retry, InitialInterval: retryFirst, MaxInterval: retryMax, MaxElapsedTime: timeout}),
			otlptracegrpc.WithDialOption(grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{BaseDelay: retryFirst, Multiplier: 1.6, Jitter: 0.2, MaxDelay: retryMax}, MinConnectTimeout: time.Second}))}
		if len(cfg.Headers) > 0 {
			opts = append(opts, otlptracegrpc.WithHeaders(cfg.Headers))
		}
		return otlptracegrpc.NewClient(opts...), nil
	}
	return nil, apperr.New(apperr.Invalid, "Unknown OTLP protocol %q; use http or grpc.", cfg.Protocol)
}

// endpointURL reads the endpoint: a URL, or host:port (plain on a
// loopback host, TLS elsewhere). Plain http to another machine is
// allowed, but not with headers: they carry keys.
func endpointURL(cfg Config) (*url.URL, error) {
	raw := strings.TrimSpace(cfg.Endpoint)
	if raw == "" {
		return nil, apperr.New(apperr.Invalid, "No OTLP endpoint given; pass a collector's address such as http://127.0.0.1:4318.")
	}
	if !strings.Contains(raw, "://") {
		host, _, _ := net.SplitHostPort(raw)
		if host == "" {
			host = raw
		}
		scheme := "https://"
		if loopback(host) {
			scheme = "http://"
		}
		raw = scheme + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, apperr.New(apperr.Invalid, "The OTLP endpoint %q is not an http:// or https:// address (or host:port); fix it and try again.", cfg.Endpoint)
	}
	if u.User != nil {
		return nil, apperr.New(apperr.Invalid, "The OTLP endpoint must not carry a user or password; put credentials in the headers (OTEL_EXPORTER_OTLP_HEADERS or the keyring).")
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) && len(cfg.Headers) > 0 {
		return nil, apperr.New(apperr.Invalid, "The OTLP headers would go in plain text to %s; use an https:// endpoint, or a collector on this machine.", u.Host)
	}
	return u, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
