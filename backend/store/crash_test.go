package store

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/plan"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// The crash test kills a process in the middle of a streaming turn and
// checks what the next process finds. The child is this test binary run
// again with crashChildEnv set: it runs TestCrashChild only, which streams a
// real turn (agent, OpenAI client, scripted server in the child) into the
// EventLog and prints its progress on stdout.

const (
	crashChildEnv = "AGENTDECK_CRASH_CHILD"
	crashDBEnv    = "AGENTDECK_CRASH_DB"
	crashSeedEnv  = "AGENTDECK_CRASH_SEED" // replays a failed run's kill delays

	crashRounds = 20
	// The long answer: crashTokens tokens crashTokenDelay apart lasts far
	// longer than the latest kill (300 ms after the first token).
	crashTokens     = 20_000
	crashTokenDelay = time.Millisecond
	crashPreamble   = "Let me plan this first. "
	// crashLossWindow bounds what a crash may lose while the child ran;
	// see crashCheckLoss.
	crashLossWindow = time.Second
	// The child prints its progress every crashTick; a longer gap than
	// crashStallGap between two lines is time it did not run.
	crashTick     = 10 * time.Millisecond
	crashStallGap = 2 * crashTick
)

// TestCrashMidTurnKeepsAPrefix SIGKILLs a process 20–300 ms into a
// streaming turn, 20 times, and checks that the next process finds an
// intact database, recovers the turn as interrupted with the answer so far,
// and that the stored events are a gapless prefix missing at most the last
// crashLossWindow of the stream.
func TestCrashMidTurnKeepsAPrefix(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts 20 child processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(crashSeedEnv); s != "" {
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s: %v", crashSeedEnv, err)
		}
	}
	t.Logf("kill delays from seed %d (%s=%d replays them)", seed, crashSeedEnv, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	var worst time.Duration // oldest lost event, over all rounds
	for i := range crashRounds {
		killAfter := time.Duration(20+rng.IntN(281)) * time.Millisecond
		t.Run(fmt.Sprintf("round-%02d", i+1), func(t *testing.T) {
			t.Logf("kill %v after the first token", killAfter)
			if age := crashRound(t, exe, killAfter); age > worst {
				worst = age
			}
		})
	}
	t.Logf("oldest lost event over %d rounds: emitted %v (live) before the child was last seen (bound %v)", crashRounds, worst, crashLossWindow)
}

// TestCrashChild is the child process of TestCrashMidTurnKeepsAPrefix.
func TestCrashChild(t *testing.T) {
	t.Parallel()
	if os.Getenv(crashChildEnv) != "1" {
		t.Skip("helper process for TestCrashMidTurnKeepsAPrefix")
	}
	runCrashChild(t, os.Getenv(crashDBEnv))
}

// crashRound runs one child, kills it killAfter its first streamed token,
// and checks the database it left. It returns how long before the child
// was last seen the oldest lost event had been emitted (0: none known lost).
func crashRound(t *testing.T, exe string, killAfter time.Duration) time.Duration {
	path := filepath.Join(t.TempDir(), "crash.db")
	child := startCrashChild(t, exe, path)
	turnID := child.waitStarted(t, time.Minute)
	time.Sleep(killAfter)
	child.kill(t)
	oldest := crashRecover(t, path, turnID, child.progress())

	// Checked again from new connections, as the next start of the app
	// would: FTS5's integrity check trusts a connection's cached copy of
	// the index structure, so a pooled connection that read the search
	// index before recovery wrote to it reports a false checksum mismatch.
	db, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	crashCheck(t, "after recovery", db)
	return oldest
}

// crashRecover opens the database a killed child left, as the next
// process, recovers the turn and checks it.
func crashRecover(t *testing.T, path, turnID string, reports []crashProgress) time.Duration {
	t.Helper()
	db, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatalf("opening the database the child left: %v", err)
	}
	defer db.Close()
	crashCheck(t, "as the crash left it", db)
	n, err := db.RecoverInterrupted(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("RecoverInterrupted = %d, %v; want 1 turn recovered", n, err)
	}
	var running int
	if err := db.reader.QueryRow(`SELECT COUNT(*) FROM turns WHERE state = 'running'`).Scan(&running); err != nil || running != 0 {
		t.Fatalf("%d turns still running (%v)", running, err)
	}
	d, err := db.GetTurn(context.Background(), turnID, false)
	if err != nil {
		t.Fatal(err)
	}
	if d.State != StateInterrupted || d.Termination.Kind != turn.TermInterrupted {
		t.Fatalf("turn state %s, termination %s; want interrupted", d.State, d.Termination.Kind)
	}
	stored := crashStoredEvents(t, db.reader, turnID)
	crashCheckPrefix(t, stored, d.FinalText, d.Messages)
	oldest := crashCheckLoss(t, reports, int64(len(stored)))
	t.Logf("%d events stored, %d reported emitted", len(stored), crashLastReported(reports))
	return oldest
}

// crashEvent is one stored event, as the store reads it back.
type crashEvent struct {
	seq  int64
	typ  turn.EventType
	text string // token text
}

func crashStoredEvents(t *testing.T, q *sql.DB, turnID string) []crashEvent {
	t.Helper()
	// Row by row, each run expanded: what every reader sees.
	rows, err := q.Query(`SELECT `+eventRowColumns+` FROM events WHERE turn_id = ? ORDER BY seq`, turnID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []crashEvent
	for rows.Next() {
		var r eventRow
		if err := r.scan(rows); err != nil {
			t.Fatal(err)
		}
		events, err := r.expand("", turnID, 0, nil)
		if err != nil {
			t.Fatalf("row at seq %d: %v", r.seq, err)
		}
		for _, ev := range events {
			e := crashEvent{seq: ev.Seq, typ: ev.Type}
			if e.typ == turn.EventToken {
				var td turn.TokenData
				if err := json.Unmarshal(ev.Data, &td); err != nil {
					t.Fatalf("event %d: token data %q: %v", e.seq, ev.Data, err)
				}
				e.text = td.Text
			}
			out = append(out, e)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// crashCheckPrefix checks that the stored events are seq 1..N with no gap and
// that the recovered answer is the text streamed since the last stored
// think_start.
func crashCheckPrefix(t *testing.T, stored []crashEvent, finalText string, messages []llm.Message) {
	t.Helper()
	for i, e := range stored {
		if e.seq != int64(i+1) {
			t.Fatalf("stored event #%d has seq %d: the stored events are not 1..N", i+1, e.seq)
		}
	}
	last, thinkStarts := -1, 0
	for i, e := range stored {
		if e.typ == turn.EventThinkStart {
			last = i
			thinkStarts++
		}
	}
	var partial strings.Builder
	tokens := 0
	for _, e := range stored[last+1:] {
		if e.typ == turn.EventToken {
			partial.WriteString(e.text)
			tokens++
		}
	}
	if finalText != partial.String() {
		t.Fatalf("final_text %q\nwant the %d tokens after the last think_start: %q", crashClip(finalText), tokens, crashClip(partial.String()))
	}
	if tokens > 0 && finalText == "" {
		t.Fatal("tokens were stored but the recovered answer is empty")
	}
	switch {
	case thinkStarts == 1 && partial.String() != crashPreamble:
		// The first call ended with think_end, a checkpoint: all of it is stored.
		t.Fatalf("the first call's text is %q, want %q", partial.String(), crashPreamble)
	case thinkStarts == 2 && partial.String() != crashTokensText(tokens):
		// Seqs are gapless, so the long answer's tokens must be too.
		t.Fatalf("the long answer's stored tokens are not its first %d: %q", tokens, crashClip(partial.String()))
	case thinkStarts != 1 && thinkStarts != 2:
		t.Fatalf("%d think_start events stored; the child makes two model calls", thinkStarts)
	}
	if finalText != "" && (len(messages) != 2 || messages[1].Content != finalText) {
		t.Fatalf("recovered messages %+v; want the user message and the partial answer", messages)
	}
}

// crashCheckLoss checks what a crash lost, and returns the largest live
// age (see below) of an event it knows was lost.
//
// Two checks. First, durability, with no clock: every event the child saw
// committed (its own reader's newest seq, in each progress line) must be
// there after the kill. Second, that flushing keeps up: the EventLog
// commits an event at most FlushEvery (50 ms) after it was emitted, plus
// the time its transaction takes, and on a machine shared with other
// tests that commit's fsync can take hundreds of milliseconds (an event
// 173 ms old was lost once, at a load of 12 on two cores, while the child
// ran). That is the disk's speed, not the log's design, so the bound,
// crashLossWindow, is a second: it fails a flusher that stalls, falls
// behind the stream or drops a batch, not a slow disk. The worst age
// seen is logged, the measure of how much a crash loses here.
//
// The child prints, every crashTick, the newest seq it has handed to the
// EventLog, when it did, when it printed, and the newest seq committed. A
// loaded machine can leave the child unscheduled for a while, and a
// process that does not run cannot flush; the kill itself lands at any
// moment. So an event's age is not measured to the kill but in the time the
// child demonstrably ran after it: from its emission to the newest progress
// line the parent read, less every stall, the part of a gap between two
// lines beyond crashStallGap.
func crashCheckLoss(t *testing.T, reports []crashProgress, stored int64) time.Duration {
	t.Helper()
	if len(reports) == 0 {
		t.Log("killed before the child's first progress line: no loss bound to check")
		return 0
	}
	printed := make([]time.Time, len(reports))
	for i, r := range reports {
		printed[i] = r.printed
	}
	slices.SortFunc(printed, time.Time.Compare)
	var must int64
	var oldest, mustAge time.Duration
	for _, r := range reports {
		age := crashLiveAge(printed, r.emitted)
		if age >= crashLossWindow && r.seq > must {
			must, mustAge = r.seq, age
		}
		if r.seq > stored && age > oldest {
			oldest = age
		}
	}
	if stored < must {
		t.Errorf("%d events stored, but event %d was handed to the event log %v (live) before the child was last seen running; the oldest lost event known, %v (bound %v)",
			stored, must, mustAge, oldest, crashLossWindow)
	}
	var committed int64
	for _, r := range reports {
		committed = max(committed, r.committed)
	}
	if stored < committed {
		t.Errorf("%d events stored, but the child saw %d committed before the kill: a committed event was lost", stored, committed)
	}
	return oldest
}

// crashLiveAge is how long the child demonstrably ran from `from` to the last
// of printed (sorted): the wall time less the stalls in between.
func crashLiveAge(printed []time.Time, from time.Time) time.Duration {
	last := printed[len(printed)-1]
	age, prev := last.Sub(from), from
	for _, p := range printed {
		if p.Before(from) {
			continue
		}
		if stall := p.Sub(prev) - crashStallGap; stall > 0 {
			age -= stall
		}
		prev = p
	}
	return age
}

func crashLastReported(reports []crashProgress) int64 {
	var n int64
	for _, r := range reports {
		n = max(n, r.seq)
	}
	return n
}

func crashCheck(t *testing.T, when string, db *DB) {
	t.Helper()
	rep, err := db.Check(context.Background())
	if err != nil {
		t.Fatalf("checking the database %s: %v", when, err)
	}
	if !rep.OK {
		t.Fatalf("the database %s is damaged: %v", when, rep.Problems)
	}
}

// crashTokensText is what llmtest.Tokens streams first: "tok0 tok1 ... tok<n-1> ".
func crashTokensText(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("tok" + strconv.Itoa(i) + " ")
	}
	return b.String()
}

func crashClip(s string) string {
	if len(s) > 120 {
		return s[:60] + "…" + s[len(s)-60:]
	}
	return s
}

// The parent's side of a child.

// crashProgress is one "seq <n> at <unixnano> now <unixnano> committed <c>"
// line: event n was handed to the EventLog at emitted; the line was
// printed at printed, when the database held events up to c.
type crashProgress struct {
	seq, committed   int64
	emitted, printed time.Time
}

type crashChild struct {
	cmd     *exec.Cmd
	stderr  bytes.Buffer
	started chan string   // the turn id, once the long answer streams
	eof     chan struct{} // stdout closed: the child is gone
	waited  bool

	mu       sync.Mutex
	reports  []crashProgress
	finished bool // the turn ended before the kill
}

func startCrashChild(t *testing.T, exe, path string) *crashChild {
	t.Helper()
	c := &crashChild{started: make(chan string, 1), eof: make(chan struct{})}
	c.cmd = exec.Command(exe, "-test.run=^TestCrashChild$", "-test.count=1", "-test.timeout=2m")
	c.cmd.Env = append(os.Environ(), crashChildEnv+"=1", crashDBEnv+"="+path)
	c.cmd.Stderr = &c.stderr
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !c.waited {
			_ = c.cmd.Process.Kill()
			<-c.eof
			_ = c.cmd.Wait()
		}
	})
	go c.read(out)
	return c
}

func (c *crashChild) read(out io.Reader) {
	defer close(c.eof)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		var seq, emitted, printed, committed int64
		switch {
		case strings.HasPrefix(line, "started "):
			c.started <- strings.TrimPrefix(line, "started ")
		case strings.HasPrefix(line, "finished "):
			c.mu.Lock()
			c.finished = true
			c.mu.Unlock()
		default:
			if n, _ := fmt.Sscanf(line, "seq %d at %d now %d committed %d", &seq, &emitted, &printed, &committed); n == 4 {
				c.mu.Lock()
				c.reports = append(c.reports, crashProgress{seq: seq, committed: committed, emitted: time.Unix(0, emitted), printed: time.Unix(0, printed)})
				c.mu.Unlock()
			}
		}
	}
}

func (c *crashChild) waitStarted(t *testing.T, timeout time.Duration) string {
	t.Helper()
	select {
	case id := <-c.started:
		return id
	case <-c.eof:
		c.waited = true
		err := c.cmd.Wait()
		t.Fatalf("the child ended before streaming (%v):\n%s", err, c.stderr.String())
	case <-time.After(timeout):
		t.Fatalf("the child did not start streaming within %v:\n%s", timeout, c.stderr.String())
	}
	return ""
}

// kill SIGKILLs the child and reaps it: until it is reaped, a zombie still
// answers kill(pid, 0) with its old start time and would look alive.
func (c *crashChild) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-c.eof
	c.waited = true
	_ = c.cmd.Wait()
	if s := c.stderr.String(); strings.Contains(s, "DATA RACE") || strings.Contains(s, "panic:") {
		t.Errorf("the child failed before it was killed:\n%s", s)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finished {
		t.Error("the turn ended before the kill: the stream is too short to test a crash")
	}
}

func (c *crashChild) progress() []crashProgress {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]crashProgress(nil), c.reports...)
}

// The child's side.

func runCrashChild(t *testing.T, path string) {
	ctx := context.Background()
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := db.CreateSession(ctx, Session{Title: "crash", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "Write a long answer.", Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}

	// Two model calls, so recovery must keep only the text of the last
	// one: a short one that updates the plan (its events are checkpoints,
	// written at once), then the long answer, killed mid-stream.
	srv := llmtest.NewServer(t)
	preamble := llmtest.Text(crashPreamble, 4)
	srv.Enqueue(
		llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.Stream(preamble[:len(preamble)-1],
			llmtest.ToolCallChunks(0, "call_1", plan.Name, `{"steps":[{"title":"Write the answer","status":"running"}]}`, 3)), "tool_calls")},
		llmtest.Reply{Chunks: llmtest.Tokens(crashTokens), Delay: crashTokenDelay},
	)
	a := &agent.Agent{Name: "assistant", Client: openai.NewClient(openai.Config{BaseURL: srv.URL(), MaxRetries: -1}), Model: "m", Tools: mustTools(t, plan.New())}

	rec := &crashRecorder{}
	log := db.NewEventLog(tr.ID, EventLogOptions{})
	// The recorder comes after the log: an event is recorded once the log has it.
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: s.ID, TurnID: tr.ID, Sinks: []turn.Sink{log, rec}})
	go rec.report(crashTick, func() int64 {
		var n int64
		_ = db.reader.QueryRow(lastSeqQuery, tr.ID).Scan(&n)
		return n
	})
	res := turn.RunTurn(ctx, em, func(ctx context.Context) turn.Result {
		return a.Run(ctx, em, agent.Input{User: tr.UserMessage})
	})
	_ = log.Close()
	fmt.Fprintf(os.Stdout, "finished %s\n", res.Outcome)
	time.Sleep(30 * time.Second) // the parent should kill us first
	t.Fatal("the crash child was not killed")
}

// crashRecorder is the child's sink after the EventLog: it notes the newest
// event handed to the log and when.
type crashRecorder struct {
	mu      sync.Mutex
	seq     int64
	at      time.Time
	started bool
}

func (r *crashRecorder) Emit(e turn.Event) error {
	now := time.Now()
	r.mu.Lock()
	r.seq, r.at = e.Seq, now
	first := !r.started && e.Type == turn.EventToken && string(e.Data) == `{"text":"tok0 "}`
	r.started = r.started || first
	r.mu.Unlock()
	if first {
		fmt.Fprintf(os.Stdout, "started %s\n", e.TurnID)
	}
	return nil
}

// report prints the newest recorded event every tick, and the newest
// committed one (read before the line is printed, so it was committed by
// then). Each line is one write to an unbuffered pipe, so the parent reads
// it at once.
func (r *crashRecorder) report(every time.Duration, committed func() int64) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for range tick.C {
		r.mu.Lock()
		seq, at := r.seq, r.at
		r.mu.Unlock()
		if seq > 0 {
			c := committed()
			fmt.Fprintf(os.Stdout, "seq %d at %d now %d committed %d\n", seq, at.UnixNano(), time.Now().UnixNano(), c)
		}
	}
}

// mustTools is a tool set of tools.
func mustTools(t *testing.T, tools ...tool.Tool) *tool.Set {
	t.Helper()
	ts, err := tool.NewSet(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}
