// Package apperr defines the errors that cross the edge of the engine.
//
// Inside the backend, errors are wrapped with fmt.Errorf and %w as usual. At
// an edge (a bound method, an HTTP handler, a CLI command) they are mapped to
// an *Error: a stable Code a program can branch on and a Message a person can
// act on. Internal details (SQL, file offsets, stack traces) stay in the
// wrapped Err, which is logged but never shown.
package apperr

import (
	"errors"
	"fmt"
	"net/http"
)

// Code classifies an error for programs. The set is small on purpose.
type Code string

const (
	Invalid     Code = "invalid"     // the request is wrong; fix it and retry
	NotFound    Code = "not_found"   // the thing asked for does not exist
	Conflict    Code = "conflict"    // the request clashes with current state
	Unavailable Code = "unavailable" // a dependency (disk, model server) is not usable now
	Cancelled   Code = "cancelled"   // the user stopped it
	Damaged     Code = "damaged"     // the database file is damaged; what is readable can still be read
	OverBudget  Code = "over_budget" // a provider's monthly budget is spent; send again only with the person's consent
	Internal    Code = "internal"    // a bug; the message is generic
)

// Error is an error with a code and a message safe to show to a person.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Err     error  `json:"-"`
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an *Error with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error that carries err as its hidden cause.
func Wrap(err error, code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// CodeOf returns the code of the first *Error in err's chain, or Internal.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// MessageOf returns the user-facing message of err: the Message of the first
// *Error in its chain, or a generic text for anything else.
func MessageOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Something went wrong inside Agentdeck. The details are in the log."
}

// HTTPStatus is the status an HTTP edge answers with for err's code.
// Damaged is 503 like Unavailable (the file cannot serve the request as
// asked); a client tells them apart by the code in the body.
func HTTPStatus(err error) int {
	switch CodeOf(err) {
	case Invalid:
		return http.StatusBadRequest
	case NotFound:
		return http.StatusNotFound
	case Conflict:
		return http.StatusConflict
	case Unavailable, Damaged:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
