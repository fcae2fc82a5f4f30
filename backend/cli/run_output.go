package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// jsonPrinter writes each event as one JSON line, flushed line by line.
type jsonPrinter struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *jsonPrinter) Emit(e turn.Event) error { return p.write(e) }

// write writes v as one line; lines of several writers (the columns of a
// side-by-side run) never interleave.
func (p *jsonPrinter) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err = p.w.Write(append(b, '\n'))
	return err
}

// humanPrinter prints the answer, and only the answer, on stdout: the
// final stage's text, streamed when the workflow knows in advance which
// stage gives the answer (stage_start says final), else printed when the
// turn ends. Everything else (stages, tool calls, critiques, revisions,
// how the turn ended) goes to stderr as short progress lines.
type humanPrinter struct {
	mu       sync.Mutex
	out, err io.Writer
	midLine  bool
	// dim shows reasoning dimmed (stderr is a terminal, NO_COLOR unset);
	// thinking is set while a line of reasoning is open on stderr.
	dim      bool
	thinking bool
	// final are the stages whose tokens go to stdout; streamed is the one
	// that printed any.
	final    map[string]bool
	streamed string
	// answer is the text streamed to stdout, and sources what the turn
	// was given to cite: the footnotes after the answer (writeFootnotes).
	answer  strings.Builder
	sources []turn.Source
	// whole is set when out is a column's buffer, printed whole when the
	// column ends (side by side): a progress line then does not end the
	// answer's line.
	whole bool
}

func (p *humanPrinter) Emit(e turn.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.final == nil {
		p.final = map[string]bool{}
	}
	switch e.Type {
	case turn.EventReasoning:
		// The model's thinking streams to stderr, dimmed, never into the
		// answer on stdout.
		d := eventData[turn.ReasoningData](e)
		if !p.whole {
			p.endAnswerLine()
		}
		if p.dim {
			fmt.Fprint(p.err, "\x1b[2m"+d.Text+"\x1b[0m")
		} else {
			fmt.Fprint(p.err, d.Text)
		}
		p.thinking = !strings.HasSuffix(d.Text, "\n")
	case turn.EventToken:
		if p.final[e.StageID] {
			d := eventData[turn.TokenData](e)
			p.endThinkingLine()
			fmt.Fprint(p.out, d.Text)
			p.answer.WriteString(d.Text)
			p.midLine, p.streamed = !strings.HasSuffix(d.Text, "\n"), e.StageID
		}
	case turn.EventStageStart:
		d := eventData[turn.StageStartData](e)
		p.final[e.StageID] = d.Final
		p.progress("── %s (%s)", d.Stage, firstNonEmpty(d.Agent, "no agent"))
	case turn.EventSources:
		p.sources = append(p.sources, eventData[turn.SourcesData](e).Sources...)
	case turn.EventTurnCompleted:
		d := eventData[turn.TurnCompletedData](e)
		p.end(d.Result)
	default:
		if line := progressLine(e); line != "" {
			p.progress("%s", line)
		}
	}
	return nil
}

// progress writes a line to stderr, ending stdout's line first so the two
// streams do not interleave mid-line on a terminal.
func (p *humanPrinter) progress(format string, args ...any) {
	if !p.whole {
		p.endAnswerLine()
	}
	p.endThinkingLine()
	fmt.Fprintf(p.err, format+"\n", args...)
}

func (p *humanPrinter) endAnswerLine() {
	if p.midLine {
		fmt.Fprintln(p.out)
		p.midLine = false
	}
}

func (p *humanPrinter) endThinkingLine() {
	if p.thinking {
		fmt.Fprintln(p.err)
		p.thinking = false
	}
}

// colorful reports whether stderr is a terminal that may be styled.
func colorful(env Env) bool { return ttyColor(env, env.Stderr) }

// end prints the answer if it was not streamed, its citations as
// footnotes, then how the turn ended.
func (p *humanPrinter) end(res turn.Result) {
	p.endThinkingLine()
	answer := p.answer.String()
	if p.streamed == "" || (res.FinalStageID != "" && p.streamed != res.FinalStageID) {
		if text := strings.TrimSpace(res.FinalText); text != "" {
			answer = text
			if p.midLine {
				fmt.Fprintln(p.out)
			}
			fmt.Fprintln(p.out, text)
			p.midLine = false
		}
	}
	if p.midLine {
		fmt.Fprintln(p.out)
		p.midLine = false
	}
	writeFootnotes(p.out, answer, p.sources)
	if res.Termination.Kind.IsLimit() {
		fmt.Fprintf(p.err, "note: the turn %s\n", res.Termination.Describe())
	}
	if res.FinalNote != "" {
		fmt.Fprintf(p.err, "note: %s\n", res.FinalNote)
	}
}

// progressLine is the stderr line for an event, "" for none.
func progressLine(e turn.Event) string {
	switch e.Type {
	case turn.EventToolCall:
		d := eventData[turn.ToolCallData](e)
		return fmt.Sprintf("→ %s %s", d.Name, clip(string(d.Args), 100))
	case turn.EventToolResult:
		d := eventData[turn.ToolResultData](e)
		return fmt.Sprintf("  ✓ %s (%d ms, %d bytes)", d.Name, d.DurationMS, len(d.Output))
	case turn.EventToolError:
		d := eventData[turn.ToolErrorData](e)
		return fmt.Sprintf("  ✗ %s: %s", d.Name, clip(d.Error, 200))
	case turn.EventGuardTriggered:
		d := eventData[turn.GuardData](e)
		return fmt.Sprintf("  ! %s: %s", d.Guard, d.Reason)
	case turn.EventPlanGenerated:
		d := eventData[turn.PlanData](e)
		return fmt.Sprintf("plan: %d steps", len(d.Steps))
	case turn.EventStepEnd:
		d := eventData[turn.StepEndData](e)
		return fmt.Sprintf("  step %d %s", d.StepIndex+1, map[bool]string{true: "done", false: "failed"}[d.Success])
	case turn.EventCritique:
		d := eventData[turn.CritiqueData](e)
		verdict := map[bool]string{true: "PASS", false: "FAIL"}[d.Passed]
		return fmt.Sprintf("  critic: %s (score %.2f) %s", verdict, d.Score, clip(strings.ReplaceAll(d.Feedback, "\n", " "), 160))
	case turn.EventRevision:
		d := eventData[turn.RevisionData](e)
		return fmt.Sprintf("  revision %d done (%d characters)", d.Iteration, len([]rune(d.Text)))
	case turn.EventReflectionEnd:
		d := eventData[turn.ReflectionEndData](e)
		return fmt.Sprintf("  reflection %d: score %.2f%s", d.Iteration, d.Score, map[bool]string{true: ", passed", false: ""}[d.Passed])
	case turn.EventHandoffStart:
		d := eventData[turn.HandoffStartData](e)
		return fmt.Sprintf("  handing off from %s to %s", d.From, d.To)
	case turn.EventChart:
		d := eventData[turn.ChartData](e)
		return fmt.Sprintf("chart: %s (open the session in the app to see it)", d.Title)
	case turn.EventArtifact:
		d := eventData[turn.ArtifactData](e)
		return fmt.Sprintf("artifact: %q (%s, %d bytes; open the session in the app to see it)", d.Title, d.Kind, len(d.Content))
	case turn.EventCodeRun:
		return codeRunLine(eventData[turn.CodeRunData](e))
	case turn.EventReplayDivergence:
		d := eventData[turn.ReplayDivergenceData](e)
		return "  ! replay diverged: " + d.Message
	case turn.EventError:
		d := eventData[turn.ErrorData](e)
		return "error: " + d.Message
	case turn.EventModelWaiting:
		return "waiting for the model (it may be loading)…"
	case turn.EventModelRetry:
		d := eventData[turn.ModelRetryData](e)
		what := "no answer"
		if d.Status > 0 {
			what = fmt.Sprintf("HTTP %d", d.Status)
		}
		return fmt.Sprintf("retrying (%s): attempt %d of %d in %s", what, d.Attempt, d.MaxAttempts, (time.Duration(d.WaitMS) * time.Millisecond).Round(100*time.Millisecond))
	case turn.EventCancelled:
		return "[stopped; the partial answer is saved]"
	}
	return ""
}

// codeRunLine says how a run_code script went.
func codeRunLine(d turn.CodeRunData) string {
	lines := strings.Count(strings.TrimRight(d.Code, "\n"), "\n") + 1
	what := fmt.Sprintf("code run: %d %s, %d steps", lines, map[bool]string{true: "line", false: "lines"}[lines == 1], d.Steps)
	switch e := d.Error; {
	case e == nil:
		return what + ", ok"
	case e.Limit != "":
		return fmt.Sprintf("%s, stopped at the %s limit: %s", what, e.Limit, clip(e.Message, 160))
	case e.Line > 0:
		return fmt.Sprintf("%s, failed at line %d:%d: %s", what, e.Line, e.Col, clip(e.Message, 160))
	}
	return fmt.Sprintf("%s, failed: %s", what, clip(d.Error.Message, 160))
}

// eventData decodes an event's payload; fields it lacks (an older
// event's) stay zero, so a line is printed whatever the event holds.
func eventData[T any](e turn.Event) T {
	var d T
	_ = json.Unmarshal(e.Data, &d)
	return d
}

// clip cuts s to at most n bytes, at a character's start, and marks the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
