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
//
// A continued answer reads as one: the turns that continue it are written
// under its turn, with a mark where each resumed (mdTurn).
//
// A message's images follow its text: linked files given imageFile (see
// Options.ImageFile), else a line naming each (mdImages).
//
// A re-run from a step says so in its heading (reruns, from mdReruns).
func writeMarkdown(ctx context.Context, w io.Writer, doc *Document, reruns map[string]string, imageFile func(string, []byte) (string, error)) error {
	var b strings.Builder
	images := newMDImages(doc.Images, imageFile)
	mdHeader(&b, doc)
	mdDocuments(&b, doc.Documents)
	columns := mdColumns(doc)
	for _, parts := range mdAnswers(doc.Turns) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		b.Reset()
		mdTurn(&b, &doc.Session, parts, mdHeading{column: columns[parts[0].ID], rerun: reruns[parts[0].ID]}, images)
		if images.err != nil {
			return images.err
		}
	}
	// Every part ends with a blank line; the file ends with one newline.
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// mdAnswers groups turns as the transcript shows them: each turn with the
// turns that continue its answer (Turn.Continues), which read as one
// answer with it. A continuation whose turn is not in the document is a
// group of its own.
func mdAnswers(turns []Turn) [][]*Turn {
	in, next := map[string]bool{}, map[string]*Turn{}
	for i := range turns {
		t := &turns[i]
		in[t.ID] = true
		if t.Continues && next[t.ParentTurnID] == nil {
			next[t.ParentTurnID] = t
		}
	}
	var groups [][]*Turn
	for i := range turns {
		t := &turns[i]
		if t.Continues && in[t.ParentTurnID] && next[t.ParentTurnID] == t {
			continue // written with the answer it continues
		}
		parts := []*Turn{t}
		for c := next[t.ID]; c != nil && len(parts) <= len(turns); c = next[c.ID] {
			parts = append(parts, c)
		}
		groups = append(groups, parts)
	}
	return groups
}

// mdColumns says, of each turn sent side by side, which column it was
// and what it ran: "Side by side, column B: model · provider". A blind
// group not yet voted on keeps its names hidden, as the app does.
func mdColumns(doc *Document) map[string]string {
	groups := map[string]*Group{}
	for i := range doc.Groups {
		groups[doc.Groups[i].ID] = &doc.Groups[i]
	}
	out := map[string]string{}
	for _, t := range doc.Turns {
		g := groups[t.GroupID]
		if g == nil || t.GroupSlot < 0 || t.GroupSlot >= 26 {
			continue
		}
		line := fmt.Sprintf("Side by side, column %c", 'A'+t.GroupSlot)
		switch {
		case g.Blind && g.Vote == nil:
			line += " (blind, not voted on yet)"
		case t.Target != "":
			line += ": " + mdEscape(t.Target)
		}
		out[t.ID] = line
	}
	return out
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
	fmt.Fprintf(b, "- Turns: %d\n", len(doc.Turns))
	if doc.AppVersion != "" {
		fmt.Fprintf(b, "- Exported by: Agentdeck %s\n", mdEscape(doc.AppVersion))
	}
	b.WriteString("\n")
}

// mdHeading is what a turn's heading says besides its number and time:
// the side-by-side column it was (mdColumns), and where it was re-run
// from (mdReruns).
type mdHeading struct{ column, rerun string }

// mdTurn writes a turn and the turns that continue its answer (parts, see
// mdAnswers) as one answer: the parts' answers follow one another, each
// continuation after a mark that says where and why it resumed, and each
// part's plan, charts and stages follow the whole answer, named by turn.
func mdTurn(b *strings.Builder, s *Session, parts []*Turn, h mdHeading, images *mdImages) {
	t := parts[0]
	fmt.Fprintf(b, "---\n\n## Turn %d · %s", t.Seq, mdTime(t.StartedAt))
	if h.rerun != "" {
		fmt.Fprintf(b, " · %s", h.rerun)
	}
	b.WriteString("\n\n")
	if h.column != "" {
		fmt.Fprintf(b, "_%s_\n\n", h.column)
	}
	if notes := mdRunNotes(s, t); notes != "" {
		fmt.Fprintf(b, "_%s_\n\n", notes)
	}
	w := &mdWriter{b: b, images: images}
	if t.Continues {
		w.note("_— Resumed an answer that is not in this file —_")
		w.resumed = true
	}
	answered := false
	for i, p := range parts {
		if i > 0 {
			w.note(mdResumeMark(s, parts[i-1], p))
			w.resumed = true
		}
		if w.conversation(p, p.Continues) {
			answered = true
		}
		last := i == len(parts)-1
		if note := mdStateNote(p, answered); last && note != "" {
			w.note(note)
		}
		// A part that was continued needs no note of its limit: the
		// resume mark says it.
		for _, note := range mdEndingNotes(p, !last) {
			w.note(note)
		}
	}
	for _, p := range parts {
		suffix := ""
		if len(parts) > 1 {
			suffix = fmt.Sprintf(" · turn %d", p.Seq)
		}
		mdSources(b, p.Events, suffix)
		mdPlan(b, p.Plan(), suffix)
		mdCharts(b, p.Events)
		mdMade(b, p.Events)
		mdStages(b, p.Stages, suffix)
		mdReviews(b, p.Reviews, suffix)
	}
}

// mdRunNotes names the model and workflow of a turn where they are not
// the session's, "" when both are.
func mdRunNotes(s *Session, t *Turn) string {
	var notes []string
	if t.Model != "" && t.Model != s.Model {
		notes = append(notes, "model "+mdCode(t.Model))
	}
	if t.Workflow != "" && t.Workflow != s.Workflow {
		notes = append(notes, "workflow "+mdEscape(t.Workflow))
	}
	return strings.Join(notes, ", ")
}

// mdResumeMark is the line between two parts of one answer: the turn that
// resumed it, why the part before stopped, and the model or workflow of
// the new part when they are not the session's.
func mdResumeMark(s *Session, prev, part *Turn) string {
	var term turn.Termination
	_ = json.Unmarshal(prev.Termination, &term)
	mark := fmt.Sprintf("Resumed in turn %d", part.Seq)
	switch {
	case term.Kind.IsLimit():
		mark += " (continued after it " + mdEscape(term.Describe()) + ")"
	case prev.State == StateCancelled:
		mark += " (continued after Stop)"
	case prev.State == StateInterrupted:
		mark += " (continued after an interruption)"
	}
	if notes := mdRunNotes(s, part); notes != "" {
		mark += ", " + notes
	}
	return "_— " + mark + " —_"
}

// mdWriter writes the "You" and "Assistant" sections of one answer, which
// may span turns. fence is the opening line of a code fence the last
// answer text left open (mdRepair closed it in the file); resumed is set
// after a resume mark, until the next part's first text.
type mdWriter struct {
	b       *strings.Builder
	images  *mdImages
	section string
	fence   string
	resumed bool
}

func (w *mdWriter) enter(name string) {
	if w.section != name {
		fmt.Fprintf(w.b, "### %s\n\n", name)
		w.section = name
	}
}

// note writes a line of the assistant's section that is Agentdeck's, not
// the model's.
func (w *mdWriter) note(line string) {
	w.enter("Assistant")
	w.b.WriteString(line + "\n\n")
}

// answer writes answer text. The first text after a resume mark reopens
// the code fence the part before left open (unless it opens one itself),
// so code cut by Stop reads as code again; otherwise it loses the spaces
// that went on from the part before's last word.
func (w *mdWriter) answer(text string) {
	w.enter("Assistant")
	if w.resumed {
		if w.fence != "" && !mdOpensFence(strings.TrimLeft(text, " \t\r\n")) {
			// The opening line ends the line the part before left open.
			text = w.fence + "\n" + strings.TrimPrefix(strings.TrimPrefix(text, "\r"), "\n")
		} else {
			text = strings.TrimLeft(text, " \t")
		}
		w.resumed = false
	}
	w.fence = mdText(w.b, text)
}

// conversation writes the turn's messages as "You" and "Assistant"
// sections, each tool call under the assistant message that asked for it
// with the result the tool gave. A continuation's own message is not the
// person's (it is empty, or the instruction to go on), so its leading user
// messages are left out. It reports whether the turn had answer text.
func (w *mdWriter) conversation(t *Turn, continues bool) bool {
	results, calls, shown := map[string]llm.Message{}, map[string]ToolCall{}, map[string]bool{}
	for _, m := range t.Messages {
		if m.Role == llm.RoleTool && m.ToolCallID != "" {
			results[m.ToolCallID] = m
		}
	}
	for _, c := range t.ToolCalls {
		calls[c.CallID] = c
	}
	msgs := t.Messages
	switch {
	case continues:
		for len(msgs) > 0 && msgs[0].Role == llm.RoleUser {
			msgs = msgs[1:]
		}
	case len(msgs) == 0 || msgs[0].Role != llm.RoleUser:
		w.enter("You")
		mdText(w.b, t.UserMessage)
	}
	answered := false
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			w.enter("You")
			mdText(w.b, m.Content)
			w.images.write(w.b, m.Images)
			w.fence, w.resumed = "", false
		case llm.RoleAssistant:
			w.enter("Assistant")
			mdReasoning(w.b, m.Reasoning)
			if strings.TrimSpace(m.Content) != "" {
				w.answer(m.Content)
				answered = true
			}
			for _, tc := range m.ToolCalls {
				res, ok := results[tc.ID]
				shown[tc.ID] = ok
				mdToolCall(w.b, tc, calls[tc.ID], res, ok)
				w.fence, w.resumed = "", false
			}
		case llm.RoleTool:
			if !shown[m.ToolCallID] {
				w.enter("Assistant")
				mdToolCall(w.b, llm.ToolCall{ID: m.ToolCallID, Name: m.Name}, calls[m.ToolCallID], m, true)
				w.fence, w.resumed = "", false
			}
		}
	}
	// A turn that failed or stopped before storing an answer may still
	// have text: its final text, or a running turn's streamed tokens.
	if text := mdUnstoredAnswer(t); !answered && text != "" {
		w.answer(text)
		answered = true
	}
	return answered
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

// mdEndingNotes name a limit the turn stopped at (unless continued: the
// resume mark names it), and what its final text is when it is not a
// clean answer (a draft the critic did not pass).
func mdEndingNotes(t *Turn, continued bool) []string {
	var term turn.Termination
	_ = json.Unmarshal(t.Termination, &term)
	var res struct {
		FinalNote string `json:"final_note"`
	}
	_ = json.Unmarshal(t.Result, &res)
	var notes []string
	if term.Kind.IsLimit() && t.State == StateCompleted && !continued {
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
