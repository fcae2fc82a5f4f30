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
