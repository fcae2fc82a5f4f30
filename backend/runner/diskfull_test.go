package runner_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/store/storetest"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// lockedBuffer is a log destination safe for the turn's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// answerWords is far more than either disk holds (as 12,000 streamed
// pieces, about 6 MB stored), so the turn must be stopped before its end.
const answerWords = 60_000

// longAnswer is answerWords numbered words.
func longAnswer() string {
	var b strings.Builder
	for i := range answerWords {
		b.WriteString("word" + strconv.Itoa(i) + " ")
	}
	return b.String()
}

// A turn streaming into a full disk is stopped as soon as its events
// cannot be stored, and ends failed with termination disk_full, the answer
// as far as it is stored (a prefix of what streamed) and one message that
// says how much is stored and how much space to free. On a real small file
// system (tmpfs, as root) the ending is stored with the room the reserve
// gives back; under SQLite's page limit, which the reserve cannot help, an
// ending that does not fit leaves the turn running, and the next start
// marks it interrupted with the same stored answer.
func TestTurnStopsOnAFullDisk(t *testing.T) {
	for _, disk := range []string{"tmpfs", "page_limit"} {
		t.Run(disk, func(t *testing.T) {
			leaks := goleak.IgnoreCurrent()
			// Registered first, so it runs last: after the server, the
			// engine and the database are closed.
			t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
			ctx := context.Background()
			dir := t.TempDir()
			if disk == "tmpfs" {
				var whyNot string
				if dir, whyNot = storetest.SmallDisk(t, "16m"); dir == "" {
					t.Skipf("no tmpfs here (%s): the page_limit case covers the fallback", whyNot)
				}
				t.Logf("disk full path: a tmpfs of 16 MB at %s, 4 MB of it the reserve and all but 1 MB of the rest filled (the write-ahead log grows against it)", dir)
			} else {
				t.Logf("disk full path: SQLite's page limit (max_page_count), 150 pages past the current size")
			}
			path := filepath.Join(dir, "agentdeck.db")
			// This process stands for an earlier one (another start time),
			// so that a later handle sees the turn's owner as gone.
			earlier := store.Owner{PID: os.Getpid(), Start: "an earlier process"}
			db, err := store.Open(ctx, path, store.Options{Owner: &earlier})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			if disk == "tmpfs" {
				// The reserve is made while there is room for it; then
				// other programs fill the disk.
				if err := db.KeepReserve(); err != nil {
					t.Fatal(err)
				}
				storetest.FillDisk(t, dir, 1<<20)
			}
			var logs lockedBuffer
			eng, err := setup.Build(ctx, db, setup.Options{DataDir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { eng.Close() })
			srv := llmtest.NewServer(t)
			// Paced like a fast model (a thousand pieces a second, not the
			// 200k an unpaced local stream gives), so that a 50 ms batch of
			// events is small and the first ones fit.
			srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text(longAnswer(), answerWords/5), Delay: time.Millisecond})
			sess, err := db.CreateSession(ctx, store.Session{Title: "full", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			if disk == "page_limit" {
				if err := db.LimitPages(ctx, 150); err != nil {
					t.Fatal(err)
				}
			}

			rec := &turntest.Recorder{}
			h, err := eng.Runner.Start(ctx, runner.Request{SessionID: sess.ID, Message: "Write a very long answer", BaseURL: srv.URL(), Sinks: []turn.Sink{rec}})
			if err != nil {
				t.Fatal(err)
			}
			res := h.Wait()

			var streamed strings.Builder
			for _, e := range rec.Of(turn.EventToken) {
				streamed.WriteString(turntest.Data[turn.TokenData](t, e).Text)
			}
			n, m := len(strings.Fields(res.FinalText)), len(strings.Fields(streamed.String()))
			t.Logf("stopped at %d of %d words streamed (of %d); message: %s", n, m, answerWords, res.Error)
			if res.OK || res.Outcome != turn.OutcomeFailed || res.Termination.Kind != turn.TermDiskFull || res.ErrorSource != "storage" {
				t.Fatalf("result: ok %v, outcome %s, termination %+v, source %q", res.OK, res.Outcome, res.Termination, res.ErrorSource)
			}
			if m >= answerWords {
				t.Fatalf("the whole answer streamed (%d words) into a disk that cannot hold it: the turn was not stopped", m)
			}
			if n == 0 || !strings.HasPrefix(streamed.String(), res.FinalText) {
				t.Fatalf("the final text (%d words) is not a non-empty prefix of what streamed (%d words)", n, m)
			}
			if res.Termination.Used != int64(n) || res.Termination.Limit != int64(m) {
				t.Fatalf("termination counts %d of %d, want %d of %d", res.Termination.Used, res.Termination.Limit, n, m)
			}
			for _, want := range []string{"The disk is full", strconv.Itoa(n), strconv.Itoa(m) + " words", "Free at least", " MB on the disk that holds " + dir} {
				if !strings.Contains(res.Error, want) {
					t.Fatalf("the message lacks %q: %s", want, res.Error)
				}
			}
			turntest.Check(t, rec.Events())
			if errs := rec.Of(turn.EventError); len(errs) != 1 || !strings.Contains(string(errs[0].Data), "The disk is full") {
				t.Fatalf("the UIs get %d error events, want the one message", len(errs))
			}
			if !strings.Contains(logs.String(), "the disk is full: turn stopped") {
				t.Fatalf("the log lacks the details:\n%s", logs.String())
			}

			d, err := db.GetTurn(ctx, h.TurnID, true)
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range d.Events {
				if e.Seq != int64(i+1) {
					t.Fatalf("stored events are not a prefix: #%d has seq %d", i, e.Seq)
				}
			}
			if saved := !strings.Contains(res.Error, "could not be saved"); saved != (d.State != store.StateRunning) {
				t.Fatalf("the turn is stored %s, and the message says: %s", d.State, res.Error)
			}
			switch {
			case d.State == store.StateFailed:
				t.Logf("the ending was stored")
				if d.Termination.Kind != turn.TermDiskFull || d.FinalText != res.FinalText {
					t.Fatalf("stored: termination %+v, %d bytes of final text, want %d", d.Termination, len(d.FinalText), len(res.FinalText))
				}
				if last := d.Messages[len(d.Messages)-1]; last.Content != res.FinalText {
					t.Fatalf("the stored reply is not the stored answer: %d bytes", len(last.Content))
				}
			case d.State == store.StateRunning && disk == "page_limit":
				t.Logf("the ending did not fit under the page limit: the next start ends the turn with its cause")
				next, err := store.Open(ctx, path, store.Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { next.Close() })
				if n, err := next.RecoverInterrupted(ctx); err != nil || n != 1 {
					t.Fatalf("recovered %d turns: %v", n, err)
				}
				d, err := next.GetTurn(ctx, h.TurnID, false)
				if err != nil || d.State != store.StateFailed || d.Termination.Kind != turn.TermDiskFull || d.FinalText != res.FinalText {
					t.Fatalf("recovered turn: %s (%+v) with %d bytes of final text (want %d): %v", d.State, d.Termination, len(d.FinalText), len(res.FinalText), err)
				}
			default:
				t.Fatalf("stored turn is %s (%+v)", d.State, d.Termination)
			}
		})
	}
}

// endingFails is the store with no room for a turn's ending (FinishTurn)
// while full is set, as a disk the reserve could not help would be.
type endingFails struct {
	*store.DB
	full atomic.Bool
}

func (s *endingFails) FinishTurn(ctx context.Context, turnID string, from int, res turn.Result) error {
	if s.full.Load() {
		return errors.New("saving the turn failed: database or disk is full (13)")
	}
	return s.DB.FinishTurn(ctx, turnID, from, res)
}

// A turn stopped by a full disk whose ending cannot be stored says so,
// and claims only what was stored; the ending, with its cause, is stored
// once there is room: at the next send in the same process, or by the
// next start if the process ended first.
func TestDiskFullEndingNotStored(t *testing.T) {
	for _, later := range []string{"room returns in this process", "the process ends first"} {
		t.Run(later, func(t *testing.T) {
			leaks := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "agentdeck.db")
			earlier := store.Owner{PID: os.Getpid(), Start: "an earlier process"}
			db, err := store.Open(ctx, path, store.Options{Owner: &earlier})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			st := &endingFails{DB: db}
			st.full.Store(true)
			r := runner.New(runner.Config{DB: st, Workflows: workflow.Builtins})
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text(longAnswer(), answerWords/5), Delay: time.Millisecond})
			sess, err := db.CreateSession(ctx, store.Session{Title: "full", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			if err := db.LimitPages(ctx, 150); err != nil {
				t.Fatal(err)
			}
			h, err := r.Start(ctx, runner.Request{SessionID: sess.ID, Message: "Write a very long answer", BaseURL: srv.URL()})
			if err != nil {
				t.Fatal(err)
			}
			res := h.Wait()
			n := len(strings.Fields(res.FinalText))
			t.Logf("message: %s", res.Error)
			if res.Termination.Kind != turn.TermDiskFull || n == 0 {
				t.Fatalf("result: termination %+v, %d words stored", res.Termination, n)
			}
			if !strings.Contains(res.Error, "the turn's ending could not be saved") || !strings.Contains(res.Error, strconv.Itoa(n)) {
				t.Fatalf("the message does not say the ending is not saved: %s", res.Error)
			}
			if d, err := db.GetTurn(ctx, h.TurnID, false); err != nil || d.State != store.StateRunning {
				t.Fatalf("the turn is stored %s (%v); its ending could not be", d.State, err)
			}

			check := db
			if later == "room returns in this process" {
				st.full.Store(false)
				if err := db.LimitPages(ctx, 1_000_000); err != nil {
					t.Fatal(err)
				}
				srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Room again.", 2)})
				next, err := r.Start(ctx, runner.Request{SessionID: sess.ID, Message: "Go on", BaseURL: srv.URL()})
				if err != nil {
					t.Fatalf("sending again once there is room: %v", err)
				}
				if res := next.Wait(); !res.OK {
					t.Fatalf("the next turn: %s", res.Error)
				}
			} else {
				// Another process, the next start: it recovers the turn.
				if check, err = store.Open(ctx, path, store.Options{}); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { check.Close() })
				if n, err := check.RecoverInterrupted(ctx); err != nil || n != 1 {
					t.Fatalf("recovered %d turns: %v", n, err)
				}
			}
			d, err := check.GetTurn(ctx, h.TurnID, false)
			if err != nil {
				t.Fatal(err)
			}
			if d.State != store.StateFailed || d.Termination.Kind != turn.TermDiskFull || d.FinalText != res.FinalText {
				t.Fatalf("stored: %s, termination %+v, %d bytes of final text (want %d)", d.State, d.Termination, len(d.FinalText), len(res.FinalText))
			}
			if !strings.Contains(d.Termination.Error, "The disk is full") || strings.Contains(d.Termination.Error, "could not be saved") {
				t.Fatalf("stored message: %s", d.Termination.Error)
			}
			if _, err := os.Stat(path + ".ending-" + h.TurnID + ".json"); !os.IsNotExist(err) {
				t.Fatalf("the note of the ending is still there: %v", err)
			}
		})
	}
}
