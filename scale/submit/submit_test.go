package submit

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/scale/exchange"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestWatchSaysHowManyCellsAreHome: progress is told the count of cells
// in the shared folder as it changes, never past the planned total (a
// cell two attempts put is there twice), and nothing after stop.
func TestWatchSaysHowManyCellsAreHome(t *testing.T) {
	root := t.TempDir()
	share, err := exchange.New(root)
	if err != nil {
		t.Fatal(err)
	}
	cells := filepath.Join(root, "runs", "run1", "cells")
	if err := os.MkdirAll(cells, 0o755); err != nil {
		t.Fatal(err)
	}
	seen := make(chan [2]int, 16)
	stop := watch(Config{Share: share, ProgressEvery: 5 * time.Millisecond, Progress: func(home, planned int) { seen <- [2]int{home, planned} }}, "run1", 3)
	put := func(names ...string) {
		for _, n := range names {
			if err := os.Mkdir(filepath.Join(cells, n), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := <-seen; got != [2]int{0, 3} {
		t.Fatalf("first %v, want 0 of 3", got)
	}
	put("a", ".put-half")
	if got := <-seen; got != [2]int{1, 3} {
		t.Fatalf("then %v, want 1 of 3 (a half-put cell is not counted)", got)
	}
	put("b", "c", "c-again")
	for got := <-seen; got != [2]int{3, 3}; got = <-seen { // 2 of 3 may be seen first
		if got != [2]int{2, 3} {
			t.Fatalf("then %v, want 2 then 3 of 3", got)
		}
	}
	stop()
	select {
	case got := <-seen:
		t.Fatalf("told %v after stop", got)
	default:
	}
}

// fakeTemporal is a Temporal client whose one workflow ends when it is
// cancelled (as SuiteRun does once its cells have) or never otherwise.
type fakeTemporal struct {
	client.Client // the methods wait does not use panic
	cancels       chan string
}

func (f *fakeTemporal) CancelWorkflow(_ context.Context, id, _ string) error {
	f.cancels <- id
	return nil
}

type fakeRun struct {
	client.WorkflowRun
	cancelled <-chan string
}

func (r fakeRun) Get(ctx context.Context, _ any) error {
	select {
	case <-r.cancelled:
		return temporal.NewCanceledError()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestStopStopsTheRunOrTheWaiting: Stop cancels the run's workflow, waits
// for it to end and stores the run cancelled; a detached wait (collect)
// stops waiting instead: the workflow is not cancelled, and the run is
// left as it was, to be collected later.
func TestStopStopsTheRunOrTheWaiting(t *testing.T) {
	for _, detached := range []bool{false, true} {
		t.Run(fmt.Sprintf("detached=%v", detached), func(t *testing.T) {
			bg := context.Background()
			db, err := store.Open(bg, filepath.Join(t.TempDir(), "home.db"), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			run, err := db.CreateEvalRun(bg, store.EvalRun{SuiteName: "geo", Suite: json.RawMessage(`{"name":"geo","models":["p/m"],"cases":[{"id":"a"}]}`)})
			if err != nil {
				t.Fatal(err)
			}
			share, err := exchange.New(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			cancels := make(chan string, 1)
			ctx, stop := context.WithCancel(bg)
			stop() // Stop, before the run ends
			out, err := wait(ctx, db, run.ID, fakeRun{cancelled: cancels}, Config{Client: &fakeTemporal{cancels: cancels}, Share: share, Detached: detached})
			stored, _ := db.EvalRun(bg, run.ID)
			switch {
			case detached:
				if apperr.CodeOf(err) != apperr.Cancelled || !strings.Contains(err.Error(), "collect "+run.ID) || len(cancels) != 0 || stored.EndedAt != nil {
					t.Fatalf("a detached Stop: %v, cancelled %d, run %+v", err, len(cancels), stored)
				}
			default:
				if err != nil || out.Run.State != store.EvalCancelled || stored.State != store.EvalCancelled {
					t.Fatalf("Stop: %v, outcome %+v, stored %+v", err, out.Run, stored)
				}
			}
		})
	}
}
