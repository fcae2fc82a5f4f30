package traces_test

import (
	"context"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/agentdeck/agentdeck/backend/traces"
)

// deadClient is an OTLP client whose collector is gone: the first
// request finds the port closed; every later one hangs (a collector that
// accepts and never answers) until its context ends, after saying on
// inFlight that it is waiting.
type deadClient struct {
	calls    atomic.Int32
	inFlight chan struct{}
}

func (c *deadClient) Start(context.Context) error { return nil }
func (c *deadClient) Stop(context.Context) error  { return nil }

func (c *deadClient) UploadTraces(ctx context.Context, _ []*tracepb.ResourceSpans) error {
	if c.calls.Add(1) == 1 {
		return &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	}
	c.inFlight <- struct{}{}
	<-ctx.Done()
	return ctx.Err()
}

// Once the exporter has seen its collector refuse a connection, shutting
// down waits for nothing: with no deadline at all it returns, the
// request in flight cancelled and the queued turns dropped unsent and
// counted, with one logged line that says what happened and what to do.
func TestShutdownDropsWhenFailing(t *testing.T) {
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	client := &deadClient{inFlight: make(chan struct{}, 1)}
	const endpoint = "http://127.0.0.1:9"
	var exp *traces.Exporter
	ended := make(chan struct{}, 8)
	g := newRig(t, func(s, tr string) { exp.TurnEnded(s, tr); ended <- struct{}{} })
	exp, err := traces.NewWithClient(bg, traces.Config{Endpoint: endpoint, Headers: map[string]string{"Authorization": secretHeader}}, client, g.db, log, "test")
	if err != nil {
		t.Fatal(err)
	}
	ch := statuses(exp)

	g.run(t, "chat", "One.", text("One."))
	<-ended
	var st traces.ExporterStatus
	for st.State != traces.StateFailing {
		st = <-ch
	}
	want := "could not connect to " + endpoint + " (connection refused): is the collector running?"
	if st.LastError != want || st.Dropped != 3 {
		t.Errorf("status %+v; want %q, 3 dropped", st, want)
	}

	g.run(t, "chat", "Two.", text("Two."))
	<-ended
	<-client.inFlight // the second turn's request hangs
	g.run(t, "chat", "Three.", text("Three."))
	<-ended
	g.run(t, "chat", "Four.", text("Four."))
	<-ended

	if err := exp.Shutdown(context.Background()); err != nil {
		t.Logf("shutdown: %v", err)
	}
	st = exp.Status()
	// 3 spans of the first turn, 3 of the second (cancelled), and the
	// last two turns unbuilt, one each.
	if st.Dropped != 8 || st.Sent != 0 || st.LastError != want {
		t.Errorf("after shutdown: %+v; want 8 dropped and the refusal as the last error", st)
	}
	if n := client.calls.Load(); n != 2 {
		t.Errorf("%d requests; the queued turns should not have been sent", n)
	}
	out := logs.String()
	if n := strings.Count(out, "OpenTelemetry export failing"); n != 1 || !strings.Contains(out, "connection refused") {
		t.Errorf("want one line saying the connection was refused:\n%s", out)
	}
	if strings.Contains(out, secretHeader) {
		t.Errorf("the log holds the header:\n%s", out)
	}
}
