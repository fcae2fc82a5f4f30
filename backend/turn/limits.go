package turn

import "time"

// Limits bound one agent run. Zero values take the defaults.
type Limits struct {
	MaxSteps       int           `json:"max_steps"`      // model calls (default 25)
	MaxToolCalls   int           `json:"max_tool_calls"` // tool calls (default 50)
	TokenBudget    int           `json:"token_budget"`   // total tokens; 0 = none
	Timeout        time.Duration `json:"timeout"`        // wall clock; 0 = none
	StallThreshold int           `json:"stall_threshold"`
	MaxToolOutput  int           `json:"max_tool_output"` // bytes of a tool result sent back (default 16 KiB)
	// run_code's limits (backend/sandbox); zero takes the app's: steps
	// of a script, bytes it may print, its wall time, and MiB its values
	// may grow the heap by.
	CodeSteps    int           `json:"code_steps,omitempty"`
	CodeOutput   int           `json:"code_output,omitempty"`
	CodeTimeout  time.Duration `json:"code_timeout,omitempty"`
	CodeMemoryMB int           `json:"code_memory_mb,omitempty"`
}

// WithDefaults fills the zero values with the defaults.
func (l Limits) WithDefaults() Limits {
	if l.MaxSteps <= 0 {
		l.MaxSteps = 25
	}
	if l.MaxToolCalls <= 0 {
		l.MaxToolCalls = 50
	}
	if l.StallThreshold <= 0 {
		l.StallThreshold = 3
	}
	if l.MaxToolOutput <= 0 {
		l.MaxToolOutput = 16 << 10
	}
	return l
}
