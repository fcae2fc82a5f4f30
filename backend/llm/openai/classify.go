package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// htmlPageError is a web page where the API should have answered.
type htmlPageError struct {
	status     int
	title      string
	retryAfter time.Duration
}

func (e *htmlPageError) Error() string {
	return fmt.Sprintf("HTTP %d with an HTML page %q", e.status, e.title)
}

var titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// HTMLTitle is the title of an HTML page, for a message about a proxy or
// login page that answered instead of the model; "" when it has none.
func HTMLTitle(body []byte) string {
	m := titleRE.FindSubmatch(body)
	if m == nil {
		return ""
	}
	t := strings.Join(strings.Fields(string(m[1])), " ")
	if len(t) > 120 {
		t = t[:120]
	}
	return t
}

// ParseRetryAfter reads delta-seconds or an HTTP date.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// classify maps any failure of a call to an *Error with an actionable message.
func (c *Client) classify(ctx context.Context, err error) *llm.Error {
	label := c.cfg.Label
	if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
		switch {
		case errors.Is(cause, errIdle):
			return &llm.Error{Kind: llm.ErrTimeout, Message: fmt.Sprintf("%s stopped answering (nothing for %s). Check that the server is not overloaded, then try again.", label, c.cfg.IdleTimeout), Err: err}
		case errors.Is(cause, context.DeadlineExceeded):
			return &llm.Error{Kind: llm.ErrTimeout, Message: fmt.Sprintf("The call to %s ran out of time.", label), Err: err}
		default:
			return &llm.Error{Kind: llm.ErrCancelled, Message: "Stopped.", Err: err}
		}
	}
	var lerr *llm.Error
	if errors.As(err, &lerr) {
		return lerr
	}
	var html *htmlPageError
	if errors.As(err, &html) {
		retryAfter := html.retryAfter
		what := "a web page"
		if html.title != "" {
			what = fmt.Sprintf("a web page (%q)", html.title)
		}
		e := &llm.Error{Kind: llm.ErrHTMLPage, Status: html.status, RetryAfter: retryAfter, Err: err,
			Message: fmt.Sprintf("%s answered with %s instead of the API (HTTP %d). Check the base URL; a proxy or login page may be in the way.", label, what, html.status)}
		if html.status >= 500 || html.status == 429 {
			// A gateway's 502/503 page is still a server error worth retrying.
			e.Kind = llm.ErrServer
			if html.status == 429 {
				e.Kind = llm.ErrRateLimited
			}
		}
		return e
	}

	var st *httpStatusError
	if errors.As(err, &st) {
		return c.statusError(st.status, st.code, st.message, st.retryAfter, err)
	}

	if malformedJSON(err) {
		return &llm.Error{Kind: llm.ErrMalformedStream, Err: err,
			Message: fmt.Sprintf("%s sent a stream Agentdeck could not read. The server may not be OpenAI-compatible, or a proxy changed the answer.", label)}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, syscall.EPIPE) {
		return &llm.Error{Kind: llm.ErrNetwork, Err: err,
			Message: fmt.Sprintf("The connection to %s dropped in the middle of the answer. Check the server's log; it may have crashed or run out of memory.", label)}
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		where := label + " at " + c.cfg.BaseURL
		if label == c.cfg.BaseURL {
			where = label // a server known only by its URL
		}
		return &llm.Error{Kind: llm.ErrNetwork, Err: err, Message: "Cannot connect to " + where + ". Is the server running?"}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return &llm.Error{Kind: llm.ErrNetwork, Err: err, Message: fmt.Sprintf("Cannot find the host of %s. Check the base URL and your network.", c.cfg.BaseURL)}
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		if netErr.Timeout() {
			return &llm.Error{Kind: llm.ErrTimeout, Err: err, Message: fmt.Sprintf("%s did not answer in time.", label)}
		}
		return &llm.Error{Kind: llm.ErrNetwork, Err: err, Message: fmt.Sprintf("A network error stopped the call to %s. Check your connection and the server.", label)}
	}
	return &llm.Error{Kind: llm.ErrNetwork, Err: err, Message: fmt.Sprintf("The call to %s failed. Check the server and try again.", label)}
}

func (c *Client) statusError(status int, code, serverMsg string, retryAfter time.Duration, err error) *llm.Error {
	label := c.cfg.Label
	e := &llm.Error{Status: status, RetryAfter: retryAfter, Err: err}
	detail := serverSaid(serverMsg)
	lower := strings.ToLower(code + " " + serverMsg)
	switch {
	case code == "context_length_exceeded" || strings.Contains(lower, "context length") || strings.Contains(lower, "maximum context") || strings.Contains(lower, "context window"):
		e.Kind = llm.ErrContextLength
		e.Message = "The conversation is longer than the model's context window. Start a new session or shorten the input." + detail
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = llm.ErrAuth
		e.Message = fmt.Sprintf("%s refused the API key (HTTP %d). Check the key in Settings.", label, status)
	case status == http.StatusNotFound || code == "model_not_found" || strings.Contains(lower, "model") && strings.Contains(lower, "not found"):
		e.Kind = llm.ErrModelNotFound
		e.Message = fmt.Sprintf("%s does not have that model (HTTP %d). Pick another model, or pull it first (for Ollama: `ollama pull NAME`).", label, status) + detail
	case status == http.StatusTooManyRequests:
		e.Kind = llm.ErrRateLimited
		e.Message = fmt.Sprintf("%s is rate limiting requests.", label)
		if retryAfter > 0 {
			e.Message += fmt.Sprintf(" Try again in %s.", retryAfter.Round(time.Second))
		} else {
			e.Message += " Wait a moment and try again."
		}
	case status >= 500:
		e.Kind = llm.ErrServer
		e.Message = fmt.Sprintf("%s had an internal error (HTTP %d). Try again; if it keeps happening, check the server's log.", label, status) + detail
	default:
		e.Kind = llm.ErrBadRequest
		e.Message = fmt.Sprintf("%s rejected the request (HTTP %d).", label, status) + detail
	}
	return e
}

// visionError is the error of a request with images that the server
// refused because of them: a model that does not see (Ollama's "missing
// data required for image input", llama.cpp's "image input is not
// supported", vLLM's "not a multimodal model", OpenAI's "image_url is only
// supported by certain models"). Any other error is returned as it is.
func (c *Client) visionError(e *llm.Error, model string) *llm.Error {
	if e == nil || e.Status < 400 {
		return e
	}
	var st *httpStatusError
	said := e.Message
	if errors.As(e.Err, &st) {
		said = st.code + " " + st.message
	}
	lower := strings.ToLower(said)
	if !strings.Contains(lower, "image") && !strings.Contains(lower, "vision") && !strings.Contains(lower, "multimodal") && !strings.Contains(lower, "multi-modal") {
		return e
	}
	detail := ""
	if st != nil {
		detail = serverSaid(st.message)
	}
	return &llm.Error{Kind: llm.ErrNoVision, Status: e.Status, Err: e.Err,
		Message: fmt.Sprintf("The model %s on %s does not accept images. Pick a vision model (for example qwen2.5vl, llava or gemma3 on Ollama, or gpt-4o), or send the message without images.", model, c.cfg.Label) + detail}
}

// hasImages reports whether any message of req carries images.
func hasImages(req llm.Request) bool {
	for _, m := range req.Messages {
		if len(m.Images) > 0 {
			return true
		}
	}
	return false
}

// serverSaid quotes what a server said about an error, shortened, or "".
func serverSaid(msg string) string {
	if msg == "" {
		return ""
	}
	return " The server said: " + truncate(msg, 200)
}

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// malformedJSON reports whether err says a body was not the JSON expected,
// from encoding/json or from the decoder of chunks (decodeWire).
func malformedJSON(err error) bool {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var syn2 *jsontext.SyntacticError
	var sem *jsonv2.SemanticError
	return errors.As(err, &syn) || errors.As(err, &typ) || errors.As(err, &syn2) || errors.As(err, &sem)
}
