package openai

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/cenkalti/backoff/v5"
)

// Config configures an OpenAI-compatible client.
type Config struct {
	// BaseURL of the API, ending in /v1 (e.g. http://127.0.0.1:11434/v1).
	BaseURL string
	// APIKey is sent as a Bearer token; empty for local servers.
	APIKey string
	// Label names the server in messages ("Ollama", "OpenAI"); default: the base URL.
	Label string
	// HTTPClient is used for requests; its Timeout must be zero (streams
	// are long). Default: a client on http.DefaultTransport.
	HTTPClient *http.Client
	// MaxRetries is how many times a call is retried before its first
	// delta (default 3; negative disables retries).
	MaxRetries int
	// RetryInitial and RetryMax bound the backoff between attempts
	// (defaults 500 ms and 20 s). A Retry-After longer than RetryMax is
	// not waited for: the call fails with ErrRateLimited.
	RetryInitial time.Duration
	RetryMax     time.Duration
	// IdleTimeout ends a call when the server sends nothing for this long,
	// before or between deltas (default 5 minutes: local servers can take
	// a while to load a model).
	IdleTimeout time.Duration
	// Echo is the reasoning the server wants back on assistant messages
	// (catalog.EchoFor gives it for a provider).
	Echo ReasoningEcho
	// Prefix is how the server continues a partial answer (catalog.PrefixFor
	// gives it for a provider).
	Prefix Prefix
	// NoTextToolCalls keeps tool calls a model writes as text in its
	// answer, instead of reading them as calls of the offered tools.
	NoTextToolCalls bool
	Logger          *slog.Logger
}

// Client is an llm.Client for any OpenAI-compatible chat-completions API. It
// speaks the wire format of wire.go itself, so it can read and send back
// every server's reasoning fields (go-openai's types carry only one).
type Client struct {
	cfg      Config
	http     *http.Client
	endpoint string
	log      *slog.Logger
}

// NewClient returns a client for cfg.
func NewClient(cfg Config) *Client {
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 3
	}
	if cfg.RetryInitial <= 0 {
		cfg.RetryInitial = 500 * time.Millisecond
	}
	if cfg.RetryMax <= 0 {
		cfg.RetryMax = 20 * time.Second
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 5 * time.Minute
	}
	if cfg.Label == "" {
		cfg.Label = cfg.BaseURL
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{cfg: cfg, http: hc, endpoint: strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions", log: log}
}

// Stream implements Client.
func (c *Client) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	call := newCallState(req, !c.cfg.NoTextToolCalls)
	bo := c.backoff()
	for attempt := 1; ; attempt++ {
		call.diag.Attempts = attempt
		err := c.attempt(ctx, req, call, fn)
		if err == nil {
			return call.finish(nil), nil
		}
		var cb callbackError
		if errors.As(err, &cb) {
			// The callback stopped the stream: its error goes back as is.
			return call.finish(cb.err), cb.err
		}
		lerr := c.classify(ctx, err)
		if hasImages(req) {
			lerr = c.visionError(lerr, req.Model)
		}
		if !call.received && !call.delivered && lerr.Kind == llm.ErrNetwork && strings.Contains(lerr.Message, "in the middle of the answer") {
			lerr.Message = "The connection to " + c.cfg.Label + " closed before it answered. Check the server's log; it may have crashed or be restarting."
		}
		if call.received || call.delivered || !llm.Retryable(lerr) || attempt > c.cfg.MaxRetries || c.cfg.MaxRetries < 0 {
			// Whatever the filter still holds is part of the partial answer.
			_ = call.flush(fn)
			lerr = triedTimes(lerr, attempt)
			return call.finish(lerr), lerr
		}
		wait := bo.NextBackOff()
		if lerr.RetryAfter > 0 {
			if lerr.RetryAfter > c.cfg.RetryMax {
				lerr = triedTimes(lerr, attempt)
				return call.finish(lerr), lerr
			}
			wait = max(wait, lerr.RetryAfter)
		}
		retry := llm.Retry{Attempt: attempt + 1, MaxAttempts: c.cfg.MaxRetries + 1, Status: lerr.Status, Kind: lerr.Kind, Message: lerr.Message, Wait: wait}
		call.diag.Retries = append(call.diag.Retries, retry)
		if req.OnRetry != nil {
			req.OnRetry(retry)
		}
		c.log.Info("retrying model call", "kind", lerr.Kind, "status", lerr.Status, "attempt", attempt, "wait", wait)
		if err := sleepCtx(ctx, wait); err != nil {
			cerr := c.classify(ctx, err)
			return call.finish(cerr), cerr
		}
	}
}

func (c *Client) backoff() *backoff.ExponentialBackOff {
	bo := backoff.NewExponentialBackOff()
	bo.InitialInterval = c.cfg.RetryInitial
	bo.MaxInterval = c.cfg.RetryMax
	bo.RandomizationFactor = 0.5
	bo.Multiplier = 2
	bo.Reset()
	return bo
}

// attempt makes one HTTP request and reads its answer to the end.
func (c *Client) attempt(ctx context.Context, req llm.Request, call *callState, fn func(llm.Chunk) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(c.cfg.IdleTimeout, func() { cancel(errIdle) })
	defer watchdog.Stop()

	body, err := c.post(ctx, req)
	if err != nil {
		return c.classify(ctx, err)
	}
	defer body.Close()
	deliver := func(w *wireChunk) error {
		watchdog.Reset(c.cfg.IdleTimeout)
		if w.Error != nil {
			// An error reported inside a 200 stream: the server failed
			// while answering (OpenRouter's upstream errors, vLLM's).
			e := c.statusError(http.StatusInternalServerError, w.Error.code(), w.Error.Message, 0, errors.New(w.Error.Message))
			if e.Kind == llm.ErrServer {
				e.Message = c.cfg.Label + " reported an error in the middle of the answer. Try again; if it keeps happening, check the server's log." + serverSaid(w.Error.Message)
			}
			return e
		}
		chunk, ok := chunkOf(w)
		if !ok {
			return nil
		}
		return call.deliver(chunk, fn)
	}
	whole := false
	var end streamEnd
	if body.whole {
		var streamed bool
		streamed, end, err = readWhole(body, deliver)
		whole = !streamed
	} else {
		end, err = readStream(body, deliver)
	}
	var cb callbackError
	if errors.As(err, &cb) {
		return cb
	}
	if err != nil {
		return c.classify(ctx, err)
	}
	if whole && call.received {
		call.note("The server answered with one JSON body instead of a stream (it ignored \"stream\": true); the answer was read whole.")
		if err := call.finishUnsaid(fn); err != nil {
			return err
		}
	}
	if end == endDone && call.chunks > 0 && !call.finished {
		// [DONE] is the server's word that the answer is whole; some
		// gateways (a hosted Claude behind an OpenAI-compatible proxy)
		// send usage and [DONE] but never a finish reason.
		call.note("The server ended the stream with [DONE] but sent no finish reason; the answer was taken as complete.")
		if err := call.finishUnsaid(fn); err != nil {
			return err
		}
	}
	if err := call.flush(fn); err != nil {
		return err
	}
	switch {
	case call.finished:
		return nil
	case call.chunks == 0:
		return &llm.Error{Kind: llm.ErrMalformedStream, Message: c.cfg.Label + " ended the answer without sending anything. Check that the model name is right and the server is healthy."}
	default:
		// No finish_reason and no [DONE]: the server closed the stream
		// mid-answer.
		return &llm.Error{Kind: llm.ErrMalformedStream, Message: "The answer from " + c.cfg.Label + " was cut short: the stream ended before the model finished. Check the server's log."}
	}
}

// triedTimes is e, saying it failed every one of attempts tries when
// there was more than one: a user who waited through the retries is told
// they happened.
func triedTimes(e *llm.Error, attempts int) *llm.Error {
	if attempts < 2 || e.Kind == llm.ErrCancelled {
		return e
	}
	out := *e
	out.Message = strings.TrimSpace(out.Message) + fmt.Sprintf(" (Tried %d times.)", attempts)
	return &out
}

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

var errIdle = errors.New("the server sent nothing for too long")
