package export

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// mdMaxToolResult is how much of a tool's result the transcript shows, in
// characters; the JSON export has all of it.
const mdMaxToolResult = 2000

// writeMarkdown writes a transcript for people.
//
// Message text is Markdown already (models answer in it) and is copied as
// it is, with two repairs so that one message cannot swallow the rest of
// the document: a code fence left open (an answer stopped mid-block) is
// closed, and an HTML block that would run to the end of the file (<pre>
// or <!-- with no end) has its "<" escaped. What Agentdeck adds around the
// text (titles, names, table cells) is plain text and escaped. Code blocks
// use a fence longer than any run of backticks in their content.
func writeMarkdown(ctx context.Context, w io.Writer, doc *Document) error {
	var b strings.Builder
	mdHeader(&b, doc)
	for i := range doc.Turns {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		b.Reset()
		mdTurn(&b, &doc.Session, &doc.Turns[i])
	}
	// Every part ends with a blank line; the file ends with one newline.
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

func mdHeader(b *strings.Builder, doc *Document) {
	s := doc.Session
	fmt.Fprintf(b, "# %s\n\n", mdEscape(s.Title))
	fmt.Fprintf(b, "- Created: %s\n", mdTime(s.CreatedAt))
	fmt.Fprintf(b, "- Last activity: %s\n", mdTime(s.UpdatedAt))
	if s.Model != "" {
		fmt.Fprintf(b, "- Model: %s", mdCode(s.Model))
		if s.Provider != "" {
			fmt.Fprintf(b, " (%s)", mdEscape(s.Provider))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "- Workflow: %s\n", mdEscape(s.Workflow))
	fmt.Fprintf(b, "- Turns: %d\n\n", len(doc.Turns))
}

func mdTurn(b *strings.Builder, s *Session, t *Turn) {
	fmt.Fprintf(b, "---\n\n## Turn %d · %s\n\n", t.Seq, mdTime(t.StartedAt))
	var notes []string
	if t.Model != "" && t.Model != s.Model {
		notes = append(notes, "model "+mdCode(t.Model))
	}
	if t.Workflow != "" && t.Workflow != s.Workflow {
		notes = append(notes, "workflow "+mdEscape(t.Workflow))
	}
	if len(notes) > 0 {
		fmt.Fprintf(b, "_%s_\n\n", strings.Join(notes, ", "))
	}
	mdConversation(b, t)
	mdPlan(b, t.Plan())
	mdCharts(b, t.Events)
	mdStages(b, t.Stages)
}

// mdConversation writes the turn's messages as "You" and "Assistant"
// sections, each tool call under the assistant message that asked for it
// with the result the tool gave.
func mdConversation(b *strings.Builder, t *Turn) {
	results, calls, shown := map[string]llm.Message{}, map[string]ToolCall{}, map[string]bool{}
	for _, m := range t.Messages {
		if m.Role == llm.RoleTool && m.ToolCallID != "" {
			results[m.ToolCallID] = m
		}
	}
	for _, c := range t.ToolCalls {
		calls[c.CallID] = c
	}
	section := ""
	enter := func(name string) {
		if section != name {
			fmt.Fprintf(b, "### %s\n\n", name)
			section = name
		}
	}
	if len(t.Messages) == 0 || t.Messages[0].Role != llm.RoleUser {
		enter("You")
		mdText(b, t.UserMessage)
	}
	answered := false
	for _, m := range t.Messages {
		switch m.Role {
		case llm.RoleUser:
			enter("You")
			mdText(b, m.Content)
		case llm.RoleAssistant:
			enter("Assistant")
			mdReasoning(b, m.Reasoning)
			if strings.TrimSpace(m.Content) != "" {
				mdText(b, m.Content)
				answered = true
			}
			for _, tc := range m.ToolCalls {
				res, ok := results[tc.ID]
				shown[tc.ID] = ok
				mdToolCall(b, tc, calls[tc.ID], res, ok)
			}
		case llm.RoleTool:
			if !shown[m.ToolCallID] {
				enter("Assistant")
				mdToolCall(b, llm.ToolCall{ID: m.ToolCallID, Name: m.Name}, calls[m.ToolCallID], m, true)
			}
		}
	}
	// A turn that failed or stopped before storing an answer may still
	// have text: its final text, or a running turn's streamed tokens.
	if text := mdUnstoredAnswer(t); !answered && text != "" {
		enter("Assistant")
		mdText(b, text)
		answered = true
	}
	if note := mdStateNote(t, answered); note != "" {
		enter("Assistant")
		b.WriteString(note + "\n\n")
	}
	for _, note := range mdEndingNotes(t) {
		enter("Assistant")
		b.WriteString(note + "\n\n")
	}
}

// mdReasoning writes the model's thinking before its answer, folded in a
// <details> block as the app shows it, in a code block: it is the model's
// text, never markup to render.
func mdReasoning(b *strings.Builder, reasoning string) {
	if strings.TrimSpace(reasoning) == "" {
		return
	}
	b.WriteString("<details>\n<summary>Thinking</summary>\n\n")
	mdCodeBlock(b, "", "text", strings.Trim(reasoning, "\n"))
	b.WriteString("</details>\n\n")
}

// mdEndingNotes name a limit the turn stopped at, and what its final text
// is when it is not a clean answer (a draft the critic did not pass).
func mdEndingNotes(t *Turn) []string {
	var term turn.Termination
	_ = json.Unmarshal(t.Termination, &term)
	var res struct {
		FinalNote string `json:"final_note"`
	}
	_ = json.Unmarshal(t.Result, &res)
	var notes []string
	if term.Kind.IsLimit() && t.State == StateCompleted {
		d := term.Describe()
		notes = append(notes, "_"+mdEscape(strings.ToUpper(d[:1])+d[1:])+"._")
	}
	if res.FinalNote != "" {
		notes = append(notes, "_Note: "+mdEscape(res.FinalNote)+"_")
	}
	return notes
}

func mdUnstoredAnswer(t *Turn) string {
	text := t.FinalText
	if text == "" && t.State == StateRunning {
		text = t.PartialText()
	}
	if strings.TrimSpace(text) == "" {
		return ""
	}
	return text
}

// mdStateNote says how a turn that did not complete ended.
func mdStateNote(t *Turn, answered bool) string {
	partial := "partial answer"
	if !answered {
		partial = "no answer"
	}
	switch t.State {
	case StateCancelled:
		return "_Stopped — " + partial + "_"
	case StateInterrupted:
		return "_Interrupted: Agentdeck stopped during this turn — " + partial + "_"
	case StateRunning:
		return "_Still running — " + partial + "_"
	case StateFailed:
		if e := t.errorText(); e != "" {
			return "_Failed: " + mdEscape(e) + "_"
		}
		return "_Failed_"
	}
	return ""
}

// mdToolCall writes one tool call as a list item: the tool's name, its
// arguments, and the start of its result.
func mdToolCall(b *strings.Builder, tc llm.ToolCall, diag ToolCall, res llm.Message, hasResult bool) {
	name := tc.Name
	if name == "" {
		name = diag.Name
	}
	fmt.Fprintf(b, "- Called %s", mdCode(name))
	if diag.CallID != "" && !diag.OK {
		if diag.Error != "" {
			fmt.Fprintf(b, " — failed: %s", mdEscape(diag.Error))
		} else {
			b.WriteString(" — failed")
		}
	}
	b.WriteString("\n\n")
	if args := strings.TrimSpace(tc.Arguments); args != "" {
		var pretty bytes.Buffer
		if json.Indent(&pretty, []byte(args), "", "  ") == nil {
			mdCodeBlock(b, "  ", "json", pretty.String())
		} else {
			mdCodeBlock(b, "  ", "", args)
		}
	}
	switch {
	case !hasResult:
		b.WriteString("  No result.\n\n")
	case res.Content == "":
		b.WriteString("  Empty result.\n\n")
	default:
		text, n := res.Content, utf8.RuneCountInString(res.Content)
		if n > mdMaxToolResult {
			text = string([]rune(text)[:mdMaxToolResult]) + "\n…"
			fmt.Fprintf(b, "  Result (first %d of %d characters):\n\n", mdMaxToolResult, n)
		} else {
			b.WriteString("  Result:\n\n")
		}
		mdCodeBlock(b, "  ", "", text)
	}
}

func mdPlan(b *strings.Builder, steps []turn.PlanStep) {
	if len(steps) == 0 {
		return
	}
	b.WriteString("#### Plan\n\n")
	for _, s := range steps {
		box := "[ ]"
		if s.Status == "done" {
			box = "[x]"
		}
		fmt.Fprintf(b, "- %s %s", box, mdEscape(s.Title))
		if s.Status != "done" && s.Status != "pending" && s.Status != "" {
			fmt.Fprintf(b, " _(%s)_", mdEscape(s.Status))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func mdCharts(b *strings.Builder, events []turn.Event) {
	for _, e := range events {
		if e.Type != turn.EventChart {
			continue
		}
		var c turn.ChartData
		_ = json.Unmarshal(e.Data, &c)
		if c.Title != "" {
			fmt.Fprintf(b, "#### Chart: %s\n\n", mdEscape(c.Title))
		} else {
			b.WriteString("#### Chart\n\n")
		}
		var spec bytes.Buffer
		if json.Indent(&spec, c.Spec, "", "  ") != nil {
			spec.Reset()
			spec.Write(c.Spec)
		}
		mdCodeBlock(b, "", "json", spec.String())
	}
}

func mdStages(b *strings.Builder, stages []Stage) {
	if len(stages) == 0 {
		return
	}
	b.WriteString("#### Stages\n\n")
	b.WriteString("| Stage | Agent | Outcome | Termination | Tokens in/out | Duration |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- |\n")
	for _, s := range stages {
		var term turn.Termination
		var diag turn.StageDiagnostics
		_ = json.Unmarshal(s.Termination, &term)
		_ = json.Unmarshal(s.Diagnostics, &diag)
		tokens := fmt.Sprintf("%d / %d", diag.Usage.InputTokens, diag.Usage.OutputTokens)
		if diag.Usage.Estimated {
			tokens += " (estimated)"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n",
			mdCell(s.Name), mdCell(s.Agent), mdCell(string(s.Outcome)), mdCell(termText(term)), tokens, mdDuration(diag.DurationMS))
	}
	b.WriteString("\n")
}

func termText(t turn.Termination) string {
	if t.Kind == "" {
		return ""
	}
	return t.String()
}
