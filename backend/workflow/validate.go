package workflow

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

// Normalize fills in what a file may leave out, so that executors, the UI
// and Validate see one form: phase and stage names (phase-1, stage-1, ...
// by position, never one a stage already has) and the agents of the roles
// that default to another, as the executors' specs say (reviser to
// writer, finisher to executor, a reflection's critic to its agent).
// Numbers left at 0 keep meaning "the default". It is idempotent; Parse
// calls it.
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
		ps[i] = Problem{File: d.Source, Message: is.Msg}
	}
	return ps
}

var (
	policyFields = []string{"input", "skip_if", "max_attempts", "validate", "on_failure"}
	slugRe       = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	agentNameRe  = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,47}$`)
)

// fieldSet reports whether a stage field (by its file name) has a value.
func (st *Stage) fieldSet(field string) bool {
	switch field {
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
	if b, ok := blocks[field]; ok {
		return b.isSet(st)
	}
	return st.Roles[field] != "" || len(st.Teams[field]) > 0 || st.Numbers[field] != 0
}

// executorFields lists the executor fields the stage sets: those of the
// registered executors in their order, then any other, by name.
func (st *Stage) executorFields(reg *registry) []string {
	var names, other []string
	for _, f := range reg.fields {
		if st.fieldSet(f.name) {
			names = append(names, f.name)
		}
	}
	for name := range st.settingNames() {
		if reg.byName[name] == nil {
			other = append(other, name)
		}
	}
	for name, b := range blocks {
		if reg.byName[name] == nil && b.isSet(st) {
			other = append(other, name)
		}
	}
	slices.Sort(other)
	return append(names, slices.Compact(other)...)
}

// checker collects the issues of one definition.
type checker struct {
	d      *Definition
	reg    *registry
	issues []issue
}

func (c *checker) add(path []string, key bool, msg string) {
	c.issues = append(c.issues, issue{Path: path, Key: key, Msg: at(path, msg)})
}

func (d *Definition) validate() []issue {
	c := &checker{d: d, reg: executors()}
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
		c.add(nil, false, "missing kind: one of "+strings.Join(c.reg.kindNames(true), ", "))
	case d.Kind == KindPipeline:
		c.checkPipeline()
	case c.reg.lookup(d.Kind) == nil:
		c.add([]string{"kind"}, false, yamlcheck.EnumMessage(string(d.Kind), c.reg.kindNames(true)))
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
		c.checkSampling(p, a)
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

// checkSampling checks an agent's sampling with the rules every layer of
// settings follows (turn.RunSettings.Validate), field by field.
func (c *checker) checkSampling(p []string, a AgentDef) {
	if a.Temperature != nil && (*a.Temperature < 0 || *a.Temperature > 2) {
		c.add(sub(p, "temperature"), false, fmt.Sprintf("must be between 0 and 2, got %v", *a.Temperature))
	}
	if a.TopP != nil && (*a.TopP <= 0 || *a.TopP > 1) {
		c.add(sub(p, "top_p"), false, fmt.Sprintf("must be above 0 and at most 1, got %v", *a.TopP))
	}
	if a.MaxTokens < 0 {
		c.add(sub(p, "max_tokens"), false, fmt.Sprintf("must be at least 1, got %d", a.MaxTokens))
	}
	if len(a.Stop) > 4 {
		c.add(sub(p, "stop"), false, fmt.Sprintf("at most 4 stop sequences, got %d", len(a.Stop)))
	}
	for i, st := range a.Stop {
		if st == "" {
			c.add(sub(p, "stop", strconv.Itoa(i)), false, "a stop sequence must not be empty")
		}
	}
	if e := a.ReasoningEffort; e != "" && !slices.Contains(turn.ReasoningEfforts, e) {
		c.add(sub(p, "reasoning_effort"), false, fmt.Sprintf("must be low, medium or high, got %q", e))
	}
}

func (c *checker) checkPipeline() {
	d := c.d
	if len(d.Phases) == 0 {
		c.add(nil, false, "a pipeline workflow needs phases, each with a list of stages")
	}
	for _, f := range append(d.Stage.executorFields(c.reg), policyFields...) {
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
	spec := c.reg.lookup(st.Kind)
	switch {
	case st.Kind == "":
		c.add(p, false, "missing kind: one of "+strings.Join(c.reg.kindNames(false), ", "))
	case st.Kind == KindPipeline:
		c.add(sub(p, "kind"), false, "a stage cannot itself be a pipeline; use one of "+strings.Join(c.reg.kindNames(false), ", "))
	case spec == nil:
		c.add(sub(p, "kind"), false, yamlcheck.EnumMessage(string(st.Kind), c.reg.kindNames(false)))
	default:
		for _, rl := range spec.roles {
			if rl.required && !st.fieldSet(rl.name) {
				c.add(p, false, missingRoleMessage(st.Kind, p == nil, rl.name))
			}
		}
		for _, f := range st.executorFields(c.reg) {
			switch {
			case c.reg.byName[f] == nil:
				c.add(sub(p, f), true, yamlcheck.UnknownFieldMessage(f, c.reg.fieldNames()))
			case !spec.reads(f):
				c.add(sub(p, f), true, fmt.Sprintf("not read by %s %s; only %s", withArticle(string(st.Kind)), noun, c.kindsUsing(f)))
			}
		}
	}
	c.checkSettings(p, st)
	c.nonNegative(sub(p, "max_attempts"), st.MaxAttempts)
	if p != nil {
		c.nonNegative(sub(p, "token_budget"), st.TokenBudget)
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

// checkSettings checks the stage's executor settings: each agent named is
// defined, a list names each once, and numbers are in their range.
func (c *checker) checkSettings(p []string, st *Stage) {
	for _, name := range st.executorFields(c.reg) {
		f, sp := c.reg.byName[name], sub(p, name)
		if f == nil {
			continue
		}
		// A definition built in Go may hold a setting in the wrong map.
		inRole, inTeam, inNumber := st.Roles[name] != "", len(st.Teams[name]) > 0, st.Numbers[name] != 0
		if inRole && f.kind != fieldRole || inTeam && f.kind != fieldTeam || inNumber && f.kind != fieldNumber {
			c.add(sp, false, "expected "+f.shape())
			continue
		}
		switch f.kind {
		case fieldRole:
			c.agentRef(sp, st.Roles[name])
		case fieldTeam:
			seen := map[string]bool{}
			for i, agent := range st.Teams[name] {
				ip := sub(sp, strconv.Itoa(i))
				if seen[agent] {
					c.add(ip, false, fmt.Sprintf("%q is listed twice", agent))
					continue
				}
				seen[agent] = true
				c.agentRef(ip, agent)
			}
		case fieldNumber:
			c.number(sp, f.num, st.Numbers[name])
		}
	}
}

// number checks a numeric setting against its spec.
func (c *checker) number(p []string, n number, v float64) {
	switch {
	case n.integer && v != math.Trunc(v):
		c.add(p, false, fmt.Sprintf("must be a whole number, got %v", v))
	case n.max > 0 && (v < n.min || v > n.max):
		note := ""
		if n.rangeNote != "" {
			note = " (" + n.rangeNote + ")"
		}
		c.add(p, false, fmt.Sprintf("must be between %v and %v%s, got %v", n.min, n.max, note, v))
	case v < n.min && n.min == 0:
		c.add(p, false, fmt.Sprintf("must be 0 or more, got %v", v))
	case v < n.min:
		c.add(p, false, fmt.Sprintf("must be at least %v, got %v", n.min, v))
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
	if s := yamlcheck.Suggest(name, names); s != "" {
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
		c.add(p, false, yamlcheck.EnumMessage(got, want))
	}
}

func (c *checker) regexp(p []string, expr string) {
	if expr == "" {
		return
	}
	if msg := yamlcheck.RegexpMessage(expr); msg != "" {
		c.add(p, false, msg)
	}
}

// kindsUsing says which kinds read field: "critique-revise uses writer".
func (c *checker) kindsUsing(field string) string {
	var kinds []string
	if f := c.reg.byName[field]; f != nil {
		for _, k := range f.kinds {
			kinds = append(kinds, string(k))
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
