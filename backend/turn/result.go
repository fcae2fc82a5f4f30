package turn

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// Outcome is the roll-up of how a turn or stage ended.
type Outcome string

const (
	OutcomeSucceeded Outcome = "succeeded"
	OutcomeFailed    Outcome = "failed"
	OutcomeSkipped   Outcome = "skipped"
	OutcomeCancelled Outcome = "cancelled"
)

// TerminationKind is the detailed cause; it is also the stable tag used for
// grouping and metrics.
type TerminationKind string

const (
	TermCompleted              TerminationKind = "completed"
	TermNaturalCompletion      TerminationKind = "natural_completion"
	TermCompletedAfterToolCall TerminationKind = "completed_early_after_tool_call"
	TermMaxIterations          TerminationKind = "max_iterations_reached"
	TermMaxToolCalls           TerminationKind = "max_tool_calls_reached"
	TermBudgetExceeded         TerminationKind = "budget_exceeded"
	TermStallDetected          TerminationKind = "stall_detected"
	TermTimeout                TerminationKind = "timeout"
	TermCancelled              TerminationKind = "cancelled"
	TermFailed                 TerminationKind = "failed"
	TermSkipped                TerminationKind = "skipped"
	TermInterrupted            TerminationKind = "interrupted"
	TermDiskFull               TerminationKind = "disk_full" // stopped, the disk being full: Used words of the answer stored of Limit streamed
	TermCustom                 TerminationKind = "custom"
)

// Termination is why a turn or stage ended: a tagged object whose fields
// depend on Kind. Limit and Used are counts (steps, tool calls, tokens);
// for a timeout they are milliseconds.
type Termination struct {
	Kind      TerminationKind `json:"kind"`
	Limit     int64           `json:"limit,omitempty"`
	Used      int64           `json:"used,omitempty"`
	Threshold int             `json:"threshold,omitempty"`
	// Concluded is set when, after a step, tool-call or stall limit, one
	// more model call without tools gave the answer. That call is not
	// counted in Used.
	Concluded bool `json:"concluded,omitempty"`
	// Call is the call a stall repeated.
	Call *RepeatedCall `json:"call,omitempty"`
	// Stage names the stage that reached the limit, on a turn's termination.
	Stage  string `json:"stage,omitempty"`
	Error  string `json:"error,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Properties carry extra detail; "counts" names what a workflow's
	// loop limit counts ("revisions", "iterations") when it is not steps.
	Properties map[string]string `json:"properties,omitempty"`
}

// RepeatedCall is the tool call a stall repeated.
type RepeatedCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// IsLimit reports whether the kind is a limit the run reached (steps,
// tool calls, tokens, time, a stall) rather than a normal or failed end.
func (k TerminationKind) IsLimit() bool {
	switch k {
	case TermMaxIterations, TermMaxToolCalls, TermBudgetExceeded, TermTimeout, TermStallDetected:
		return true
	}
	return false
}

// Tag is the termination's stable low-cardinality tag.
func (t Termination) Tag() string { return string(t.Kind) }

// String describes the termination compactly, with its numbers.
func (t Termination) String() string {
	switch t.Kind {
	case TermMaxIterations, TermMaxToolCalls, TermBudgetExceeded:
		return string(t.Kind) + " (" + strconv.FormatInt(t.Used, 10) + "/" + strconv.FormatInt(t.Limit, 10) + ")"
	case TermTimeout:
		if t.Limit > 0 {
			return string(t.Kind) + " (" + strconv.FormatInt(t.Limit, 10) + " ms)"
		}
	case TermStallDetected:
		return string(t.Kind) + " (same call " + strconv.Itoa(t.Threshold) + " times)"
	case TermFailed:
		return "failed: " + t.Error
	case TermSkipped, TermCustom:
		return string(t.Kind) + ": " + t.Reason
	}
	return string(t.Kind)
}

// Describe says for a person how the run ended, with the numbers: what
// turns show, run's stderr and the Markdown export print.
func (t Termination) Describe() string {
	var s string
	switch t.Kind {
	case TermMaxIterations:
		switch counts := t.Properties["counts"]; {
		case counts != "":
			// A workflow's own loop: revisions, iterations.
			s = fmt.Sprintf("stopped at the limit of %d %s", t.Limit, counts)
		case t.Limit == 0:
			s = fmt.Sprintf("stopped at the iteration limit after %d iterations", t.Used)
		default:
			s = fmt.Sprintf("stopped at the step limit: %d of %d model calls", t.Used, t.Limit)
		}
	case TermMaxToolCalls:
		s = fmt.Sprintf("stopped at the tool-call limit: %d of %d tool calls", t.Used, t.Limit)
	case TermBudgetExceeded:
		s = fmt.Sprintf("stopped at the token budget: %d tokens used of %d", t.Used, t.Limit)
	case TermTimeout:
		s = "stopped at the time limit"
		if t.Limit > 0 {
			s += " of " + (time.Duration(t.Limit) * time.Millisecond).String()
		}
	case TermStallDetected:
		s = fmt.Sprintf("stopped because it repeated the same call %d times in a row", t.Threshold)
		if t.Call != nil {
			s = fmt.Sprintf("stopped because it called %s with the same arguments %d times in a row (%s)", t.Call.Name, t.Threshold, clipText(t.Call.Arguments, 120))
		}
	case TermCompleted, TermNaturalCompletion, "":
		return "completed"
	case TermCompletedAfterToolCall:
		return "completed after a hand-off tool call"
	case TermCancelled:
		return "stopped by the user"
	case TermInterrupted:
		return "interrupted: Agentdeck stopped while the turn was running"
	case TermDiskFull:
		return fmt.Sprintf("stopped because the disk is full: %d of the %d words streamed are stored", t.Used, t.Limit)
	case TermFailed:
		return "failed: " + t.Error
	case TermSkipped:
		return "skipped: " + t.Reason
	default:
		return t.String()
	}
	if t.Stage != "" {
		s += " in stage " + strconv.Quote(t.Stage)
	}
	if t.Concluded {
		s += ", then gave a concluding answer without tools"
	}
	return s
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// ToolCallDiagnostics describe one tool call.
type ToolCallDiagnostics struct {
	CallID     string `json:"call_id"`
	Name       string `json:"name"`
	Arguments  string `json:"arguments"`
	ResultSize int    `json:"result_size"`
	StartedAt  Time   `json:"started_at"`
	DurationMS int64  `json:"duration_ms"`
	OK         bool   `json:"ok"`
	Error      string `json:"error,omitempty"`
}

// Result is what one agent run produced. It is a value: the slices are the
// run's own copies and are not changed after Run returns.
type Result struct {
	Messages             []llm.Message `json:"messages"`
	StepsUsed            int           `json:"steps_used"`
	ToolCallsUsed        int           `json:"tool_calls_used"`
	Cancelled            bool          `json:"cancelled"`
	BudgetExhausted      bool          `json:"budget_exhausted"`
	PlanSteps            []PlanStep    `json:"plan_steps"`
	PlanIncompleteReason string        `json:"plan_incomplete_reason"`
	Error                string        `json:"error"`
	ErrorSource          string        `json:"error_source,omitempty"`
	FinalText            string        `json:"final_text"`
	// FinalStageID is the stage whose reply FinalText is ("" when no
	// stage produced it: a plain agent run, or no answer at all).
	FinalStageID string `json:"final_stage_id,omitempty"`
	// FinalNote tells a reader why FinalText is not a clean answer (a
	// draft the critic never passed, the best of several tries); "" when it is.
	FinalNote   string      `json:"final_note,omitempty"`
	OK          bool        `json:"ok"`
	Outcome     Outcome     `json:"outcome"`
	Termination Termination `json:"termination"`
	Usage       llm.Usage   `json:"usage"`
	// Cost is the sum of the model calls' costs; nil when none had a price.
	Cost        *llm.Cost             `json:"cost,omitempty"`
	StartedAt   Time                  `json:"started_at"`
	CompletedAt Time                  `json:"completed_at"`
	DurationMS  int64                 `json:"duration_ms"`
	ModelCalls  []llm.CallDiagnostics `json:"model_calls"`
	ToolCalls   []ToolCallDiagnostics `json:"tool_calls"`
	Stages      []StageResult         `json:"stages,omitempty"`
}

// StageResult is one stage of a workflow run (a chat turn has one).
type StageResult struct {
	ID          string           `json:"id"`
	Name        string           `json:"name"`
	Agent       string           `json:"agent"`
	Phase       string           `json:"phase"`
	Response    *llm.Message     `json:"response"`
	Outcome     Outcome          `json:"outcome"`
	Termination Termination      `json:"termination"`
	Diagnostics StageDiagnostics `json:"diagnostics"`
}

// StageDiagnostics aggregate one stage's calls.
type StageDiagnostics struct {
	StartedAt      Time                  `json:"started_at"`
	CompletedAt    Time                  `json:"completed_at"`
	DurationMS     int64                 `json:"duration_ms"`
	Usage          llm.Usage             `json:"usage"`
	Cost           *llm.Cost             `json:"cost,omitempty"` // nil: no call had a price
	ModelCalls     []llm.CallDiagnostics `json:"model_calls"`
	ToolCalls      []ToolCallDiagnostics `json:"tool_calls"`
	InputMessages  int                   `json:"input_messages"`
	OutputMessages int                   `json:"output_messages"`
}

// FinalText returns the last assistant message with real content (not
// blank): a run can end on a tool message, an empty assistant message or
// one that is only whitespace. Give it only the messages the run itself
// produced, never the history it started from: a run that produced
// nothing has no final text.
func FinalText(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Role == llm.RoleAssistant && strings.TrimSpace(m.Content) != "" {
			return m.Content
		}
	}
	return ""
}
