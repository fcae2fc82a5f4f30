package artifact

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name, kind, content string
		wantErr             string // "" for none
	}{
		{"html", "html", "<p>hi</p>", ""},
		{"html fragment with script", "html", "<button>x</button><script>document.body.append('ran')</script>", ""},
		{"svg", "svg", `<svg xmlns="http://www.w3.org/2000/svg"><circle r="3"/></svg>`, ""},
		{"svg with a declaration, doctype and comment", "svg", "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<!-- c -->\n<svg/>\n", ""},
		{"unknown kind", "png", "x", `kind must be "html" or "svg"`},
		{"empty", "html", " \n", "content is empty"},
		{"too big", "html", strings.Repeat("a", MaxContent+1), "an artifact holds at most"},
		{"not UTF-8", "html", "\xff\xfe", "not valid UTF-8"},
		{"svg not well-formed", "svg", "<svg>\n<rect>\n</svg>", "not well-formed XML: line 3"},
		{"svg with an HTML entity", "svg", "<svg><text>a&nbsp;b</text></svg>", "&#160;"},
		{"svg root is html", "svg", "<html><svg/></html>", "the root element is <html>, not <svg>"},
		{"svg two roots", "svg", "<svg/><svg/>", "more than one root"},
		{"svg text outside", "svg", "here: <svg/>", "text outside"},
		{"svg none", "svg", "<!-- nothing -->", "no <svg> element"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.kind, tt.content)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
			}
		})
	}
}

func TestTitleAndKey(t *testing.T) {
	titles := []struct{ kind, content, want string }{
		{"html", "<title> A \n page </title><p>x", "A page"},
		{"html", "<p>no title</p>", ""},
		{"html", "<body><svg><title>not the page's</title></svg></body>", ""},
		{"svg", "<svg><title>Dot</title><g><title>inner</title></g></svg>", "Dot"},
		{"svg", "<svg><g><title>inner</title></g></svg>", ""},
		{"svg", "<svg><title>" + strings.Repeat("long ", 100) + "</title></svg>", strings.TrimSpace(strings.Repeat("long ", 40)[:MaxTitle-1]) + "…"},
	}
	for _, tt := range titles {
		if got := TitleOf(tt.kind, tt.content); got != tt.want {
			t.Errorf("TitleOf(%s, %q) = %q, want %q", tt.kind, tt.content, got, tt.want)
		}
	}
	keys := []struct{ key, title, kind, want string }{
		{"", "Sales chart", "html", "sales-chart"},
		{"SALES_CHART", "whatever", "html", "sales-chart"},
		{" sales-chart ", "", "svg", "sales-chart"},
		{"", "!!!", "svg", "svg"},
		{"", "Über Größe", "html", "über-größe"},
		{strings.Repeat("ab ", 40), "", "html", strings.TrimRight(strings.Repeat("ab-", 22)[:64], "-")},
	}
	for _, tt := range keys {
		if got := KeyOf(tt.key, tt.title, tt.kind); got != tt.want {
			t.Errorf("KeyOf(%q, %q) = %q, want %q", tt.key, tt.title, got, tt.want)
		}
	}
}

// The tool checks its arguments, emits one artifact event linked to its
// call, and numbers versions by key after the history's.
func TestTool(t *testing.T) {
	history := []llm.Message{
		{Role: llm.RoleUser, Content: "make it"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "a", Name: Name, Arguments: `{"title":"Chart","kind":"svg","content":"<svg/>"}`}, {ID: "b", Name: Name, Arguments: `{"key":"chart","title":"x","kind":"svg","content":"<g/>"}`}}},
		{Role: llm.RoleTool, ToolCallID: "a", Content: "The artifact is shown"},
		{Role: llm.RoleTool, ToolCallID: "b", Content: "Error: the root element is <g>"},
		{Role: llm.RoleAssistant, Content: "Done, and a page:\n```html\n<p>1</p>\n```"},
		{Role: llm.RoleUser, Content: "again"},
		{Role: llm.RoleAssistant, Content: "```html\n<p>2</p>\n```"},
	}
	tl := NewTool(NewVersions(history))
	var got []turn.Draft
	ctx := tool.WithCallID(tool.WithEmitter(context.Background(), func(d turn.Draft) { got = append(got, d) }), "call-7")
	calls := []struct {
		args, wantResult, wantErr string
	}{
		{`{"title":"Chart","kind":"svg","content":"<svg><title>t</title></svg>"}`, `The artifact "Chart" is shown to the user as version 2 (key "chart")`, ""},
		{`{"key":"html","title":"Page","kind":"html","content":"<p>3</p>"}`, `as version 3 (key "html")`, ""},
		{`{"title":"New one","kind":"html","content":"<p>x</p>"}`, `as version 1 (key "new-one")`, ""},
		{`{"title":"Chart","kind":"svg","content":"<div/>"}`, "", "the root element is <div>"},
		{`{"title":"Chart","kind":"svg","content":"<svg/>"}`, `as version 3 (key "chart")`, ""},
	}
	for i, c := range calls {
		out, err := tl.Execute(ctx, json.RawMessage(c.args))
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("call %d: %q, %v; want an error saying %q", i, out, err, c.wantErr)
			}
			continue
		}
		if err != nil || !strings.Contains(out, c.wantResult) {
			t.Fatalf("call %d: %q, %v; want %q", i, out, err, c.wantResult)
		}
	}
	if len(got) != 4 {
		t.Fatalf("%d events, want 4", len(got))
	}
	a := got[0].Data.(turn.ArtifactData)
	if a.Key != "chart" || a.Title != "Chart" || a.Kind != "svg" || a.Source != turn.ArtifactFromTool || a.CallID != "call-7" || a.Content != "<svg><title>t</title></svg>" {
		t.Fatalf("event %+v", a)
	}
	// The tool's arguments pass its own schema.
	set, err := tool.NewSet(tl)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`{"title":"x","kind":"png","content":"x"}`, `{"title":"x","kind":"html"}`, `{"title":"x","kind":"html","content":"x","extra":1}`} {
		if _, err := set.Validate(Name, bad); err == nil {
			t.Errorf("schema accepted %s", bad)
		}
	}
}
