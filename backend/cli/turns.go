package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/timeline"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// turnReader reads one turn as far as it can be read (store.DB.ReadTurn):
// turns show, and sessions show for each turn.
type turnReader interface {
	ReadTurn(ctx context.Context, id string, withEvents bool) (store.TurnDetail, error)
}

var _ turnReader = (*store.DB)(nil)

// TurnView is a turn as `sessions show` and `turns show` print it.
type TurnView struct {
	store.Turn
	StepsUsed            int             `json:"steps_used"`
	ToolCallsUsed        int             `json:"tool_calls_used"`
	Cancelled            bool            `json:"cancelled"`
	BudgetExhausted      bool            `json:"budget_exhausted"`
	PlanSteps            []turn.PlanStep `json:"plan_steps"`
	PlanIncompleteReason string          `json:"plan_incomplete_reason"`
	Error                string          `json:"error"`
	FinalStageID         string          `json:"final_stage_id,omitempty"`
	FinalNote            string          `json:"final_note,omitempty"`
	Usage                any             `json:"usage"`
	// Cost is the sum of the costs kept with the turn's calls; null when
	// no call had a price.
	Cost   *llm.Cost          `json:"cost"`
	Stages []turn.StageResult `json:"stages"`
	Events []turn.Event       `json:"events,omitempty"`
	// Unreadable names the parts of the turn a damaged file did not give
	// (messages, stages, events).
	Unreadable []string `json:"unreadable,omitempty"`
	// Steps are the points the turn may be re-run from (turns show only).
	Steps []timeline.TimelineStep `json:"steps,omitempty"`
	// LiveFrom is where a re-run stopped being served from the original's
	// recordings (turns show only; nil for a turn that is not a re-run).
	LiveFrom *turn.LiveFromData `json:"live_from,omitempty"`
}

func turnView(d store.TurnDetail) TurnView {
	var r turn.Result
	_ = jsonUnmarshal(d.Result, &r)
	v := TurnView{Turn: d.Turn, StepsUsed: r.StepsUsed, ToolCallsUsed: r.ToolCallsUsed, Cancelled: d.State == store.StateCancelled,
		BudgetExhausted: r.BudgetExhausted, PlanSteps: d.Plan, PlanIncompleteReason: r.PlanIncompleteReason, Error: r.Error,
		FinalStageID: r.FinalStageID, FinalNote: r.FinalNote, Usage: r.Usage, Cost: r.Cost, Stages: d.Stages, Events: d.Events, Unreadable: d.Unreadable}
	if v.Stages == nil {
		v.Stages = []turn.StageResult{}
	}
	if v.PlanSteps == nil {
		v.PlanSteps = []turn.PlanStep{}
	}
	return v
}

// answer is the turn's answer for people: its final text, or what it has
// instead. It never shows another turn's text.
func (v TurnView) answer() string {
	switch {
	case v.State == store.StateRunning:
		return "(still running: the answer is not stored yet)"
	case strings.TrimSpace(v.FinalText) != "":
		return v.FinalText
	case v.Error != "":
		return "(no answer: " + v.Error + ")"
	}
	return "(no answer)"
}

// message is what the person sent, for the "> " line; a continuation sent
// none of its own (the runner sent the partial answer, or an instruction
// to go on), so it says which answer it continues.
func (v TurnView) message() string {
	if v.Continues {
		return "↳ continues the answer of turn " + v.ParentTurnID
	}
	return v.UserMessage
}

// status is the turn's state, with how it ended when the state alone does
// not say it: a limit with its numbers.
func (v TurnView) status() string {
	if v.Termination.Kind.IsLimit() {
		return string(v.State) + " · " + v.Termination.Describe()
	}
	return string(v.State)
}

func cmdTurns(ctx context.Context, args []string, env Env) int {
	if len(args) > 0 && args[0] == "tree" {
		return cmdTurnsTree(ctx, args[1:], env)
	}
	if len(args) > 0 && args[0] == "diff" {
		return cmdTurnsDiff(ctx, args[1:], env)
	}
	if len(args) == 0 || args[0] != "show" {
		fmt.Fprintln(env.Stderr, "agentdeck: usage: agentdeck turns show TURN_ID [--json] [--events] | turns tree SESSION_ID [--json] | turns diff TURN_A TURN_B [--json]")
		return ExitUsage
	}
	fs := newFlagSet("turns show", env)
	dbFlag := dbFlagOf(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	events := fs.Bool("events", false, "include the event log")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil || len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "agentdeck: usage: agentdeck turns show TURN_ID [--json] [--events]")
		return ExitUsage
	}
	return withDB(ctx, *dbFlag, env, func(db *store.DB) int {
		return turnsShow(ctx, db, pos[0], *asJSON, *events, env)
	})
}

// turnsShow prints one turn with its steps (the points it may be re-run
// from), and its events if asked.
func turnsShow(ctx context.Context, db turnReader, id string, asJSON, events bool, env Env) int {
	d, err := db.ReadTurn(ctx, id, true)
	if err != nil {
		return fail(env, err)
	}
	v := turnView(d)
	v.Steps, v.LiveFrom = timeline.Steps(d.Events), liveFrom(d.Events)
	if !events {
		v.Events = nil
	}
	code := ExitOK
	if len(v.Unreadable) > 0 {
		fmt.Fprintf(env.Stderr, "agentdeck: the turn's %s could not be read (damaged pages); shown is what could\n", strings.Join(v.Unreadable, " and "))
		code = ExitFailed
	}
	if asJSON {
		printJSON(env, v)
		return code
	}
	fmt.Fprintf(env.Stdout, "turn %s (#%d in %s)\nstate %s · outcome %s · ended: %s\n> %s\n\n%s\n", v.ID, v.Seq, v.SessionID, v.State, firstNonEmpty(string(v.Outcome), "-"), ended(v), v.message(), v.answer())
	if v.FinalNote != "" {
		fmt.Fprintf(env.Stdout, "note: %s\n", v.FinalNote)
	}
	if len(v.PlanSteps) > 0 {
		fmt.Fprintln(env.Stdout, "plan:")
		printPlan(env.Stdout, v.PlanSteps, "  ")
	}
	for _, e := range d.Events {
		if e.Type == turn.EventArtifact || e.Type == turn.EventCodeRun {
			fmt.Fprintln(env.Stdout, progressLine(e))
		}
	}
	if u, ok := v.Usage.(llm.Usage); ok {
		fmt.Fprintf(env.Stdout, "tokens %d in / %d out · %s%s\n", u.InputTokens, u.OutputTokens, costText(v.Cost), copiedNote(v.Copied))
	}
	for _, s := range v.Stages {
		fmt.Fprintf(env.Stdout, "stage %-14s %-10s %-9s %-28s %5d ms  %d in / %d out tokens  %s\n", s.Name, s.Agent, s.Outcome, s.Termination.String(), s.Diagnostics.DurationMS, s.Diagnostics.Usage.InputTokens, s.Diagnostics.Usage.OutputTokens, costText(s.Diagnostics.Cost))
	}
	printSteps(env.Stdout, v)
	if events {
		for _, e := range v.Events {
			fmt.Fprintf(env.Stdout, "%5d %-18s %s\n", e.Seq, e.Type, clip(string(e.Data), 120))
		}
	}
	return code
}

// copiedNote says, after a copied turn's cost, that it was counted where
// it ran, not here ("" for a turn that ran here).
func copiedNote(c store.Copied) string {
	switch c {
	case store.CopiedFork:
		return " · copied from the session it was forked from, not counted"
	case store.CopiedImport:
		return " · copied from an imported file, not counted"
	}
	return ""
}

// costText says what some calls cost: "cost $0.0042", marked when the
// tokens were estimated or some calls had no price.
func costText(c *llm.Cost) string {
	if c == nil {
		return "cost unknown (no price for this model)"
	}
	s := "cost " + usd(c.USD)
	if c.Estimated {
		s += " (estimated tokens)"
	}
	if c.Unpriced > 0 {
		s += fmt.Sprintf(" + %d %s with no price", c.Unpriced, eval.Plural(c.Unpriced, "call", "calls"))
	}
	return s
}

// usd writes dollars with as many decimals as a small amount needs.
func usd(v float64) string {
	switch {
	case v == 0:
		return "$0"
	case v < 0.01:
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// ended says how the turn ended, "running" while it runs.
func ended(v TurnView) string {
	if v.State == store.StateRunning {
		return "still running"
	}
	return v.Termination.Describe()
}

// printPlan prints a checklist, one step a line.
func printPlan(w io.Writer, steps []turn.PlanStep, indent string) {
	marks := map[string]string{"done": "[x]", "running": "[>]", "error": "[!]"}
	for i, s := range steps {
		m := marks[s.Status]
		if m == "" {
			m = "[ ]"
		}
		fmt.Fprintf(w, "%s%s %d. %s\n", indent, m, i+1, s.Title)
	}
}

// treeReader reads a session's turns as a tree (store.DB.SessionTree).
type treeReader interface {
	SessionTree(ctx context.Context, sessionID string) ([]store.Turn, []string, error)
}

var _ treeReader = (*store.DB)(nil)

func cmdTurnsTree(ctx context.Context, args []string, env Env) int {
	fs := newFlagSet("turns tree", env)
	dbFlag := dbFlagOf(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil || len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "agentdeck: usage: agentdeck turns tree SESSION_ID [--json]")
		return ExitUsage
	}
	return withDB(ctx, *dbFlag, env, func(db *store.DB) int {
		return turnsTree(ctx, db, pos[0], *asJSON, env)
	})
}

// treeTurn is one turn of `turns tree --json`.
type treeTurn struct {
	ID           string          `json:"id"`
	Seq          int             `json:"seq"`
	ParentTurnID string          `json:"parent_turn_id"`
	State        store.TurnState `json:"state"`
	UserMessage  string          `json:"user_message"`
	Active       bool            `json:"on_active_branch"`
	// Continues marks a continuation of its parent's answer: the two are
	// one answer, and its user message is not the person's.
	Continues bool `json:"continues"`
}

// turnsTree prints a session's turns as a tree: each turn under the one it
// follows, versions of a turn side by side, the active branch marked "*",
// and a continuation by the turn whose answer it continues instead of its
// message.
func turnsTree(ctx context.Context, db treeReader, sessionID string, asJSON bool, env Env) int {
	turns, active, err := db.SessionTree(ctx, sessionID)
	if err != nil {
		return fail(env, err)
	}
	onPath := map[string]bool{}
	for _, id := range active {
		onPath[id] = true
	}
	if asJSON {
		out := struct {
			SessionID    string     `json:"session_id"`
			ActiveTurnID string     `json:"active_turn_id"`
			ActivePath   []string   `json:"active_path"`
			Turns        []treeTurn `json:"turns"`
		}{SessionID: sessionID, ActivePath: append([]string{}, active...), Turns: []treeTurn{}}
		if n := len(active); n > 0 {
			out.ActiveTurnID = active[n-1]
		}
		for _, t := range turns {
			out.Turns = append(out.Turns, treeTurn{t.ID, t.Seq, t.ParentTurnID, t.State, t.UserMessage, onPath[t.ID], t.Continues})
		}
		printJSON(env, out)
		return ExitOK
	}
	children, seqs := map[string][]store.Turn{}, map[string]int{}
	for _, t := range turns {
		children[t.ParentTurnID] = append(children[t.ParentTurnID], t)
		seqs[t.ID] = t.Seq
	}
	said := func(t store.Turn) string {
		if t.Continues {
			return fmt.Sprintf("↳ continues #%d", seqs[t.ParentTurnID])
		}
		return clip(strings.Join(strings.Fields(t.UserMessage), " "), 60)
	}
	var walk func(parent, indent string)
	walk = func(parent, indent string) {
		kids := children[parent]
		for i, t := range kids {
			mark, branch, next := " ", "├─ ", indent+"│  "
			if onPath[t.ID] {
				mark = "*"
			}
			if i == len(kids)-1 {
				branch, next = "└─ ", indent+"   "
			}
			if len(kids) == 1 {
				// One path on: no branch to draw, and no deeper indent,
				// so a long conversation stays flat.
				branch, next = "", indent
			}
			fmt.Fprintf(env.Stdout, "%s %s%s#%d [%s] %s  %s\n", mark, indent, branch, t.Seq, t.State, said(t), t.ID)
			walk(t.ID, next)
		}
	}
	walk("", "")
	if len(turns) == 0 {
		fmt.Fprintln(env.Stdout, "no turns yet")
	}
	return ExitOK
}

// sumCostText says what a sum of calls cost, as costText does.
func sumCostText(u store.UsageSum) string {
	if u.Calls > 0 && u.Unpriced == u.Calls {
		return costText(nil)
	}
	return costText(&llm.Cost{USD: u.CostUSD, Estimated: u.Estimated, Unpriced: u.Unpriced})
}
