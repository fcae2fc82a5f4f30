package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// The parts of a Markdown transcript beside the conversation: the plan,
// the charts and the stages of a turn.

// mdPlan writes a plan's checklist; suffix names its turn in a heading
// shared by the parts of one answer.
func mdPlan(b *strings.Builder, steps []turn.PlanStep, suffix string) {
	if len(steps) == 0 {
		return
	}
	fmt.Fprintf(b, "#### Plan%s\n\n", suffix)
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

// mdMade writes the artifacts a turn's tools made, each as its source in
// a fenced block under its title, and its code runs, each as its code and
// what it printed, returned or stopped with. An artifact from a block of
// the answer is not written again: the answer holds it.
func mdMade(b *strings.Builder, events []turn.Event) {
	for _, e := range events {
		switch e.Type {
		case turn.EventArtifact:
			var a turn.ArtifactData
			_ = json.Unmarshal(e.Data, &a)
			if a.Source == turn.ArtifactFromBlock {
				continue
			}
			fmt.Fprintf(b, "#### Artifact: %s\n\n", mdEscape(firstOf(a.Title, a.Key, "untitled")))
			mdCodeBlock(b, "", mdLang(a.Kind), a.Content)
		case turn.EventCodeRun:
			var c turn.CodeRunData
			_ = json.Unmarshal(e.Data, &c)
			mdCodeRun(b, c)
		}
	}
}

func mdCodeRun(b *strings.Builder, c turn.CodeRunData) {
	b.WriteString("#### Code run\n\n")
	mdCodeBlock(b, "", "python", c.Code)
	if c.Output != "" {
		b.WriteString("Output:\n\n")
		mdCodeBlock(b, "", "text", c.Output)
	}
	if c.Value != "" {
		fmt.Fprintf(b, "Returned: %s\n\n", mdCode(c.Value))
	}
	if len(c.Chart) > 0 {
		b.WriteString("Returned a chart.\n\n")
	}
	if e := c.Error; e != nil {
		switch {
		case e.Limit != "":
			fmt.Fprintf(b, "Stopped at the %s limit: %s\n\n", mdEscape(e.Limit), mdEscape(mdOneLine(e.Message)))
		case e.Line > 0:
			fmt.Fprintf(b, "Error at line %d, column %d: %s\n\n", e.Line, e.Col, mdEscape(mdOneLine(e.Message)))
		default:
			fmt.Fprintf(b, "Error: %s\n\n", mdEscape(mdOneLine(e.Message)))
		}
	}
}

// mdLang is the info string of an artifact's fenced block: its kind, one
// word ("html" or "svg").
func mdLang(kind string) string {
	if kind == turn.ArtifactSVG {
		return "svg"
	}
	return "html"
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// mdStages writes a turn's stages with their diagnostics; suffix as for
// mdPlan.
func mdStages(b *strings.Builder, stages []Stage, suffix string) {
	if len(stages) == 0 {
		return
	}
	fmt.Fprintf(b, "#### Stages%s\n\n", suffix)
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
