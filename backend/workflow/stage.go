package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// stageCall is one agent stage to run: its name, its agent, whether its
// reply is known in advance to be the turn's final text, and tools it gets
// besides the agent's own.
type stageCall struct {
	name, agent string
	final       bool
	tools       []tool.Tool
}

// agentStage runs one agent as one stage and records its StageResult.
func (r *wfRun) agentStage(ctx context.Context, c stageCall, in agent.Input) (turn.StageResult, turn.Result) {
	id := turn.NewID()
	r.em.Emit(turn.Draft{StageID: id, Data: turn.StageStartData{StageID: id, Stage: c.name, Phase: r.phase, Agent: c.agent, Final: c.final}})
	sr := turn.StageResult{ID: id, Name: c.name, Agent: c.agent, Phase: r.phase}
	started := time.Now()

	ag, err := r.buildAgent(c.agent, c.tools...)
	var res turn.Result
	if err != nil {
		res = turn.Result{Outcome: turn.OutcomeFailed, Termination: turn.Termination{Kind: turn.TermFailed, Error: err.Error()}, Error: err.Error(), ErrorSource: "config"}
	} else {
		in.StageID = id
		res = ag.Run(ctx, r.em, in)
	}
	now := time.Now()
	sr.Outcome, sr.Termination = res.Outcome, res.Termination
	if ctx.Err() != nil && res.Outcome != turn.OutcomeCancelled {
		sr.Outcome, sr.Termination = turn.OutcomeCancelled, turn.Termination{Kind: turn.TermCancelled}
	}
	if text := res.FinalText; text != "" {
		sr.Response = &llm.Message{Role: llm.RoleAssistant, Content: text}
	}
	inCount := len(in.History) + 1
	sr.Diagnostics = turn.StageDiagnostics{
		StartedAt:      turn.Time{Time: started},
		CompletedAt:    turn.Time{Time: now},
		DurationMS:     now.Sub(started).Milliseconds(),
		Usage:          res.Usage,
		Cost:           llm.CallsCost(res.ModelCalls),
		ModelCalls:     res.ModelCalls,
		ToolCalls:      res.ToolCalls,
		InputMessages:  inCount,
		OutputMessages: max(len(res.Messages)-inCount, 0),
	}
	r.usage = r.usage.Add(res.Usage)
	r.stages = append(r.stages, sr)
	r.em.Emit(turn.Draft{StageID: id, Data: turn.StageEndData(sr)})
	return sr, res
}

// buildAgent makes the named agent, with the stage's budget and extra tools.
func (r *wfRun) buildAgent(name string, extra ...tool.Tool) (*agent.Agent, error) {
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
	id := turn.NewID()
	now := turn.Time{Time: time.Now()}
	r.em.Emit(turn.Draft{StageID: id, Data: turn.StageStartData{StageID: id, Stage: st.Name, Phase: r.phase}})
	sr := turn.StageResult{ID: id, Name: st.Name, Phase: r.phase, Outcome: turn.OutcomeSkipped,
		Termination: turn.Termination{Kind: turn.TermSkipped, Reason: reason},
		Diagnostics: turn.StageDiagnostics{StartedAt: now, CompletedAt: now}}
	r.stages = append(r.stages, sr)
	r.em.Emit(turn.Draft{StageID: id, Data: turn.StageEndData(sr)})
}

// skip reports whether the condition holds, and why.
func (c *Condition) skip(prev turn.Outcome, input string) (string, bool) {
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
	return v.checkText("the output", out)
}

// checkText applies the checks to text; noun names the text in errors.
func (v *Validation) checkText(noun, text string) error {
	if v == nil {
		return nil
	}
	if v.MinLength > 0 && len([]rune(strings.TrimSpace(text))) < v.MinLength {
		return fmt.Errorf("%s is shorter than %d characters", noun, v.MinLength)
	}
	if v.Contains != "" && !strings.Contains(text, v.Contains) {
		return fmt.Errorf("%s does not contain %q", noun, v.Contains)
	}
	if v.Matches != "" {
		re, err := regexp.Compile(v.Matches)
		if err != nil {
			return fmt.Errorf("bad pattern %q: %v", v.Matches, err)
		}
		if !re.MatchString(text) {
			return fmt.Errorf("%s does not match %s", noun, v.Matches)
		}
	}
	if v.JSON {
		if _, ok := findJSON(text, func(json.RawMessage) bool { return true }); !ok {
			return fmt.Errorf("%s contains no JSON value", noun)
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
