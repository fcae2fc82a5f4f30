package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// sideBySide prints the columns of a side-by-side run. With --json every
// event is a line that names its column (targetedEvent). Else each
// column's answer is kept until the column ends and then printed whole,
// under a header naming its target, and its progress lines go to stderr
// led by "[target]".
type sideBySide struct {
	// mu keeps one column's output together on stdout and stderr.
	mu             sync.Mutex
	stdout, stderr io.Writer
	json           *jsonPrinter // --json; nil for text
	cols           []*columnPrinter
	printed        int
}

// targetedEvent is an event of a side-by-side run as --json prints it:
// the event's own fields, and the target and slot of its column.
type targetedEvent struct {
	Target string `json:"target"`
	Slot   int    `json:"slot"`
	turn.Event
}

// sinks are a column's sinks (runner.GroupRequest.ColumnSinks).
func (s *sideBySide) sinks(c runner.Column) []turn.Sink {
	if s.json != nil {
		return []turn.Sink{turn.SinkFunc(func(e turn.Event) error {
			return s.json.write(targetedEvent{Target: c.Target, Slot: c.Slot, Event: e})
		})}
	}
	cp := &columnPrinter{s: s, label: c.Target}
	cp.progress = prefixedLines{s: s, prefix: "[" + c.Target + "] "}
	cp.human = &humanPrinter{out: &cp.answer, err: &cp.progress, whole: true}
	s.mu.Lock()
	s.cols = append(s.cols, cp)
	s.mu.Unlock()
	return []turn.Sink{cp}
}

// finish prints the columns that ended without a terminal event (one
// that could not start), once every column has ended.
func (s *sideBySide) finish() {
	s.mu.Lock()
	cols := append([]*columnPrinter(nil), s.cols...)
	s.mu.Unlock()
	for _, c := range cols {
		c.print()
	}
}

// columnPrinter is one column's humanPrinter, writing into a buffer that
// is printed when the column ends.
type columnPrinter struct {
	s        *sideBySide
	label    string
	human    *humanPrinter
	answer   bytes.Buffer
	progress prefixedLines

	mu      sync.Mutex
	printed bool
}

func (c *columnPrinter) Emit(e turn.Event) error {
	if err := c.human.Emit(e); err != nil {
		return err
	}
	if e.Type == turn.EventTurnCompleted {
		c.print()
	}
	return nil
}

// print writes the column's header and answer to stdout, once.
func (c *columnPrinter) print() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.printed {
		return
	}
	c.printed = true
	c.progress.flush()
	c.human.mu.Lock()
	answer := c.answer.String()
	c.human.mu.Unlock()
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.s.printed > 0 {
		fmt.Fprintln(c.s.stdout)
	}
	c.s.printed++
	fmt.Fprintf(c.s.stdout, "── %s ──\n", c.label)
	if answer != "" && !strings.HasSuffix(answer, "\n") {
		answer += "\n"
	}
	fmt.Fprint(c.s.stdout, answer)
}

// prefixedLines writes whole lines to the run's stderr, each led by its
// column's prefix, so the columns' progress does not interleave mid-line.
type prefixedLines struct {
	s      *sideBySide
	prefix string
	mu     sync.Mutex
	line   []byte
}

func (w *prefixedLines) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.line = append(w.line, p...)
	for {
		i := bytes.IndexByte(w.line, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.emit(w.line[:i+1])
		w.line = w.line[i+1:]
	}
}

// flush writes a last line that has no newline yet.
func (w *prefixedLines) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.line) > 0 {
		w.emit(append(w.line, '\n'))
		w.line = nil
	}
}

func (w *prefixedLines) emit(line []byte) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	fmt.Fprintf(w.s.stderr, "%s%s", w.prefix, line)
}
