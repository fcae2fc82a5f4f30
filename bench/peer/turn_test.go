package peer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// TestPeerToolTurn checks that every engine of the benchmark performs the
// whole turn, so that the comparison is honest: the tokens, model calls,
// tool calls and final answer each side reports (outcome.check, which the
// benchmark also runs on every turn), and what the server received: ten
// streaming requests offering the lookup tool, each carrying every earlier
// tool call with its arguments and the tool's result for exactly those
// arguments under the call's id.
func TestPeerToolTurn(t *testing.T) {
	for _, name := range []string{"agentdeck", "langchaingo", "eino"} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Respond(script)
			hc := &http.Client{Transport: &http.Transport{}}
			t.Cleanup(hc.CloseIdleConnections)
			engines := peerEngines(t, srv.URL(), hc)
			e := engines[slices.IndexFunc(engines, func(e engine) bool { return e.name == name })]
			if err := e.turn(context.Background()); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != peerSteps {
				t.Fatalf("%d requests, want %d", len(reqs), peerSteps)
			}
			for step, req := range reqs {
				if !req.Stream || !slices.Equal(req.Tools, []string{"lookup"}) {
					t.Errorf("request %d: stream %v, tools %v; want streaming with [lookup]", step+1, req.Stream, req.Tools)
				}
				if err := checkHistory(req.Messages, step); err != nil {
					t.Errorf("request %d: %v", step+1, err)
				}
			}
		})
	}
}

// checkHistory checks the messages of the request for step (from 0): the
// user's message, then for every earlier step an assistant message with
// that step's tool calls and one tool message per call with its result.
func checkHistory(msgs []llmtest.Message, step int) error {
	if len(msgs) == 0 || msgs[0].Role != "user" || msgs[0].Content != "go" {
		return fmt.Errorf("does not start with the user's message: %+v", msgs)
	}
	rest := msgs[1:]
	for s := range step {
		want := scriptCalls(s)
		if len(rest) < 1+len(want) {
			return fmt.Errorf("step %d: %d messages left, want %d", s, len(rest), 1+len(want))
		}
		ai, results := rest[0], rest[1:1+len(want)]
		rest = rest[1+len(want):]
		if ai.Role != "assistant" || len(ai.ToolCalls) != len(want) {
			return fmt.Errorf("step %d: %s message with %d tool calls, want an assistant message with %d", s, ai.Role, len(ai.ToolCalls), len(want))
		}
		for c, key := range want {
			id := fmt.Sprintf("call_%d_%d", s, c)
			tc := ai.ToolCalls[c]
			var args struct {
				Key string `json:"key"`
			}
			if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil || tc.ID != id || tc.Name != "lookup" || args.Key != key {
				return fmt.Errorf("step %d: tool call %+v, want %s lookup {\"key\":%q}", s, tc, id, key)
			}
			if r := results[c]; r.Role != "tool" || r.ToolCallID != id || r.Content != "the value of "+key {
				return fmt.Errorf("step %d: result %+v, want the tool's result for %s under %s", s, r, key, id)
			}
		}
	}
	if len(rest) != 0 {
		return fmt.Errorf("%d messages after the last step's results: %+v", len(rest), rest)
	}
	return nil
}
