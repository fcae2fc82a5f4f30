package runner_test

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
	"github.com/agentdeck/agentdeck/backend/web"
)

func pageSources(t *testing.T, rec *turntest.Recorder) []turn.Source {
	t.Helper()
	var out []turn.Source
	for _, e := range rec.Of(turn.EventSources) {
		out = append(out, turntest.Data[turn.SourcesData](t, e).Sources...)
	}
	return out
}

// The model reads a page with fetch_url and cites it; the turn records
// the page as its source [1]. A replay, with the site gone, gives the
// model the recorded page and records the same source: it never fetches.
func TestFetchURLIsRecordedAndReplayed(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	// The test's site is on 127.0.0.1: the user's setting allows it.
	st, err := db.AppSettings(bg)
	if err != nil {
		t.Fatal(err)
	}
	st.AllowPrivateURLs = true
	if err := db.SaveAppSettings(bg, st); err != nil {
		t.Fatal(err)
	}
	var fetched atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fetched.Add(1)
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html><head><title>Tides</title></head><body><nav>MENU</nav><article><h1>Tides</h1>
<p>The moon pulls the sea, and the sea rises twice a day on most coasts. Spring tides come with the new and the full moon.</p>
</article></body></html>`))
	}))
	defer site.Close()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		toolCall("f1", web.Name, map[string]any{"url": site.URL + "/tides"}),
		llmtest.Reply{Chunks: llmtest.Text("The sea rises twice a day [1].", 3)},
	)
	sess, _ := db.CreateSession(bg, store.Session{Title: "tides", Model: "m"})
	res, rec, orig := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Read the page on tides.", BaseURL: srv.URL(), Approver: agent.PolicyApprover{AllowAll: true}})
	if !res.OK || fetched.Load() != 1 {
		t.Fatalf("original: %+v, fetched %d times", res, fetched.Load())
	}
	want := pageSources(t, rec)
	if len(want) != 1 || want[0].N != 1 || want[0].Kind != turn.SourcePage || want[0].URL != site.URL+"/tides" ||
		!strings.Contains(want[0].Text, "Spring tides") || strings.Contains(want[0].Text, "MENU") {
		t.Fatalf("sources %+v", want)
	}
	if g := rec.Of(turn.EventGuardTriggered); len(g) != 1 || !strings.Contains(string(g[0].Data), "allowed once") {
		t.Fatalf("the first read of a site is asked about: %v", g)
	}
	site.Close()
	srv.Close()

	rsess, _ := db.CreateSession(bg, store.Session{Title: "replay"})
	rep, rrec, _ := run(t, eng.Runner, runner.Request{SessionID: rsess.ID, Replay: &runner.Replay{TurnID: orig}})
	if !rep.OK || rep.FinalText != "The sea rises twice a day [1]." || fetched.Load() != 1 {
		t.Fatalf("replay: %+v, fetched %d times", rep, fetched.Load())
	}
	if d := divergences(t, rrec); len(d) != 0 {
		t.Fatalf("the replay diverged: %+v", d)
	}
	if got := pageSources(t, rrec); !reflect.DeepEqual(got, want) {
		t.Fatalf("replayed sources %+v, want %+v", got, want)
	}
	ran, replayed := rec.Of(turn.EventToolResult), rrec.Of(turn.EventToolResult)
	if len(ran) != 1 || len(replayed) != 1 {
		t.Fatalf("%d results, then %d in the replay", len(ran), len(replayed))
	}
	if a, b := turntest.Data[turn.ToolResultData](t, ran[0]).Output, turntest.Data[turn.ToolResultData](t, replayed[0]).Output; a != b || !strings.Contains(a, "Spring tides") {
		t.Fatalf("the model got a different page in the replay:\n%s\n%s", a, b)
	}
}
