package workflow

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Normalize fills in what a file may leave out, so that executors, the UI
// and Validate see one form: phase and stage names (phase-1, stage-1, ...
// by position, never one a stage already has) and the agents that default
// to another (reviser to writer, finisher to executor, a reflection's
// critic to its agent). Numbers left at 0 keep meaning "the default". It
// is idempotent; Parse calls it.
func (d *Definition) Normalize() {
	if d.Kind != KindPipeline {
		d.Stage.normalizeRoles()
		return
	}
	phaseNames, stageNames := map[string]bool{}, map[string]bool{}
	for _, ph := range d.Phases {
		phaseNames[ph.Name] = true
		for _, st := range ph.Stages {
			stageNames[st.Name] = true
		}
	}
	pos := 0
	for i := range d.Phases {
		ph := &d.Phases[i]
		if ph.Name == "" {
			ph.Name = freeName("phase", i+1, phaseNames)
		}
		for j := range ph.Stages {
			pos++
			st := &ph.Stages[j]
			if st.Name == "" {
				st.Name = freeName("stage", pos, stageNames)
			}
			st.normalizeRoles()
		}
	}
}

func (st *Stage) normalizeRoles() {
	switch st.Kind {
	case KindCritiqueRevise:
		st.Reviser = cmp.Or(st.Reviser, st.Writer)
	case KindPlanExecute:
		st.Finisher = cmp.Or(st.Finisher, st.Executor)
	case KindReflection:
		st.Critic = cmp.Or(st.Critic, st.Agent)
	}
}

func freeName(prefix string, n int, taken map[string]bool) string {
	for ; ; n++ {
		name := prefix + "-" + strconv.Itoa(n)
		if !taken[name] {
			taken[name] = true
			return name
		}
	}
}

// Validate checks a definition's meaning: the name, the kinds, the roles
// each kind needs and the ranges of numbers (as the schema does, for a
// definition built in Go), and what a schema cannot express: the agents a
// stage names exist, a stage sets only its own kind's fields, regular
// expressions compile, and phase and stage names are unique. Call
// Normalize first (Parse does). Each problem's message starts with the
// field it is about; it has no line (Parse adds it) and File is d.Source.
func (d *Definition) Validate() []Problem {
	issues := d.validate()
	if len(issues) == 0 {
		return nil
	}
	ps := make([]Problem, len(issues))
	for i, is := range issues {
		ps[i] = Problem{File: d.Source, Message: is.msg}
	}
	return ps
}

// Which stage fields each kind reads, besides name, kind and the policy.
var kindFields = map[Kind][]string{
	KindChat:           {"agent"},
	KindCritiqueRevise: {"writer", "critic", "reviser", "max_retries", "pass_check", "post_pass_check"},
	KindPlanExecute:    {"planner", "executor", "finisher", "max_replans"},
	KindReflection:     {"agent", "critic", "threshold", "max_iterations"},
	KindHandoff:        {"triage", "specialists", "max_handoffs"},
}

// The roles each kind cannot do without.
var requiredRoles = map[Kind][]string{
	KindChat:           {"agent"},
	KindCritiqueRevise: {"writer", "critic"},
	KindPlanExecute:    {"planner", "executor"},
	KindReflection:     {"agent"},
	KindHandoff:        {"triage", "specialists"},
}

var (
	kindSpecific = []string{"agent", "writer", "critic", "reviser", "max_retries", "pass_check", "post_pass_check", "planner",
		"executor", "finisher", "max_replans", "threshold", "max_iterations", "triage", "specialists", "max_handoffs"}
	policyFields = []string{"input", "skip_if", "max_attempts", "validate", "on_failure"}
	slugRe       = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	agentNameRe  = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,47}$`)
	yamlPosRe    = regexp.MustCompile(`\[(\d+):\d+\]`) // go-yaml's "[line:col]" in a message
)

// fieldSet reports whether a stage field (by its file name) has a value.
func (st *Stage) fieldSet(field string) bool {
	switch field {
	case "agent":
		return st.Agent != ""
	case "writer":
		return st.Writer != ""
	case "critic":
		return st.Critic != ""
	case "reviser":
		return st.Reviser != ""
	case "max_retries":
		return st.MaxRetries != 0
	case "pass_check":
		return st.PassCheck != nil
	case "post_pass_check":
		return st.PostPassCheck != nil
	case "planner":
		return st.Planner != ""
	case "executor":
		return st.Executor != ""
	case "finisher":
		return st.Finisher != ""
	case "max_replans":
		return st.MaxReplans != 0
	case "threshold":
		return st.Threshold != 0
	case "max_iterations":
		return st.MaxIterations != 0
	case "triage":
		return st.Triage != ""
	case "specialists":
		return len(st.Specialists) > 0
	case "max_handoffs":
		return st.MaxHandoffs != 0
	case "input":
		return st.Input != ""
	case "skip_if":
		return st.SkipIf != nil
	case "max_attempts":
		return st.MaxAttempts != 0
	case "validate":
		return st.Validate != nil
	case "on_failure":
		return st.OnFailure != ""
	}
	return false
}

// checker collects the issues of one definition.
type checker struct {
	d      *Definition
	issues []issue
}

func (c *checker) add(path []string, key bool, msg string) {
	c.issues = append(c.issues, issue{path: path, key: key, msg: at(path, msg)})
}

func (d *Definition) validate() []issue {
	c := &checker{d: d}
	switch {
	case d.Name == "":
		c.add(nil, false, `missing name: every workflow needs a name such as "my-workflow"`)
	case !slugRe.MatchString(d.Name):
		c.add([]string{"name"}, false, nameMessage(d.Name))
	}
	c.checkAgents()
	if d.TokenBudget < 0 {
		c.add([]string{"token_budget"}, false, fmt.Sprintf("must be 0 or more, got %d", d.TokenBudget))
	}
	switch {
	case d.Kind == "":
		c.add(nil, false, "missing kind: one of "+strings.Join(kindNames(true), ", "))
	case d.Kind == KindPipeline:
		c.checkPipeline()
	case requiredRoles[d.Kind] == nil:
		c.add([]string{"kind"}, false, enumMessage(string(d.Kind), kindNames(true)))
	default:
		if len(d.Phases) > 0 {
			c.add([]string{"phases"}, true, fmt.Sprintf("only read by a pipeline workflow, and this one's kind is %s", d.Kind))
		}
		c.checkStage(nil, &d.Stage, true)
	}
	return c.issues
}

func (c *checker) checkAgents() {
	for _, name := range slices.Sorted(maps.Keys(c.d.Agents)) {
		a := c.d.Agents[name]
		p := []string{"agents", name}
		if !agentNameRe.MatchString(name) {
			c.add(p, true, agentNameMessage(name))
		}
		if a.Temperature != nil && (*a.Temperature < 0 || *a.Temperature > 2) {
			c.add(sub(p, "temperature"), false, fmt.Sprintf("must be between 0 and 2, got %v", *a.Temperature))
		}
		for i, t := range a.Tools {
			if strings.TrimSpace(t) == "" {
				c.add(sub(p, "tools", strconv.Itoa(i)), false, `a tool name must not be empty; use "*" for every tool`)
			}
		}
		lp := sub(p, "limits")
		c.nonNegative(sub(lp, "max_steps"), a.Limits.MaxSteps)
		c.nonNegative(sub(lp, "max_tool_calls"), a.Limits.MaxToolCalls)
		c.nonNegative(sub(lp, "token_budget"), a.Limits.TokenBudget)
		if a.Limits.Timeout < 0 {
			c.add(sub(lp, "timeout"), false, "must not be negative, got "+a.Limits.Timeout.String())
		}
	}
}

func (c *checker) checkPipeline() {
	d := c.d
	if len(d.Phases) == 0 {
		c.add(nil, false, "a pipeline workflow needs phases, each with a list of stages")
	}
	for _, f := range append(slices.Clone(kindSpecific), policyFields...) {
		if d.Stage.fieldSet(f) {
			c.add([]string{f}, true, "not read at the top of a pipeline workflow; set it on a stage under phases")
		}
	}
	phaseAt, stageAt := map[string]string{}, map[string]string{}
	first := true
	for i := range d.Phases {
		ph := &d.Phases[i]
		pp := []string{"phases", strconv.Itoa(i)}
		if ph.Name != "" {
			if prev, dup := phaseAt[ph.Name]; dup {
				c.add(sub(pp, "name"), false, fmt.Sprintf("phase name %q is already used by %s; phase names must be unique", ph.Name, prev))
			} else {
				phaseAt[ph.Name] = where(pp)
			}
		}
		if len(ph.Stages) == 0 {
			c.add(pp, false, "a phase needs stages: a list of at least one stage")
		}
		for j := range ph.Stages {
			st := &ph.Stages[j]
			sp := sub(pp, "stages", strconv.Itoa(j))
			if st.Name != "" {
				if prev, dup := stageAt[st.Name]; dup {
					c.add(sub(sp, "name"), false, fmt.Sprintf("stage name %q is already used by %s; stage names must be unique in a workflow", st.Name, prev))
				} else {
					stageAt[st.Name] = where(sp)
				}
			}
			c.checkStage(sp, st, first)
			first = false
		}
	}
}

// checkStage checks one stage; p is its path, nil for a workflow's own.
func (c *checker) checkStage(p []string, st *Stage, first bool) {
	noun := "stage"
	if p == nil {
		noun = "workflow"
	}
	switch {
	case st.Kind == "":
		c.add(p, false, "missing kind: one of "+strings.Join(kindNames(false), ", "))
	case st.Kind == KindPipeline:
		c.add(sub(p, "kind"), false, "a stage cannot itself be a pipeline; use one of "+strings.Join(kindNames(false), ", "))
	case requiredRoles[st.Kind] == nil:
		c.add(sub(p, "kind"), false, enumMessage(string(st.Kind), kindNames(false)))
	default:
		for _, f := range requiredRoles[st.Kind] {
			if !st.fieldSet(f) {
				c.add(p, false, missingRoleMessage(st.Kind, p == nil, f))
			}
		}
		for _, f := range kindSpecific {
			if st.fieldSet(f) && !slices.Contains(kindFields[st.Kind], f) {
				c.add(sub(p, f), true, fmt.Sprintf("not read by a %s %s; only %s", st.Kind, noun, kindsUsing(f)))
			}
		}
	}
	c.checkRefs(p, st)
	c.nonNegative(sub(p, "max_retries"), st.MaxRetries)
	c.nonNegative(sub(p, "max_replans"), st.MaxReplans)
	c.nonNegative(sub(p, "max_iterations"), st.MaxIterations)
	c.nonNegative(sub(p, "max_handoffs"), st.MaxHandoffs)
	c.nonNegative(sub(p, "max_attempts"), st.MaxAttempts)
	if p != nil {
		c.nonNegative(sub(p, "token_budget"), st.TokenBudget)
	}
	if st.Threshold < 0 || st.Threshold > 10 {
		c.add(sub(p, "threshold"), false, fmt.Sprintf("must be between 0 and 10 (a score from 0 to 1; above 1 reads as 0 to 10), got %v", st.Threshold))
	}
	c.oneOf(sub(p, "input"), st.Input, "previous", "user")
	c.oneOf(sub(p, "on_failure"), st.OnFailure, "abort", "continue")
	if s := st.SkipIf; s != nil {
		sp := sub(p, "skip_if")
		c.oneOf(sub(sp, "previous"), s.Previous, "succeeded", "failed", "skipped")
		if s.Previous != "" && first {
			c.add(sub(sp, "previous"), false, "the first stage has no previous stage, so this condition never holds")
		}
		c.regexp(sub(sp, "input_matches"), s.InputMatches)
		c.nonNegative(sub(sp, "input_shorter_than"), s.InputShorterThan)
	}
	if v := st.Validate; v != nil {
		vp := sub(p, "validate")
		c.regexp(sub(vp, "matches"), v.Matches)
		c.nonNegative(sub(vp, "min_length"), v.MinLength)
	}
	c.checkPassChecks(p, st)
}

// checkPassChecks checks a critique-revise stage's pass_check and
// post_pass_check.
func (c *checker) checkPassChecks(p []string, st *Stage) {
	if pc := st.PassCheck; pc != nil {
		pp := sub(p, "pass_check")
		var set []string
		for _, f := range []struct {
			name string
			on   bool
		}{{"verdict", pc.Verdict}, {"contains", pc.Contains != ""}, {"score_at_least", pc.ScoreAtLeast != nil}, {"matches", pc.Matches != ""}} {
			if f.on {
				set = append(set, f.name)
			}
		}
		switch {
		case len(set) == 0:
			c.add(pp, false, passCheckHint)
		case len(set) > 1:
			c.add(pp, false, passCheckHint+"; got "+strings.Join(set, " and "))
		}
		if s := pc.ScoreAtLeast; s != nil && (*s < 0 || *s > 10) {
			c.add(sub(pp, "score_at_least"), false, fmt.Sprintf("must be between 0 and 10 (a score from 0 to 1; above 1 reads as 0 to 10), got %v", *s))
		}
		c.regexp(sub(pp, "matches"), pc.Matches)
	}
	if ppc := st.PostPassCheck; ppc != nil {
		pp := sub(p, "post_pass_check")
		c.oneOf(sub(pp, "on"), ppc.On, "draft", "critique")
		c.regexp(sub(pp, "matches"), ppc.Matches)
		c.nonNegative(sub(pp, "min_length"), ppc.MinLength)
		if ppc.Validation == (Validation{}) {
			c.add(pp, false, "needs at least one check: contains, matches, json or min_length")
		}
	}
}

// passCheckHint says what a pass_check holds.
const passCheckHint = "give exactly one of verdict: true (the default), contains, score_at_least or matches"

// checkRefs checks that every agent the stage names is defined.
func (c *checker) checkRefs(p []string, st *Stage) {
	refs := []struct{ field, name string }{
		{"agent", st.Agent}, {"writer", st.Writer}, {"critic", st.Critic}, {"reviser", st.Reviser},
		{"planner", st.Planner}, {"executor", st.Executor}, {"finisher", st.Finisher}, {"triage", st.Triage},
	}
	for _, r := range refs {
		if r.name != "" {
			c.agentRef(sub(p, r.field), r.name)
		}
	}
	seen := map[string]bool{}
	for i, name := range st.Specialists {
		sp := sub(p, "specialists", strconv.Itoa(i))
		if seen[name] {
			c.add(sp, false, fmt.Sprintf("%q is listed twice", name))
			continue
		}
		seen[name] = true
		c.agentRef(sp, name)
	}
}

func (c *checker) agentRef(p []string, name string) {
	if _, ok := c.d.Agents[name]; ok {
		return
	}
	names := slices.Sorted(maps.Keys(c.d.Agents))
	msg := fmt.Sprintf("%q is not an agent of this workflow; define it under agents", name)
	if len(names) > 0 {
		msg += " (defined: " + strings.Join(names, ", ") + ")"
	}
	if s := suggest(name, names); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	c.add(p, false, msg)
}

func (c *checker) nonNegative(p []string, n int) {
	if n < 0 {
		c.add(p, false, fmt.Sprintf("must be 0 or more, got %d", n))
	}
}

func (c *checker) oneOf(p []string, got string, want ...string) {
	if got != "" && !slices.Contains(want, got) {
		c.add(p, false, enumMessage(got, want))
	}
}

func (c *checker) regexp(p []string, expr string) {
	if expr == "" {
		return
	}
	if _, err := regexp.Compile(expr); err != nil {
		c.add(p, false, fmt.Sprintf("%q is not a valid regular expression (Go RE2 syntax): %s", expr,
			strings.TrimPrefix(err.Error(), "error parsing regexp: ")))
	}
}

// kindsUsing says which kinds read field: "critique-revise uses writer".
func kindsUsing(field string) string {
	var kinds []string
	for _, k := range kindNames(false) {
		if slices.Contains(kindFields[Kind(k)], field) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 1 {
		return kinds[0] + " uses " + field
	}
	return strings.Join(kinds, " and ") + " use " + field
}

// sub returns p with more tokens, never sharing p's array.
func sub(p []string, more ...string) []string {
	return append(slices.Clone(p), more...)
}
