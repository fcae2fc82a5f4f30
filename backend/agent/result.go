package agent

import (
	"strconv"

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
	TermCustom                 TerminationKind = "custom"
)

// Termination is why a turn or stage ended: a tagged object whose fields
// depend on Kind. Limit and Used are counts (steps, tool calls, tokens);
// for a timeout, Limit is in milliseconds.
type Termination struct {
	Kind       TerminationKind   `json:"kind"`
	Limit      int64             `json:"limit,omitempty"`
	Used       int64             `json:"used,omitempty"`
	Threshold  int               `json:"threshold,omitempty"`
	Error      string            `json:"error,omitempty"`
	Reason     string            `json:"reason,omitempty"`
	Properties map[string]string `json:"properties,omitempty"`
}

// Tag is the termination's stable low-cardinality tag.
func (t Termination) Tag() string { return string(t.Kind) }

// String describes the termination for people.
func (t Termination) String() string {
	switch t.Kind {
	case TermMaxIterations, TermMaxToolCalls, TermBudgetExceeded:
		return string(t.Kind) + " (" + strconv.FormatInt(t.Used, 10) + "/" + strconv.FormatInt(t.Limit, 10) + ")"
	case TermStallDetected:
		return string(t.Kind) + " (same call " + strconv.Itoa(t.Threshold) + " times)"
	case TermFailed:
		return "failed: " + t.Error
	case TermSkipped, TermCustom:
		return string(t.Kind) + ": " + t.Reason
	}
	return string(t.Kind)
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
	Messages             []llm.Message         `json:"messages"`
	StepsUsed            int                   `json:"steps_used"`
	ToolCallsUsed        int                   `json:"tool_calls_used"`
	Cancelled            bool                  `json:"cancelled"`
	BudgetExhausted      bool                  `json:"budget_exhausted"`
	PlanSteps            []PlanStep            `json:"plan_steps"`
	PlanIncompleteReason string                `json:"plan_incomplete_reason"`
	Error                string                `json:"error"`
	ErrorSource          string                `json:"error_source,omitempty"`
	FinalText            string                `json:"final_text"`
	OK                   bool                  `json:"ok"`
	Outcome              Outcome               `json:"outcome"`
	Termination          Termination           `json:"termination"`
	Usage                llm.Usage             `json:"usage"`
	StartedAt            Time                  `json:"started_at"`
	CompletedAt          Time                  `json:"completed_at"`
	DurationMS           int64                 `json:"duration_ms"`
	ModelCalls           []llm.CallDiagnostics `json:"model_calls"`
	ToolCalls            []ToolCallDiagnostics `json:"tool_calls"`
	Stages               []StageResult         `json:"stages,omitempty"`
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
	ModelCalls     []llm.CallDiagnostics `json:"model_calls"`
	ToolCalls      []ToolCallDiagnostics `json:"tool_calls"`
	InputMessages  int                   `json:"input_messages"`
	OutputMessages int                   `json:"output_messages"`
}

// FinalText returns the last assistant message with real content: a
// cancelled turn can end on a tool message or an empty assistant message.
func FinalText(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Role == llm.RoleAssistant && m.Content != "" {
			return m.Content
		}
	}
	return ""
}
