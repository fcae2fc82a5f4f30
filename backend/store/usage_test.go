package store

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// pricedCall is a call of model on provider at price (nil: unknown),
// started at, that used in and out tokens.
func pricedCall(provider, model string, price *llm.Price, at time.Time, in, out int) llm.CallDiagnostics {
	u := llm.Usage{InputTokens: in, OutputTokens: out, TotalTokens: in + out}
	c := llm.CallDiagnostics{Model: model, Provider: provider, StartedAt: at, Usage: u, OK: true}
	if price != nil {
		p := *price
		cost := p.Cost(u)
		c.Price, c.Cost = &p, &cost
	}
	return c
}

// storeCalls stores a finished turn of workflow wf that made calls.
func storeCalls(t *testing.T, db *DB, sessionID, wf, user string, calls ...llm.CallDiagnostics) Turn {
	t.Helper()
	tr, err := db.StartTurn(ctx, Turn{SessionID: sessionID, UserMessage: user, Workflow: wf, Model: calls[0].Model})
	if err != nil {
		t.Fatal(err)
	}
	var usage llm.Usage
	for _, c := range calls {
		usage = usage.Add(c.Usage)
	}
	res := turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, Termination: turn.Termination{Kind: turn.TermNaturalCompletion}, FinalText: "ok",
		Usage: usage, Cost: llm.CallsCost(calls), ModelCalls: calls,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: user}, {Role: llm.RoleAssistant, Content: "ok"}}}
	if err := db.FinishTurn(ctx, tr.ID, 0, res); err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestPricesAreKeptWithEachCall: each call is stored with the provider it
// went to, the price it ran at and its cost at that price. Changing the
// provider's price afterwards changes nothing stored; the turn's and the
// session's cost are the sums of their calls'; a call whose price was
// unknown keeps no cost (not $0); an export carries it all and an import
// brings it back.
func TestPricesAreKeptWithEachCall(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "Priced")
	at := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	price := &llm.Price{InputPerM: 3, OutputPerM: 15, Source: llm.PriceUser}
	if err := db.SaveProvider(ctx, llm.Provider{Name: "work", Kind: catalog.KindOpenAI, BaseURL: "https://example.invalid/v1", Prices: map[string]llm.Price{"": *price}}); err != nil {
		t.Fatal(err)
	}
	tr := storeCalls(t, db, s.ID, "chat", "what does it cost?",
		pricedCall("work", "gpt-x", price, at, 1_000, 200),
		pricedCall("work", "gpt-x", nil, at.Add(time.Second), 50, 5))
	const want = (1_000*3 + 200*15) / 1e6

	// A new price for the provider, after the turn.
	if err := db.SaveProvider(ctx, llm.Provider{Name: "work", Kind: catalog.KindOpenAI, BaseURL: "https://example.invalid/v1", Prices: map[string]llm.Price{"": {InputPerM: 300, OutputPerM: 1500}}}); err != nil {
		t.Fatal(err)
	}

	rows, err := db.reader.QueryContext(ctx, `SELECT provider, price, cost_usd FROM model_calls WHERE turn_id = ? ORDER BY idx`, tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	var stored []struct {
		provider, price string
		cost            *float64
	}
	for rows.Next() {
		var r struct {
			provider, price string
			cost            *float64
		}
		if err := rows.Scan(&r.provider, &r.price, &r.cost); err != nil {
			t.Fatal(err)
		}
		stored = append(stored, r)
	}
	rows.Close()
	if len(stored) != 2 {
		t.Fatalf("%d calls stored", len(stored))
	}
	var p llm.Price
	if err := json.Unmarshal([]byte(stored[0].price), &p); err != nil || p.InputPerM != 3 || p.OutputPerM != 15 || p.Source != llm.PriceUser ||
		stored[0].provider != "work" || stored[0].cost == nil || math.Abs(*stored[0].cost-want) > 1e-12 {
		t.Fatalf("the priced call: %+v (%+v, %v)", stored[0], p, err)
	}
	if stored[1].price != "" || stored[1].cost != nil {
		t.Fatalf("the unpriced call has a price or cost: %+v", stored[1])
	}

	got, err := db.GetTurn(ctx, tr.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	var res turn.Result
	if err := json.Unmarshal(got.Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.Cost == nil || math.Abs(res.Cost.USD-want) > 1e-12 || res.Cost.Unpriced != 1 || res.ModelCalls[0].Price.InputPerM != 3 {
		t.Fatalf("the turn's cost: %+v", res.Cost)
	}
	if len(got.Stages) != 1 || got.Stages[0].Diagnostics.Cost == nil || math.Abs(got.Stages[0].Diagnostics.Cost.USD-want) > 1e-12 {
		t.Fatalf("the stage's cost: %+v", got.Stages)
	}
	sum, err := db.SessionUsage(ctx, s.ID)
	if err != nil || sum.Calls != 2 || math.Abs(sum.CostUSD-want) > 1e-12 || sum.Unpriced != 1 || sum.InputTokens != 1_050 {
		t.Fatalf("the session's usage: %+v %v", sum, err)
	}

	var buf bytes.Buffer
	if err := export.Write(ctx, db, s.ID, export.JSON, &buf, export.Options{}); err != nil {
		t.Fatal(err)
	}
	dst := mustOpen(t)
	cp, err := dst.Import(ctx, bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	// The import's calls were counted where they ran: here they are shown
	// (their rows keep price and cost) but not counted again.
	back, err := dst.SessionUsage(ctx, cp.ID)
	if err != nil || back != (UsageSum{}) {
		t.Fatalf("imported usage %+v, want nothing counted (%v)", back, err)
	}
	var provider, storedPrice string
	if err := dst.reader.QueryRowContext(ctx, `SELECT provider, price FROM model_calls WHERE price != ''`).Scan(&provider, &storedPrice); err != nil || provider != "work" || storedPrice != stored[0].price {
		t.Fatalf("imported call: %q %q %v", provider, storedPrice, err)
	}
}

// TestUsageGroupsAndLeavesOutReplays: usage sums calls in the span asked,
// grouped as asked, costliest first (days in order); replayed calls count for nothing;
// the costliest sessions and turns are listed with their titles.
func TestUsageGroupsAndLeavesOutReplays(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	day1 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	day2 := day1.Add(24 * time.Hour)
	dear := &llm.Price{InputPerM: 10, OutputPerM: 30, Source: llm.PriceTable}
	free := &llm.Price{Source: llm.PriceLocal}
	a := newSession(t, db, "Costly")
	b := newSession(t, db, "Cheap")
	ta := storeCalls(t, db, a.ID, "critique", "expensive question",
		pricedCall("cloud", "big", dear, day1, 10_000, 1_000), pricedCall("cloud", "big", dear, day2, 5_000, 500))
	storeCalls(t, db, b.ID, "chat", "local question", pricedCall("ollama", "small", free, day2, 2_000, 300))
	replayed := pricedCall("cloud", "big", dear, day2, 99_000, 9_000)
	replayed.Capture = llm.CaptureReplayed
	storeCalls(t, db, b.ID, "chat", "replay", replayed)
	early := pricedCall("cloud", "big", dear, day1.Add(-48*time.Hour), 1, 1)
	storeCalls(t, db, b.ID, "chat", "long ago", early)

	costA := (15_000*10 + 1_500*30) / 1e6
	rep, err := db.Usage(ctx, UsageQuery{Since: day1, By: UsageByModel})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total.Calls != 3 || rep.Total.InputTokens != 17_000 || math.Abs(rep.Total.CostUSD-costA) > 1e-12 {
		t.Fatalf("total %+v", rep.Total)
	}
	if len(rep.Rows) != 2 || rep.Rows[0].Key != "big" || rep.Rows[0].Calls != 2 || rep.Rows[1].Key != "small" || rep.Rows[1].CostUSD != 0 {
		t.Fatalf("rows %+v", rep.Rows)
	}
	if len(rep.Series) != 3 || rep.Series[0].Day != "2026-11-01" || rep.Series[0].Key != "big" {
		t.Fatalf("series %+v", rep.Series)
	}
	if len(rep.TopTurns) != 2 || rep.TopTurns[0].TurnID != ta.ID || rep.TopTurns[0].Title != "Costly" || rep.TopTurns[0].Message != "expensive question" ||
		len(rep.TopSessions) != 2 || rep.TopSessions[0].SessionID != a.ID {
		t.Fatalf("top turns %+v sessions %+v", rep.TopTurns, rep.TopSessions)
	}
	for by, keys := range map[string][]string{
		UsageByProvider: {"cloud", "ollama"},
		UsageByWorkflow: {"critique", "chat"},
		UsageByDay:      {"2026-11-01", "2026-11-02"}, // in order, not by cost
	} {
		rep, err := db.Usage(ctx, UsageQuery{Since: day1, By: by})
		if err != nil || len(rep.Rows) != len(keys) {
			t.Fatalf("by %s: %+v %v", by, rep.Rows, err)
		}
		for i, k := range keys {
			if rep.Rows[i].Key != k {
				t.Errorf("by %s: row %d is %q, want %q", by, i, rep.Rows[i].Key, k)
			}
		}
	}
	if rep, err := db.Usage(ctx, UsageQuery{Since: day1, Until: day2, By: UsageByDay}); err != nil || len(rep.Rows) != 1 || rep.Rows[0].Key != "2026-11-01" {
		t.Fatalf("until day 2: %+v %v", rep.Rows, err)
	}
	if _, err := db.Usage(ctx, UsageQuery{By: "colour"}); err == nil {
		t.Fatal("a grouping that does not exist was accepted")
	}
	spent, err := db.ProviderSpend(ctx, "cloud", day1)
	if err != nil || math.Abs(spent-costA) > 1e-12 {
		t.Fatalf("cloud spent %v, want %v (%v)", spent, costA, err)
	}
}

// TestModelInfoIsKeptWithItsProvider: what a server said about a model is
// read back as kept, and forgotten when the provider is saved again (its
// address may have changed) or removed.
func TestModelInfoIsKeptWithItsProvider(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	p := llm.Provider{Name: "router", Kind: catalog.KindOpenRouter, BaseURL: "https://example.invalid/api/v1"}
	if err := db.SaveProvider(ctx, p); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC)
	info := ModelInfo{Provider: "router", Model: "openai/gpt-4o-mini", Window: 128_000, Price: &llm.Price{InputPerM: 0.15, OutputPerM: 0.6, Source: llm.PriceServer}, ReadAt: at}
	if err := db.SaveModelInfo(ctx, info); err != nil {
		t.Fatal(err)
	}
	got, ok, err := db.ModelInfo(ctx, "router", "openai/gpt-4o-mini")
	if err != nil || !ok || got.Window != 128_000 || got.Price == nil || *got.Price != *info.Price || !got.ReadAt.Equal(at) {
		t.Fatalf("%+v %v %v", got, ok, err)
	}
	if _, ok, err := db.ModelInfo(ctx, "router", "other"); ok || err != nil {
		t.Fatalf("a model never asked about: %v %v", ok, err)
	}
	if err := db.SaveProvider(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := db.ModelInfo(ctx, "router", "openai/gpt-4o-mini"); ok {
		t.Fatal("kept across a save of the provider")
	}
	if err := db.SaveModelInfo(ctx, info); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteProvider(ctx, "router"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := db.ModelInfo(ctx, "router", "openai/gpt-4o-mini"); ok {
		t.Fatal("kept after the provider was removed")
	}
}

// TestUsageCountsEvaluationsApart: the calls of evaluation sessions are
// in the total, and also summed apart, and grouped as their own kind.
func TestUsageCountsEvaluationsApart(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	price := &llm.Price{InputPerM: 1, OutputPerM: 2, Source: llm.PriceUser}
	chat, _ := db.CreateSession(ctx, Session{Title: "chat"})
	ev, _ := db.CreateSession(ctx, Session{Title: "suite · case", Kind: SessionEval})
	storeCalls(t, db, chat.ID, "chat", "hi", pricedCall("p", "m", price, at, 1000, 500))
	storeCalls(t, db, ev.ID, "chat", "case", pricedCall("p", "m", price, at, 3000, 1000), pricedCall("p", "m", price, at, 1000, 0))
	rep, err := db.Usage(ctx, UsageQuery{By: UsageByKind})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total.Calls != 3 || rep.Evaluations.Calls != 2 || rep.Evaluations.InputTokens != 4000 {
		t.Fatalf("total %+v, evaluations %+v", rep.Total, rep.Evaluations)
	}
	if math.Abs(rep.Evaluations.CostUSD-0.006) > 1e-12 {
		t.Fatalf("evaluations cost $%v, want $0.006", rep.Evaluations.CostUSD)
	}
	byKind := map[string]int{}
	for _, r := range rep.Rows {
		byKind[r.Key] = r.Calls
	}
	if byKind["eval"] != 2 || byKind["chat"] != 1 || len(byKind) != 2 {
		t.Fatalf("rows by kind: %+v", rep.Rows)
	}
}
