//go:build otel

package otel_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// The GenAI attributes the export promises (semantic conventions of
// backend/traces, pinned in docs/OBSERVABILITY.md).
const (
	attrOperation    = "gen_ai.operation.name"
	attrRequestModel = "gen_ai.request.model"
	attrInputTokens  = "gen_ai.usage.input_tokens"
	attrOutputTokens = "gen_ai.usage.output_tokens"
	attrToolName     = "gen_ai.tool.name"
	attrToolCallID   = "gen_ai.tool.call.id"
	attrInputMsgs    = "gen_ai.input.messages"
	attrOutputMsgs   = "gen_ai.output.messages"
)

// checkTrace checks the spans of one trace as the collector received them
// against the stored turn: the trace id is the turn's, one invoke_agent
// root with the turn's recorded start and end, every other span's parent
// in the trace, a chat span per model call and an execute_tool span per
// tool call with their attributes and recorded times, under the root or
// a stage span of it; message contents only when content is on.
func checkTrace(t *testing.T, spans []span, st storedTurn, content bool) {
	t.Helper()
	if len(spans) == 0 {
		t.Fatalf("turn %s: the collector received no span of it", st.ID)
	}
	byID := map[string]span{}
	var roots []span
	for _, s := range spans {
		if s.TraceID != traceIDOf(st.ID) {
			t.Fatalf("span %q has trace id %s, want the turn's id %s", s.Name, s.TraceID, traceIDOf(st.ID))
		}
		if _, dup := byID[s.ID]; dup {
			t.Errorf("span id %s twice in trace %s", s.ID, s.TraceID)
		}
		byID[s.ID] = s
		if s.Parent == "" {
			roots = append(roots, s)
		}
	}
	if len(roots) != 1 {
		t.Fatalf("turn %s: %d spans without a parent, want the one invoke_agent span:\n%s", st.ID, len(roots), renderTree(spans))
	}
	root := roots[0]
	if !strings.HasPrefix(root.Name, "invoke_agent") || root.Attrs[attrOperation] != "invoke_agent" {
		t.Errorf("the root span is %q with %s=%v, want invoke_agent", root.Name, attrOperation, root.Attrs[attrOperation])
	}
	sameTime(t, "the turn's start", root.Start, st.StartedAt)
	if st.CompletedAt != nil {
		sameTime(t, "the turn's end", root.End, *st.CompletedAt)
	}
	var chats, tools []span
	for _, s := range spans {
		if s.Parent != "" {
			if _, ok := byID[s.Parent]; !ok {
				t.Errorf("span %q names a parent %s that is not in the trace", s.Name, s.Parent)
			}
		}
		if !content && (s.Attrs[attrInputMsgs] != nil || s.Attrs[attrOutputMsgs] != nil) {
			t.Errorf("span %q carries message contents, but content capture is off", s.Name)
		}
		switch s.Attrs[attrOperation] {
		case "chat":
			chats = append(chats, s)
		case "execute_tool":
			tools = append(tools, s)
		}
	}
	// A step's parent is the root or a stage span directly under it.
	underTurn := func(s span) {
		t.Helper()
		p := byID[s.Parent]
		if p.ID != root.ID && (p.Parent != root.ID || p.Attrs[attrOperation] == "chat" || p.Attrs[attrOperation] == "execute_tool") {
			t.Errorf("span %q hangs under %q, not under the turn or one of its stages", s.Name, p.Name)
		}
	}
	if len(chats) != len(st.ModelCalls) {
		t.Fatalf("turn %s: %d chat spans for %d model calls:\n%s", st.ID, len(chats), len(st.ModelCalls), renderTree(spans))
	}
	calls := slices.Clone(st.ModelCalls)
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].StartedAt.Before(calls[j].StartedAt) })
	for i, mc := range calls {
		s := chats[i]
		underTurn(s)
		if s.Name != "chat "+mc.Model || s.Attrs[attrRequestModel] != mc.Model {
			t.Errorf("model call %d: span %q with %s=%v, want chat %s", i+1, s.Name, attrRequestModel, s.Attrs[attrRequestModel], mc.Model)
		}
		if s.Attrs[attrInputTokens] != mc.InputTokens || s.Attrs[attrOutputTokens] != mc.OutputTokens {
			t.Errorf("model call %d: tokens in/out %v/%v, stored %d/%d", i+1, s.Attrs[attrInputTokens], s.Attrs[attrOutputTokens], mc.InputTokens, mc.OutputTokens)
		}
		sameTime(t, fmt.Sprintf("model call %d's start", i+1), s.Start, mc.StartedAt)
		sameTime(t, fmt.Sprintf("model call %d's end", i+1), s.End, mc.StartedAt.Add(time.Duration(mc.DurationMS)*time.Millisecond))
	}
	if len(tools) != len(st.ToolCalls) {
		t.Fatalf("turn %s: %d execute_tool spans for %d tool calls:\n%s", st.ID, len(tools), len(st.ToolCalls), renderTree(spans))
	}
	tcs := slices.Clone(st.ToolCalls)
	sort.SliceStable(tcs, func(i, j int) bool { return tcs[i].StartedAt.Before(tcs[j].StartedAt) })
	for i, tc := range tcs {
		s := tools[i]
		underTurn(s)
		if s.Name != "execute_tool "+tc.Name || s.Attrs[attrToolName] != tc.Name || s.Attrs[attrToolCallID] != tc.CallID {
			t.Errorf("tool call %d: span %q with %s=%v %s=%v, want %s %s", i+1, s.Name, attrToolName, s.Attrs[attrToolName], attrToolCallID, s.Attrs[attrToolCallID], tc.Name, tc.CallID)
		}
		sameTime(t, fmt.Sprintf("tool call %d's start", i+1), s.Start, tc.StartedAt)
		sameTime(t, fmt.Sprintf("tool call %d's end", i+1), s.End, tc.StartedAt.Add(time.Duration(tc.DurationMS)*time.Millisecond))
	}
	if content {
		found := false
		for _, s := range spans {
			found = found || s.Attrs[attrInputMsgs] != nil || s.Attrs[attrOutputMsgs] != nil
		}
		if !found {
			t.Errorf("turn %s: content capture is on, but no span carries %s or %s", st.ID, attrInputMsgs, attrOutputMsgs)
		}
	}
}

func sameTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !got.Equal(want) {
		t.Errorf("%s: the span says %s, the store %s", what, got.Format(time.RFC3339Nano), want.UTC().Format(time.RFC3339Nano))
	}
}

// renderTree draws a trace as an indented tree: each span's name, its
// offset and duration from the root's start, and its gen_ai attributes.
func renderTree(spans []span) string { return drawTree(spans, false) }

// drawTree is renderTree, with every attribute when all is set, one a
// line (docs/OBSERVABILITY.md shows a tool turn's so).
func drawTree(spans []span, all bool) string {
	kids := map[string][]span{}
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.ID] = true
	}
	var roots []span
	for _, s := range spans {
		if s.Parent == "" || !ids[s.Parent] {
			roots = append(roots, s)
		} else {
			kids[s.Parent] = append(kids[s.Parent], s)
		}
	}
	var b strings.Builder
	var walk func(s span, depth int, t0 time.Time)
	walk = func(s span, depth int, t0 time.Time) {
		var attrs []string
		for k, v := range s.Attrs {
			if all || strings.HasPrefix(k, "gen_ai.") && k != attrInputMsgs && k != attrOutputMsgs {
				attrs = append(attrs, fmt.Sprintf("%s=%v", k, v))
			}
		}
		sort.Strings(attrs)
		indent := strings.Repeat("  ", depth)
		fmt.Fprintf(&b, "%s%s  [+%v, %v]", indent, s.Name, s.Start.Sub(t0), s.End.Sub(s.Start))
		switch {
		case all:
			for _, a := range attrs {
				fmt.Fprintf(&b, "\n%s    %s", indent, a)
			}
		case len(attrs) > 0:
			fmt.Fprintf(&b, "  %s", strings.Join(attrs, " "))
		}
		b.WriteByte('\n')
		for _, k := range kids[s.ID] {
			walk(k, depth+1, t0)
		}
	}
	for _, r := range roots {
		fmt.Fprintf(&b, "trace %s", r.TraceID)
		if all {
			var res []string
			for k, v := range r.Resource {
				res = append(res, fmt.Sprintf("%s=%v", k, v))
			}
			sort.Strings(res)
			fmt.Fprintf(&b, "  resource: %s", strings.Join(res, " "))
		}
		b.WriteByte('\n')
		walk(r, 1, r.Start)
	}
	return b.String()
}
