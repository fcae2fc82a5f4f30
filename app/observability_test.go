package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/traces"
)

// Settings → Observability: Langfuse's keys are kept in the keyring as its
// Basic header, sent with each turn's trace, never in the database; the
// view says only that headers are set; the state goes out on the bus.
func TestObservabilitySettings(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	svc := NewService(Config{DB: db, DBPath: db.Path(), Runner: eng.Runner, Secrets: eng.Secrets, Workflows: eng.Workflows})
	sub := svc.bus.Subscribe(64)
	defer sub.Close()
	svc.initTraces(context.Background(), eng.Traces, nil)

	var mu sync.Mutex
	var auths []string
	spans := make(chan int, 16)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var in coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &in); err != nil || r.URL.Path != "/api/public/otel/v1/traces" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
		spans <- len(in.ResourceSpans[0].ScopeSpans[0].Spans)
	}))
	defer rcv.Close()

	v, err := svc.api.GetObservability()
	if err != nil || v.Status.State != traces.StateOff || v.HeadersSet {
		t.Fatalf("before: %+v %v", v, err)
	}
	if _, err := svc.api.SaveObservability(ObservabilitySave{Settings: store.Observability{Enabled: true, Endpoint: rcv.URL, Protocol: "udp"}}); err == nil {
		t.Fatal("a protocol that is neither http nor grpc was saved")
	}
	if _, err := svc.api.SaveObservability(ObservabilitySave{Settings: store.Observability{Enabled: true, Endpoint: rcv.URL}, LangfusePublicKey: "pk-lf-1"}); err == nil {
		t.Fatal("half of Langfuse's keys were saved")
	}
	v, err = svc.api.SaveObservability(ObservabilitySave{
		Settings:          store.Observability{Enabled: true, Preset: "langfuse", Endpoint: rcv.URL + "/api/public/otel/v1/traces"},
		LangfusePublicKey: "pk-lf-1", LangfuseSecretKey: "sk-lf-SECRET",
	})
	if err != nil || !v.HeadersSet || v.Status.State != traces.StateOK || v.Settings.Protocol != "http" {
		t.Fatalf("saved: %+v %v", v, err)
	}

	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Hi.", 2)})
	sess, err := db.CreateSession(context.Background(), store.Session{Title: "o", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	h, err := eng.Runner.Start(context.Background(), runner.Request{SessionID: sess.ID, Message: "Hi", BaseURL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	h.Wait()
	if n := <-spans; n != 3 {
		t.Errorf("%d spans sent", n)
	}
	mu.Lock()
	if want := "Basic " + base64.StdEncoding.EncodeToString([]byte("pk-lf-1:sk-lf-SECRET")); len(auths) != 1 || auths[0] != want {
		t.Errorf("sent with %q, want %q", auths, want)
	}
	mu.Unlock()

	// The bus said the export started, then that it sent.
	var sent bool
	for !sent {
		<-sub.Ready()
		for _, m := range sub.Drain() {
			if ts, ok := m.Data.(TracesStatus); ok && ts.Status.Sent == 3 {
				sent = true
			}
		}
	}

	eng.Traces.Close(time.Second)
	db.Close()
	b, err := os.ReadFile(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("sk-lf-SECRET")) || bytes.Contains(b, []byte(base64.StdEncoding.EncodeToString([]byte("pk-lf-1:sk-lf-SECRET"))[:12])) {
		t.Error("the database holds the Langfuse key")
	}
}
