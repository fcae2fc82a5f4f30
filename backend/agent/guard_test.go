package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// scriptedApprover answers with the next scripted answer and records requests.
type scriptedApprover struct {
	mu      sync.Mutex
	answers []turn.Answer
	asked   []agent.ApprovalRequest
}

func (s *scriptedApprover) Approve(_ context.Context, req agent.ApprovalRequest) (turn.Answer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, req)
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a, nil
}

func writeTool(writes *[]string) tool.Tool {
	return tool.Func{
		Def: tool.Spec{Name: "write_note", SideEffects: true, Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		Fn: func(_ context.Context, args json.RawMessage) (string, error) {
			*writes = append(*writes, string(args))
			return "written", nil
		},
	}
}

func TestApprovals(t *testing.T) {
	tests := []struct {
		name      string
		answers   []turn.Answer
		calls     int
		wantRuns  int
		wantAsked int
		blocked   []bool
	}{
		{"allowed once", []turn.Answer{turn.AllowOnce}, 1, 1, 1, []bool{false}},
		{"denied", []turn.Answer{turn.Deny}, 1, 0, 1, []bool{true}},
		{"always is remembered for the session", []turn.Answer{turn.Always}, 3, 3, 1, []bool{false, false, false}},
		{"once is not remembered", []turn.Answer{turn.AllowOnce, turn.Deny}, 2, 1, 2, []bool{false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var writes []string
			h := newHarness(t, writeTool(&writes))
			ap := &scriptedApprover{answers: tt.answers}
			h.ag.Approver, h.ag.Approvals = ap, agent.NewApprovals()
			for i := 0; i < tt.calls; i++ {
				h.srv.Enqueue(toolCall("c"+string(rune('1'+i)), "write_note", `{"text":"note `+string(rune('a'+i))+`"}`))
			}
			h.srv.Enqueue(text("done"))
			h.turn(t, context.Background(), "write notes")

			if len(writes) != tt.wantRuns || len(ap.asked) != tt.wantAsked {
				t.Fatalf("ran %d (want %d), asked %d (want %d)", len(writes), tt.wantRuns, len(ap.asked), tt.wantAsked)
			}
			if ap.asked[0].Tool != "write_note" || !strings.Contains(string(ap.asked[0].Args), "note a") || ap.asked[0].SessionID != "sess-1" {
				t.Fatalf("the request must show the full call: %+v", ap.asked[0])
			}
			g := h.rec.Of(turn.EventGuardTriggered)
			if len(g) != len(tt.blocked) {
				t.Fatalf("%d guard_triggered events, want %d", len(g), len(tt.blocked))
			}
			for i, want := range tt.blocked {
				if d := turntest.Data[turn.GuardData](t, g[i]); d.Blocked != want || d.Guard != "side_effects" {
					t.Errorf("guard event %d = %+v, want blocked=%v", i, d, want)
				}
			}
			if tt.wantRuns == 0 {
				sent := h.srv.Requests()[1].Messages
				if last := sent[len(sent)-1]; !strings.Contains(last.Content, "denied") {
					t.Fatalf("a denied call goes back to the model as denied: %q", last.Content)
				}
			}
		})
	}
}

func TestHeadlessPolicy(t *testing.T) {
	for _, allow := range []bool{true, false} {
		var writes []string
		h := newHarness(t, writeTool(&writes))
		h.ag.Approver = agent.PolicyApprover{AllowAll: allow}
		h.srv.Enqueue(toolCall("c1", "write_note", `{"text":"x"}`), text("ok"))
		h.turn(t, context.Background(), "write")
		if (len(writes) == 1) != allow {
			t.Fatalf("--approve all=%v ran %d writes", allow, len(writes))
		}
	}
}

type blockGuard struct{}

func (blockGuard) Name() string { return "no_secrets" }
func (blockGuard) Check(_ context.Context, c agent.GuardCall) agent.Decision {
	if strings.Contains(string(c.Args), "password") {
		return agent.Decision{Verdict: agent.VerdictBlock, Reason: "arguments contain a password"}
	}
	return agent.Decision{Verdict: agent.VerdictWarn, Reason: "checked"}
}

func TestBlockingGuardAndWarnings(t *testing.T) {
	h := newHarness(t, echoTool())
	h.ag.Guards = []agent.Guard{blockGuard{}}
	h.srv.Enqueue(toolCall("c1", "echo", `{"text":"my password is x"}`), toolCall("c2", "echo", `{"text":"fine"}`), text("ok"))
	h.turn(t, context.Background(), "x")
	g := h.rec.Of(turn.EventGuardTriggered)
	if len(g) != 2 || !turntest.Data[turn.GuardData](t, g[0]).Blocked || turntest.Data[turn.GuardData](t, g[1]).Blocked {
		t.Fatalf("guard events %+v", g)
	}
	if r := h.rec.Of(turn.EventToolResult); len(r) != 1 || turntest.Data[turn.ToolResultData](t, r[0]).Output != "fine" {
		t.Fatal("only the warned call should have run")
	}
}
