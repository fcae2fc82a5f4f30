package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// TestRunContinueAfterStop: a turn stopped (Ctrl+C) after its first words,
// then run --continue, on a bare --base-url (sent an instruction to go on)
// and on a llama.cpp provider (sent the partial answer as the prefix of
// its reply). The continuation prints like any run (the answer alone on
// stdout, or NDJSON events of the new turn), is stored following the
// stopped turn and marked as continuing it, shows in turns tree, and the
// Markdown export reads the two as one answer. Continuing it again is
// refused.
func TestRunContinueAfterStop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// prefix runs on a llama.cpp provider, which continues a trailing
		// assistant message; else on a bare --base-url.
		prefix bool
		json   bool
	}{
		{"instruction, human output", false, false},
		{"prefix, NDJSON", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			// The first answer sends "One, two," and nothing more until it is stopped.
			srv.Enqueue(
				llmtest.Reply{Chunks: []llmtest.Chunk{{Content: "One, two,"}, {Content: " never sent"}}, Delay: time.Hour},
				llmtest.Reply{Chunks: llmtest.Text(" three, four.", 2)},
			)
			dir := t.TempDir()
			db := filepath.Join(dir, "a.db")
			base, first := srv.URL(), []string{"run", "--json"}
			if tt.prefix {
				if r := agentdeck(t, db, "", nil, nil, "providers", "add", "lc", "--kind", catalog.KindLlamaCpp, "--base-url", srv.URL(), "--model", "m"); r.code != ExitOK {
					t.Fatalf("providers add: %d %s", r.code, r.stderr)
				}
				base, first = "", append(first, "--provider", "lc")
			}

			signals := make(chan os.Signal, 1)
			var once sync.Once
			out := &syncBuffer{events: &turntest.Recorder{OnEmit: func(e turn.Event) {
				if e.Type == turn.EventToken {
					once.Do(func() { signals <- os.Interrupt })
				}
			}}}
			r := agentdeck(t, db, base, signals, out, append(first, "Count to five")...)
			if r.code != ExitCancelled {
				t.Fatalf("the first turn: exit %d, want stopped: %s", r.code, r.stderr)
			}
			evs := runEvents(t, r.stdout)
			sess, stopped := evs[0].SessionID, evs[0].TurnID

			args := []string{"run", "--session", sess, "--continue", stopped}
			if tt.json {
				args = append(args, "--json")
			}
			c := agentdeck(t, db, base, nil, nil, args...)
			if c.code != ExitOK {
				t.Fatalf("run --continue: exit %d: %s", c.code, c.stderr)
			}
			var cont string
			if tt.json {
				evs := runEvents(t, c.stdout)
				turntest.Check(t, evs)
				var text strings.Builder
				for _, e := range evs {
					if e.TurnID != evs[0].TurnID || e.SessionID != sess {
						t.Fatalf("an event of another turn in the continuation's output: %+v", e)
					}
					if e.Type == turn.EventToken {
						text.WriteString(turntest.Data[turn.TokenData](t, e).Text)
					}
				}
				if text.String() != " three, four." {
					t.Errorf("the continuation streamed %q", text.String())
				}
				cont = evs[0].TurnID
			} else {
				if c.stdout != " three, four.\n" {
					t.Errorf("stdout = %q, want the continuation's answer alone", c.stdout)
				}
				_, cont = idsOf(t, c.stderr)
			}
			if cont == stopped {
				t.Fatal("the continuation is the stopped turn")
			}

			sent := srv.Requests()[1].Messages
			last := sent[len(sent)-1]
			if tt.prefix {
				if last.Role != "assistant" || last.Content != "One, two," {
					t.Errorf("the prefix server was sent %+v last, want the partial answer", last)
				}
			} else if last.Role != "user" || last.Content != runner.ContinueInstruction || sent[len(sent)-2].Content != "One, two," {
				t.Errorf("the bare server was sent %+v, want the partial answer, then the instruction", sent)
			}

			show := agentdeck(t, db, base, nil, nil, "turns", "show", cont, "--json")
			var v struct {
				Parent      string `json:"parent_turn_id"`
				Continues   bool   `json:"continues"`
				UserMessage string `json:"user_message"`
				State       string `json:"state"`
				FinalText   string `json:"final_text"`
			}
			if err := json.Unmarshal([]byte(show.stdout), &v); err != nil {
				t.Fatalf("turns show: %v %s", err, show.stdout)
			}
			wantMsg := runner.ContinueInstruction
			if tt.prefix {
				wantMsg = ""
			}
			if v.Parent != stopped || !v.Continues || v.State != "completed" || v.FinalText != " three, four." || v.UserMessage != wantMsg {
				t.Fatalf("the stored continuation: %+v", v)
			}
			if human := agentdeck(t, db, base, nil, nil, "turns", "show", cont); !strings.Contains(human.stdout, "> ↳ continues the answer of turn "+stopped) {
				t.Errorf("turns show does not say what it continues:\n%s", human.stdout)
			}

			tree := agentdeck(t, db, base, nil, nil, "turns", "tree", sess)
			want := "* #1 [cancelled] Count to five  " + stopped + "\n* #2 [completed] ↳ continues #1  " + cont + "\n"
			if tree.stdout != want {
				t.Errorf("turns tree:\n%s\nwant\n%s", tree.stdout, want)
			}
			jtree := agentdeck(t, db, base, nil, nil, "turns", "tree", sess, "--json")
			var jt struct {
				Turns []struct {
					ID        string `json:"id"`
					Continues bool   `json:"continues"`
				} `json:"turns"`
			}
			if err := json.Unmarshal([]byte(jtree.stdout), &jt); err != nil || len(jt.Turns) != 2 || jt.Turns[0].Continues || !jt.Turns[1].Continues {
				t.Errorf("turns tree --json: %v %s", err, jtree.stdout)
			}

			md := filepath.Join(dir, "s.md")
			if e := agentdeck(t, db, base, nil, nil, "sessions", "export", sess, "--format", "md", "-o", md); e.code != ExitOK {
				t.Fatalf("export: %d %s", e.code, e.stderr)
			}
			b, _ := os.ReadFile(md)
			if one := "### Assistant\n\nOne, two,\n\n_— Resumed in turn 2 (continued after Stop) —_\n\nthree, four.\n\n"; !strings.Contains(string(b), one) || strings.Contains(string(b), "## Turn 2") {
				t.Errorf("the Markdown export does not read as one answer:\n%s", b)
			}

			again := agentdeck(t, db, base, nil, nil, "run", "--session", sess, "--continue", stopped)
			if again.code != ExitFailed || !strings.Contains(again.stderr, "already continued") {
				t.Errorf("a second --continue: exit %d, %q", again.code, again.stderr)
			}
		})
	}
}

// TestRunContinueRefusals: what run --continue refuses, and how it says so.
func TestRunContinueRefusals(t *testing.T) {
	t.Parallel()
	srv := echoServer(t)
	db := filepath.Join(t.TempDir(), "a.db")
	ids := func(r cliRun) (string, string) {
		if r.code != ExitOK {
			t.Fatalf("run: %d %s", r.code, r.stderr)
		}
		evs := runEvents(t, r.stdout)
		return evs[0].SessionID, evs[0].TurnID
	}
	sess, done := ids(agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "one"))
	other, _ := ids(agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "elsewhere"))
	tests := []struct {
		name  string
		args  []string
		code  int
		wants string
	}{
		{"a prompt too", []string{"--session", sess, "--continue", done, "and more"}, ExitUsage, "--continue takes no PROMPT"},
		{"no session", []string{"--continue", done}, ExitUsage, "--continue needs --session"},
		{"with --parent", []string{"--session", sess, "--continue", done, "--parent", done}, ExitUsage, "cannot be used together"},
		{"a turn of another session", []string{"--session", other, "--continue", done}, ExitUsage, "belongs to another session"},
		{"a completed turn", []string{"--session", sess, "--continue", done}, ExitUsage, "only an answer that was stopped or reached a limit"},
		{"no such turn", []string{"--session", sess, "--continue", "nope"}, ExitFailed, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := agentdeck(t, db, srv.URL(), nil, nil, append([]string{"run"}, tt.args...)...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.wants) {
				t.Fatalf("exit %d (want %d), stderr %q should say %q", r.code, tt.code, r.stderr, tt.wants)
			}
		})
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d model calls, want the two turns' only", n)
	}
	if tree := agentdeck(t, db, srv.URL(), nil, nil, "turns", "tree", sess); strings.Count(tree.stdout, "\n") != 1 {
		t.Errorf("a refused --continue left a turn behind:\n%s", tree.stdout)
	}
}
