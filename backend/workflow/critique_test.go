package workflow_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want workflow.Verdict
	}{
		{"JSON", `{"passed": true, "score": 0.9, "feedback": "good"}`, workflow.Verdict{Passed: true, Score: 0.9, Feedback: "good"}},
		{"fenced JSON scored 0 to 10", "Here you go:\n```json\n{\"passed\": false, \"score\": 7, \"feedback\": \"tighten\"}\n```", workflow.Verdict{Passed: false, Score: 0.7, Feedback: "tighten"}},
		{"JSON after other JSON", `{"other": 1} then {"passed": true, "score": 1}`, workflow.Verdict{Passed: true, Score: 1}},
		{"bold PASS, feedback below", "**PASS**\nfine", workflow.Verdict{Passed: true, Score: 1, Feedback: "fine"}},
		{"PASS: reason", "PASS: it scans", workflow.Verdict{Passed: true, Score: 1, Feedback: "it scans"}},
		{"FAIL: reason", "FAIL: too long", workflow.Verdict{Feedback: "too long"}},
		{"FAIL - reason", "FAIL - too long", workflow.Verdict{Feedback: "too long"}},
		{"FAIL reason", "FAIL too long", workflow.Verdict{Feedback: "too long"}},
		{"Failed with a dash", "Failed — the meter is off", workflow.Verdict{Feedback: "the meter is off"}},
		{"FAIL: reason, more lines kept", "FAIL: too long\nshorten it\ncut the intro", workflow.Verdict{Feedback: "too long\nshorten it\ncut the intro"}},
		{"FAIL alone, reason below", "FAIL\nshorten it", workflow.Verdict{Feedback: "shorten it"}},
		{"a word that starts with PASS is no verdict", "Passable, but tighten it.", workflow.Verdict{Feedback: "Passable, but tighten it."}},
		{"prose", "I am not sure.", workflow.Verdict{Feedback: "I am not sure."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := workflow.ParseVerdict(tt.in); got != tt.want {
				t.Errorf("ParseVerdict(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func critiqueDef(mod func(*workflow.Stage)) *workflow.Definition {
	def := &workflow.Definition{Name: "cr", Agents: agents("writer", "critic", "editor"),
		Stage: workflow.Stage{Kind: workflow.KindCritiqueRevise, Roles: workflow.Roles{"writer": "writer", "critic": "critic"}, Numbers: workflow.Numbers{"max_retries": 2}}}
	if mod != nil {
		mod(&def.Stage)
	}
	return def
}

func critiques(t *testing.T, rec *turntest.Recorder) []turn.CritiqueData {
	t.Helper()
	var out []turn.CritiqueData
	for _, e := range rec.Of(turn.EventCritique) {
		out = append(out, turntest.Data[turn.CritiqueData](t, e))
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// Each kind of pass_check decides on the critic's reply; the first reply
// of each case passes the verdict but not the check, or the other way.
func TestCritiquePassCheck(t *testing.T) {
	tests := []struct {
		name   string
		check  *workflow.PassCheck
		critic []string
		stages string
		passed []bool
	}{
		{"verdict by default", nil, []string{`{"passed": true, "score": 0.2}`},
			"write=succeeded, critique 1=succeeded", []bool{true}},
		{"verdict set", &workflow.PassCheck{Verdict: true}, []string{"FAIL: flat", "PASS"},
			"write=succeeded, critique 1=succeeded, revise 1=succeeded, critique 2=succeeded", []bool{false, true}},
		{"contains", &workflow.PassCheck{Contains: "LGTM"}, []string{`{"passed": true, "score": 1}`, "LGTM, ship it"},
			"write=succeeded, critique 1=succeeded, revise 1=succeeded, critique 2=succeeded", []bool{false, true}},
		{"score at least, 0 to 1", &workflow.PassCheck{ScoreAtLeast: ptr(0.7)}, []string{`{"passed": true, "score": 0.5}`, `{"passed": false, "score": 0.75}`},
			"write=succeeded, critique 1=succeeded, revise 1=succeeded, critique 2=succeeded", []bool{false, true}},
		{"score at least, 0 to 10", &workflow.PassCheck{ScoreAtLeast: ptr(7.0)}, []string{`{"passed": false, "score": 8}`},
			"write=succeeded, critique 1=succeeded", []bool{true}},
		{"matches", &workflow.PassCheck{Matches: `(?im)^approved\b`}, []string{"PASS", "Good.\nApproved"},
			"write=succeeded, critique 1=succeeded, revise 1=succeeded, critique 2=succeeded", []bool{false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var critic []llmtest.Reply
			for _, c := range tt.critic {
				critic = append(critic, reply(c, 8))
			}
			def := critiqueDef(func(st *workflow.Stage) { st.PassCheck = tt.check })
			res, rec, _ := runWF(t, context.Background(), def, map[string][]llmtest.Reply{
				"writer": {reply("d1", 10), reply("d2", 10)}, "critic": critic,
			}, nil)
			if got := stageNames(res); got != tt.stages {
				t.Fatalf("stages %s, want %s", got, tt.stages)
			}
			var passed []bool
			for _, c := range critiques(t, rec) {
				passed = append(passed, c.Passed)
			}
			if !slices.Equal(passed, tt.passed) {
				t.Fatalf("critique events passed %v, want %v", passed, tt.passed)
			}
			if want := map[int]string{1: "d1", 2: "d2"}[len(tt.passed)]; !res.OK || res.FinalText != want {
				t.Fatalf("result ok %v final %q, want %q", res.OK, res.FinalText, want)
			}
		})
	}
}

// post_pass_check overrides a pass: on the critique (as seed 004 applies
// it) or on the draft; the reviser is told which check failed.
func TestCritiquePostPassCheck(t *testing.T) {
	tests := []struct {
		name     string
		mod      func(*workflow.Stage)
		critic   []string
		feedback string // in the reviser's prompt
	}{
		{"on the critique", func(st *workflow.Stage) {
			st.PostPassCheck = &workflow.PostPassCheck{On: "critique", Validation: workflow.Validation{Contains: "because"}}
		}, []string{"PASS", "PASS because it scans"}, `the critique does not contain "because"`},
		{"on the draft by default", func(st *workflow.Stage) {
			st.PostPassCheck = &workflow.PostPassCheck{Validation: workflow.Validation{MinLength: 5}}
		}, []string{"PASS", "PASS"}, "the draft is shorter than 5 characters"},
		{"validate still vetoes on the draft", func(st *workflow.Stage) {
			st.Validate = &workflow.Validation{Contains: "haiku"}
		}, []string{"PASS", "PASS"}, `the output does not contain "haiku"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, rec, sc := runWF(t, context.Background(), critiqueDef(tt.mod), map[string][]llmtest.Reply{
				"writer": {reply("d1", 10), reply("a haiku", 10)},
				"critic": {reply(tt.critic[0], 8), reply(tt.critic[1], 8)},
			}, nil)
			if got := stageNames(res); got != "write=succeeded, critique 1=succeeded, revise 1=succeeded, critique 2=succeeded" {
				t.Fatalf("stages %s", got)
			}
			cs := critiques(t, rec)
			if len(cs) != 2 || cs[0].Passed || !cs[1].Passed || !strings.Contains(cs[0].Feedback, tt.feedback) {
				t.Fatalf("critiques %+v, want a veto saying %q, then a pass", cs, tt.feedback)
			}
			if p := sc.prompts["writer"]; len(p) != 2 || !strings.Contains(p[1], tt.feedback) {
				t.Fatalf("the reviser was not told %q: %q", tt.feedback, p)
			}
			if !res.OK || res.FinalText != "a haiku" {
				t.Fatalf("result ok %v final %q", res.OK, res.FinalText)
			}
		})
	}
}

// "FAIL: reason" used to reach the reviser as empty feedback: only the
// lines after the first were read.
func TestCritiqueFailReasonReachesReviser(t *testing.T) {
	res, rec, sc := runWF(t, context.Background(), critiqueDef(nil), map[string][]llmtest.Reply{
		"writer": {reply("d1", 10), reply("d2", 10)},
		"critic": {reply("FAIL: needs a title", 8), reply("PASS", 8)},
	}, nil)
	if !res.OK || res.FinalText != "d2" {
		t.Fatalf("result ok %v final %q", res.OK, res.FinalText)
	}
	if cs := critiques(t, rec); len(cs) != 2 || cs[0].Feedback != "needs a title" {
		t.Fatalf("critiques %+v", cs)
	}
	if p := sc.prompts["writer"]; len(p) != 2 || !strings.Contains(p[1], "Feedback:\nneeds a title\n") {
		t.Fatalf("revise prompt %q", p)
	}
}

// A reviser, when set, revises; the writer only writes the first draft.
func TestCritiqueSeparateReviser(t *testing.T) {
	def := critiqueDef(func(st *workflow.Stage) { st.Roles["reviser"] = "editor" })
	res, _, sc := runWF(t, context.Background(), def, map[string][]llmtest.Reply{
		"writer": {reply("d1", 10)},
		"editor": {reply("d2 by the editor", 10)},
		"critic": {reply("FAIL: flat", 8), reply("PASS", 8)},
	}, nil)
	if got := strings.Join(sc.calls, ","); got != "writer,critic,editor,critic" {
		t.Fatalf("calls %s", got)
	}
	rev := stageNamed(t, res, "revise 1")
	if rev.Agent != "editor" || !res.OK || res.FinalText != "d2 by the editor" || res.FinalStageID != rev.ID {
		t.Fatalf("revise stage agent %q, final %q from %q", rev.Agent, res.FinalText, res.FinalStageID)
	}
}

// Every completed revision is announced with its draft, on the revise
// stage, after that stage ended (seed 004's onRevisionCompleted).
func TestCritiqueRevisionEvents(t *testing.T) {
	res, rec, _ := runWF(t, context.Background(), critiqueDef(nil), map[string][]llmtest.Reply{
		"writer": {reply("d1", 10), reply("d2", 10), reply("d3", 10)},
		"critic": {reply("FAIL: a", 8), reply("FAIL: b", 8), reply("PASS", 8)},
	}, nil)
	revs := rec.Of(turn.EventRevision)
	if len(revs) != 2 {
		t.Fatalf("%d revision_completed events, want 2", len(revs))
	}
	ends := map[string]int64{}
	for _, e := range rec.Of(turn.EventStageEnd) {
		ends[e.StageID] = e.Seq
	}
	for i, e := range revs {
		d := turntest.Data[turn.RevisionData](t, e)
		st := stageNamed(t, res, "revise "+string(rune('1'+i)))
		want := []string{"d2", "d3"}[i]
		if e.StageID != st.ID || d.Iteration != i+1 || d.Text != want || e.Seq < ends[st.ID] {
			t.Fatalf("revision %d: stage %s (want %s), data %+v, seq %d after stage_end %d", i+1, e.StageID, st.ID, d, e.Seq, ends[st.ID])
		}
	}
}

func stageNamed(t *testing.T, res turn.Result, name string) turn.StageResult {
	t.Helper()
	for _, s := range res.Stages {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no stage %q in %s", name, stageNames(res))
	return turn.StageResult{}
}
