package export

import (
	"context"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
)

func TestMarkdownRepair(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello *world*", "hello *world*"},
		{"closed fence", "```go\nx\n```\nafter", "```go\nx\n```\nafter"},
		{"open fence", "```go\nfunc main() {", "```go\nfunc main() {\n```"},
		{"open long fence", "````\n```\nx", "````\n```\nx\n````"},
		{"open tilde fence", "~~~\nx", "~~~\nx\n~~~"},
		{"indented four is code, not a fence", "    ```\nx", "    ```\nx"},
		{"inline backticks are not a fence", "use ```x``` here", "use ```x``` here"},
		{"unclosed pre", "<pre>\nraw", "\\<pre>\nraw"},
		{"closed pre", "<pre>\nraw\n</pre>", "<pre>\nraw\n</pre>"},
		{"unclosed comment", "<!-- note\nmore", "\\<!-- note\nmore"},
		{"closed comment", "<!-- note -->", "<!-- note -->"},
		{"html in a fence is code", "```\n<pre>\n```", "```\n<pre>\n```"},
		{"other html ends at a blank line", "<div>\nx", "<div>\nx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mdRepair(tt.in); got != tt.want {
				t.Fatalf("mdRepair(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestMarkdownCode(t *testing.T) {
	tests := []struct{ name, content, fence string }{
		{"no backticks", "x := 1", "```"},
		{"a fence inside", "```go\nx\n```", "````"},
		{"a long run", "a ````` b", "``````"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			mdCodeBlock(&b, "", "", tt.content)
			want := tt.fence + "\n" + tt.content + "\n" + tt.fence + "\n\n"
			if b.String() != want {
				t.Fatalf("got %q, want %q", b.String(), want)
			}
		})
	}
	inline := map[string]string{"read_file": "`read_file`", "a`b": "``a`b``", "`x": "`` `x ``", "two\nlines": "`two lines`"}
	for in, want := range inline {
		if got := mdCode(in); got != want {
			t.Errorf("mdCode(%q) = %q, want %q", in, got, want)
		}
	}
	if got := mdEscape("a|b *c* <d> #1\nnext"); got != `a\|b \*c\* \<d\> \#1 next` {
		t.Errorf("mdEscape = %q", got)
	}
}

// TestMarkdownContinuationWithoutItsTurn: a continuation whose turn is not
// in the document (a damaged file gave no row for it) is written on its
// own, marked as resumed, without its message (empty, or the instruction
// to go on).
func TestMarkdownContinuationWithoutItsTurn(t *testing.T) {
	doc := &Document{Session: Session{Title: "s"}, Turns: []Turn{{ID: "b", Seq: 2, ParentTurnID: "gone", Continues: true, State: StateCompleted,
		UserMessage: "Continue.", Messages: []llm.Message{{Role: llm.RoleUser, Content: "Continue."}, {Role: llm.RoleAssistant, Content: " and the rest."}}}}}
	var b strings.Builder
	if err := writeMarkdown(context.Background(), &b, doc, nil, nil); err != nil {
		t.Fatal(err)
	}
	want := "## Turn 2 · —\n\n### Assistant\n\n_— Resumed an answer that is not in this file —_\n\nand the rest.\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Fatalf("got\n%s\nwant it to end\n%s", b.String(), want)
	}
}

// TestMarkdownImageNoLongerStored: given somewhere to store images, a
// message naming one whose bytes are not in the document (the turn that
// owned it was deleted) says so instead of linking nothing.
func TestMarkdownImageNoLongerStored(t *testing.T) {
	doc := &Document{Session: Session{Title: "s"}, Turns: []Turn{{ID: "a", Seq: 1, State: StateCompleted, UserMessage: "Again?",
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "Again?", Images: []llm.Image{{ID: "gone", MIME: "image/png", Name: "old.png", Size: 2048}}}}}}}
	var b strings.Builder
	file := func(string, []byte) (string, error) { t.Fatal("stored an image it does not have"); return "", nil }
	if err := writeMarkdown(context.Background(), &b, doc, nil, file); err != nil {
		t.Fatal(err)
	}
	if want := "Again?\n\n_Image: old.png (2 KB), no longer stored_\n"; !strings.Contains(b.String(), want) {
		t.Fatalf("got\n%s\nwant it to hold\n%s", b.String(), want)
	}
}
