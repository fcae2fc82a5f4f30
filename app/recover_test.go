package app

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// orphanRig is a Service over a real engine whose turn changes are
// collected, and helpers that leave turns as other processes would.
type orphanRig struct {
	*fixture
	turns *busWatch[TurnsChanged]
}

// newOrphanRig builds the rig; every is the watcher's interval. The test
// fails if a goroutine it started outlives it.
func newOrphanRig(t *testing.T, every time.Duration) *orphanRig {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	_, db, eng := setuptest.NewEngine(t)
	svc := NewService(Config{DB: db, DBPath: db.Path(), Runner: eng.Runner, Secrets: eng.Secrets, Workflows: eng.Workflows, OrphanCheck: every})
	t.Cleanup(svc.shutdown)
	f := &fixture{svc: svc, api: svc.api, srv: llmtest.NewServer(t), db: db, rec: record(t, svc)}
	f.addProvider(t)
	r := &orphanRig{fixture: f, turns: watchBus[TurnsChanged](t, svc.bus)}
	return r
}

// otherProcess is a process other than this one that a turn can belong to.
type otherProcess struct {
	cmd   *exec.Cmd
	owner store.Owner
}

// startOther starts a process that runs until killed or the test ends.
func startOther(t *testing.T) *otherProcess {
	t.Helper()
	cmd := exec.Command("sleep", "3600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &otherProcess{cmd: cmd, owner: store.OwnerOf(cmd.Process.Pid)}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if p.owner.Start == "" {
		t.Fatal("cannot read a process start time from /proc")
	}
	return p
}

// kill ends the process the way kill -9 does, and reaps it.
func (p *otherProcess) kill() {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// runningTurnOf stores a running turn owned by p in session, with part of
// an answer streamed, as that process would have.
func (r *orphanRig) runningTurnOf(t *testing.T, p *otherProcess, sessionID, partial string) string {
	t.Helper()
	ctx := context.Background()
	other, err := store.Open(ctx, r.db.Path(), store.Options{Owner: &p.owner})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tr, err := other.StartTurn(ctx, store.Turn{SessionID: sessionID, UserMessage: "count", Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	log := other.NewEventLog(tr.ID, store.EventLogOptions{})
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: sessionID, TurnID: tr.ID, Sinks: []turn.Sink{log}})
	em.Emit(turn.Draft{Data: turn.ThinkStartData{}})
	for _, w := range strings.SplitAfter(partial, " ") {
		em.Emit(turn.Draft{Data: turn.TokenData{Text: w}})
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	return tr.ID
}

func (r *orphanRig) turn(t *testing.T, id string) store.TurnDetail {
	t.Helper()
	d, err := r.api.GetTurn(id, false)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// noChange fails if a turn change was announced.
func (r *orphanRig) noChange(t *testing.T) {
	t.Helper()
	if c := r.turns.Taken(); len(c) > 0 {
		t.Fatalf("unexpected turn change %+v", c)
	}
}

// A window or serve that is already running notices by itself that a
// process running a turn died, marks the turn interrupted and tells the
// UIs; another live process's turn is left alone.
func TestWatcherMarksADeadProcessTurnInterrupted(t *testing.T) {
	// Not parallel: goleak would count the goroutines of tests running beside it (newOrphanRig).
	r := newOrphanRig(t, 10*time.Millisecond)
	r.svc.startup(context.Background())
	s := r.session(t, "S")
	live := r.runningTurnOf(t, startOther(t), r.session(t, "S").ID, "still going")
	run := startOther(t)
	dead := r.runningTurnOf(t, run, s.ID, "the answer so far")
	run.kill()
	killed := time.Now()

	got := r.turns.Next()
	t.Logf("the watcher noticed %v after the kill", time.Since(killed))
	want := TurnsChanged{{TurnID: dead, SessionID: s.ID, State: store.StateInterrupted}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("turn changes %+v, want %+v", got, want)
	}
	if d := r.turn(t, dead); d.State != store.StateInterrupted || d.FinalText != "the answer so far" {
		t.Fatalf("the dead process's turn: state %s, final %q", d.State, d.FinalText)
	}
	if d := r.turn(t, live); d.State != store.StateRunning {
		t.Fatalf("the live process's turn became %s", d.State)
	}
}

func TestStopTurnThisProcessDoesNotRun(t *testing.T) {
	// Not parallel: goleak would count the goroutines of tests running beside it (newOrphanRig).
	tests := []struct {
		name string
		// turn stores the turn to stop; it returns its id.
		turn func(t *testing.T, r *orphanRig, sessionID string) (id string, pid int)
		// conflict is what the refusal must say ("": Stop succeeds).
		conflict  string
		state     store.TurnState
		announced bool
	}{
		{
			name: "its process is gone",
			turn: func(t *testing.T, r *orphanRig, sid string) (string, int) {
				p := startOther(t)
				id := r.runningTurnOf(t, p, sid, "so far")
				p.kill()
				return id, p.owner.PID
			},
			state:     store.StateInterrupted,
			announced: true,
		},
		{
			name: "another live process runs it",
			turn: func(t *testing.T, r *orphanRig, sid string) (string, int) {
				p := startOther(t)
				return r.runningTurnOf(t, p, sid, "so far"), p.owner.PID
			},
			conflict: "running in another Agentdeck process (pid ",
			state:    store.StateRunning,
		},
		{
			name:  "an unknown turn",
			turn:  func(*testing.T, *orphanRig, string) (string, int) { return "nope", 0 },
			state: "",
		},
		{
			name: "it already ended",
			turn: func(t *testing.T, r *orphanRig, sid string) (string, int) {
				p := startOther(t)
				id := r.runningTurnOf(t, p, sid, "so far")
				if err := r.db.FinishTurn(context.Background(), id, 0, turn.Result{OK: true, FinalText: "done", Outcome: turn.OutcomeSucceeded}); err != nil {
					t.Fatal(err)
				}
				p.kill()
				return id, p.owner.PID
			},
			state: store.StateCompleted,
		},
	}
	r := newOrphanRig(t, time.Hour) // no watcher: only Stop may act
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := r.session(t, "S")
			id, pid := tt.turn(t, r, s.ID)
			_, err := r.api.StopTurn(id)
			if tt.conflict == "" && err != nil {
				t.Fatalf("StopTurn: %v", err)
			}
			if tt.conflict != "" {
				msg := apperr.MessageOf(err)
				if apperr.CodeOf(err) != apperr.Conflict || !strings.Contains(msg, tt.conflict) || !strings.Contains(msg, strconv.Itoa(pid)) {
					t.Fatalf("StopTurn = %v; want a conflict saying %q with pid %d", err, tt.conflict, pid)
				}
			}
			if tt.state != "" {
				if d := r.turn(t, id); d.State != tt.state {
					t.Fatalf("after Stop the turn is %s, want %s", d.State, tt.state)
				}
			}
			if !tt.announced {
				r.noChange(t)
				return
			}
			got := r.turns.Taken()
			if len(got) == 0 {
				t.Fatal("Stop marked the turn interrupted without telling the UIs")
			}
			if c := got[0]; len(got) != 1 || len(c) != 1 || c[0] != (TurnChange{TurnID: id, SessionID: s.ID, State: store.StateInterrupted}) {
				t.Fatalf("turn changes %+v", got)
			}
		})
	}
}

// Sending into a session whose turn belongs to a dead process works at
// once (the turn is marked interrupted and the UIs told); a live other
// process's turn still refuses the message, saying where it runs.
func TestSendIntoASessionAnotherProcessLeftRunning(t *testing.T) {
	// Not parallel: goleak would count the goroutines of tests running beside it (newOrphanRig).
	tests := []struct {
		name     string
		dies     bool
		conflict string
	}{
		{name: "its process is gone", dies: true},
		{name: "another live process runs it", conflict: "another Agentdeck process (pid "},
	}
	r := newOrphanRig(t, time.Hour) // no watcher: only Send may act
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := r.session(t, "S")
			p := startOther(t)
			old := r.runningTurnOf(t, p, s.ID, "so far")
			if tt.dies {
				p.kill()
			}
			completed := make(chan string, 4)
			t.Cleanup(r.svc.eventHub().Subscribe(func(e turn.Event) {
				if e.Type == turn.EventTurnCompleted {
					completed <- e.TurnID
				}
			}))
			r.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("a fresh answer", 3)})
			ref, err := r.api.SendMessage(SendRequest{SessionID: s.ID, Message: "again"})
			if tt.conflict != "" {
				if apperr.CodeOf(err) != apperr.Conflict || !strings.Contains(apperr.MessageOf(err), tt.conflict+strconv.Itoa(p.owner.PID)) {
					t.Fatalf("SendMessage = %v; want a conflict naming pid %d", err, p.owner.PID)
				}
				r.noChange(t)
				if d := r.turn(t, old); d.State != store.StateRunning {
					t.Fatalf("the live process's turn became %s", d.State)
				}
				return
			}
			if err != nil {
				t.Fatalf("SendMessage: %v", err)
			}
			got := r.turns.Taken()
			if len(got) == 0 {
				t.Fatal("the dead process's turn was recovered without telling the UIs")
			}
			if c := got[0]; len(got) != 1 || len(c) != 1 || c[0].TurnID != old || c[0].State != store.StateInterrupted {
				t.Fatalf("turn changes %+v", got)
			}
			if id := <-completed; id != ref.TurnID {
				t.Fatalf("turn_completed of %s, want %s", id, ref.TurnID)
			}
			if d := r.turn(t, ref.TurnID); d.State != store.StateCompleted || d.FinalText != "a fresh answer" {
				t.Fatalf("the new turn: %s %q", d.State, d.FinalText)
			}
			if d := r.turn(t, old); d.State != store.StateInterrupted || d.FinalText != "so far" {
				t.Fatalf("the old turn: %s %q", d.State, d.FinalText)
			}
		})
	}
}

// A browser learns over its event stream that a turn was marked
// interrupted, without reloading.
func TestServeStreamsTurnChanges(t *testing.T) {
	// Not parallel: goleak would count the goroutines of tests running beside it (newOrphanRig).
	r := newOrphanRig(t, 10*time.Millisecond)
	srv, base := startServer(t, r.fixture)
	client := httpClient(t)
	req, _ := http.NewRequest("GET", base+"/api/events", nil)
	req.Header.Set("Authorization", "Bearer "+srv.Token())
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	if !lines.Scan() || lines.Text() != ": connected" {
		t.Fatalf("stream opened with %q", lines.Text())
	}

	s := r.session(t, "S")
	p := startOther(t)
	id := r.runningTurnOf(t, p, s.ID, "so far")
	p.kill()
	var turns TurnsChanged
	for msg := (wireMessage{}); msg.Kind != KindTurnsChanged; {
		if !lines.Scan() {
			t.Fatalf("the stream ended: %v", lines.Err())
		}
		if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
			msg = decodeWire(t, data, &turns)
		}
	}
	want := TurnsChanged{{TurnID: id, SessionID: s.ID, State: store.StateInterrupted}}
	if !reflect.DeepEqual(turns, want) {
		t.Fatalf("turns_changed %+v, want %+v", turns, want)
	}

	call, _ := http.NewRequest("POST", base+"/api/call/GetTurn", strings.NewReader(`["`+id+`", false]`))
	call.Header.Set("Authorization", "Bearer "+srv.Token())
	got, err := client.Do(call)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Body.Close()
	var d store.TurnDetail
	if err := json.NewDecoder(got.Body).Decode(&d); err != nil || d.State != store.StateInterrupted || d.FinalText != "so far" {
		t.Fatalf("GetTurn: %v, state %s, final %q", err, d.State, d.FinalText)
	}
}
