package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// siteTool reads "sites": it changes nothing, but each call reaches the
// site its arguments name (tool.Scoped), as fetch_url does.
type siteTool struct{ read *[]string }

func (siteTool) Spec() tool.Spec {
	return tool.Spec{Name: "read_site", Parameters: json.RawMessage(`{"type":"object","properties":{"site":{"type":"string"}}}`)}
}

func (s siteTool) Execute(_ context.Context, args json.RawMessage) (string, error) {
	*s.read = append(*s.read, string(args))
	return "read", nil
}

func (siteTool) Scope(args json.RawMessage) string {
	var a struct{ Site string }
	_ = json.Unmarshal(args, &a)
	return a.Site
}

// A scoped tool is asked about per scope: "always" allows that site for
// the session, and a new site is asked about again.
func TestApprovalsPerScope(t *testing.T) {
	var read []string
	h := newHarness(t, siteTool{&read})
	ap := &scriptedApprover{answers: []turn.Answer{turn.Always, turn.Deny}}
	h.ag.Approver, h.ag.Approvals = ap, agent.NewApprovals()
	h.srv.Enqueue(
		toolCall("c1", "read_site", `{"site":"a.example"}`),
		toolCall("c2", "read_site", `{"site":"a.example"}`),
		toolCall("c3", "read_site", `{"site":"b.example"}`),
		toolCall("c4", "read_site", `{"site":""}`),
		text("done"))
	h.turn(t, context.Background(), "read")

	if len(ap.asked) != 2 || ap.asked[0].Scope != "a.example" || ap.asked[1].Scope != "b.example" {
		t.Fatalf("asked %+v, want a.example then b.example", ap.asked)
	}
	if !strings.Contains(ap.asked[0].Reason, "a.example") {
		t.Fatalf("the reason does not name the site: %q", ap.asked[0].Reason)
	}
	// a.example twice (always), b.example denied, no scope: not asked.
	if len(read) != 3 || strings.Contains(strings.Join(read, " "), "b.example") {
		t.Fatalf("read %v", read)
	}
}
