package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/timeline"
)

// turns diff A B: what changed between two turns, step by step from where
// B left A (timeline.Compare; the window's "What changed" view).

// turnGetter reads a turn with its events (store.DB.GetTurn).
type turnGetter interface {
	GetTurn(ctx context.Context, id string, withEvents bool) (store.TurnDetail, error)
}

var _ turnGetter = (*store.DB)(nil)

func cmdTurnsDiff(ctx context.Context, args []string, env Env) int {
	fs := newFlagSet("turns diff", env)
	dbFlag := dbFlagOf(fs)
	asJSON := fs.Bool("json", false, "print the comparison as JSON (a TurnDiff)")
	pos, err := parseInterleaved(fs, args)
	if err != nil || len(pos) != 2 {
		fmt.Fprintln(env.Stderr, "agentdeck: usage: agentdeck turns diff TURN_A TURN_B [--json]   (usually a turn and its re-run from a step)")
		return ExitUsage
	}
	return withDB(ctx, *dbFlag, env, func(db *store.DB) int {
		return turnsDiff(ctx, db, pos[0], pos[1], *asJSON, env)
	})
}

// turnsDiff compares two stored turns and prints the comparison.
func turnsDiff(ctx context.Context, db turnGetter, a, b string, asJSON bool, env Env) int {
	var sides [2]timeline.Turn
	for i, id := range []string{a, b} {
		d, err := db.GetTurn(ctx, id, true)
		if err != nil {
			return fail(env, err)
		}
		sides[i] = timeline.Turn{ID: d.ID, Seq: d.Seq, Model: d.Model, FromTurnID: d.FromTurnID, FromStep: d.FromStep, FromEdit: d.FromEdit, Events: d.Events, Stages: d.Stages}
	}
	diff := timeline.Compare(sides[0], sides[1])
	if asJSON {
		return printJSON(env, diff)
	}
	p := diffPrinter{w: env.Stdout, color: ttyColor(env, env.Stdout)}
	p.print(diff, sides[1])
	return ExitOK
}

// diffPrinter writes a TurnDiff for a terminal: one block per aligned
// row, its word diff marked [-deleted-]{+inserted+} (in colour on a
// terminal), each side's tokens, cost and time, then the totals.
type diffPrinter struct {
	w     io.Writer
	color bool
}

// The longest stretch of unchanged text a row shows whole, and how much
// of each end of a longer one.
const (
	diffKeep = 160
	diffEnds = 60
)

func (p diffPrinter) print(d timeline.TurnDiff, b timeline.Turn) {
	fmt.Fprintf(p.w, "A  turn #%d %s  %s\n", d.A.Seq, d.A.TurnID, d.A.Model)
	fmt.Fprintf(p.w, "B  turn #%d %s  %s", d.B.Seq, d.B.TurnID, d.B.Model)
	if b.FromTurnID == d.A.TurnID {
		fmt.Fprintf(p.w, "  (re-run of A from %s%s)", b.FromStep, editNote(b.FromEdit))
	}
	fmt.Fprintf(p.w, "\nfrom step %s: %d %s\n", d.From, len(d.Rows), eval.Plural(len(d.Rows), "step", "steps"))
	for _, r := range d.Rows {
		p.row(r)
	}
	fmt.Fprintf(p.w, "\ntotals from %s\n  A  %s\n  B  %s\n", d.From, totalsText(d.A.Totals), totalsText(d.B.Totals))
}

// row prints one aligned pair: its steps, how they compare, the text (or
// its word diff) and what each side cost.
func (p diffPrinter) row(r timeline.StepRow) {
	var mark, text string
	switch {
	case r.A == nil:
		mark, text = "+ only in B", oneLine(r.B.Text, diffKeep)
	case r.B == nil:
		mark, text = "- only in A", oneLine(r.A.Text, diffKeep)
	case r.Same:
		mark, text = "= same", oneLine(r.A.Text, diffKeep)
	default:
		mark, text = "≠ changed", p.ops(r.Ops)
	}
	cell := r.A
	if cell == nil {
		cell = r.B
	}
	fmt.Fprintf(p.w, "\n%-6s %-6s %s  %s%s\n", stepOf(r.A), stepOf(r.B), cell.Label, mark, cellMarks(r.B))
	if text != "" {
		fmt.Fprintf(p.w, "  %s\n", text)
	}
	fmt.Fprintf(p.w, "  A %s\n  B %s\n", cellCost(r.A), cellCost(r.B))
}

// ops is a word diff on one line: unchanged text clipped in the middle
// when long, changes marked.
func (p diffPrinter) ops(ops []timeline.TextOp) string {
	var b strings.Builder
	for _, o := range ops {
		t := oneLineRaw(o.Text)
		switch o.Op {
		case "insert":
			b.WriteString(p.mark(t, "{+", "+}", "\x1b[32m"))
		case "delete":
			b.WriteString(p.mark(t, "[-", "-]", "\x1b[31m"))
		default:
			if r := []rune(t); len(r) > diffKeep {
				t = string(r[:diffEnds]) + " … " + string(r[len(r)-diffEnds:])
			}
			b.WriteString(t)
		}
	}
	return b.String()
}

// mark shows a changed piece: in colour on a terminal, else in markers.
func (p diffPrinter) mark(t, open, close, color string) string {
	if p.color {
		return color + t + "\x1b[0m"
	}
	return open + t + close
}

func stepOf(c *timeline.StepCell) string {
	if c == nil {
		return "·"
	}
	return c.StepID
}

// cellMarks says where B's step came from when it was not run live as
// usual: the recordings, or a person's edit.
func cellMarks(c *timeline.StepCell) string {
	switch {
	case c == nil:
		return ""
	case c.Edited:
		return "  [B edited]"
	case c.Recorded:
		return "  [B from recordings]"
	}
	return ""
}

// cellCost is one side's step: tokens, cost and time ("-" when absent).
func cellCost(c *timeline.StepCell) string {
	if c == nil {
		return "-"
	}
	var parts []string
	if c.Tool == "" {
		parts = append(parts, fmt.Sprintf("%d in / %d out tokens", c.InputTokens, c.OutputTokens), priceText(c.CostUSD))
	}
	return strings.Join(append(parts, fmt.Sprintf("%d ms", c.DurationMS)), " · ")
}

func totalsText(t timeline.TurnTotals) string {
	return fmt.Sprintf("%d %s, %d %s · %d in / %d out tokens · %s · %d ms", t.Calls, eval.Plural(t.Calls, "model call", "model calls"),
		t.Tools, eval.Plural(t.Tools, "tool result", "tool results"), t.InputTokens, t.OutputTokens, priceText(t.CostUSD), t.DurationMS)
}

// priceText is a cost, or that none was known.
func priceText(v *float64) string {
	if v == nil {
		return "cost unknown"
	}
	return usd(*v)
}

func editNote(edit string) string {
	if edit == "" {
		return ", no edit"
	}
	return ", edit: " + strings.ReplaceAll(edit, "_", " ")
}

// oneLineRaw shows line breaks and tabs as ⏎ and → so a diff stays on
// one line and a changed line break is seen.
func oneLineRaw(s string) string {
	return strings.NewReplacer("\r\n", "⏎", "\n", "⏎", "\t", "→").Replace(s)
}

// ttyColor reports whether w is a terminal that may be styled: a
// character device, and NO_COLOR (no-color.org) unset.
func ttyColor(env Env, w io.Writer) bool {
	return (env.Getenv == nil || env.Getenv("NO_COLOR") == "") && isTerminal(w)
}
