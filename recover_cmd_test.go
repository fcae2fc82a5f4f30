package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store/storetest"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// The tests here kill -9 an `agentdeck run` in the middle of a streaming
// answer and check that nobody sees its turn as running: the next command
// marks it interrupted with the answer so far, db check reports it without
// writing, and a serve started before the kill notices by itself.

// longAnswer is what the scripted model streams: long enough that the run
// is always killed mid-answer.
var longAnswer = llmtest.Reply{Chunks: llmtest.Tokens(20000), Delay: time.Millisecond}

// startLongRun starts `agentdeck run --json` against the long answer and
// returns once it has printed the token "tok200 " (by then the run has
// stored some of the answer: its event log writes every 50 ms).
func startLongRun(env *cmdEnv) (p *proc, sessionID, turnID string) {
	env.t.Helper()
	p = env.start("run", "--json", "Count forever")
	var e turn.Event
	p.waitLine(func(l string) bool {
		if json.Unmarshal([]byte(l), &e) != nil || e.Type != turn.EventToken {
			return false
		}
		var d turn.TokenData
		_ = json.Unmarshal(e.Data, &d)
		return d.Text == "tok200 "
	})
	return p, e.SessionID, e.TurnID
}

// checkPartial checks that a recovered turn kept a non-empty start of the
// streamed answer.
func checkPartial(t *testing.T, finalText string) {
	t.Helper()
	full := llmtest.Content(longAnswer.Chunks)
	if !strings.HasPrefix(finalText, "tok0 tok1 ") || !strings.HasPrefix(full, finalText) {
		t.Fatalf("the answer so far should be kept; final text %.80q", finalText)
	}
}

func TestKilledRunIsInterruptedForTheNextCommand(t *testing.T) {
	srv := llmtest.NewServer(t)
	env := newCmdEnv(t, srv.URL())
	srv.Enqueue(longAnswer)
	run, sess, tr := startLongRun(env)
	pid := run.cmd.Process.Pid
	run.kill()

	// db check reports the turn and changes nothing.
	before := storetest.Files(t, env.db)
	check := env.run("db", "check")
	if check.code != 0 || !strings.Contains(check.stdout, "integrity: ok") {
		t.Fatalf("db check: exit %d\n%s%s", check.code, check.stdout, check.stderr)
	}
	if want := "its process (pid " + strconv.Itoa(pid) + ") is gone"; !strings.Contains(check.stdout, want) || !strings.Contains(check.stdout, tr) {
		t.Fatalf("db check should say %q about turn %s:\n%s", want, tr, check.stdout)
	}
	if !bytes.Equal(before, storetest.Files(t, env.db)) {
		t.Fatal("db check changed the database or its write-ahead log")
	}

	show := env.run("sessions", "show", sess, "--json")
	var v struct {
		Turns []struct {
			ID        string `json:"id"`
			State     string `json:"state"`
			FinalText string `json:"final_text"`
		} `json:"turns"`
	}
	if err := json.Unmarshal([]byte(show.stdout), &v); err != nil || show.code != 0 || len(v.Turns) != 1 {
		t.Fatalf("sessions show: exit %d, %v: %s %s", show.code, err, show.stdout, show.stderr)
	}
	if got := v.Turns[0]; got.ID != tr || got.State != "interrupted" {
		t.Fatalf("the killed run's turn: %s %s", got.ID, got.State)
	}
	checkPartial(t, v.Turns[0].FinalText)
}

func TestServeNoticesAKilledRun(t *testing.T) {
	srv := llmtest.NewServer(t)
	env := newCmdEnv(t, srv.URL())
	serve := env.start("serve", "--addr", "127.0.0.1:0")
	u, err := url.Parse(strings.TrimSpace(serve.waitLine(func(l string) bool { return strings.Contains(l, "http://") })))
	if err != nil {
		t.Fatal(err)
	}
	base, token := "http://"+u.Host, u.Query().Get("token")
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	do := func(method, path, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	// Subscribe before the kill, as an open browser tab is.
	events := do("GET", "/api/events", "")
	defer events.Body.Close()
	stream := bufio.NewScanner(events.Body)
	if !stream.Scan() || stream.Text() != ": connected" {
		t.Fatalf("the event stream opened with %q", stream.Text())
	}

	srv.Enqueue(longAnswer)
	run, sess, tr := startLongRun(env)
	run.kill()
	killed := time.Now()

	// No command runs in between: the serve must notice by itself.
	for noticed := false; !noticed; {
		if !stream.Scan() {
			t.Fatalf("the event stream ended (%v); serve's stderr:\n%s", stream.Err(), serve.stderr.String())
		}
		data, ok := strings.CutPrefix(stream.Text(), "data: ")
		if !ok {
			continue
		}
		// The bus's envelope: {"kind":...,"data":...}.
		var msg struct {
			Kind string          `json:"kind"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal([]byte(data), &msg); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		if msg.Kind != "turns_changed" {
			continue
		}
		var turns []struct {
			TurnID    string `json:"turn_id"`
			SessionID string `json:"session_id"`
			State     string `json:"state"`
		}
		if err := json.Unmarshal(msg.Data, &turns); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		for _, c := range turns {
			if c.TurnID == tr {
				if c.SessionID != sess || c.State != "interrupted" {
					t.Fatalf("turns_changed %+v", c)
				}
				noticed = true
			}
		}
	}
	t.Logf("serve announced the killed run's turn interrupted %v after the kill", time.Since(killed))

	resp := do("POST", "/api/call/GetTurn", `["`+tr+`", false]`)
	defer resp.Body.Close()
	var d struct {
		State     string `json:"state"`
		FinalText string `json:"final_text"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil || resp.StatusCode != http.StatusOK || d.State != "interrupted" {
		t.Fatalf("GetTurn: status %d, %v, state %q", resp.StatusCode, err, d.State)
	}
	checkPartial(t, d.FinalText)
}
