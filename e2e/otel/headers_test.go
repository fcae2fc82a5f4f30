//go:build otel

package otel_test

import (
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// A collector that asks for a key (a bearer token, as hosted collectors
// do): the key comes from OTEL_EXPORTER_OTLP_HEADERS, never a flag, and
// is never printed. With it, live and past turns reach the collector
// over HTTP and gRPC; without it, the collector refuses the past export
// and the command says so and exits non-zero.
func TestHeadersFromEnvironment(t *testing.T) {
	const token = "s3cret-NEVER-PRINTED"
	srv := llmtest.NewServer(t)
	env := newCmdEnv(t, srv.URL())
	session, chatTurn, _ := pastSession(t, env, srv)
	stored := env.storedTurns(session)

	t.Run("refused without the key", func(t *testing.T) {
		env := env.with(t)
		col := startCollectorWith(t, token)
		r := env.run("sessions", "export", "--format", "otlp", session, "--endpoint", col.endpoint("http"))
		if r.code == 0 {
			t.Fatalf("an export the collector refused exited 0:\n%s", r.stderr)
		}
		if strings.TrimSpace(r.stderr) == "" {
			t.Fatalf("an export the collector refused exited %d and said nothing", r.code)
		}
		t.Logf("agentdeck said: %s", strings.TrimSpace(r.stderr))
		if spans := col.stopAny(); len(spans) != 0 {
			t.Fatalf("the collector took %d spans without the key", len(spans))
		}
	})

	keyed := env.withVar("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20"+token)
	for _, proto := range []string{"http", "grpc"} {
		t.Run(proto, func(t *testing.T) {
			env := keyed.with(t)
			col := startCollectorWith(t, token)
			env.mustRun("sessions", "export", "--format", "otlp", session, "--turn", chatTurn, "--endpoint", col.endpoint(proto), "--protocol", proto)
			enqueueTool(srv)
			live := env.mustRun("run", "--session", session, "--workspace", t.TempDir(), "--approve", "all",
				"--otlp-endpoint", col.endpoint(proto), "--otlp-protocol", proto, "Write the report again.")
			_, liveTurn := turnIDOf(t, live.stderr)
			if l := exporterLines(live.stderr); len(l) != 0 {
				t.Errorf("a turn whose collector took its key logged about the exporter: %q", l)
			}
			traces := byTrace(col.stop())
			if len(traces) != 2 {
				t.Fatalf("the collector received %d traces, want the past chat turn and the live tool turn", len(traces))
			}
			checkTrace(t, traces[traceIDOf(chatTurn)], stored[chatTurn], false)
			checkTrace(t, traces[traceIDOf(liveTurn)], env.storedTurns(session)[liveTurn], false)
		})
	}
}
