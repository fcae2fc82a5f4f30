package workflow_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// script serves each agent its own queue of replies; agents are told
// apart by their system prompt "You are NAME.".
type script struct {
	mu     sync.Mutex
	queues map[string][]llmtest.Reply
	calls  []string
	// prompts holds, per agent, the last message of each request it got.
	prompts map[string][]string
}

func (s *script) respond(r llmtest.Request) llmtest.Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := "?"
	if len(r.Messages) > 0 && strings.HasPrefix(r.Messages[0].Content, "You are ") {
		name = strings.TrimSuffix(strings.TrimPrefix(r.Messages[0].Content, "You are "), ".")
	}
	s.calls = append(s.calls, name)
	if s.prompts == nil {
		s.prompts = map[string][]string{}
	}
	if n := len(r.Messages); n > 0 {
		s.prompts[name] = append(s.prompts[name], r.Messages[n-1].Content)
	}
	q := s.queues[name]
	if len(q) == 0 {
		return llmtest.ErrorReply(500, "unscripted", "no reply scripted for "+name)
	}
	s.queues[name] = q[1:]
	return q[0]
}

func reply(text string, total int) llmtest.Reply {
	return llmtest.Reply{Chunks: llmtest.Text(text, 3), Usage: &llmtest.Usage{PromptTokens: total - 2, CompletionTokens: 2, TotalTokens: total}}
}

func agents(names ...string) map[string]workflow.AgentDef {
	m := map[string]workflow.AgentDef{}
	for _, n := range names {
		m[n] = workflow.AgentDef{SystemPrompt: "You are " + n + "."}
	}
	return m
}

// runWF runs def against the scripted replies and checks the turn's invariants.
func runWF(t *testing.T, ctx context.Context, def *workflow.Definition, queues map[string][]llmtest.Reply, onEmit func(turn.Event)) (turn.Result, *turntest.Recorder, *script) {
	t.Helper()
	return runWFInput(t, ctx, def, agent.Input{User: "Write a haiku about SQLite."}, queues, onEmit)
}

// runWFInput is runWF from a given input, history included. Agents get
// the limits their definitions set.
func runWFInput(t *testing.T, ctx context.Context, def *workflow.Definition, in agent.Input, queues map[string][]llmtest.Reply, onEmit func(turn.Event)) (turn.Result, *turntest.Recorder, *script) {
	t.Helper()
	srv := llmtest.NewServer(t)
	sc := &script{queues: queues}
	srv.Respond(sc.respond)
	client := openai.NewClient(openai.Config{BaseURL: srv.URL(), MaxRetries: -1})
	eng := &workflow.Engine{NewAgent: func(name string, d workflow.AgentDef) (*agent.Agent, error) {
		limits := turn.Limits{MaxSteps: d.Limits.MaxSteps, MaxToolCalls: d.Limits.MaxToolCalls, TokenBudget: d.Limits.TokenBudget}
		return &agent.Agent{Name: name, Client: client, Model: "m", SystemPrompt: d.SystemPrompt, Limits: limits}, nil
	}}
	rec := &turntest.Recorder{OnEmit: onEmit}
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{rec}})
	res := turn.RunTurn(ctx, em, func(ctx context.Context) turn.Result {
		return eng.Run(ctx, em, def, in)
	})
	checkStages(t, res, rec)
	return res, rec, sc
}

// checkStages asserts what every workflow run keeps: the invariants of a
// turn, one stage_start and stage_end per stage result, in order, and
// diagnostics totals equal to the sum of their calls.
func checkStages(t *testing.T, res turn.Result, rec *turntest.Recorder) {
	t.Helper()
	turntest.Check(t, rec.Events())
	starts, ends := rec.Of(turn.EventStageStart), rec.Of(turn.EventStageEnd)
	if len(starts) != len(res.Stages) || len(ends) != len(res.Stages) {
		t.Fatalf("%d stage_start, %d stage_end for %d stages", len(starts), len(ends), len(res.Stages))
	}
	var total llm.Usage
	for i, s := range res.Stages {
		if ends[i].StageID != s.ID || starts[i].StageID != s.ID {
			t.Fatalf("stage %d events out of order", i)
		}
		var sum llm.Usage
		for _, c := range s.Diagnostics.ModelCalls {
			sum = sum.Add(c.Usage)
		}
		if sum != s.Diagnostics.Usage {
			t.Fatalf("stage %q usage %+v != sum of its calls %+v", s.Name, s.Diagnostics.Usage, sum)
		}
		total = total.Add(s.Diagnostics.Usage)
	}
	if total != res.Usage {
		t.Fatalf("run usage %+v != sum of stages %+v", res.Usage, total)
	}
	if len(rec.Of(turn.EventTurnCompleted)) != 1 {
		t.Fatal("no turn_completed")
	}
}

func stageNames(res turn.Result) string {
	var n []string
	for _, s := range res.Stages {
		n = append(n, s.Name+"="+string(s.Outcome))
	}
	return strings.Join(n, ", ")
}

func TestChat(t *testing.T) {
	def := &workflow.Definition{Name: "chat", Agents: agents("assistant"), Stage: workflow.Stage{Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "assistant"}}}
	res, _, _ := runWF(t, context.Background(), def, map[string][]llmtest.Reply{"assistant": {reply("Pages of B-trees", 10)}}, nil)
	if !res.OK || res.FinalText != "Pages of B-trees" || len(res.Stages) != 1 || res.Stages[0].Termination.Kind != turn.TermNaturalCompletion {
		t.Fatalf("result %+v", res)
	}
}

func TestCritiqueRevise(t *testing.T) {
	def := &workflow.Definition{Name: "cr", Agents: agents("writer", "critic"), Stage: workflow.Stage{Kind: workflow.KindCritiqueRevise, Roles: workflow.Roles{"writer": "writer", "critic": "critic"}, Numbers: workflow.Numbers{"max_retries": 2}}}
	t.Run("passes after one revision", func(t *testing.T) {
		res, rec, _ := runWF(t, context.Background(), def, map[string][]llmtest.Reply{
			"writer": {reply("draft one", 10), reply("draft two", 10)},
			"critic": {reply(`Not yet. {"passed": false, "score": 4, "feedback": "Needs 5-7-5."}`, 8), reply("PASS\nLovely.", 8)},
		}, nil)
		if !res.OK || res.FinalText != "draft two" {
			t.Fatalf("result %q %+v", res.FinalText, res.Termination)
		}
		if got := stageNames(res); got != "write=succeeded, critique 1=succeeded, revise 1=succeeded, critique 2=succeeded" {
			t.Fatalf("stages %s", got)
		}
		crit := rec.Of(turn.EventCritique)
		if len(crit) != 2 || len(rec.Of(turn.EventRefining)) != 1 {
			t.Fatalf("%d critiques", len(crit))
		}
		first := turntest.Data[turn.CritiqueData](t, crit[0])
		if first.Passed || first.Score != 0.4 || first.Feedback != "Needs 5-7-5." {
			t.Fatalf("first verdict %+v", first)
		}
	})
	t.Run("fails after max retries keeping the last draft", func(t *testing.T) {
		res, _, _ := runWF(t, context.Background(), def, map[string][]llmtest.Reply{
			"writer": {reply("d1", 10), reply("d2", 10), reply("d3", 10)},
			"critic": {reply("FAIL\nno", 8), reply("FAIL\nno", 8), reply("FAIL\nstill no", 8)},
		}, nil)
		if res.OK || res.Outcome != turn.OutcomeFailed || res.FinalText != "d3" {
			t.Fatalf("result %+v final %q", res.Outcome, res.FinalText)
		}
		if !strings.Contains(res.Error, "did not pass this draft after 2 revisions") {
			t.Fatalf("error %q", res.Error)
		}
	})
}

func TestPlanExecute(t *testing.T) {
	def := &workflow.Definition{Name: "pe", Agents: agents("planner", "executor"), Stage: workflow.Stage{Kind: workflow.KindPlanExecute, Roles: workflow.Roles{"planner": "planner", "executor": "executor"}, Numbers: workflow.Numbers{"max_replans": 1}}}
	t.Run("every step done", func(t *testing.T) {
		res, rec, _ := runWF(t, context.Background(), def, map[string][]llmtest.Reply{
			"planner":  {reply(`{"steps":[{"title":"Count syllables"},{"title":"Write lines"}]}`, 10)},
			"executor": {reply("5-7-5", 10), reply("lines", 10), reply("Final haiku", 10)},
		}, nil)
		if !res.OK || res.FinalText != "Final haiku" || len(res.PlanSteps) != 2 || res.PlanSteps[1].Status != "done" {
			t.Fatalf("result %+v plan %+v", res.Termination, res.PlanSteps)
		}
		if len(rec.Of(turn.EventPlanGenerated)) != 1 || len(rec.Of(turn.EventStepEnd)) != 2 {
			t.Fatal("plan events missing")
		}
	})
	t.Run("a failed step is replanned", func(t *testing.T) {
		res, rec, _ := runWF(t, context.Background(), def, map[string][]llmtest.Reply{
			"planner":  {reply(`{"steps":[{"title":"A"},{"title":"B"}]}`, 10), reply("1. C", 10)},
			"executor": {reply("a done", 10), llmtest.ErrorReply(400, "bad", "step B broke"), reply("c done", 10), reply("final", 10)},
		}, nil)
		if !res.OK || res.FinalText != "final" {
			t.Fatalf("result %+v: %s", res.Termination, stageNames(res))
		}
		if got := stageNames(res); got != "plan=succeeded, step 1=succeeded, step 2=failed, replan 1=succeeded, step 3=succeeded, finish=succeeded" {
			t.Fatalf("stages %s", got)
		}
		if len(rec.Of(turn.EventPlanGenerated)) != 2 {
			t.Fatal("the replan was not published")
		}
	})
	t.Run("fails when replans run out", func(t *testing.T) {
		res, _, _ := runWF(t, context.Background(), def, map[string][]llmtest.Reply{
			"planner":  {reply(`{"steps":["A"]}`, 10), reply(`{"steps":["B"]}`, 10)},
			"executor": {llmtest.ErrorReply(400, "bad", "no"), llmtest.ErrorReply(400, "bad", "no")},
		}, nil)
		if res.OK || !strings.Contains(res.Error, `step 2 "B" failed after 1 replans`) || res.PlanIncompleteReason == "" {
			t.Fatalf("result %+v reason %q", res, res.PlanIncompleteReason)
		}
	})
}

func TestReflection(t *testing.T) {
	def := &workflow.Definition{Name: "rf", Agents: agents("author", "judge"), Stage: workflow.Stage{Kind: workflow.KindReflection, Roles: workflow.Roles{"agent": "author", "critic": "judge"}, Numbers: workflow.Numbers{"threshold": 0.8, "max_iterations": 2}}}
	t.Run("passes on the second iteration", func(t *testing.T) {
		res, rec, _ := runWF(t, context.Background(), def, map[string][]llmtest.Reply{
			"author": {reply("v1", 10), reply("v2", 10)},
			"judge":  {reply(`{"passed":false,"score":0.5,"feedback":"more imagery"}`, 5), reply(`{"passed":true,"score":0.9,"feedback":""}`, 5)},
		}, nil)
		ends := rec.Of(turn.EventReflectionEnd)
		if !res.OK || res.FinalText != "v2" || len(ends) != 2 || res.Stages[len(res.Stages)-1].Name != "reflect 2" {
			t.Fatalf("result %q, %d reflection_end, %s", res.FinalText, len(ends), stageNames(res))
		}
	})
	t.Run("keeps the best answer after max iterations", func(t *testing.T) {
		res, _, _ := runWF(t, context.Background(), def, map[string][]llmtest.Reply{
			"author": {reply("v1", 10), reply("v2", 10)},
			"judge":  {reply(`{"passed":false,"score":0.2,"feedback":"x"}`, 5), reply(`{"passed":false,"score":0.3,"feedback":"y"}`, 5)},
		}, nil)
		if !res.OK || res.FinalText != "v2" {
			t.Fatalf("result %+v", res)
		}
	})
}

func TestHandoff(t *testing.T) {
	def := &workflow.Definition{Name: "ho", Agents: agents("triage", "poet", "analyst"), Stage: workflow.Stage{Kind: workflow.KindHandoff, Roles: workflow.Roles{"triage": "triage"}, Teams: workflow.Teams{"specialists": {"poet", "analyst"}}}}
	res, rec, sc := runWF(t, context.Background(), def, map[string][]llmtest.Reply{
		"triage": {{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "h1", "transfer_to_poet", `{"reason":"poetry"}`, 2), "tool_calls")}},
		"poet":   {reply("Rows in quiet pages", 10)},
	}, nil)
	if !res.OK || res.FinalText != "Rows in quiet pages" {
		t.Fatalf("result %+v", res)
	}
	if res.Stages[0].Termination.Kind != turn.TermCompletedAfterToolCall {
		t.Fatalf("triage termination %+v", res.Stages[0].Termination)
	}
	hs := rec.Of(turn.EventHandoffStart)
	if len(hs) != 1 {
		t.Fatalf("%d handoff_start events", len(hs))
	}
	if d := turntest.Data[turn.HandoffStartData](t, hs[0]); d.From != "triage" || d.To != "poet" || len(rec.Of(turn.EventHandoffEnd)) != 1 {
		t.Fatalf("handoff events %+v", hs)
	}
	if strings.Join(sc.calls, ",") != "triage,poet" {
		t.Fatalf("calls %v", sc.calls)
	}
}

func TestPipeline(t *testing.T) {
	base := func(onFailure string) *workflow.Definition {
		return &workflow.Definition{
			Name: "pl", Agents: agents("researcher", "checker", "writer", "editor"),
			Stage: workflow.Stage{Kind: workflow.KindPipeline},
			Phases: []workflow.Phase{
				{Name: "research", Stages: []workflow.Stage{
					{Name: "gather", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "researcher"}},
					{Name: "check", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "checker"}, Validate: &workflow.Validation{Contains: "OK"}, OnFailure: onFailure},
				}},
				{Name: "write", Stages: []workflow.Stage{
					{Name: "rescue", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "editor"}, SkipIf: &workflow.Condition{Previous: "succeeded"}},
					{Name: "draft", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "writer"}},
				}},
			},
		}
	}
	t.Run("continue past a failed stage, skip by condition", func(t *testing.T) {
		res, _, _ := runWF(t, context.Background(), base("continue"), map[string][]llmtest.Reply{
			"researcher": {reply("facts", 10)},
			"checker":    {reply("looks wrong", 10)},
			"editor":     {reply("rescued facts", 10)},
			"writer":     {reply("the report", 10)},
		}, nil)
		if got := stageNames(res); got != "gather=succeeded, check=failed, rescue=succeeded, draft=succeeded" {
			t.Fatalf("stages %s", got)
		}
		if !res.OK || res.FinalText != "the report" || res.Stages[2].Phase != "write" {
			t.Fatalf("result %+v", res)
		}
	})
	t.Run("skip when the previous stage succeeded", func(t *testing.T) {
		res, _, _ := runWF(t, context.Background(), base("continue"), map[string][]llmtest.Reply{
			"researcher": {reply("facts", 10)},
			"checker":    {reply("OK", 10)},
			"writer":     {reply("the report", 10)},
		}, nil)
		if got := stageNames(res); got != "gather=succeeded, check=succeeded, rescue=skipped, draft=succeeded" {
			t.Fatalf("stages %s", got)
		}
		if res.Stages[2].Termination.Kind != turn.TermSkipped || !strings.Contains(res.Stages[2].Termination.Reason, "succeeded") {
			t.Fatalf("skip %+v", res.Stages[2].Termination)
		}
	})
	t.Run("abort stops the run", func(t *testing.T) {
		res, _, sc := runWF(t, context.Background(), base("abort"), map[string][]llmtest.Reply{
			"researcher": {reply("facts", 10)},
			"checker":    {reply("looks wrong", 10)},
		}, nil)
		if res.OK || res.Outcome != turn.OutcomeFailed || !strings.Contains(res.Error, `stage "check" failed`) {
			t.Fatalf("result %+v", res)
		}
		if len(sc.calls) != 2 {
			t.Fatalf("later stages ran: %v", sc.calls)
		}
	})
	t.Run("total token budget", func(t *testing.T) {
		def := base("continue")
		def.TokenBudget = 15
		res, _, _ := runWF(t, context.Background(), def, map[string][]llmtest.Reply{
			"researcher": {reply("facts", 10)},
			"checker":    {reply("OK", 10)},
		}, nil)
		// budget_exhausted means the step ceiling (seed 003), not a token budget.
		if res.Termination.Kind != turn.TermBudgetExceeded || res.BudgetExhausted || len(res.Stages) != 2 {
			t.Fatalf("termination %+v budget_exhausted %v after %s", res.Termination, res.BudgetExhausted, stageNames(res))
		}
	})
	t.Run("retries a stage that fails validation", func(t *testing.T) {
		def := base("abort")
		def.Phases[0].Stages[1].MaxAttempts = 2
		res, _, _ := runWF(t, context.Background(), def, map[string][]llmtest.Reply{
			"researcher": {reply("facts", 10)},
			"checker":    {reply("bad", 10), reply("OK now", 10)},
			"writer":     {reply("report", 10)},
		}, nil)
		if got := stageNames(res); got != "gather=succeeded, check=failed, check=succeeded, rescue=skipped, draft=succeeded" {
			t.Fatalf("stages %s", got)
		}
	})
}
