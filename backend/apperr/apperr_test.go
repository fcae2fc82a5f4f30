package apperr

import (
	"errors"
	"fmt"
	"testing"
)

func TestCodeAndMessageSurviveWrapping(t *testing.T) {
	cause := errors.New("SQL logic error near line 3")
	tests := []struct {
		name     string
		err      error
		wantCode Code
		wantMsg  string
	}{
		{"plain error is internal", cause, Internal, MessageOf(errors.New("x"))},
		{"app error", New(NotFound, "no session %q", "s1"), NotFound, `no session "s1"`},
		{"wrapped app error", fmt.Errorf("loading: %w", Wrap(cause, Unavailable, "the database is busy")), Unavailable, "the database is busy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CodeOf(tt.err); got != tt.wantCode {
				t.Errorf("CodeOf = %q, want %q", got, tt.wantCode)
			}
			if got := MessageOf(tt.err); got != tt.wantMsg {
				t.Errorf("MessageOf = %q, want %q", got, tt.wantMsg)
			}
		})
	}
}

func TestMessageHidesCause(t *testing.T) {
	err := Wrap(errors.New("secret internals"), Internal, "could not save")
	if MessageOf(err) != "could not save" {
		t.Fatalf("MessageOf leaked the cause: %q", MessageOf(err))
	}
	if !errors.Is(err, err.Err) {
		t.Fatal("the cause must stay reachable with errors.Is for logging")
	}
}

func TestHTTPStatusOfEveryCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{New(Invalid, "x"), 400},
		{New(NotFound, "x"), 404},
		{New(Conflict, "x"), 409},
		{New(Unavailable, "x"), 503},
		{fmt.Errorf("reading: %w", New(Damaged, "x")), 503},
		{New(Cancelled, "x"), 500},
		{New(Internal, "x"), 500},
		{errors.New("plain"), 500},
	}
	for _, tt := range tests {
		t.Run(string(CodeOf(tt.err)), func(t *testing.T) {
			if got := HTTPStatus(tt.err); got != tt.want {
				t.Fatalf("HTTPStatus = %d, want %d", got, tt.want)
			}
		})
	}
}
