package eval

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

func some[T any](v T) *T { return &v }

// checkCase is one assertion on one observation: whether it passes, and
// texts its reason must hold.
type checkCase struct {
	name   string
	a      Assert
	obs    Observation
	pass   bool
	reason []string
}

func runChecks(t *testing.T, kind string, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := Check(context.Background(), tc.a, tc.obs, nil)
			if o.Kind != kind {
				t.Errorf("Kind = %q, want %q", o.Kind, kind)
			}
			if o.Passed != tc.pass {
				t.Errorf("Passed = %v, want %v (reason %q)", o.Passed, tc.pass, o.Reason)
			}
			if want := map[bool]float64{true: 1, false: 0}[tc.pass]; o.Score != want {
				t.Errorf("Score = %v, want %v", o.Score, want)
			}
			for _, r := range tc.reason {
				if !strings.Contains(o.Reason, r) {
					t.Errorf("Reason %q does not contain %q", o.Reason, r)
				}
			}
		})
	}
}

func answerObs(s string) Observation { return Observation{Answer: s} }

func TestCheckText(t *testing.T) {
	long := strings.Repeat("lorem ipsum ", 100) + "Paris"
	t.Run("contains", func(t *testing.T) {
		runChecks(t, "contains", []checkCase{
			{name: "present", a: Assert{Contains: some("Paris")}, obs: answerObs("The capital is Paris."), pass: true},
			{name: "case differs", a: Assert{Contains: some("paris")}, obs: answerObs("The capital is Paris."),
				reason: []string{`does not contain "paris"`, "case-sensitive", `"The capital is Paris."`}},
			{name: "empty answer", a: Assert{Contains: some("Paris")}, obs: answerObs("  "), reason: []string{"the answer is empty"}},
			{name: "long answer is excerpted", a: Assert{Contains: some("Berlin")}, obs: answerObs(long), reason: []string{"the answer starts:", "…"}},
		})
	})
	t.Run("not_contains", func(t *testing.T) {
		runChecks(t, "not_contains", []checkCase{
			{name: "absent", a: Assert{NotContains: some("sorry")}, obs: answerObs("Sorry, no."), pass: true},
			{name: "present", a: Assert{NotContains: some("Paris")}, obs: answerObs(long), reason: []string{`contains "Paris"`, `here: "…`, `ipsum Paris"`}},
		})
	})
	t.Run("equals", func(t *testing.T) {
		runChecks(t, "equals", []checkCase{
			{name: "surrounding whitespace ignored", a: Assert{Equals: some("42")}, obs: answerObs("\n 42 \n"), pass: true},
			{name: "different", a: Assert{Equals: some("42")}, obs: answerObs("43"), reason: []string{`not equal "42"`, `"43"`}},
			{name: "case differs", a: Assert{Equals: some("Yes")}, obs: answerObs("yes"), reason: []string{"case-sensitive"}},
		})
	})
	t.Run("regex", func(t *testing.T) {
		runChecks(t, "regex", []checkCase{
			{name: "matches", a: Assert{Regex: some(`\b\d{4}\b`)}, obs: answerObs("Founded in 1889."), pass: true, reason: []string{`"1889"`}},
			{name: "no match", a: Assert{Regex: some(`^\d+$`)}, obs: answerObs("forty-two"), reason: []string{`does not match /^\d+$/`, "forty-two"}},
			{name: "bad regex", a: Assert{Regex: some(`(`)}, obs: answerObs("x"), reason: []string{"does not compile", "missing closing )"}},
		})
	})
}

func TestCheckJSONSchema(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","required":["city","population"],
		"properties":{"city":{"type":"string"},"population":{"type":"integer","minimum":0},
		"tags":{"type":"array","items":{"type":"string"}}}}`)
	a := Assert{JSONSchema: schema}
	runChecks(t, "json_schema", []checkCase{
		{name: "bare JSON", a: a, obs: answerObs(` {"city":"Paris","population":2100000} `), pass: true},
		{name: "fenced json", a: a, obs: answerObs("Here it is:\n```json\n{\"city\":\"Paris\",\"population\":1}\n```\nDone."), pass: true, reason: []string{"fenced"}},
		{name: "json fence before unlabelled", a: a, obs: answerObs("```\n$ curl x\n```\n```JSON\n{\"city\":\"Paris\",\"population\":1}\n```"), pass: true},
		{name: "unlabelled fence", a: a, obs: answerObs("```\n{\"city\":\"Paris\",\"population\":1}\n```"), pass: true},
		{name: "first json fence wins", a: a, obs: answerObs("```python\nprint(1)\n```\n```json\n{\"city\":\"Paris\",\"population\":1}\n```\n```json\n{}\n```"), pass: true},
		{name: "wrong type deep", a: a, obs: answerObs(`{"city":"Paris","population":1,"tags":["a",2]}`), reason: []string{"at /tags/1", "string"}},
		{name: "missing property", a: a, obs: answerObs(`{"city":"Paris"}`), reason: []string{"at /:", "population"}},
		{name: "fenced but invalid", a: a, obs: answerObs("```json\n{\"city\":3,\"population\":1}\n```"), reason: []string{"fenced JSON does not match", "at /city"}},
		{name: "not JSON", a: a, obs: answerObs("Paris has 2.1 million people."), reason: []string{"not JSON", "Paris has"}},
		{name: "fence not JSON", a: a, obs: answerObs("```json\n{city: Paris}\n```"), reason: []string{"fenced block is not JSON"}},
		{name: "bad schema", a: Assert{JSONSchema: json.RawMessage(`{"type":"nope"}`)}, obs: answerObs(`{}`), reason: []string{"schema does not compile"}},
		{name: "remote ref refused", a: Assert{JSONSchema: json.RawMessage(`{"$ref":"https://example.com/s.json"}`)}, obs: answerObs(`{}`), reason: []string{"schema does not compile"}},
	})
}

func TestCheckToolCalled(t *testing.T) {
	calls := Observation{Result: turn.Result{ToolCalls: []turn.ToolCallDiagnostics{
		{Name: "search", Arguments: `{"query":"weather in Paris","limit":5}`, OK: true},
		{Name: "fetch", Arguments: `{"url":"https://x"}`, OK: false, Error: "timeout"},
		{Name: "search", Arguments: `{"query":"Paris population","limit":10,"opts":{"lang": "fr"}}`, OK: true},
	}}}
	args := func(m map[string]Matcher) Assert { return Assert{ToolCalled: &ToolCalled{Name: "search", Args: m}} }
	runChecks(t, "tool_called", []checkCase{
		{name: "by name", a: Assert{ToolCalled: &ToolCalled{Name: "search"}}, obs: calls, pass: true},
		{name: "not called", a: Assert{ToolCalled: &ToolCalled{Name: "draw_chart"}}, obs: calls,
			reason: []string{"draw_chart was not called", "called: search, fetch (failed)"}},
		{name: "none called", a: Assert{ToolCalled: &ToolCalled{Name: "search"}}, obs: Observation{}, reason: []string{"called: no tools"}},
		{name: "only failed calls", a: Assert{ToolCalled: &ToolCalled{Name: "fetch"}}, obs: calls, reason: []string{"fetch was called but failed 1 time"}},
		{name: "string contains", a: args(map[string]Matcher{"query": {Contains: some("population")}}), obs: calls, pass: true},
		{name: "string equals", a: args(map[string]Matcher{"query": {Equals: some("weather in Paris")}}), obs: calls, pass: true},
		{name: "number equals", a: args(map[string]Matcher{"limit": {Equals: some("10")}}), obs: calls, pass: true},
		{name: "number regex", a: args(map[string]Matcher{"limit": {Regex: some(`^[0-9]$`)}}), obs: calls, pass: true},
		{name: "object as compact JSON", a: args(map[string]Matcher{"opts": {Equals: some(`{"lang":"fr"}`)}}), obs: calls, pass: true},
		{name: "all matchers on one call", a: args(map[string]Matcher{"query": {Contains: some("weather")}, "limit": {Equals: some("10")}}), obs: calls,
			reason: []string{"called 2 times but no call's arguments matched", `argument "limit": "5" is not "10"`}},
		{name: "number mismatch", a: args(map[string]Matcher{"limit": {Equals: some("7")}}), obs: calls, reason: []string{`"5" is not "7"`}},
		{name: "missing argument", a: args(map[string]Matcher{"page": {Equals: some("1")}}), obs: calls, reason: []string{`no argument "page"`}},
		{name: "string is not JSON-quoted", a: args(map[string]Matcher{"query": {Equals: some(`"weather in Paris"`)}}), obs: calls, reason: []string{"no call's arguments matched"}},
		{name: "bad matcher", a: args(map[string]Matcher{"query": {}}), obs: calls, reason: []string{"exactly one of equals, contains, regex"}},
	})
}

func TestCheckChart(t *testing.T) {
	runChecks(t, "chart", []checkCase{
		{name: "wanted and drawn", a: Assert{Chart: some(true)}, obs: Observation{Charts: 2}, pass: true},
		{name: "wanted, none", a: Assert{Chart: some(true)}, reason: []string{"no valid chart"}},
		{name: "unwanted, none", a: Assert{Chart: some(false)}, pass: true},
		{name: "unwanted but drawn", a: Assert{Chart: some(false)}, obs: Observation{Charts: 1}, reason: []string{"drew 1 chart,"}},
	})
}

func TestCheckLimits(t *testing.T) {
	res := func(r turn.Result) Observation { return Observation{Result: r} }
	t.Run("max_latency_ms", func(t *testing.T) {
		runChecks(t, "max_latency_ms", []checkCase{
			{name: "under", a: Assert{MaxLatency: some(1000.0)}, obs: res(turn.Result{DurationMS: 999}), pass: true},
			{name: "at", a: Assert{MaxLatency: some(1000.0)}, obs: res(turn.Result{DurationMS: 1000}), pass: true},
			{name: "over", a: Assert{MaxLatency: some(1000.0)}, obs: res(turn.Result{DurationMS: 1001}), reason: []string{"took 1001 ms, over the max of 1000 ms"}},
		})
	})
	t.Run("max_tokens", func(t *testing.T) {
		runChecks(t, "max_tokens", []checkCase{
			{name: "total under", a: Assert{MaxTokens: some[int64](500)}, obs: res(turn.Result{Usage: llm.Usage{InputTokens: 200, OutputTokens: 300, TotalTokens: 500}}), pass: true},
			{name: "total over", a: Assert{MaxTokens: some[int64](499)}, obs: res(turn.Result{Usage: llm.Usage{InputTokens: 200, OutputTokens: 300, TotalTokens: 500}}), reason: []string{"used 500 tokens, over the max of 499"}},
			{name: "no total: input plus output", a: Assert{MaxTokens: some[int64](100)}, obs: res(turn.Result{Usage: llm.Usage{InputTokens: 80, OutputTokens: 30}}), reason: []string{"used 110 tokens"}},
			{name: "estimated", a: Assert{MaxTokens: some[int64](100)}, obs: res(turn.Result{Usage: llm.Usage{TotalTokens: 10, Estimated: true}}), pass: true, reason: []string{"estimated"}},
		})
	})
	t.Run("max_cost", func(t *testing.T) {
		runChecks(t, "max_cost", []checkCase{
			{name: "under", a: Assert{MaxCost: some(0.01)}, obs: res(turn.Result{Cost: &llm.Cost{USD: 0.0042}}), pass: true, reason: []string{"$0.004200"}},
			{name: "over", a: Assert{MaxCost: some(0.01)}, obs: res(turn.Result{Cost: &llm.Cost{USD: 0.05}}), reason: []string{"cost $0.0500, over the max of $0.0100"}},
			{name: "nil cost", a: Assert{MaxCost: some(1.0)}, obs: res(turn.Result{}), reason: []string{"cost unknown (no price for this model)"}},
			{name: "partly unpriced", a: Assert{MaxCost: some(1.0)}, obs: res(turn.Result{Cost: &llm.Cost{USD: 0.1, Unpriced: 2}}), reason: []string{"cost unknown", "2 calls had no price"}},
			{name: "partly unpriced and over", a: Assert{MaxCost: some(0.01)}, obs: res(turn.Result{Cost: &llm.Cost{USD: 0.1, Unpriced: 1}}), reason: []string{"over the max"}},
		})
	})
}

func TestCheckTermination(t *testing.T) {
	ended := func(k turn.TerminationKind) Observation {
		return Observation{Result: turn.Result{Termination: turn.Termination{Kind: k, Limit: 8, Used: 8}}}
	}
	isNatural := Assert{Termination: &TerminationRule{Is: []string{"natural_completion", "completed"}}}
	notLimit := Assert{Termination: &TerminationRule{NotLimit: true}}
	cases := []checkCase{
		{name: "is: listed", a: isNatural, obs: ended(turn.TermNaturalCompletion), pass: true},
		{name: "is: second listed", a: isNatural, obs: ended(turn.TermCompleted), pass: true},
		{name: "is: not listed", a: isNatural, obs: ended(turn.TermFailed), reason: []string{"ended failed", "not natural_completion or completed"}},
		{name: "not_limit: natural", a: notLimit, obs: ended(turn.TermNaturalCompletion), pass: true},
		{name: "not_limit: failed is not a limit", a: notLimit, obs: ended(turn.TermFailed), pass: true},
		{name: "both: must hold both", a: Assert{Termination: &TerminationRule{Is: []string{"timeout"}, NotLimit: true}}, obs: ended(turn.TermTimeout), reason: []string{"hit a limit"}},
		{name: "empty rule", a: Assert{Termination: &TerminationRule{}}, obs: ended(turn.TermCompleted), reason: []string{"neither is nor not_limit"}},
	}
	for _, k := range []turn.TerminationKind{turn.TermMaxIterations, turn.TermMaxToolCalls, turn.TermBudgetExceeded, turn.TermStallDetected, turn.TermTimeout} {
		cases = append(cases, checkCase{name: "not_limit: " + string(k), a: notLimit, obs: ended(k), reason: []string{"hit a limit: stopped"}})
	}
	runChecks(t, "termination", cases)
}

// fakeJudge answers with a fixed verdict or error and records what it was asked.
type fakeJudge struct {
	v   workflow.Verdict
	err error

	model, rubric, prompt, answer string
}

func (f *fakeJudge) Judge(_ context.Context, model, rubric, prompt, answer string) (Judged, error) {
	f.model, f.rubric, f.prompt, f.answer = model, rubric, prompt, answer
	return Judged{Verdict: f.v}, f.err
}

func TestCheckJudge(t *testing.T) {
	rule := func(th *float64) Assert {
		return Assert{Judge: &JudgeRule{Rubric: "Names the capital.", Model: "local/critic", Threshold: th}}
	}
	obs := Observation{Prompt: "Capital of France?", Answer: "Paris."}
	tests := []struct {
		name      string
		a         Assert
		j         Judge
		pass      bool
		score     float64
		reason    []string
		notReason string
	}{
		{name: "pass", a: rule(nil), j: &fakeJudge{v: workflow.Verdict{Passed: true, Score: 0.9, Feedback: " Correct. "}},
			pass: true, score: 0.9, reason: []string{"score 0.90 (threshold 0.50): Correct."}},
		{name: "pass with no score counts as 1", a: rule(some(0.8)), j: &fakeJudge{v: workflow.Verdict{Passed: true}},
			pass: true, score: 1, reason: []string{"(no feedback)"}},
		{name: "fail by verdict", a: rule(nil), j: &fakeJudge{v: workflow.Verdict{Passed: false, Score: 0.9, Feedback: "Wrong city."}},
			score: 0.9, reason: []string{"did not pass", "Wrong city."}},
		{name: "fail by threshold", a: rule(some(0.7)), j: &fakeJudge{v: workflow.Verdict{Passed: true, Score: 0.6, Feedback: "Vague."}},
			score: 0.6, reason: []string{"passed it but score 0.60 (threshold 0.70)", "Vague."}},
		{name: "long feedback is bounded", a: rule(nil), j: &fakeJudge{v: workflow.Verdict{Passed: true, Score: 1, Feedback: strings.Repeat("x", 5000)}},
			pass: true, score: 1, reason: []string{"…"}},
		{name: "judge error", a: rule(nil), j: &fakeJudge{err: errors.New("provider local: connection refused")},
			reason: []string{"the judge could not be asked: provider local: connection refused"}},
		{name: "nil judge", a: rule(nil), j: nil, reason: []string{"the judge could not be asked"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := Check(context.Background(), tc.a, obs, tc.j)
			if o.Kind != "judge" || o.Passed != tc.pass || o.Score != tc.score {
				t.Errorf("got %+v, want kind judge, passed %v, score %v", o, tc.pass, tc.score)
			}
			for _, r := range tc.reason {
				if !strings.Contains(o.Reason, r) {
					t.Errorf("Reason %q does not contain %q", o.Reason, r)
				}
			}
			if len([]rune(o.Reason)) > 700 {
				t.Errorf("Reason is %d runes long", len([]rune(o.Reason)))
			}
			if f, ok := tc.j.(*fakeJudge); ok {
				if f.model != "local/critic" || f.rubric != "Names the capital." || f.prompt != obs.Prompt || f.answer != obs.Answer {
					t.Errorf("judge asked (%q, %q, %q, %q)", f.model, f.rubric, f.prompt, f.answer)
				}
			}
		})
	}
}

func TestJudgePromptReplyParses(t *testing.T) {
	system, user := JudgePrompt("Mentions Paris.", "Capital of France?", "It is Paris.")
	for _, want := range []string{`"passed"`, `"score"`, `"feedback"`} {
		if !strings.Contains(system, want) {
			t.Errorf("system prompt does not ask for %s:\n%s", want, system)
		}
	}
	for _, want := range []string{"Mentions Paris.", "Capital of France?", "It is Paris."} {
		if !strings.Contains(user, want) {
			t.Errorf("user prompt lacks %q:\n%s", want, user)
		}
	}
	// A reply in the format the prompt asks for, as a model might wrap it.
	for _, reply := range []string{
		`{"passed": true, "score": 0.85, "feedback": "Names Paris."}`,
		"```json\n{\"passed\": true, \"score\": 0.85, \"feedback\": \"Names Paris.\"}\n```",
	} {
		v := workflow.ParseVerdict(reply)
		if !v.Passed || v.Score != 0.85 || v.Feedback != "Names Paris." {
			t.Errorf("ParseVerdict(%q) = %+v", reply, v)
		}
	}
}

func TestCheckSimilarTo(t *testing.T) {
	ref := "The capital of France is Paris"
	tests := []struct {
		name   string
		a      Assert
		answer string
		pass   bool
		reason string
	}{
		{name: "identical", a: Assert{SimilarTo: &Similarity{Reference: ref}}, answer: "the capital of france is paris!", pass: true, reason: "token F1 1.00 (threshold 0.50)"},
		{name: "close", a: Assert{SimilarTo: &Similarity{Reference: ref, Measure: "token_f1"}}, answer: "Paris is the capital", pass: true, reason: "token F1 0.80 (threshold 0.50)"},
		{name: "below threshold", a: Assert{SimilarTo: &Similarity{Reference: ref, Threshold: some(0.9)}}, answer: "Paris is the capital", reason: "token F1 0.80 (threshold 0.90)"},
		{name: "disjoint", a: Assert{SimilarTo: &Similarity{Reference: ref}}, answer: "Berlin.", reason: "token F1 0.00"},
		{name: "unknown measure", a: Assert{SimilarTo: &Similarity{Reference: ref, Measure: "bleu"}}, answer: ref, reason: `unknown similarity measure "bleu"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := Check(context.Background(), tc.a, answerObs(tc.answer), nil)
			if o.Kind != "similar_to" || o.Passed != tc.pass || !strings.Contains(o.Reason, tc.reason) {
				t.Errorf("got %+v, want passed %v, reason with %q", o, tc.pass, tc.reason)
			}
		})
	}
}

func TestCheckMalformedAssert(t *testing.T) {
	tests := []struct {
		name   string
		a      Assert
		reason string
	}{
		{name: "no kind", a: Assert{}, reason: "no kind"},
		{name: "two kinds", a: Assert{Contains: some("a"), Regex: some("b")}, reason: "has contains and regex"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if k := tc.a.Kind(); k != "" {
				t.Errorf("Kind() = %q, want \"\"", k)
			}
			o := Check(context.Background(), tc.a, answerObs("a b"), nil)
			if o.Passed || o.Kind != "" || !strings.Contains(o.Reason, tc.reason) {
				t.Errorf("got %+v, want a failure with %q", o, tc.reason)
			}
		})
	}
}

// TestAssertKindNames checks Kind against the JSON names of the fields,
// by decoding a one-key object of each.
func TestAssertKindNames(t *testing.T) {
	docs := map[string]string{
		"contains": `"x"`, "not_contains": `"x"`, "regex": `"x"`, "equals": `"x"`, "json_schema": `{}`,
		"tool_called": `{"name":"t"}`, "chart": `true`, "max_latency_ms": `1`, "max_tokens": `1`, "max_cost": `1`,
		"termination": `{"not_limit":true}`, "judge": `{"rubric":"r","model":"p/m"}`, "similar_to": `{"reference":"r"}`,
	}
	if len(docs) != len(assertKinds) {
		t.Fatalf("%d kinds tested, %d known", len(docs), len(assertKinds))
	}
	for name, v := range docs {
		var a Assert
		if err := json.Unmarshal([]byte(`{"`+name+`":`+v+`}`), &a); err != nil {
			t.Fatal(err)
		}
		if got := a.Kind(); got != name {
			t.Errorf("Kind() of %s = %q", name, got)
		}
	}
}

func TestCheckAll(t *testing.T) {
	obs := Observation{Answer: "Paris is the capital of France.", Result: turn.Result{DurationMS: 5000}}
	asserts := []Assert{
		{Contains: some("Paris")},
		{MaxLatency: some(1000.0)}, // fails
		{SimilarTo: &Similarity{Reference: "Paris is the capital"}},
		{Regex: some("(")}, // fails, after another failure: no short-circuit
	}
	outcomes, passed, score := CheckAll(context.Background(), asserts, obs, nil)
	if passed {
		t.Error("passed with failing assertions")
	}
	if len(outcomes) != len(asserts) {
		t.Fatalf("%d outcomes for %d assertions", len(outcomes), len(asserts))
	}
	wantKinds := []string{"contains", "max_latency_ms", "similar_to", "regex"}
	wantPassed := []bool{true, false, true, false}
	for i, o := range outcomes {
		if o.Kind != wantKinds[i] || o.Passed != wantPassed[i] {
			t.Errorf("outcome %d = %+v, want %s passed %v", i, o, wantKinds[i], wantPassed[i])
		}
	}
	f1 := TokenF1(obs.Answer, "Paris is the capital")
	if want := (1 + 0 + f1 + 0) / 4; score != want {
		t.Errorf("score = %v, want %v", score, want)
	}

	_, passed, score = CheckAll(context.Background(), asserts[:1], obs, nil)
	if !passed || score != 1 {
		t.Errorf("one passing assertion: passed %v score %v", passed, score)
	}
	outcomes, passed, score = CheckAll(context.Background(), nil, obs, nil)
	if !passed || score != 1 || len(outcomes) != 0 {
		t.Errorf("no assertions: %v %v %v", outcomes, passed, score)
	}
}
