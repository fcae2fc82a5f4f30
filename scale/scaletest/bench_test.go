//go:build scale

package scaletest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
)

// BenchmarkScale runs a suite against the scripted model locally (the
// floor, measured in the same run) and on Temporal with 1, 2 and 4
// workers, each running 4 cells at a time, all on this one machine:
//
//   - instant: 120 cases the model answers at once, so what is measured
//     is our overhead, not a model's; one cell at a time (c1) alone gives
//     the overhead of a cell as an activity;
//   - 1s: 48 cases each answered over about a second, as a hosted model
//     does: the model's time dominates, which is what workers spread.
//
// Run it with make bench-scale. It reports cells/min, ms per cell, and
// from the Temporal history the activity attempts per cell and workflows
// per run (what Temporal Cloud bills, heartbeats aside).
func BenchmarkScale(b *testing.B) {
	workerBin, temporalBin := bins(b)
	addr := temporalServer(b, temporalBin)
	tc, err := client.Dial(client.Options{HostPort: addr, Logger: quietLog{}})
	if err != nil {
		b.Fatal(err)
	}
	defer tc.Close()

	for _, m := range []struct {
		name  string
		cases int
		reply llmtest.Reply
		runs  []string // local/cN and temporal/wNcN
	}{
		{"instant", 120, llmtest.Reply{Chunks: llmtest.Text("It is Paris.", 3)},
			[]string{"local/c1", "local/c4", "temporal/w1c1", "temporal/w1c4", "temporal/w2c4", "temporal/w4c4"}},
		{"1s", 48, llmtest.Reply{Chunks: llmtest.Text("It is Paris, the capital of France.", 10), Delay: 100 * time.Millisecond},
			[]string{"local/c4", "temporal/w1c4", "temporal/w2c4", "temporal/w4c4"}},
	} {
		srv := llmtest.NewServer(b)
		srv.Respond(func(llmtest.Request) llmtest.Reply { return m.reply })
		suite := suiteFile(b, m.cases)
		for _, name := range m.runs {
			b.Run(m.name+"/"+name, func(b *testing.B) {
				var workers, c int
				if _, err := fmt.Sscanf(name, "local/c%d", &c); err == nil {
					for b.Loop() {
						start := time.Now()
						runLocal(b, srv, suite, c)
						report(b, m.cases, time.Since(start))
					}
					return
				}
				if _, err := fmt.Sscanf(name, "temporal/w%dc%d", &workers, &c); err != nil {
					b.Fatal(err)
				}
				runTemporal(b, tc, addr, workerBin, srv, suite, m.cases, workers, c)
			})
		}
	}
}

// runTemporal runs the suite with workers agentdeck-workers of c cells
// at a time, each iteration a new run into a new database at home.
func runTemporal(b *testing.B, tc client.Client, addr, workerBin string, srv *llmtest.Server, suite string, cases, workers, c int) {
	share := b.TempDir()
	var procs []*proc
	for i := range workers {
		procs = append(procs, start(b, fmt.Sprintf("worker-%d", i+1), workerBin, "worker", "--temporal", addr, "--share", share,
			"--db", workerDB(b, srv), "--name", fmt.Sprintf("w%d", i+1), "--concurrency", fmt.Sprint(c)))
	}
	for b.Loop() {
		home := filepath.Join(b.TempDir(), "home.db")
		started := time.Now()
		cl := start(b, "client", workerBin, "eval", suite, "--temporal", addr, "--share", share, "--db", home, "--json")
		if code := cl.exitCode(); code != 0 {
			b.Fatalf("the run exited %d", code)
		}
		report(b, cases, time.Since(started))
		countActions(b, tc, cl, cases)
	}
	for _, p := range procs {
		p.stop(syscall.SIGINT)
	}
}

func report(b *testing.B, cases int, d time.Duration) {
	b.ReportMetric(float64(cases)/d.Minutes(), "cells/min")
	b.ReportMetric(float64(d.Milliseconds())/float64(cases), "ms/cell")
}

// runLocal runs the suite as agentdeck eval does, on a new database.
func runLocal(b *testing.B, srv *llmtest.Server, suitePath string, concurrency int) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "local.db")
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.SaveProvider(ctx, llm.Provider{Name: "fake", Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true}); err != nil {
		b.Fatal(err)
	}
	eng, err := setup.Build(ctx, db, setup.Options{DataDir: filepath.Dir(path)})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	s, err := eval.Load(suitePath)
	if err != nil {
		b.Fatal(err)
	}
	sr, err := eval.NewSuiteRun(ctx, db, s, eval.RunOptions{Concurrency: concurrency})
	if err != nil {
		b.Fatal(err)
	}
	run, err := sr.Execute(ctx, eval.NewRunner(db, eng.Runner, nil, nil), nil)
	if err != nil || run.State != store.EvalCompleted {
		b.Fatalf("the local run: %s %v", run.State, err)
	}
}

var workflowLine = regexp.MustCompile(`workflow (agentdeck-eval-\S+) started`)

// countActions reports the run's activity attempts and workflows, from
// its history: what Temporal Cloud bills, heartbeats aside.
func countActions(b *testing.B, tc client.Client, cl *proc, cases int) {
	out, err := os.ReadFile(cl.out.Name())
	if err != nil {
		b.Fatal(err)
	}
	m := workflowLine.FindSubmatch(out)
	if m == nil {
		b.Fatalf("no workflow id in %s", out)
	}
	attempts, workflows := 0, 1
	it := tc.GetWorkflowHistory(context.Background(), string(m[1]), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			b.Fatal(err)
		}
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			attempts++
		case enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
			workflows++
		}
	}
	b.ReportMetric(float64(attempts)/float64(cases), "attempts/cell")
	b.ReportMetric(float64(workflows), "workflows/run")
}

// quietLog drops the SDK's log.
type quietLog struct{}

func (quietLog) Debug(string, ...any) {}
func (quietLog) Info(string, ...any)  {}
func (quietLog) Warn(string, ...any)  {}
func (quietLog) Error(string, ...any) {}
