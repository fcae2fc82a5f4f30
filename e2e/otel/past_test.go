//go:build otel

package otel_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// pastSession runs a chat turn and a tool turn with no export at all and
// returns the session and the two turn ids.
func pastSession(t *testing.T, env *cmdEnv, srv *llmtest.Server) (session, chatTurn, toolTurn string) {
	t.Helper()
	enqueueChat(srv)
	chat := env.mustRun("run", "What is the capital of France?")
	session, chatTurn = turnIDOf(t, chat.stderr)
	enqueueTool(srv)
	tool := env.mustRun("run", "--session", session, "--workspace", t.TempDir(), "--approve", "all", "Write the report.")
	_, toolTurn = turnIDOf(t, tool.stderr)
	return session, chatTurn, toolTurn
}

// Past turns: `sessions export --format otlp --endpoint` sends a
// session's turns, after they ran, over OTLP HTTP and gRPC, with the
// times the store recorded; --turn sends one turn and --since/--until a
// date range.
func TestPastTurnsExport(t *testing.T) {
	srv := llmtest.NewServer(t)
	env := newCmdEnv(t, srv.URL())
	session, chatTurn, toolTurn := pastSession(t, env, srv)
	srv.Close() // nothing below asks the model
	stored := env.storedTurns(session)
	today := time.Now().Format(time.DateOnly) // the flags take local dates
	for _, proto := range []string{"http", "grpc"} {
		t.Run(proto, func(t *testing.T) {
			env := env.with(t)
			col := startCollector(t)
			env.mustRun("sessions", "export", "--format", "otlp", session, "--endpoint", col.endpoint(proto), "--protocol", proto)
			traces := byTrace(col.stop())
			if len(traces) != 2 {
				t.Fatalf("the collector received %d traces, want the session's 2 turns", len(traces))
			}
			checkTrace(t, traces[traceIDOf(chatTurn)], stored[chatTurn], false)
			checkTrace(t, traces[traceIDOf(toolTurn)], stored[toolTurn], false)
			t.Logf("the tool turn as the collector received it over %s:\n%s", proto, drawTree(traces[traceIDOf(toolTurn)], true))
		})
	}
	t.Run("one turn", func(t *testing.T) {
		env := env.with(t)
		col := startCollector(t)
		env.mustRun("sessions", "export", "--format", "otlp", "--turn", toolTurn, "--endpoint", col.endpoint("http"))
		traces := byTrace(col.stop())
		if len(traces) != 1 || traces[traceIDOf(toolTurn)] == nil {
			t.Fatalf("--turn %s sent %d traces, want that turn's only", toolTurn, len(traces))
		}
		checkTrace(t, traces[traceIDOf(toolTurn)], stored[toolTurn], false)
	})
	t.Run("date range", func(t *testing.T) {
		env := env.with(t)
		col := startCollector(t)
		env.mustRun("sessions", "export", "--format", "otlp", "--since", today, "--until", today, "--endpoint", col.endpoint("grpc"), "--protocol", "grpc")
		traces := byTrace(col.stop())
		if len(traces) != 2 || traces[traceIDOf(chatTurn)] == nil || traces[traceIDOf(toolTurn)] == nil {
			t.Fatalf("--since %s --until %s sent %d traces, want today's 2 turns", today, today, len(traces))
		}
	})
	t.Run("refused", func(t *testing.T) {
		env := env.with(t)
		// A collector that is gone: the export says so and exits non-zero.
		col := startCollector(t)
		endpoint := col.endpoint("http")
		col.kill()
		r := env.run("sessions", "export", "--format", "otlp", session, "--endpoint", endpoint)
		if r.code == 0 {
			t.Fatalf("an export to a dead collector exited 0:\n%s", r.stderr)
		}
		if len(r.stderr) == 0 {
			t.Fatalf("an export to a dead collector exited %d and said nothing", r.code)
		}
		t.Logf("agentdeck said: %s", strings.TrimSpace(r.stderr))
	})
}

// `sessions export --format otlp -o FILE` writes OTLP JSON, one
// TracesData a line: each line parses here, and the collector's own
// parser takes it (POSTed as application/json to its OTLP HTTP receiver)
// and writes back the same spans.
func TestPastTurnsToFile(t *testing.T) {
	srv := llmtest.NewServer(t)
	env := newCmdEnv(t, srv.URL())
	session, chatTurn, toolTurn := pastSession(t, env, srv)
	srv.Close()
	stored := env.storedTurns(session)
	file := filepath.Join(t.TempDir(), "turns.otlp.jsonl")
	env.mustRun("sessions", "export", "--format", "otlp", session, "-o", file)

	// The collector's own OTLP JSON parser first: it is the authority on
	// what OTLP JSON is (hex ids, enums as numbers).
	col := startCollector(t)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		resp, err := http.Post("http://"+col.HTTP+"/v1/traces", "application/json", bytes.NewReader(sc.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("the collector refused line %d of the -o file as OTLP JSON: %s %.500s", n, resp.Status, body)
		}
	}
	http.DefaultClient.CloseIdleConnections()
	received := byTrace(col.stop())
	if t.Failed() {
		t.FailNow()
	}
	fromFile := byTrace(readSpansFile(t, file))
	if len(fromFile) != 2 {
		t.Fatalf("%s holds %d traces, want the session's 2 turns", file, len(fromFile))
	}
	checkTrace(t, fromFile[traceIDOf(chatTurn)], stored[chatTurn], false)
	checkTrace(t, fromFile[traceIDOf(toolTurn)], stored[toolTurn], false)
	for id, want := range fromFile {
		if got := received[id]; !sameSpans(got, want) {
			t.Errorf("trace %s read back from the collector differs from the file's:\n%s\nfile:\n%s", id, renderTree(got), renderTree(want))
		}
	}
}

// sameSpans says whether two lists hold the same spans, whatever their
// order.
func sameSpans(a, b []span) bool {
	byID := func(x, y span) int { return strings.Compare(x.ID, y.ID) }
	a, b = slices.Clone(a), slices.Clone(b)
	slices.SortFunc(a, byID)
	slices.SortFunc(b, byID)
	return reflect.DeepEqual(a, b)
}
