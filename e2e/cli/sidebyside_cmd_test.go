package cli_test

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// One real Ctrl+C (SIGINT to the process) stops every column of
// `agentdeck run --models a,b`: both model streams are closed, each turn
// is stored stopped with its answer so far, and the run exits 130.
func TestSideBySideSIGINTStopsEveryColumn(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Respond(func(llmtest.Request) llmtest.Reply { return longAnswer })
	env := newCmdEnv(t, srv.URL())
	run := env.start("run", "--json", "--models", "a,b", "Count forever")
	// Wait until both columns have streamed tokens.
	far := map[string]bool{}
	run.waitLine(func(l string) bool {
		var e struct {
			turn.Event
			Target string `json:"target"`
		}
		if json.Unmarshal([]byte(l), &e) != nil || e.Type != turn.EventToken || e.Target == "" {
			return false
		}
		if strings.Contains(string(e.Data), "tok200 ") {
			far[e.TurnID] = true
		}
		return len(far) == 2
	})
	if err := run.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for range run.lines {
	}
	<-run.done
	if code := run.cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit %d, want 130; stderr:\n%s", code, run.stderr.String())
	}
	if _, ok := srv.WaitDisconnects(2, 5*time.Second); !ok {
		t.Fatalf("%d model streams closed, want 2", len(srv.Disconnects()))
	}
	for id := range far {
		got := env.showTurn(id)
		if got.State != "cancelled" {
			t.Errorf("turn %s is %s, want cancelled", id, got.State)
		}
		checkPartial(t, got.FinalText)
	}
}
