package submit

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

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
