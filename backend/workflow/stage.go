package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
)

// StageStartData is the data of stage_start.
type StageStartData struct {
	StageID string `json:"stage_id"`
	Stage   string `json:"stage"`
	Phase   string `json:"phase"`
	Agent   string `json:"agent"`
}

// agentStage runs one agent as one stage and records its StageResult.
func (r *wfRun) agentStage(ctx context.Context, name, agentName string, in agent.Input, extra ...agent.Tool) (agent.StageResult, agent.Result) {
	id := agent.NewID()
	r.em.Emit(agent.Draft{Type: agent.EventStageStart, StageID: id, Data: StageStartData{StageID: id, Stage: name, Phase: r.phase, Agent: agentName}})
	sr := agent.StageResult{ID: id, Name: name, Agent: agentName, Phase: r.phase}
	started := time.Now()

	ag, err := r.buildAgent(agentName, extra...)
	var res agent.Result
	if err != nil {
		res = agent.Result{Outcome: agent.OutcomeFailed, Termination: agent.Termination{Kind: agent.TermFailed, Error: err.Error()}, Error: err.Error()}
	} else {
		in.StageID = id
		res = ag.Run(ctx, r.em, in)
	}
	now := time.Now()
	sr.Outcome, sr.Termination = res.Outcome, res.Termination
	if ctx.Err() != nil && res.Outcome != agent.OutcomeCancelled {
		sr.Outcome, sr.Termination = agent.OutcomeCancelled, agent.Termination{Kind: agent.TermCancelled}
	}
	if text := res.FinalText; text != "" {
		sr.Response = &llm.Message{Role: llm.RoleAssistant, Content: text}
	}
	inCount := len(in.History) + 1
	sr.Diagnostics = agent.StageDiagnostics{
		StartedAt:      agent.Time{Time: started},
		CompletedAt:    agent.Time{Time: now},
		DurationMS:     now.Sub(started).Milliseconds(),
		Usage:          res.Usage,
		ModelCalls:     res.ModelCalls,
		ToolCalls:      res.ToolCalls,
		InputMessages:  inCount,
		OutputMessages: max(len(res.Messages)-inCount, 0),
	}
	r.usage = r.usage.Add(res.Usage)
	r.stages = append(r.stages, sr)
	r.em.Emit(agent.Draft{Type: agent.EventStageEnd, StageID: id, Data: sr})
	return sr, res
}

// buildAgent makes the named agent, with the stage's budget and extra tools.
func (r *wfRun) buildAgent(name string, extra ...agent.Tool) (*agent.Agent, error) {
	def, ok := r.def.Agents[name]
	if !ok {
		return nil, fmt.Errorf("the workflow has no agent named %q", name)
	}
	ag, err := r.e.NewAgent(name, def)
	if err != nil {
		return nil, err
	}
	cp := *ag
	if len(extra) > 0 {
		tools, err := cp.Tools.With(extra...)
		if err != nil {
			return nil, err
		}
		cp.Tools = tools
	}
	capBudget := func(remaining int) {
		remaining = max(remaining, 1)
		if cp.Limits.TokenBudget == 0 || cp.Limits.TokenBudget > remaining {
			cp.Limits.TokenBudget = remaining
		}
	}
	if b := r.def.TokenBudget; b > 0 {
		capBudget(b - r.usage.TotalTokens)
	}
	if b := r.stageBudget; b > 0 {
		capBudget(b - (r.usage.TotalTokens - r.stageStartTokens))
	}
	return &cp, nil
}

// skipStage records a skipped stage.
func (r *wfRun) skipStage(st *Stage, reason string) {
	id := agent.NewID()
	now := agent.Time{Time: time.Now()}
	r.em.Emit(agent.Draft{Type: agent.EventStageStart, StageID: id, Data: StageStartData{StageID: id, Stage: st.Name, Phase: r.phase}})
	sr := agent.StageResult{ID: id, Name: st.Name, Phase: r.phase, Outcome: agent.OutcomeSkipped,
		Termination: agent.Termination{Kind: agent.TermSkipped, Reason: reason},
		Diagnostics: agent.StageDiagnostics{StartedAt: now, CompletedAt: now}}
	r.stages = append(r.stages, sr)
	r.em.Emit(agent.Draft{Type: agent.EventStageEnd, StageID: id, Data: sr})
}

// skip reports whether the condition holds, and why.
func (c *Condition) skip(prev agent.Outcome, input string) (string, bool) {
	if c == nil {
		return "", false
	}
	var reasons []string
	if c.Previous != "" {
		if string(prev) != c.Previous {
			return "", false
		}
		reasons = append(reasons, "the previous stage "+c.Previous)
	}
	if c.InputMatches != "" {
		re, err := regexp.Compile(c.InputMatches)
		if err != nil || !re.MatchString(input) {
			return "", false
		}
		reasons = append(reasons, "the input matches "+c.InputMatches)
	}
	if c.InputShorterThan > 0 {
		if len([]rune(input)) >= c.InputShorterThan {
			return "", false
		}
		reasons = append(reasons, fmt.Sprintf("the input is shorter than %d characters", c.InputShorterThan))
	}
	if len(reasons) == 0 {
		return "", false
	}
	return strings.Join(reasons, " and "), true
}

// check applies a post-validation to a stage's output.
func (v *Validation) check(out string) error {
	if v == nil {
		return nil
	}
	if v.MinLength > 0 && len([]rune(strings.TrimSpace(out))) < v.MinLength {
		return fmt.Errorf("the output is shorter than %d characters", v.MinLength)
	}
	if v.Contains != "" && !strings.Contains(out, v.Contains) {
		return fmt.Errorf("the output does not contain %q", v.Contains)
	}
	if v.Matches != "" {
		re, err := regexp.Compile(v.Matches)
		if err != nil {
			return fmt.Errorf("bad pattern %q: %v", v.Matches, err)
		}
		if !re.MatchString(out) {
			return fmt.Errorf("the output does not match %s", v.Matches)
		}
	}
	if v.JSON {
		if _, ok := findJSON(out, func(json.RawMessage) bool { return true }); !ok {
			return errors.New("the output contains no JSON value")
		}
	}
	return nil
}

// findJSON returns the first JSON object or array in text that accept
// takes: models wrap JSON in prose and code fences.
func findJSON(text string, accept func(json.RawMessage) bool) (json.RawMessage, bool) {
	tries := 0
	for i := 0; i < len(text) && tries < 200; i++ {
		if text[i] != '{' && text[i] != '[' {
			continue
		}
		tries++
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == nil && accept(raw) {
			return raw, true
		}
	}
	return nil, false
}
