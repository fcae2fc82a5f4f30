package cli

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
)

// TestUsageAndCostOfPricedTurns: two turns on a provider priced by the
// user, the server reporting their tokens (some cached). turns show
// --json gives each turn's tokens and cost at that price, sessions show
// the session's sum, and usage --json, --csv and the table the month's;
// a replay of a turn costs nothing and adds nothing to usage.
func TestUsageAndCostOfPricedTurns(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{Chunks: llmtest.Text("first answer", 2), Usage: &llmtest.Usage{PromptTokens: 1_000, CompletionTokens: 200, CachedTokens: 400}},
		llmtest.Reply{Chunks: llmtest.Text("second answer", 2), Usage: &llmtest.Usage{PromptTokens: 3_000, CompletionTokens: 500}},
	)
	db := filepath.Join(t.TempDir(), "a.db")
	if r := agentdeck(t, db, "", nil, nil, "providers", "add", "paid", "--base-url", srv.URL(), "--model", "m", "--price", "2,8,0.5"); r.code != ExitOK {
		t.Fatalf("add: %d %s", r.code, r.stderr)
	}
	first := agentdeck(t, db, "", nil, nil, "run", "--provider", "paid", "--model", "m", "one")
	if first.code != ExitOK {
		t.Fatalf("run: %d %s", first.code, first.stderr)
	}
	sessionID, turnID := idsOf(t, first.stderr)
	second := agentdeck(t, db, "", nil, nil, "run", "--provider", "paid", "--model", "m", "--session", sessionID, "two")
	if second.code != ExitOK {
		t.Fatalf("second run: %d %s", second.code, second.stderr)
	}
	firstCost := (600*2 + 400*0.5 + 200*8) / 1e6
	secondCost := (3_000*2 + 500*8) / 1e6

	show := agentdeck(t, db, "", nil, nil, "turns", "show", turnID, "--json")
	var tv struct {
		Usage struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
			Cached       int `json:"cached_input_tokens"`
		} `json:"usage"`
		Cost *struct {
			USD       float64 `json:"usd"`
			Estimated bool    `json:"estimated"`
		} `json:"cost"`
		Stages []struct {
			Diagnostics struct {
				ModelCalls []struct {
					Provider string `json:"provider"`
					Price    struct {
						InputPerM float64 `json:"input_per_m"`
						Source    string  `json:"source"`
					} `json:"price"`
				} `json:"model_calls"`
			} `json:"diagnostics"`
		} `json:"stages"`
	}
	if err := json.Unmarshal([]byte(show.stdout), &tv); err != nil {
		t.Fatalf("%v: %s", err, show.stdout)
	}
	if tv.Usage.InputTokens != 1_000 || tv.Usage.OutputTokens != 200 || tv.Usage.Cached != 400 || tv.Cost == nil || tv.Cost.Estimated ||
		math.Abs(tv.Cost.USD-firstCost) > 1e-12 {
		t.Fatalf("turns show: usage %+v cost %+v, want $%v", tv.Usage, tv.Cost, firstCost)
	}
	if c := tv.Stages[0].Diagnostics.ModelCalls[0]; c.Provider != "paid" || c.Price.InputPerM != 2 || c.Price.Source != "user" {
		t.Fatalf("the call's price: %+v", c)
	}
	if text := agentdeck(t, db, "", nil, nil, "turns", "show", turnID); !strings.Contains(text.stdout, "tokens 1000 in / 200 out · cost $0.0030") {
		t.Fatalf("turns show (text): %s", text.stdout)
	}

	// A replay serves the recording: free, and out of usage.
	if r := agentdeck(t, db, "", nil, nil, "replay", turnID); r.code != ExitOK {
		t.Fatalf("replay: %d %s", r.code, r.stderr)
	}

	var rep store.UsageReport
	u := agentdeck(t, db, "", nil, nil, "usage", "--json")
	if err := json.Unmarshal([]byte(u.stdout), &rep); err != nil || u.code != ExitOK {
		t.Fatalf("usage --json: %d %v %s %s", u.code, err, u.stdout, u.stderr)
	}
	if rep.Total.Calls != 2 || rep.Total.InputTokens != 4_000 || rep.Total.OutputTokens != 700 || rep.Total.CachedInputTokens != 400 ||
		math.Abs(rep.Total.CostUSD-(firstCost+secondCost)) > 1e-12 || rep.Total.Unpriced != 0 {
		t.Fatalf("usage total %+v, want 2 calls costing $%v", rep.Total, firstCost+secondCost)
	}
	if len(rep.Rows) != 1 || rep.Rows[0].Key != "m" || len(rep.TopTurns) != 2 || rep.TopTurns[1].TurnID != turnID {
		t.Fatalf("usage rows %+v top %+v", rep.Rows, rep.TopTurns)
	}
	byProvider := agentdeck(t, db, "", nil, nil, "usage", "--by", "provider", "--csv")
	recs, err := csv.NewReader(strings.NewReader(byProvider.stdout)).ReadAll()
	if err != nil || len(recs) != 2 || recs[0][0] != "provider" || recs[1][0] != "paid" || recs[1][1] != "2" || recs[1][2] != "4000" {
		t.Fatalf("usage --csv: %v %q", err, byProvider.stdout)
	}
	if table := agentdeck(t, db, "", nil, nil, "usage"); !strings.Contains(table.stdout, "2 model calls · 4000 in / 700 out tokens · 10% cached · cost $0.01") {
		t.Fatalf("usage table: %s", table.stdout)
	}
	sess := agentdeck(t, db, "", nil, nil, "sessions", "show", sessionID, "--json")
	var sv struct {
		Usage store.UsageSum `json:"usage"`
	}
	if err := json.Unmarshal([]byte(sess.stdout), &sv); err != nil || sv.Usage.Calls != 2 || math.Abs(sv.Usage.CostUSD-(firstCost+secondCost)) > 1e-12 {
		t.Fatalf("sessions show: %+v %v", sv.Usage, err)
	}

	for _, bad := range [][]string{{"usage", "--by", "colour"}, {"usage", "--since", "soon"}, {"usage", "--json", "--csv"}} {
		if r := agentdeck(t, db, "", nil, nil, bad...); r.code != ExitUsage || strings.Contains(r.stderr, "panic") {
			t.Errorf("%v: %d %s", bad, r.code, r.stderr)
		}
	}
}

// TestBudgets: past 80% of a provider's monthly budget a run warns; at
// 100% a headless run refuses, whatever the provider asks for, until
// --over-budget is given; a provider that refuses says to raise it.
func TestBudgets(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Respond(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("spent", 1), Usage: &llmtest.Usage{PromptTokens: 1_000_000, CompletionTokens: 0}}
	})
	for _, over := range []string{"ask", "refuse"} {
		t.Run(over, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "a.db")
			// $1 a call against a $4 budget.
			if r := agentdeck(t, db, "", nil, nil, "providers", "add", "paid", "--base-url", srv.URL(), "--model", "m", "--price", "1,0", "--budget", "4", "--over", over); r.code != ExitOK {
				t.Fatalf("add: %d %s", r.code, r.stderr)
			}
			run := func(args ...string) cliRun {
				return agentdeck(t, db, "", nil, nil, append([]string{"run", "--provider", "paid", "--model", "m"}, args...)...)
			}
			for i := range 3 {
				if r := run("go"); r.code != ExitOK || strings.Contains(r.stderr, "budget") {
					t.Fatalf("run %d under 80%%: %d %s", i+1, r.code, r.stderr)
				}
			}
			// $3 spent: the fourth call starts at 75% and ends at 100%.
			r := run("go")
			if r.code != ExitOK || !strings.Contains(r.stderr, "100% of this month's budget for paid is spent: $4.00 of $4.00") {
				t.Fatalf("run at 75%%: %d %s", r.code, r.stderr)
			}
			if r := run("go"); r.code != ExitFailed || !strings.Contains(r.stderr, "This month's budget for paid is spent: $4.00 of $4.00") {
				t.Fatalf("run past the budget: %d %s", r.code, r.stderr)
			} else if want := map[string]string{"ask": "--over-budget", "refuse": "Raise it in Settings"}[over]; !strings.Contains(r.stderr, want) {
				t.Errorf("the refusal does not say %q: %s", want, r.stderr)
			}
			if r := run("--over-budget", "go"); r.code != ExitOK {
				t.Fatalf("--over-budget: %d %s", r.code, r.stderr)
			}
		})
	}
}

// TestABaseURLOnThisMachineIsFree: a run against a server on this
// machine, named by --base-url alone, costs nothing (not "unknown"); the
// server reported no usage, so the tokens are marked estimated.
func TestABaseURLOnThisMachineIsFree(t *testing.T) {
	t.Parallel()
	srv := echoServer(t)
	db := filepath.Join(t.TempDir(), "a.db")
	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "hello")
	if r.code != ExitOK {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	_, turnID := idsOf(t, r.stderr)
	if show := agentdeck(t, db, "", nil, nil, "turns", "show", turnID); !strings.Contains(show.stdout, "· cost $0 (estimated tokens)\n") {
		t.Fatalf("turns show: %s", show.stdout)
	}
}

// TestUsageIsTheSameAfterAForkAndImports: a fork and two imports of a
// session copy its turns and their calls, but the server was called only
// for the turns run: usage --json is the same after as before, the
// month's budget does not fill up with the copies, and the copies' costs
// are shown as copied and not counted.
func TestUsageIsTheSameAfterAForkAndImports(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Respond(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("spent", 1), Usage: &llmtest.Usage{PromptTokens: 1_000_000, CompletionTokens: 0}}
	})
	db := filepath.Join(t.TempDir(), "a.db")
	// $1 a call against a $4 budget: 3 calls are 75%, under the warning.
	if r := agentdeck(t, db, "", nil, nil, "providers", "add", "paid", "--base-url", srv.URL(), "--model", "m", "--price", "1,0", "--budget", "4", "--over", "refuse"); r.code != ExitOK {
		t.Fatalf("add: %d %s", r.code, r.stderr)
	}
	run := func(args ...string) cliRun {
		t.Helper()
		r := agentdeck(t, db, "", nil, nil, append([]string{"run", "--provider", "paid", "--model", "m"}, args...)...)
		if r.code != ExitOK || strings.Contains(r.stderr, "budget") {
			t.Fatalf("run %v: %d %s", args, r.code, r.stderr)
		}
		return r
	}
	sessionID, _ := idsOf(t, run("one").stderr)
	run("--session", sessionID, "two")
	_, last := idsOf(t, run("--session", sessionID, "three").stderr)
	// The report, less its span (which moves with the clock).
	usage := func() store.UsageReport {
		t.Helper()
		u := agentdeck(t, db, "", nil, nil, "usage", "--json")
		var rep store.UsageReport
		if err := json.Unmarshal([]byte(u.stdout), &rep); u.code != ExitOK || err != nil {
			t.Fatalf("usage: %d %v %s", u.code, err, u.stderr)
		}
		rep.Since, rep.Until = "", ""
		return rep
	}
	before := usage()

	fork := agentdeck(t, db, "", nil, nil, "sessions", "fork", last)
	if fork.code != ExitOK {
		t.Fatalf("fork: %d %s", fork.code, fork.stderr)
	}
	forkID := strings.TrimSpace(fork.stdout)
	file := filepath.Join(t.TempDir(), "s.json")
	if r := agentdeck(t, db, "", nil, nil, "sessions", "export", sessionID, "--format", "json", "-o", file); r.code != ExitOK {
		t.Fatalf("export: %d %s", r.code, r.stderr)
	}
	for range 2 {
		if r := agentdeck(t, db, "", nil, nil, "sessions", "import", file); r.code != ExitOK {
			t.Fatalf("import: %d %s", r.code, r.stderr)
		}
	}
	if after := usage(); !reflect.DeepEqual(after, before) {
		t.Fatalf("usage changed with a fork and two imports:\nbefore %+v\nafter  %+v", before, after)
	}
	if before.Total.Calls != 3 || math.Abs(before.Total.CostUSD-3) > 1e-9 {
		t.Fatalf("usage: %+v", before.Total)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("the server was called %d times", n)
	}

	// The fork shows its copied turns' costs, marked, and sums none.
	show := agentdeck(t, db, "", nil, nil, "sessions", "show", forkID)
	if !strings.Contains(show.stdout, "0 model calls · 0 in / 0 out tokens") ||
		strings.Count(show.stdout, "cost $1.00 · copied from the session it was forked from, not counted") != 3 {
		t.Fatalf("sessions show of the fork:\n%s", show.stdout)
	}

	// The budget counts the 3 calls made, not the 12 stored: a fourth
	// run starts at 75% and ends at 100%.
	r := agentdeck(t, db, "", nil, nil, "run", "--provider", "paid", "--model", "m", "--session", forkID, "four")
	if r.code != ExitOK || !strings.Contains(r.stderr, "100% of this month's budget for paid is spent: $4.00 of $4.00") {
		t.Fatalf("a run in the fork: %d %s", r.code, r.stderr)
	}
	if rep := usage(); rep.Total.Calls != 4 {
		t.Fatalf("usage after a turn in the fork: %+v", rep.Total)
	}
}
