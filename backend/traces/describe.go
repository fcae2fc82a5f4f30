package traces

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// describe is a failed export as the log and the window show it: what
// happened and what to do, never a header's value, and not too long.
// The SDK's errors (a refused connection, a timeout, the collector's
// answer) are plain errors; apperr's would only say "something went
// wrong inside Agentdeck".
func describe(cfg Config, err error) string {
	ep := cfg.Endpoint
	text := err.Error()
	var msg string
	var dns *net.DNSError
	var ae *apperr.Error
	switch {
	case errors.As(err, &ae):
		msg = ae.Message
	case errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(text, "connection refused"):
		msg = fmt.Sprintf("could not connect to %s (connection refused): is the collector running?", ep)
	case errors.As(err, &dns) || strings.Contains(text, "no such host"):
		msg = fmt.Sprintf("could not find the host of %s: check the endpoint's address.", ep)
	case errors.Is(err, syscall.ECONNRESET) || strings.Contains(text, "connection reset") || strings.Contains(text, "EOF"):
		msg = fmt.Sprintf("the connection to %s was closed before it answered: is the collector running?", ep)
	case errors.Is(err, context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded:
		msg = fmt.Sprintf("%s did not answer in time: is the collector running and reachable?", ep)
	case errors.Is(err, context.Canceled) || status.Code(err) == codes.Canceled:
		msg = fmt.Sprintf("Agentdeck stopped before the spans reached %s.", ep)
	case status.Code(err) == codes.Unauthenticated || status.Code(err) == codes.PermissionDenied ||
		strings.Contains(text, "401") || strings.Contains(text, "403"):
		msg = fmt.Sprintf("%s refused the spans (%s): check the OTLP headers (the key).", ep, text)
	case status.Code(err) == codes.Unavailable:
		msg = fmt.Sprintf("could not reach %s (%s): is the collector running?", ep, text)
	default:
		msg = fmt.Sprintf("sending to %s failed (%s): check the collector's address and its log.", ep, text)
	}
	for _, v := range cfg.Headers {
		if v != "" {
			msg = strings.ReplaceAll(msg, v, "[redacted]")
		}
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return msg
}
