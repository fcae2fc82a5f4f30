package catalog

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
)

// DefaultProbeTimeout bounds each probe of DetectLocal. A local server that
// is running answers /models in a few milliseconds; waiting longer only
// delays the first screen.
const DefaultProbeTimeout = 400 * time.Millisecond

// maxModelsBody bounds the /models answer; hosted lists run to a few hundred
// kilobytes.
const maxModelsBody = 16 << 20

// ListModels asks an OpenAI-compatible server for its models with GET
// {baseURL}/models, sending apiKey as a Bearer token when it is not empty.
// It returns the model ids sorted, without duplicates and never nil. A nil
// hc means a default client; ctx bounds the whole call.
//
// Errors are *Error with a Kind to branch on and a Message to show. Their
// text never contains apiKey, even when the server echoes it.
func ListModels(ctx context.Context, hc *http.Client, baseURL, apiKey string) ([]string, error) {
	key := strings.TrimSpace(apiKey)
	models, e := listModels(ctx, hc, baseURL, key)
	if e != nil {
		return nil, redactKey(redactKey(e, apiKey), key)
	}
	return models, nil
}

// DetectLocal probes the Local candidates concurrently, each bounded by
// timeout (DefaultProbeTimeout when timeout <= 0), and returns those that
// answered with a model list, in candidate order. Candidates are probed
// without an API key, so a local server that demands one is not detected.
// A nil hc means a private client whose connections are closed on return.
func DetectLocal(ctx context.Context, hc *http.Client, candidates []llm.Provider, timeout time.Duration) []llm.Detected {
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		defer hc.CloseIdleConnections()
	}
	found := make([]*llm.Detected, len(candidates))
	var wg sync.WaitGroup
	for i, c := range candidates {
		if !c.Local {
			continue
		}
		wg.Go(func() {
			pctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			start := time.Now()
			models, err := ListModels(pctx, hc, c.BaseURL, "")
			if err != nil {
				return
			}
			found[i] = &llm.Detected{Provider: c, Models: models, Latency: time.Since(start)}
		})
	}
	wg.Wait()
	var out []llm.Detected
	for _, d := range found {
		if d != nil {
			out = append(out, *d)
		}
	}
	return out
}

func listModels(ctx context.Context, hc *http.Client, baseURL, key string) ([]string, *llm.Error) {
	u, msg := checkBaseURL(baseURL)
	if msg != "" {
		return nil, &llm.Error{Kind: llm.ErrBadRequest, Message: msg}
	}
	srv := describeServer(u)
	endpoint := strings.TrimRight(u.String(), "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, &llm.Error{Kind: llm.ErrBadRequest, Message: "The base URL is not usable: use the form http://host:port/v1.", Err: err}
	}
	req.Header.Set("Accept", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if hc == nil {
		hc = &http.Client{}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, modelsTransportError(ctx, srv, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxModelsBody+1))
	if err != nil {
		return nil, modelsTransportError(ctx, srv, err)
	}
	if looksLikeHTML(resp.Header.Get("Content-Type"), body) {
		return nil, modelsHTMLError(srv, resp, body)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, modelsStatusError(srv, resp, body, key != "")
	}
	if len(body) > maxModelsBody {
		return nil, &llm.Error{Kind: llm.ErrMalformedStream, Status: resp.StatusCode,
			Message: fmt.Sprintf("%s sent a model list larger than %d MB.", srv.name, maxModelsBody>>20)}
	}
	return parseModelList(srv, resp.StatusCode, body)
}

func parseModelList(srv modelServer, status int, body []byte) ([]string, *llm.Error) {
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil || list.Data == nil {
		// The decoder's error is left out: it can quote the body.
		return nil, &llm.Error{Kind: llm.ErrMalformedStream, Status: status, Message: fmt.Sprintf(
			"%s did not answer /models with an OpenAI model list: check that the base URL points at an OpenAI-compatible API (it usually ends in /v1).",
			srv.name)}
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// modelServer names the server in messages and knows how to start it.
type modelServer struct {
	name  string // "Ollama at http://127.0.0.1:11434/v1" or "The server at …"
	start string // how to start it, for known local servers
}

// describeServer recognises the presets: local ones by a loopback host and
// the preset's port, hosted ones by their host name.
func describeServer(u *url.URL) modelServer {
	shown := u.String()
	for _, p := range presets {
		pu, err := url.Parse(p.BaseURL)
		if err != nil {
			continue
		}
		if p.Local && isLoopbackHost(u.Hostname()) && u.Port() == pu.Port() {
			return modelServer{name: p.label + " at " + shown, start: p.start}
		}
		if !p.Local && strings.EqualFold(u.Hostname(), pu.Hostname()) {
			return modelServer{name: p.label + " at " + shown}
		}
	}
	return modelServer{name: "The server at " + shown}
}

// IsLocalURL reports whether u is a server on this machine (a loopback
// address or localhost).
func IsLocalURL(u string) bool {
	pu, err := url.Parse(u)
	return err == nil && isLoopbackHost(pu.Hostname())
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func modelsTransportError(ctx context.Context, srv modelServer, err error) *llm.Error {
	var (
		netErr  net.Error
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
	)
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return &llm.Error{Kind: llm.ErrCancelled, Message: fmt.Sprintf("Listing the models of %s was cancelled.", lowerFirstThe(srv.name)), Err: err}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) ||
		(errors.As(err, &netErr) && netErr.Timeout()):
		return &llm.Error{Kind: llm.ErrTimeout, Err: err, Message: fmt.Sprintf(
			"%s did not answer in time: check that it is running and not busy.", srv.name)}
	case errors.Is(err, syscall.ECONNREFUSED):
		if srv.start != "" {
			return &llm.Error{Kind: llm.ErrNetwork, Err: err, Message: fmt.Sprintf("%s is not running: %s.", srv.name, srv.start)}
		}
		return &llm.Error{Kind: llm.ErrNetwork, Err: err, Message: fmt.Sprintf(
			"%s refused the connection: check the base URL and that the server is running.", srv.name)}
	case errors.As(err, &dnsErr):
		return &llm.Error{Kind: llm.ErrNetwork, Err: err, Message: fmt.Sprintf(
			"The host of %s could not be found: check the base URL and your network connection.", lowerFirstThe(srv.name))}
	case errors.As(err, &certErr):
		return &llm.Error{Kind: llm.ErrNetwork, Err: err, Message: fmt.Sprintf(
			"%s presented a certificate that could not be verified: check the base URL, or the proxy that intercepts https.", srv.name)}
	}
	if srv.start != "" {
		return &llm.Error{Kind: llm.ErrNetwork, Err: err, Message: fmt.Sprintf(
			"%s could not be reached: check that it is running (%s).", srv.name, srv.start)}
	}
	return &llm.Error{Kind: llm.ErrNetwork, Err: err, Message: fmt.Sprintf(
		"%s could not be reached: check the base URL and your network connection.", srv.name)}
}

func modelsStatusError(srv modelServer, resp *http.Response, body []byte, sentKey bool) *llm.Error {
	code := resp.StatusCode
	e := &llm.Error{Status: code}
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		e.Kind = llm.ErrAuth
		if sentKey {
			e.Message = fmt.Sprintf("%s refused the API key (HTTP %d): check the key in the key field.", srv.name, code)
		} else {
			e.Message = fmt.Sprintf("%s needs an API key (HTTP %d): add one in the key field.", srv.name, code)
		}
	case code == http.StatusNotFound:
		e.Kind = llm.ErrBadRequest
		e.Message = fmt.Sprintf(
			"%s has no /models endpoint (HTTP 404): it is not an OpenAI-compatible server, or the base URL is missing its /v1 suffix.", srv.name)
	case code == http.StatusTooManyRequests:
		e.Kind = llm.ErrRateLimited
		e.RetryAfter = openai.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		e.Message = fmt.Sprintf("%s is rate limiting requests (HTTP 429): wait a moment and try again.", srv.name)
	case code >= 500:
		e.Kind = llm.ErrServer
		e.Message = fmt.Sprintf("%s failed (HTTP %d): try again later, or check the server's log.", srv.name, code)
	default:
		e.Kind = llm.ErrBadRequest
		e.Message = fmt.Sprintf("%s refused the request (HTTP %d).", srv.name, code)
	}
	if d := modelsErrorDetail(body); d != "" {
		e.Message += " The server said: " + strconv.Quote(d)
	}
	return e
}

// modelsErrorDetail extracts the server's own explanation from an error body.
func modelsErrorDetail(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	var s string
	if json.Unmarshal(body, &v) == nil {
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			s = obj.Message
		case json.Unmarshal(v.Error, &s) == nil:
		default:
			s = v.Message
		}
	} else if utf8.Valid(body) {
		s = string(body)
	}
	s = strings.Join(strings.Fields(s), " ")
	const limit = 200
	if utf8.RuneCountInString(s) > limit {
		s = string([]rune(s)[:limit]) + "…"
	}
	return s
}

// modelsHTMLError reports a web page where JSON was expected. As for chat
// calls, a gateway's 5xx or 429 page keeps the kind of its status, so
// callers branch the same way whichever call met it.
func modelsHTMLError(srv modelServer, resp *http.Response, body []byte) *llm.Error {
	what := "a web page"
	if t := openai.HTMLTitle(body); t != "" {
		what = fmt.Sprintf("a web page (%q)", t)
	}
	e := &llm.Error{Kind: llm.ErrHTMLPage, Status: resp.StatusCode, Message: fmt.Sprintf(
		"%s answered with %s instead of JSON (HTTP %d): check the base URL (it usually ends in /v1) and any proxy or login page in between.",
		srv.name, what, resp.StatusCode)}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		e.Kind = llm.ErrRateLimited
		e.RetryAfter = openai.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	case resp.StatusCode >= 500:
		e.Kind = llm.ErrServer
	}
	return e
}

func looksLikeHTML(contentType string, body []byte) bool {
	if strings.Contains(strings.ToLower(contentType), "text/html") {
		return true
	}
	b := strings.TrimSpace(string(body[:min(len(body), 512)]))
	return strings.HasPrefix(b, "<")
}

// redactKey removes key from e's text. The cause is replaced by plain text
// when it mentions the key, because a chain could still expose it.
func redactKey(e *llm.Error, key string) *llm.Error {
	if key == "" {
		return e
	}
	const redacted = "[redacted]"
	e.Message = strings.ReplaceAll(e.Message, key, redacted)
	if e.Err != nil && strings.Contains(e.Err.Error(), key) {
		e.Err = errors.New(strings.ReplaceAll(e.Err.Error(), key, redacted))
	}
	return e
}

func lowerFirstThe(s string) string {
	if strings.HasPrefix(s, "The ") {
		return "the " + s[len("The "):]
	}
	return s
}
