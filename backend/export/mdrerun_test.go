package export

import (
	"context"
	"strings"
	"testing"
)

// A re-run says in its heading which turn and step it started from and
// what it changed, even when its source is on another branch than the one
// written; a re-run whose source the file lacks names no number.
func TestMarkdownNamesTheRerun(t *testing.T) {
	turns := []Turn{
		{ID: "a", Seq: 1, State: StateCompleted},
		{ID: "b", Seq: 2, State: StateCompleted},
		{ID: "c", Seq: 3, State: StateCompleted, FromTurnID: "b", FromStep: "tool2", FromEdit: "tool_result"},
		{ID: "d", Seq: 4, State: StateCompleted, ParentTurnID: "c", FromStep: "call1"},
		{ID: "e", Seq: 5, State: StateCompleted, FromTurnID: "a", FromStep: "start", FromEdit: "system_prompt"},
	}
	tests := []struct{ id, want string }{
		{"a", ""},
		{"c", "Re-run of turn #2 from tool result 2, edited tool result"},
		{"d", "Re-run of an earlier turn from model call 1, no edit"},
		{"e", "Re-run of turn #1 from the start, edited system prompt"},
	}
	got := mdReruns(turns)
	for _, tt := range tests {
		if got[tt.id] != tt.want {
			t.Errorf("turn %s: %q, want %q", tt.id, got[tt.id], tt.want)
		}
	}
	// Written as the active branch only: c's source, b, is not written,
	// yet c still names it.
	doc := Document{Session: Session{Title: "s", ActiveTurnID: "d"}, Turns: turns}
	reruns := mdReruns(doc.Turns)
	var b strings.Builder
	if err := writeMarkdown(context.Background(), &b, withBranches(doc, false), reruns, nil); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if !strings.Contains(md, "## Turn 3 · — · Re-run of turn #2 from tool result 2, edited tool result\n") || strings.Contains(md, "## Turn 2 ") {
		t.Fatalf("the transcript of the branch:\n%s", md)
	}
	for id, want := range map[string]string{"stage3": "stage 3", "tool": "step tool", "start": "the start"} {
		if got := mdStepLabel(id); got != want {
			t.Errorf("mdStepLabel(%q) = %q, want %q", id, got, want)
		}
	}
}
