package runner_test

import (
	"context"
	"math"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/tokens"
)

// TestTurnsArePricedAndWindowsAsked: a turn on a llama.cpp provider asks
// its server for the model's window once (kept with the provider, not
// asked again by the next turn), and its calls carry the user's price and
// the cost at it; the meter shows the server's window.
func TestTurnsArePricedAndWindowsAsked(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	ctx := context.Background()
	srv := llmtest.NewServer(t)
	srv.ServeJSON("GET", "/props", map[string]any{"default_generation_settings": map[string]any{"n_ctx": 4096}})
	srv.Enqueue(
		llmtest.Reply{Chunks: llmtest.Text("one", 1), Usage: &llmtest.Usage{PromptTokens: 500, CompletionTokens: 100}},
		llmtest.Reply{Chunks: llmtest.Text("two", 1), Usage: &llmtest.Usage{PromptTokens: 700, CompletionTokens: 100}},
	)
	p := llm.Provider{Name: "lc", Kind: catalog.KindLlamaCpp, BaseURL: srv.URL(), Local: true,
		Prices: map[string]llm.Price{"qwen3": {InputPerM: 1, OutputPerM: 3}}}
	if err := db.SaveProvider(ctx, p); err != nil {
		t.Fatal(err)
	}
	sess, _ := db.CreateSession(ctx, store.Session{Title: "priced", Model: "qwen3", Provider: "lc"})
	for _, msg := range []string{"hello", "again"} {
		h, err := eng.Runner.Start(ctx, runner.Request{SessionID: sess.ID, Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		res := h.Wait()
		if !res.OK || res.Cost == nil || len(res.ModelCalls) != 1 {
			t.Fatalf("%s: %+v", msg, res)
		}
		c := res.ModelCalls[0]
		want := (float64(c.Usage.InputTokens)*1 + float64(c.Usage.OutputTokens)*3) / 1e6
		if c.Provider != "lc" || c.Price == nil || c.Price.Source != llm.PriceUser || math.Abs(c.Cost.USD-want) > 1e-12 || math.Abs(res.Cost.USD-want) > 1e-12 {
			t.Fatalf("%s: call %+v price %+v cost %+v", msg, c, c.Price, c.Cost)
		}
	}
	if asked := srv.Served(); len(asked) != 1 || asked[0] != "GET /props" {
		t.Fatalf("the server was asked %v; want /props once", asked)
	}
	m, err := eng.Runner.Meter(ctx, runner.MeterRequest{SessionID: sess.ID, Draft: "and a third"})
	if err != nil || m.Window.Tokens != 4096 || m.Window.Source != llm.WindowServer || m.Price == nil || m.Price.InputPerM != 1 {
		t.Fatalf("meter %+v %v", m, err)
	}
}

// TestMeterGrowsWithTheDraftAndWarns: the meter counts the conversation
// on the path, the system prompt and the draft; a longer draft counts
// more; near the window it says near, past it over. An OpenAI model is
// counted exactly; another is estimated and then corrected by what its
// server reported for the last turn.
func TestMeterGrowsWithTheDraftAndWarns(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	ctx := context.Background()
	srv := llmtest.NewServer(t)
	// The server counts far more than the estimate: the correction is
	// held to twice it.
	srv.Respond(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("noted", 1), Usage: &llmtest.Usage{PromptTokens: 100 * estimateOf(r), CompletionTokens: 2}}
	})
	p := llm.Provider{Name: "small", Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true, Windows: map[string]int{"llama3": 4000, "gpt-4o": 4000}}
	if err := db.SaveProvider(ctx, p); err != nil {
		t.Fatal(err)
	}
	sess, _ := db.CreateSession(ctx, store.Session{Title: "meter", Model: "llama3", Provider: "small"})

	empty, err := eng.Runner.Meter(ctx, runner.MeterRequest{SessionID: sess.ID})
	if err != nil || empty.Window.Tokens != 4000 || empty.Window.Source != llm.WindowUser || empty.State != runner.MeterOK || empty.Method != tokens.MethodEstimate {
		t.Fatalf("empty: %+v %v", empty, err)
	}
	var last runner.Meter
	for _, words := range []int{10, 100, 2100, 3000} {
		m, err := eng.Runner.Meter(ctx, runner.MeterRequest{SessionID: sess.ID, Draft: strings.Repeat("word ", words)})
		if err != nil {
			t.Fatal(err)
		}
		if m.Total <= last.Total || part(m, "draft") <= part(last, "draft") {
			t.Fatalf("%d words: %d tokens, not more than %d", words, m.Total, last.Total)
		}
		sum := 0
		for _, p := range m.Parts {
			sum += p.Tokens
		}
		if sum != m.Total {
			t.Fatalf("the parts add to %d, the total is %d", sum, m.Total)
		}
		want := map[int]string{10: runner.MeterOK, 100: runner.MeterOK, 2100: runner.MeterNear, 3000: runner.MeterOver}[words]
		if m.State != want {
			t.Errorf("%d words (%d of %d tokens): %s, want %s", words, m.Total, m.Window.Tokens, m.State, want)
		}
		last = m
	}

	// A turn whose server counted more than the estimate: the next
	// estimate is corrected, by twice at most.
	h, err := eng.Runner.Start(ctx, runner.Request{SessionID: sess.ID, Message: strings.Repeat("history ", 50)})
	if err != nil {
		t.Fatal(err)
	}
	if res := h.Wait(); !res.OK {
		t.Fatalf("turn: %+v", res)
	}
	after, err := eng.Runner.Meter(ctx, runner.MeterRequest{SessionID: sess.ID, Draft: "short"})
	if err != nil || !after.Corrected || after.HistoryMessages != 2 || part(after, "history") == 0 {
		t.Fatalf("after a turn: %+v %v", after, err)
	}
	// Each part is scaled: the system prompt, the same as before the
	// turn, now counts twice.
	if got, was := part(after, "system"), part(empty, "system"); math.Abs(float64(got)-2*float64(was)) > 2 {
		t.Fatalf("corrected system prompt %d tokens, want twice the estimate %d", got, was)
	}

	// An OpenAI model is counted exactly, and not corrected.
	exact, err := eng.Runner.Meter(ctx, runner.MeterRequest{SessionID: sess.ID, Model: "gpt-4o", Draft: "hello world"})
	if err != nil || exact.Method != tokens.MethodO200k || exact.Corrected {
		t.Fatalf("gpt-4o: %+v %v", exact, err)
	}
	if n, _ := tokens.New().Text("gpt-4o", "hello world"); part(exact, "draft") != n+4 {
		t.Fatalf("gpt-4o draft: %d tokens, want %d + 4", part(exact, "draft"), n)
	}
}

// TestMeterCountsATurnOnceItHasEnded: the meter keeps its count of the
// conversation for the next keystroke, but a count taken while the turn
// the draft follows runs (its answer not yet kept) is taken again once
// the turn has ended, not served from before.
func TestMeterCountsATurnOnceItHasEnded(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	ctx := context.Background()
	srv := llmtest.NewServer(t)
	arrived, release := make(chan struct{}), make(chan struct{})
	srv.Respond(func(llmtest.Request) llmtest.Reply {
		close(arrived)
		<-release
		return llmtest.Reply{Chunks: llmtest.Text(strings.Repeat("answer ", 200), 4)}
	})
	p := llm.Provider{Name: "local", Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true}
	if err := db.SaveProvider(ctx, p); err != nil {
		t.Fatal(err)
	}
	sess, _ := db.CreateSession(ctx, store.Session{Title: "meter mid-turn", Model: "llama3", Provider: "local"})
	h, err := eng.Runner.Start(ctx, runner.Request{SessionID: sess.ID, Message: "tell me at length"})
	if err != nil {
		t.Fatal(err)
	}
	<-arrived
	during, err := eng.Runner.Meter(ctx, runner.MeterRequest{SessionID: sess.ID, Draft: "next"})
	if err != nil {
		t.Fatal(err)
	}
	close(release)
	if res := h.Wait(); !res.OK {
		t.Fatalf("turn: %+v", res)
	}
	after, err := eng.Runner.Meter(ctx, runner.MeterRequest{SessionID: sess.ID, Draft: "next"})
	if err != nil {
		t.Fatal(err)
	}
	if after.HistoryMessages != 2 || part(after, "history") < part(during, "history")+150 {
		t.Fatalf("after the turn: %d messages, %d history tokens (during it: %d messages, %d tokens)",
			after.HistoryMessages, part(after, "history"), during.HistoryMessages, part(during, "history"))
	}
}

// TestBudgetRefusesUntilTheOwnerAgrees: a provider past its monthly
// budget refuses a turn with OverBudget, unless the request says the
// person agreed; the state says warning past 80%.
func TestBudgetRefusesUntilTheOwnerAgrees(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	ctx := context.Background()
	srv := llmtest.NewServer(t)
	srv.Respond(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("ok", 1), Usage: &llmtest.Usage{PromptTokens: 850_000}}
	})
	p := llm.Provider{Name: "paid", Kind: catalog.KindCustom, BaseURL: srv.URL(), Prices: map[string]llm.Price{"": {InputPerM: 1}},
		Budget: &llm.Budget{MonthlyUSD: 1, OverLimit: llm.BudgetAsk}}
	if err := db.SaveProvider(ctx, p); err != nil {
		t.Fatal(err)
	}
	sess, _ := db.CreateSession(ctx, store.Session{Title: "budget", Model: "m", Provider: "paid"})
	send := func(over bool) error {
		h, err := eng.Runner.Start(ctx, runner.Request{SessionID: sess.ID, Message: "go", OverBudget: over})
		if err == nil {
			h.Wait()
		}
		return err
	}
	if err := send(false); err != nil {
		t.Fatal(err)
	}
	if b, err := eng.Runner.Budget(ctx, "paid"); err != nil || b.State != llm.BudgetWarning || math.Abs(b.SpentUSD-0.85) > 1e-9 {
		t.Fatalf("after $0.85: %+v %v", b, err)
	}
	if err := send(false); err != nil {
		t.Fatal(err)
	}
	if err := send(false); apperr.CodeOf(err) != apperr.OverBudget {
		t.Fatalf("past the budget: %v", err)
	}
	if err := send(true); err != nil {
		t.Fatalf("agreed to go over: %v", err)
	}
}

func part(m runner.Meter, name string) int {
	for _, p := range m.Parts {
		if p.Name == name {
			return p.Tokens
		}
	}
	return 0
}

// estimateOf is the estimate of a request's messages, as the meter makes
// it for a model it cannot count exactly.
func estimateOf(r llmtest.Request) int {
	var msgs []llm.Message
	for _, m := range r.Messages {
		msgs = append(msgs, llm.Message{Role: llm.Role(m.Role), Content: m.Content})
	}
	n, _ := tokens.New().Prompt("llama3", msgs, nil)
	return n
}

// TestModelFactsAskOnceUnlessUnreachable: a server that answers without a
// window (no /props) is not asked again; one that cannot be reached is
// not kept (it is asked again once factsRetry has passed), and meanwhile
// the table's window is used with a note.
func TestModelFactsAskOnceUnlessUnreachable(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	ctx := context.Background()
	srv := llmtest.NewServer(t)
	if err := db.SaveProvider(ctx, llm.Provider{Name: "bare", Kind: catalog.KindLlamaCpp, BaseURL: srv.URL(), Local: true}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		f, err := eng.Runner.ModelFacts(ctx, "bare", "qwen3")
		if err != nil || f.Window.Source != llm.WindowKnown || f.Note != "" {
			t.Fatalf("%+v %v", f, err)
		}
	}
	if _, ok, _ := db.ModelInfo(ctx, "bare", "qwen3"); !ok {
		t.Fatal("an answer without a window was not kept")
	}

	dead := llmtest.NewServer(t)
	deadURL := dead.URL()
	dead.Close()
	if err := db.SaveProvider(ctx, llm.Provider{Name: "gone", Kind: catalog.KindLlamaCpp, BaseURL: deadURL, Local: true}); err != nil {
		t.Fatal(err)
	}
	f, err := eng.Runner.ModelFacts(ctx, "gone", "qwen3")
	if err != nil || f.Window.Source != llm.WindowKnown || !strings.Contains(f.Note, "could not be asked") {
		t.Fatalf("unreachable: %+v %v", f, err)
	}
	if _, ok, _ := db.ModelInfo(ctx, "gone", "qwen3"); ok {
		t.Fatal("an unreachable server's silence was kept")
	}
}

// TestUnreachableServerIsNotAskedOnEveryReading: the meter reads a
// model's facts after every pause in typing; a server that cannot be
// reached is asked once, and the readings after it use the answer held
// in memory instead of waiting on the server again.
func TestUnreachableServerIsNotAskedOnEveryReading(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	done := make(chan struct{})
	go func() { // a server that hangs up on every connection
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	url := "http://" + ln.Addr().String() + "/v1"
	if err := db.SaveProvider(ctx, llm.Provider{Name: "flaky", Kind: catalog.KindLlamaCpp, BaseURL: url, Local: true}); err != nil {
		t.Fatal(err)
	}
	f, err := eng.Runner.ModelFacts(ctx, "flaky", "qwen3")
	if err != nil || !strings.Contains(f.Note, "could not be asked") {
		t.Fatalf("first reading: %+v %v", f, err)
	}
	asked := accepted.Load()
	if asked == 0 {
		t.Fatal("the server was never asked")
	}
	for range 3 {
		g, err := eng.Runner.ModelFacts(ctx, "flaky", "qwen3")
		if err != nil || g.Window != f.Window || g.Note != f.Note {
			t.Fatalf("a later reading: %+v %v, want %+v", g, err, f)
		}
	}
	if n := accepted.Load(); n != asked {
		t.Fatalf("the server was asked on %d connections after the first reading's %d", n, asked)
	}
}
