package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// turnJSON is the part of `turns show --json` these tests read.
type turnJSON struct {
	ID              string `json:"id"`
	State           string `json:"state"`
	FinalText       string `json:"final_text"`
	Outcome         string `json:"outcome"`
	Error           string `json:"error"`
	BudgetExhausted bool   `json:"budget_exhausted"`
	StepsUsed       int    `json:"steps_used"`
	Termination     struct {
		Kind      string `json:"kind"`
		Limit     int64  `json:"limit"`
		Used      int64  `json:"used"`
		Concluded bool   `json:"concluded"`
	} `json:"termination"`
}

func (e *cmdEnv) showTurn(id string) turnJSON {
	e.t.Helper()
	r := e.run("turns", "show", id, "--json")
	if r.code != 0 {
		e.t.Fatalf("turns show: exit %d: %s", r.code, r.stderr)
	}
	var v turnJSON
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		e.t.Fatalf("turns show --json: %v: %s", err, r.stdout)
	}
	return v
}

// turnIDOf reads the turn id from run's closing line on stderr.
func turnIDOf(t *testing.T, stderr string) (session, tr string) {
	t.Helper()
	for _, l := range strings.Split(stderr, "\n") {
		f := strings.Fields(l)
		if len(f) == 4 && f[0] == "session" && f[2] == "turn" {
			return f[1], f[3]
		}
	}
	t.Fatalf("no session/turn line in stderr:\n%s", stderr)
	return "", ""
}

// A failed turn has no answer of its own: it must not show the previous
// turn's answer as its own, in turns show, sessions show or the export.
func TestFailedTurnHasNoAnswerOfItsOwn(t *testing.T) {
	srv := llmtest.NewServer(t)
	env := newCmdEnv(t, srv.URL())
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("The capital of France is Paris.", 4)})
	first := env.run("run", "What is the capital of France?")
	if first.code != 0 || strings.TrimSpace(first.stdout) != "The capital of France is Paris." {
		t.Fatalf("first turn: exit %d, stdout %q, stderr %s", first.code, first.stdout, first.stderr)
	}
	sess, _ := turnIDOf(t, first.stderr)

	srv.Enqueue(llmtest.ErrorReply(500, "server_error", "the model crashed"))
	second := env.run("run", "--session", sess, "And of Spain?")
	if second.code != 1 {
		t.Fatalf("a failed turn exits 1, got %d: %s", second.code, second.stderr)
	}
	if strings.Contains(second.stdout, "Paris") {
		t.Fatalf("the failed turn printed the previous answer: %q", second.stdout)
	}
	_, tr := turnIDOf(t, second.stderr)
	v := env.showTurn(tr)
	if v.State != "failed" || v.FinalText != "" || v.Error == "" {
		t.Fatalf("the failed turn: state %s, final_text %q, error %q", v.State, v.FinalText, v.Error)
	}
	show := env.run("sessions", "show", sess)
	if strings.Count(show.stdout, "Paris") != 1 {
		t.Fatalf("sessions show should print the Paris answer once, under the first turn:\n%s", show.stdout)
	}
	if !strings.Contains(show.stdout, "(no answer") {
		t.Fatalf("sessions show should say the failed turn has no answer:\n%s", show.stdout)
	}
	md := env.run("sessions", "export", sess, "--format", "md")
	if strings.Count(md.stdout, "The capital of France is Paris.") != 1 {
		t.Fatalf("the Markdown export should hold the Paris answer once:\n%s", md.stdout)
	}
}

// Two turns sent the same request and got different answers; with the
// model server stopped, each replays to its own answer.
func TestReplaySameRequestTwoAnswers(t *testing.T) {
	srv := llmtest.NewServer(t)
	env := newCmdEnv(t, srv.URL())
	var turns []string
	for _, answer := range []string{"Seven.", "Forty-two."} {
		srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text(answer, 3)})
		r := env.run("run", "Pick a number.")
		if r.code != 0 || strings.TrimSpace(r.stdout) != answer {
			t.Fatalf("run: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
		}
		_, tr := turnIDOf(t, r.stderr)
		turns = append(turns, tr)
	}
	srv.Close()
	for i, want := range []string{"Seven.", "Forty-two."} {
		r := env.run("replay", turns[i], "--json")
		var rep struct {
			ReplayTurnID   string `json:"replay_turn_id"`
			FinalTextMatch bool   `json:"final_text_match"`
			Matched        bool   `json:"matched"`
			Divergences    []any  `json:"divergences"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("replay --json: %v: %q %s", err, r.stdout, r.stderr)
		}
		if r.code != 0 || !rep.Matched || !rep.FinalTextMatch || len(rep.Divergences) != 0 {
			t.Fatalf("replay of turn %d: exit %d %+v %s", i+1, r.code, rep, r.stderr)
		}
		if got := env.showTurn(rep.ReplayTurnID).FinalText; got != want {
			t.Fatalf("replay of turn %d answered %q, want %q", i+1, got, want)
		}
	}
}

// A replay never repeats a side effect: the original wrote a file; the
// replay, offline, gives the model the original's result and writes nothing.
func TestReplayDoesNotWriteTheFile(t *testing.T) {
	srv := llmtest.NewServer(t)
	env := newCmdEnv(t, srv.URL())
	ws := t.TempDir()
	srv.Enqueue(
		llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "w1", "write_file", `{"path":"report.txt","content":"quarterly numbers"}`, 4), "tool_calls")},
		llmtest.Reply{Chunks: llmtest.Text("I wrote report.txt.", 3)},
	)
	r := env.run("run", "--workspace", ws, "--approve", "all", "Write the report.")
	if r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	_, tr := turnIDOf(t, r.stderr)
	path := filepath.Join(ws, "report.txt")
	if b, err := os.ReadFile(path); err != nil || string(b) != "quarterly numbers" {
		t.Fatalf("the original run should have written the file: %q %v", b, err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	rep := env.run("replay", tr)
	if rep.code != 0 || !strings.Contains(rep.stdout, "final text: matches the original") {
		t.Fatalf("replay: exit %d\n%s\n%s", rep.code, rep.stdout, rep.stderr)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the replay wrote the file again (%v)", err)
	}
}

// A loop stopped at its step limit says so: in turns show --json, in the
// turn_completed event, on run's stderr and in the Markdown export.
func TestStepLimitedLoopSaysHowItEnded(t *testing.T) {
	srv := llmtest.NewServer(t)
	env := newCmdEnv(t, srv.URL())
	// A model that calls a tool forever, and answers once it is offered none.
	srv.Respond(func(req llmtest.Request) llmtest.Reply {
		if len(req.Tools) == 0 {
			return llmtest.Reply{Chunks: llmtest.Text("Here is what I found so far.", 3)}
		}
		return llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, fmt.Sprintf("call_%d", req.Seq), "update_plan",
			fmt.Sprintf(`{"steps":[{"title":"look %d","status":"running"}]}`, req.Seq), 2), "tool_calls")}
	})
	for _, mode := range []string{"json", "human"} {
		t.Run(mode, func(t *testing.T) {
			args := []string{"run", "--max-steps", "8", "Keep looking."}
			if mode == "json" {
				args = append([]string{"run", "--json"}, args[1:]...)
			}
			r := env.run(args...)
			if r.code != 0 {
				t.Fatalf("a limit with a concluding answer exits 0, got %d: %s", r.code, r.stderr)
			}
			var tr string
			if mode == "json" {
				lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
				var last struct {
					TurnID string `json:"turn_id"`
					Type   string `json:"type"`
					Data   struct {
						Termination struct {
							Kind      string `json:"kind"`
							Limit     int64  `json:"limit"`
							Used      int64  `json:"used"`
							Concluded bool   `json:"concluded"`
						} `json:"termination"`
						BudgetExhausted bool `json:"budget_exhausted"`
						OK              bool `json:"ok"`
					} `json:"data"`
				}
				json.Unmarshal([]byte(lines[len(lines)-1]), &last)
				tm := last.Data.Termination
				if last.Type != "turn_completed" || tm.Kind != "max_iterations_reached" || tm.Limit != 8 || tm.Used != 8 || !tm.Concluded || !last.Data.BudgetExhausted || !last.Data.OK {
					t.Fatalf("turn_completed: %s", lines[len(lines)-1])
				}
				tr = last.TurnID
			} else {
				if strings.TrimSpace(r.stdout) != "Here is what I found so far." {
					t.Fatalf("stdout is the answer only: %q", r.stdout)
				}
				if !strings.Contains(r.stderr, "stopped at the step limit: 8 of 8 model calls") {
					t.Fatalf("stderr should name the limit:\n%s", r.stderr)
				}
				_, tr = turnIDOf(t, r.stderr)
			}
			v := env.showTurn(tr)
			if v.State != "completed" || v.Termination.Kind != "max_iterations_reached" || v.Termination.Limit != 8 || v.Termination.Used != 8 ||
				!v.Termination.Concluded || !v.BudgetExhausted || v.StepsUsed != 9 || v.FinalText != "Here is what I found so far." {
				t.Fatalf("turns show --json: %+v", v)
			}
			human := env.run("turns", "show", tr)
			if !strings.Contains(human.stdout, "stopped at the step limit: 8 of 8 model calls") || !strings.Contains(human.stdout, "then gave a concluding answer") {
				t.Fatalf("turns show should name the limit:\n%s", human.stdout)
			}
		})
	}
	sessions := env.run("sessions", "list", "--json")
	var list struct {
		Sessions []struct{ ID string } `json:"sessions"`
	}
	json.Unmarshal([]byte(sessions.stdout), &list)
	md := env.run("sessions", "export", list.Sessions[0].ID, "--format", "md")
	if !strings.Contains(md.stdout, "Stopped at the step limit: 8 of 8 model calls") {
		t.Fatalf("the Markdown export should name the limit:\n%s", md.stdout)
	}
}

// Critique-revise in human mode: stdout is the final draft and nothing
// else; the critic's JSON and the first draft go nowhere near it.
func TestCritiqueReviseStdoutIsTheFinalDraft(t *testing.T) {
	srv := llmtest.NewServer(t)
	env := newCmdEnv(t, srv.URL())
	srv.Enqueue(
		llmtest.Reply{Chunks: llmtest.Text("First draft: roses are red.", 3)},
		llmtest.Reply{Chunks: llmtest.Text(`{"passed": false, "score": 0.4, "feedback": "Make it rhyme."}`, 4)},
		llmtest.Reply{Chunks: llmtest.Text("Roses are red, violets are blue.", 3)},
		llmtest.Reply{Chunks: llmtest.Text(`{"passed": true, "score": 0.9, "feedback": "Good."}`, 4)},
	)
	r := env.run("run", "--workflow", "critique-revise", "Write a two-line poem.")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.TrimSpace(r.stdout) != "Roses are red, violets are blue." {
		t.Fatalf("stdout should be the final draft only, got %q", r.stdout)
	}
	for _, want := range []string{"critic: FAIL (score 0.40) Make it rhyme.", "critic: PASS (score 0.90)", "revision 1 done"} {
		if !strings.Contains(r.stderr, want) {
			t.Fatalf("stderr should show %q as progress:\n%s", want, r.stderr)
		}
	}
}
