package traces_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/traces"
)

const secretHeader = "Basic c2VjcmV0LWtleS1kby1ub3Qtc2hvdw=="

// syncBuffer is a log destination safe for the exporter's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// statuses has a watcher's statuses sent on a channel.
func statuses(e *traces.Exporter) <-chan traces.ExporterStatus {
	ch := make(chan traces.ExporterStatus, 64)
	e.Watch(func(s traces.ExporterStatus) {
		select {
		case ch <- s:
		default:
		}
	})
	return ch
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// A dead collector changes nothing in the turns: they end as they would,
// their spans are dropped and counted, and the failure is logged once,
// without the headers.
func TestDeadCollectorNeverFailsATurn(t *testing.T) {
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	for _, proto := range []string{traces.ProtocolHTTP, traces.ProtocolGRPC} {
		t.Run(proto, func(t *testing.T) {
			var exp *traces.Exporter
			g := newRig(t, func(s, tr string) { exp.TurnEnded(s, tr) })
			var err error
			exp, err = traces.New(bg, traces.Config{Endpoint: "http://" + closedPort(t), Protocol: proto, Headers: map[string]string{"Authorization": secretHeader}, Timeout: time.Second}, g.db, log, "test")
			if err != nil {
				t.Fatal(err)
			}
			ch := statuses(exp)
			first := g.run(t, "chat", "One.", text("One."))
			second := g.run(t, "chat", "Two.", text("Two."))
			for _, id := range []string{first, second} {
				if _, rec := g.record(t, id); rec.State != export.StateCompleted || rec.FinalText == "" {
					t.Fatalf("turn %s: %s %q", id, rec.State, rec.FinalText)
				}
			}
			var st traces.ExporterStatus
			for st.Dropped < 6 { // 3 spans a turn
				st = <-ch
			}
			if st.State != traces.StateFailing || st.Sent != 0 || !strings.Contains(st.LastError, "is the collector running?") || strings.Contains(st.LastError, secretHeader) {
				t.Errorf("status %+v", st)
			}
			if err := exp.Shutdown(bg); err != nil {
				t.Logf("shutdown: %v", err)
			}
		})
	}
	out := logs.String()
	if n := strings.Count(out, "OpenTelemetry export failing"); n != 2 { // once per exporter
		t.Errorf("logged the failure %d times, want once per exporter:\n%s", n, out)
	}
	if strings.Contains(out, secretHeader) || strings.Contains(out, "c2VjcmV0") {
		t.Errorf("the log holds the header:\n%s", out)
	}
}

// A live collector (an OTLP/HTTP receiver here) gets each turn as it
// ends, at /v1/traces, with the headers; Status says so.
func TestLiveExportOverHTTP(t *testing.T) {
	var mu sync.Mutex
	var got []*tracepb.ResourceSpans
	var paths, auths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, req.ResourceSpans...)
		paths, auths = append(paths, r.URL.Path), append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Write(out)
	}))
	defer srv.Close()
	var exp *traces.Exporter
	g := newRig(t, func(s, tr string) { exp.TurnEnded(s, tr) })
	var err error
	exp, err = traces.New(bg, traces.Config{Endpoint: srv.URL, Headers: map[string]string{"Authorization": secretHeader}}, g.db, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	ch := statuses(exp)
	id := g.run(t, "chat", "Shout hi.", calls([3]string{"c1", "shout", `{"text":"hi"}`}), text("HI"))
	var st traces.ExporterStatus
	for st.Sent < 5 {
		st = <-ch
	}
	if err := exp.Shutdown(bg); err != nil {
		t.Fatal(err)
	}
	if st.State != traces.StateOK || st.LastSuccess == nil || st.Dropped != 0 {
		t.Errorf("status %+v", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) == 0 || paths[0] != "/v1/traces" || auths[0] != secretHeader {
		t.Fatalf("requests to %q with %q", paths, auths)
	}
	names := map[string]bool{}
	for _, rs := range got {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				names[s.Name] = true
			}
		}
	}
	for _, n := range []string{"invoke_agent chat", "stage chat", "chat m", "execute_tool shout"} {
		if !names[n] {
			t.Errorf("the collector got no %q (got %v) of turn %s", n, names, id)
		}
	}
}

// An OTLP JSON file is one TracesData per line in OTLP/JSON: ids in hex
// (the span's own, as the SDK made it), kinds and status codes as
// integers; it reads back to the spans built.
func TestFileRoundTrips(t *testing.T) {
	g := newRig(t, nil)
	ids := []string{g.run(t, "chat", "One.", text("One.")), g.run(t, "chat", "Two.", calls([3]string{"c1", "shout", `{"text":"x"}`}), text("X"))}
	var buf bytes.Buffer
	exp := otlptrace.NewUnstarted(traces.NewFileClient(&buf))
	if err := exp.Start(bg); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, id := range ids {
		s, tr := g.record(t, id)
		spans := traces.Build(s, tr, traces.Options{})
		want += len(spans)
		if err := exp.ExportSpans(bg, spans); err != nil {
			t.Fatal(err)
		}
	}
	if err := exp.Shutdown(bg); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<24)
	lines, n := 0, 0
	for sc.Scan() {
		lines++
		checkOTLPJSON(t, sc.Bytes())
		td, err := traces.UnmarshalOTLPJSON(sc.Bytes())
		if err != nil {
			t.Fatalf("line %d: %v", lines, err)
		}
		for _, rs := range td.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					n++
					if len(s.TraceId) != 16 || len(s.SpanId) != 8 {
						t.Errorf("span %q ids %x/%x read back at the wrong length", s.Name, s.TraceId, s.SpanId)
					}
					if s.StartTimeUnixNano == 0 || s.EndTimeUnixNano < s.StartTimeUnixNano {
						t.Errorf("span %q times %d–%d", s.Name, s.StartTimeUnixNano, s.EndTimeUnixNano)
					}
				}
			}
		}
	}
	if lines != 2 || n != want {
		t.Errorf("%d lines, %d spans; want 2 lines, %d spans", lines, n, want)
	}
}

func TestParseHeaders(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want: "k=v;k=v" sorted, or "error"
	}{
		{"", ""},
		{"Authorization=Basic%20abc%3D%3D", "Authorization=Basic abc=="},
		{"a=1, b = 2 ,", "a=1;b=2"},
		{"novalue", "error"},
		{"=x", "error"},
	} {
		h, err := traces.ParseHeaders(tc.in)
		got := ""
		if err != nil {
			got = "error"
			if strings.Contains(err.Error(), tc.in) && tc.in != "" {
				t.Errorf("%q: the error repeats the value: %v", tc.in, err)
			}
		} else {
			var parts []string
			for k, v := range h {
				parts = append(parts, k+"="+v)
			}
			got = strings.Join(sorted(parts), ";")
		}
		if got != tc.want {
			t.Errorf("ParseHeaders(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Headers come from the environment and never reach the database.
func TestHeadersFromEnvNeverStored(t *testing.T) {
	t.Setenv(traces.EnvHeaders, "Authorization=Basic%20c2VjcmV0LWtleS1kby1ub3Qtc2hvdw%3D%3D")
	h, err := traces.Headers(context.Background(), nil, nil)
	if err != nil || h["Authorization"] != secretHeader {
		t.Fatalf("headers %v %v", h, err)
	}
	g := newRig(t, nil)
	g.run(t, "chat", "Hi.", text("Hi."))
	var buf bytes.Buffer
	if err := export.Write(bg, g.db, g.sess.ID, export.JSON, &buf, export.Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "c2VjcmV0") {
		t.Error("the JSON export holds the header")
	}
	g.db.Close()
	b, err := os.ReadFile(g.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("c2VjcmV0")) {
		t.Error("the database holds the header")
	}
}

func sorted(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

// checkOTLPJSON reads a line as plain JSON: every span's ids are hex of
// the right length, its kind and its status code are numbers.
func checkOTLPJSON(t *testing.T, line []byte) {
	t.Helper()
	var td struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []struct {
					Name         string          `json:"name"`
					TraceID      string          `json:"traceId"`
					SpanID       string          `json:"spanId"`
					ParentSpanID string          `json:"parentSpanId"`
					Kind         json.RawMessage `json:"kind"`
					Status       struct {
						Code json.RawMessage `json:"code"`
					} `json:"status"`
				} `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	if err := json.Unmarshal(line, &td); err != nil {
		t.Fatal(err)
	}
	isHex := func(s string, n int) bool {
		b, err := hex.DecodeString(s)
		return err == nil && len(b) == n
	}
	isNum := func(r json.RawMessage) bool {
		var n int
		return r == nil || json.Unmarshal(r, &n) == nil
	}
	for _, rs := range td.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				if !isHex(s.TraceID, 16) || !isHex(s.SpanID, 8) || (s.ParentSpanID != "" && !isHex(s.ParentSpanID, 8)) {
					t.Errorf("span %q: ids not hex: %q %q %q", s.Name, s.TraceID, s.SpanID, s.ParentSpanID)
				}
				if !isNum(s.Kind) || !isNum(s.Status.Code) {
					t.Errorf("span %q: kind %s, status %s; want integers", s.Name, s.Kind, s.Status.Code)
				}
			}
		}
	}
	if !bytes.Contains(line, []byte(`"kind":`)) {
		t.Errorf("no span kind in %s", line)
	}
}
