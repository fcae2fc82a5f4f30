package cli

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/traces"
)

// otlpReceiver is an OTLP/HTTP receiver: the span names it was sent.
type otlpReceiver struct {
	srv   *httptest.Server
	mu    sync.Mutex
	names []string
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		var in coltracepb.ExportTraceServiceRequest
		if req.URL.Path != "/v1/traces" || proto.Unmarshal(b, &in) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, rs := range in.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					r.names = append(r.names, s.Name)
				}
			}
		}
		r.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *otlpReceiver) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.names)
	slices.Sort(out)
	return out
}

func deadAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// run --otlp-endpoint sends the turn as it ends; a dead collector changes
// nothing in the turn or the exit code, and says what it lost.
func TestRunSendsTraces(t *testing.T) {
	srv := llmtest.NewServer(t)
	db := filepath.Join(t.TempDir(), "a.db")
	rcv := newOTLPReceiver(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Hello.", 2)})
	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--otlp-endpoint", rcv.srv.URL, "Say hello")
	if r.code != ExitOK || !strings.Contains(r.stdout, "Hello.") {
		t.Fatalf("run: exit %d %q %s", r.code, r.stdout, r.stderr)
	}
	if got, want := rcv.got(), []string{"chat test-model", "invoke_agent chat", "stage chat"}; !slices.Equal(got, want) {
		t.Errorf("the collector got %q, want %q", got, want)
	}

	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Hello again.", 2)})
	r = agentdeck(t, db, srv.URL(), nil, nil, "run", "--otlp-endpoint", "http://"+deadAddr(t), "--otlp-protocol", "grpc", "Say hello")
	if r.code != ExitOK || !strings.Contains(r.stdout, "Hello again.") {
		t.Fatalf("run with a dead collector: exit %d %q %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "warning: 3 trace spans were not sent") {
		t.Errorf("stderr %q", r.stderr)
	}

	r = agentdeck(t, db, srv.URL(), nil, nil, "run", "--otlp-endpoint", rcv.srv.URL, "--otlp-protocol", "udp", "hi")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--otlp-protocol must be http or grpc") {
		t.Errorf("a bad protocol: exit %d %s", r.code, r.stderr)
	}
}

// sessions export --format otlp: to a file, a turn a line of OTLP JSON;
// to a collector, exit 1 when it does not take them; nothing to export
// without saying what.
func TestSessionsExportOTLP(t *testing.T) {
	srv := llmtest.NewServer(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("One.", 2)}, llmtest.Reply{Chunks: llmtest.Text("Two.", 2)})
	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "One")
	if r.code != ExitOK {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	sess := runEvents(t, r.stdout)[0].SessionID
	r = agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "--session", sess, "Two")
	if r.code != ExitOK {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	second := runEvents(t, r.stdout)[0].TurnID

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"nothing named", []string{}, ExitUsage, "say what to export: SESSION_ID ..., --turn TURN_ID, --since/--until YYYY-MM-DD, or --all"},
		{"both places", []string{sess, "--endpoint", "http://127.0.0.1:1", "-o", filepath.Join(dir, "x.jsonl")}, ExitUsage, "either --endpoint URL"},
		{"a bad day", []string{"--since", "yesterday", "-o", filepath.Join(dir, "y.jsonl")}, ExitUsage, "--since takes a date as YYYY-MM-DD"},
		{"a dead collector", []string{sess, "--endpoint", "http://" + deadAddr(t)}, ExitFailed, "The collector did not take turn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := agentdeck(t, db, "", nil, nil, append([]string{"sessions", "export", "--format", "otlp"}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d with %q", r.code, r.stderr, tc.code, tc.want)
			}
		})
	}

	lines := func(file string) (n int, names []string) {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			td, err := traces.UnmarshalOTLPJSON(sc.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			n++
			for _, rs := range td.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, s := range ss.Spans {
						names = append(names, s.Name)
					}
				}
			}
		}
		return n, names
	}
	all := filepath.Join(dir, "all.jsonl")
	if r := agentdeck(t, db, "", nil, nil, "sessions", "export", "--format", "otlp", sess, "-o", all); r.code != ExitOK {
		t.Fatalf("export: %d %s", r.code, r.stderr)
	}
	if n, names := lines(all); n != 2 || len(names) != 6 {
		t.Errorf("the file has %d traces, spans %q", n, names)
	}
	one := filepath.Join(dir, "one.jsonl")
	if r := agentdeck(t, db, "", nil, nil, "sessions", "export", "--format=otlp", "--turn", second, "-o", one); r.code != ExitOK || !strings.Contains(r.stderr, "exported 1 turns (3 spans)") {
		t.Fatalf("export --turn: %d %s", r.code, r.stderr)
	}
	rcv := newOTLPReceiver(t)
	if r := agentdeck(t, db, "", nil, nil, "sessions", "export", "--format", "otlp", "--all", "--endpoint", rcv.srv.URL); r.code != ExitOK {
		t.Fatalf("export --all to a collector: %d %s", r.code, r.stderr)
	}
	if got := rcv.got(); len(got) != 6 {
		t.Errorf("the collector got %q", got)
	}
}
