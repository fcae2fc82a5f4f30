package llm

import (
	"errors"
	"fmt"
	"time"
)

// ErrorKind classifies a failed call.
type ErrorKind string

// ErrCaptureStore is the kind of error returned when the capture store
// could not be read or written.
const ErrCaptureStore ErrorKind = "capture_store"

const (
	ErrAuth            ErrorKind = "auth"             // 401/403: bad or missing API key
	ErrModelNotFound   ErrorKind = "model_not_found"  // 404 or a "model not found" body
	ErrRateLimited     ErrorKind = "rate_limited"     // 429
	ErrContextLength   ErrorKind = "context_length"   // the prompt is longer than the model's window
	ErrNoVision        ErrorKind = "no_vision"        // images sent to a model that does not take them
	ErrBadRequest      ErrorKind = "bad_request"      // any other 4xx
	ErrServer          ErrorKind = "server"           // 5xx
	ErrNetwork         ErrorKind = "network"          // connection refused, reset, DNS
	ErrTimeout         ErrorKind = "timeout"          // no answer in time
	ErrMalformedStream ErrorKind = "malformed_stream" // bad JSON, a stream cut short
	ErrHTMLPage        ErrorKind = "html_page"        // a proxy answered with a web page
	ErrCancelled       ErrorKind = "cancelled"        // the caller cancelled
	ErrReplayMiss      ErrorKind = "replay_miss"      // replay mode and no capture for the request
	ErrReplayDiverged  ErrorKind = "replay_diverged"  // a strict replay's request differs from its recording
)

// Error is a failed model call.
type Error struct {
	Kind ErrorKind
	// Status is the HTTP status, 0 when there was no response.
	Status int
	// Message is for people: what happened and what to do.
	Message string
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter time.Duration
	// Err is the underlying cause, for logs.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Message, e.Err)
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the ErrorKind of err, or "" when err is not an *Error.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// Retryable reports whether a call that failed with err may be retried
// (only before any delta was delivered).
func Retryable(err error) bool {
	switch KindOf(err) {
	case ErrRateLimited, ErrServer, ErrNetwork:
		return true
	}
	return false
}
