//go:build scale

package scaletest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// bins are the binaries under test, built by make test-scale.
func bins(t testing.TB) (worker, temporal string) {
	t.Helper()
	worker, temporal = os.Getenv("AGENTDECK_WORKER_BIN"), os.Getenv("TEMPORAL_BIN")
	if worker == "" || temporal == "" {
		t.Fatal("AGENTDECK_WORKER_BIN and TEMPORAL_BIN name the binaries under test: run make test-scale")
	}
	return worker, temporal
}

// freePort is a loopback port nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// proc is a process under test; its output is kept for a failure's log.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  *os.File
	done chan struct{}
	err  error
}

func start(t testing.TB, name, bin string, args ...string) *proc {
	t.Helper()
	out, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{name: name, cmd: exec.Command(bin, args...), out: out, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = out, out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop(syscall.SIGKILL)
		out.Close()
		if t.Failed() || testing.Verbose() {
			b, _ := os.ReadFile(out.Name())
			t.Logf("--- %s's output:\n%s", name, b)
		}
	})
	return p
}

// stop signals the process and waits for it to end.
func (p *proc) stop(sig syscall.Signal) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(sig)
	<-p.done
}

// exitCode waits for the process and returns its exit code.
func (p *proc) exitCode() int {
	<-p.done
	return p.cmd.ProcessState.ExitCode()
}

// temporalServer starts temporal server start-dev on loopback and returns
// its address once it says it serves.
func temporalServer(t testing.TB, bin string) string {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(bin, "server", "start-dev", "--ip", "127.0.0.1", "--port", fmt.Sprint(port),
		"--ui-port", fmt.Sprint(freePort(t)), "--metrics-port", fmt.Sprint(freePort(t)), "--headless", "--log-level", "error")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		wg.Wait()
	})
	ready := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(stdout)
		said := false
		for sc.Scan() {
			if !said && strings.HasPrefix(sc.Text(), "Server:") {
				said = true
				close(ready)
			}
		}
		if !said {
			close(ready)
		}
	}()
	<-ready
	if cmd.ProcessState != nil {
		t.Fatal("temporal server start-dev ended before it served")
	}
	return fmt.Sprintf("127.0.0.1:%d", port)
}

// workerDB is a worker's own database, its provider "fake" the scripted
// server srv.
func workerDB(t testing.TB, srv *llmtest.Server) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "worker.db")
	db, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.SaveProvider(context.Background(), llm.Provider{Name: "fake", Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true}); err != nil {
		t.Fatal(err)
	}
	return path
}

// suiteFile writes a suite of n cases on fake/m.
func suiteFile(t testing.TB, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("name: spread\nmodels: [fake/m]\ncases:\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  - id: c%02d\n    prompt: Capital of France? (%d)\n    assert:\n      - contains: Paris\n", i, i)
	}
	path := filepath.Join(t.TempDir(), "spread.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// homeResults reads the run's results from the starting side's database.
func homeResults(t *testing.T, path string) (store.EvalRun, []store.EvalResult) {
	t.Helper()
	db, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runs, err := db.EvalRuns(context.Background(), "spread", 10)
	if err != nil || len(runs) != 1 {
		t.Fatalf("the runs at home: %+v %v", runs, err)
	}
	results, err := db.EvalResults(context.Background(), runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.TurnID == "" {
			continue
		}
		d, err := db.GetTurn(context.Background(), r.TurnID, false)
		if err != nil || d.SessionID != r.SessionID {
			t.Fatalf("result %s's turn %s did not come home: %+v %v", r.ID, r.TurnID, d.Turn, err)
		}
	}
	return runs[0], results
}

// TestWorkerKilledMidRun: two workers share a suite's cells; one is
// killed with SIGKILL while its cells' model calls are streaming. Its
// cells are given to the other when their heartbeat stops, and every case
// ends with exactly one result at home, passed, with its turn. The run
// fans out in three child workflows of 5, 5 and 2 cells.
func TestWorkerKilledMidRun(t *testing.T) {
	workerBin, temporalBin := bins(t)
	addr := temporalServer(t, temporalBin)
	share, home := t.TempDir(), filepath.Join(t.TempDir(), "home.db")
	// Each worker has its own scripted model, so the test knows which is
	// mid-call. Answers stream over about a second.
	slow := func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("It is Paris, the capital.", 10), Delay: 100 * time.Millisecond}
	}
	doomed, survivor := llmtest.NewServer(t), llmtest.NewServer(t)
	doomed.Respond(slow)
	survivor.Respond(slow)
	const cases = 12
	w1 := start(t, "worker-1", workerBin, "worker", "--temporal", addr, "--share", share, "--db", workerDB(t, doomed),
		"--name", "w1", "--concurrency", "2", "--heartbeat-every", "200ms")
	w2 := start(t, "worker-2", workerBin, "worker", "--temporal", addr, "--share", share, "--db", workerDB(t, survivor),
		"--name", "w2", "--concurrency", "2", "--heartbeat-every", "200ms")
	client := start(t, "client", workerBin, "eval", suiteFile(t, cases), "--temporal", addr, "--share", share, "--db", home,
		"--heartbeat", "2s", "--batch", "5", "--json")

	// Worker 1 is mid-call on its third cell: it has ended some already.
	if !doomed.WaitRequests(3, 2*time.Minute) {
		t.Fatal("worker 1 was never given three cells")
	}
	w1.stop(syscall.SIGKILL)
	if code := client.exitCode(); code != 0 {
		t.Fatalf("the client exited %d, want 0 (every case passed)", code)
	}
	w2.stop(syscall.SIGTERM)

	run, results := homeResults(t, home)
	if run.State != store.EvalCompleted || len(results) != cases {
		t.Fatalf("run %s with %d results, want completed with %d", run.State, len(results), cases)
	}
	seen := map[string]bool{}
	for _, r := range results {
		if seen[r.CaseID] || r.State != store.EvalPassed || r.TurnID == "" {
			t.Fatalf("result %+v: each case once, passed, with its turn", r)
		}
		seen[r.CaseID] = true
	}
	if n := len(survivor.Requests()); n < cases-len(doomed.Requests())+1 {
		t.Fatalf("worker 2 answered %d calls; the killed worker's running cells were not run again", n)
	}
}

// TestStopCancelsTheRest: Ctrl+C on the starting side stops a run whose
// model never answers: the running cells are stopped, stored cancelled
// by their workers, and come home as that; no further cell starts; the
// run is stored cancelled and the client exits 130. The run fans out in
// two child workflows, which Stop reaches too.
func TestStopCancelsTheRest(t *testing.T) {
	workerBin, temporalBin := bins(t)
	addr := temporalServer(t, temporalBin)
	share, home := t.TempDir(), filepath.Join(t.TempDir(), "home.db")
	srv := llmtest.NewServer(t)
	srv.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Hang: true} })
	w := start(t, "worker", workerBin, "worker", "--temporal", addr, "--share", share, "--db", workerDB(t, srv),
		"--name", "w1", "--concurrency", "2", "--heartbeat-every", "200ms", "--verbose")
	client := start(t, "client", workerBin, "eval", suiteFile(t, 6), "--temporal", addr, "--share", share, "--db", home,
		"--heartbeat", "2s", "--batch", "4")
	if !srv.WaitRequests(2, 2*time.Minute) {
		t.Fatal("the worker never started two cells")
	}
	_ = client.cmd.Process.Signal(os.Interrupt)
	if code := client.exitCode(); code != 130 {
		t.Fatalf("the client exited %d, want 130 (stopped)", code)
	}
	w.stop(syscall.SIGTERM)

	run, results := homeResults(t, home)
	if run.State != store.EvalCancelled {
		t.Fatalf("the run is %s, want cancelled", run.State)
	}
	if len(results) != 2 {
		t.Fatalf("%d results came home, want the 2 that ran: %+v", len(results), results)
	}
	for _, r := range results {
		if r.State != store.EvalCancelled || r.TurnID == "" {
			t.Fatalf("a stopped cell: %+v", r)
		}
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d model calls, want 2: a cell started after Stop", n)
	}
}

var runLine = regexp.MustCompile(`agentdeck-worker: run (\S+): `)

// TestStartingSideKilledThenCollected: the process that started a run is
// killed with SIGKILL while the workers run it; the run goes on, and
// collect, started afterwards, waits for it and brings every case home,
// each once, passed, and ends the run completed.
func TestStartingSideKilledThenCollected(t *testing.T) {
	workerBin, temporalBin := bins(t)
	addr := temporalServer(t, temporalBin)
	share, home := t.TempDir(), filepath.Join(t.TempDir(), "home.db")
	srv := llmtest.NewServer(t)
	srv.Respond(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("It is Paris, the capital.", 10), Delay: 50 * time.Millisecond}
	})
	w := start(t, "worker", workerBin, "worker", "--temporal", addr, "--share", share, "--db", workerDB(t, srv),
		"--name", "w1", "--concurrency", "2", "--heartbeat-every", "200ms")
	const cases = 6
	client := start(t, "client", workerBin, "eval", suiteFile(t, cases), "--temporal", addr, "--share", share, "--db", home)
	if !srv.WaitRequests(2, 2*time.Minute) {
		t.Fatal("the worker never started two cells")
	}
	client.stop(syscall.SIGKILL)
	out, err := os.ReadFile(client.out.Name())
	if err != nil {
		t.Fatal(err)
	}
	m := runLine.FindSubmatch(out)
	if m == nil {
		t.Fatalf("the client did not say its run: %s", out)
	}
	collect := start(t, "collect", workerBin, "collect", string(m[1]), "--temporal", addr, "--share", share, "--db", home, "--json")
	if code := collect.exitCode(); code != 0 {
		t.Fatalf("collect exited %d, want 0 (every case passed)", code)
	}
	w.stop(syscall.SIGTERM)

	run, results := homeResults(t, home)
	if run.State != store.EvalCompleted || len(results) != cases {
		t.Fatalf("run %s with %d results, want completed with %d", run.State, len(results), cases)
	}
	for _, r := range results {
		if r.State != store.EvalPassed || r.TurnID == "" {
			t.Fatalf("a collected result: %+v", r)
		}
	}
}
