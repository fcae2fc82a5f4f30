package turn

import (
	"fmt"
	"slices"
	"strings"
)

// RunSettings is one layer of what a turn runs with: the app's defaults
// (Settings → Defaults), a project's, a session's, or one turn's. A field
// left unset (nil, "", an empty list) takes the value of the layer below
// it; Resolve stacks the layers. A value the workflow file sets for one
// of its agents wins over all of them, for that agent (runner).
//
// The zero RunSettings sets nothing. Instructions is a pointer so that a
// session can say "no instructions" (a pointer to "") over a project
// that has some.
type RunSettings struct {
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	Workflow string `json:"workflow,omitempty"`
	// Instructions is the system prompt the workflow's instructed agents
	// receive after their own (docs/WORKFLOWS.md names which).
	Instructions *string `json:"instructions,omitempty"`
	Sampling
	// Limits: each field not zero sets that limit.
	Limits Limits `json:"limits,omitzero"`
	// MCPServers names the MCP servers whose tools turns may use; nil
	// leaves it to the layer below (none set anywhere: all configured).
	MCPServers []string `json:"mcp_servers,omitempty"`
}

// Sampling is how the model is asked to sample. Each field is sent only
// when set, so a server's own default holds otherwise.
type Sampling struct {
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	// MaxTokens caps each model call's output tokens.
	MaxTokens *int   `json:"max_tokens,omitempty"`
	Seed      *int64 `json:"seed,omitempty"`
	// Stop lists stop sequences (at most 4, as OpenAI allows).
	Stop []string `json:"stop,omitempty"`
	// ReasoningEffort is low, medium or high, for a model that reasons.
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
}

// The layers, in the order they stack: a later one wins.
const (
	LayerApp     = "app"
	LayerProject = "project"
	LayerSession = "session"
	LayerTurn    = "turn"
)

// Layer is one named layer for Resolve.
type Layer struct {
	Name     string      `json:"name"`
	Settings RunSettings `json:"settings"`
}

// Resolved is what a turn runs with, and where each value came from: a
// field's name (as in JSON: "temperature", "limits.max_steps") maps to
// the layer that set it. A field no layer set is absent from both.
type Resolved struct {
	Settings RunSettings       `json:"settings"`
	From     map[string]string `json:"from"`
}

// Resolve stacks layers, lowest first.
func Resolve(layers ...Layer) Resolved {
	r := Resolved{From: map[string]string{}}
	s := &r.Settings
	for _, l := range layers {
		in, name := l.Settings, l.Name
		setStr(&s.Provider, in.Provider, "provider", name, r.From)
		setStr(&s.Model, in.Model, "model", name, r.From)
		setStr(&s.Workflow, in.Workflow, "workflow", name, r.From)
		setPtr(&s.Instructions, in.Instructions, "instructions", name, r.From)
		setPtr(&s.Temperature, in.Temperature, "temperature", name, r.From)
		setPtr(&s.TopP, in.TopP, "top_p", name, r.From)
		setPtr(&s.MaxTokens, in.MaxTokens, "max_tokens", name, r.From)
		setPtr(&s.Seed, in.Seed, "seed", name, r.From)
		setStr(&s.ReasoningEffort, in.ReasoningEffort, "reasoning_effort", name, r.From)
		if in.Stop != nil {
			s.Stop, r.From["stop"] = slices.Clone(in.Stop), name
		}
		if in.MCPServers != nil {
			s.MCPServers, r.From["mcp_servers"] = slices.Clone(in.MCPServers), name
		}
		setNum(&s.Limits.MaxSteps, in.Limits.MaxSteps, "limits.max_steps", name, r.From)
		setNum(&s.Limits.MaxToolCalls, in.Limits.MaxToolCalls, "limits.max_tool_calls", name, r.From)
		setNum(&s.Limits.TokenBudget, in.Limits.TokenBudget, "limits.token_budget", name, r.From)
		setNum(&s.Limits.Timeout, in.Limits.Timeout, "limits.timeout", name, r.From)
		setNum(&s.Limits.StallThreshold, in.Limits.StallThreshold, "limits.stall_threshold", name, r.From)
		setNum(&s.Limits.MaxToolOutput, in.Limits.MaxToolOutput, "limits.max_tool_output", name, r.From)
		setNum(&s.Limits.CodeSteps, in.Limits.CodeSteps, "limits.code_steps", name, r.From)
		setNum(&s.Limits.CodeOutput, in.Limits.CodeOutput, "limits.code_output", name, r.From)
		setNum(&s.Limits.CodeTimeout, in.Limits.CodeTimeout, "limits.code_timeout", name, r.From)
		setNum(&s.Limits.CodeMemoryMB, in.Limits.CodeMemoryMB, "limits.code_memory_mb", name, r.From)
	}
	return r
}

func setStr(dst *string, v, field, layer string, from map[string]string) {
	if v != "" {
		*dst, from[field] = v, layer
	}
}

func setPtr[T any](dst **T, v *T, field, layer string, from map[string]string) {
	if v != nil {
		c := *v
		*dst, from[field] = &c, layer
	}
}

func setNum[T ~int | ~int64](dst *T, v T, field, layer string, from map[string]string) {
	if v != 0 {
		*dst, from[field] = v, layer
	}
}

// InstructionsText is the instructions, "" when none are set.
func (s RunSettings) InstructionsText() string {
	if s.Instructions == nil {
		return ""
	}
	return *s.Instructions
}

// The reasoning efforts a model may be asked for.
var ReasoningEfforts = []string{"low", "medium", "high"}

// Validate says what is wrong with a layer, in words a person can act on,
// or nil. Every layer is checked where it is saved.
func (s RunSettings) Validate() error {
	var bad []string
	if t := s.Temperature; t != nil && (*t < 0 || *t > 2) {
		bad = append(bad, fmt.Sprintf("temperature must be between 0 and 2 (got %v)", *t))
	}
	if p := s.TopP; p != nil && (*p <= 0 || *p > 1) {
		bad = append(bad, fmt.Sprintf("top-p must be above 0 and at most 1 (got %v)", *p))
	}
	if m := s.MaxTokens; m != nil && *m < 1 {
		bad = append(bad, fmt.Sprintf("max output tokens must be at least 1 (got %d)", *m))
	}
	if len(s.Stop) > 4 {
		bad = append(bad, fmt.Sprintf("at most 4 stop sequences (got %d)", len(s.Stop)))
	}
	for _, st := range s.Stop {
		if st == "" {
			bad = append(bad, "a stop sequence cannot be empty")
			break
		}
	}
	if e := s.ReasoningEffort; e != "" && !slices.Contains(ReasoningEfforts, e) {
		bad = append(bad, fmt.Sprintf("reasoning effort must be low, medium or high (got %q)", e))
	}
	if l := s.Limits; l.MaxSteps < 0 || l.MaxToolCalls < 0 || l.TokenBudget < 0 || l.Timeout < 0 || l.StallThreshold < 0 || l.MaxToolOutput < 0 ||
		l.CodeSteps < 0 || l.CodeOutput < 0 || l.CodeTimeout < 0 || l.CodeMemoryMB < 0 {
		bad = append(bad, "limits cannot be negative")
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(bad, "; "))
}
