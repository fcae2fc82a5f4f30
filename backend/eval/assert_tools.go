package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// The tool_called assertion: a successful call of a tool, with arguments
// its matchers accept.

// checkToolCalled passes when some successful call of the tool has
// arguments matching every matcher. A string argument is matched as the
// string; any other value as its compact JSON text (42, true, {"a":1}).
func checkToolCalled(rule ToolCalled, calls []turn.ToolCallDiagnostics) AssertOutcome {
	var why []string // why each successful call of the tool did not match
	failed := 0
	for _, c := range calls {
		if c.Name != rule.Name {
			continue
		}
		if !c.OK {
			failed++
			continue
		}
		bad := argsMismatch(rule.Args, c.Arguments)
		if bad == "" {
			return holds(fmt.Sprintf("called %s(%s)", c.Name, clipRunes(c.Arguments, excerptRunes)))
		}
		why = append(why, bad)
	}
	called := calledTools(calls)
	switch {
	case len(why) > 0:
		return failsf("%s was called %s but no call's arguments matched (%s); called: %s",
			rule.Name, countNoun(len(why), "time"), why[0], called)
	case failed > 0:
		return failsf("%s was called but failed %s; called: %s", rule.Name, countNoun(failed, "time"), called)
	}
	return failsf("%s was not called; called: %s", rule.Name, called)
}

// argsMismatch says why arguments (a JSON object) do not satisfy the
// matchers, in name order; "" when they do.
func argsMismatch(matchers map[string]Matcher, arguments string) string {
	if len(matchers) == 0 {
		return ""
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal([]byte(arguments), &args); err != nil {
		return "the arguments are not a JSON object"
	}
	names := make([]string, 0, len(matchers))
	for n := range matchers {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		raw, ok := args[name]
		if !ok {
			return fmt.Sprintf("no argument %q", name)
		}
		if bad := matchers[name].mismatch(argText(raw)); bad != "" {
			return "argument " + strconv.Quote(name) + ": " + bad
		}
	}
	return ""
}

// argText is an argument's value as a matcher sees it.
func argText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// mismatch says why s does not satisfy the matcher; "" when it does.
// Matching is case-sensitive, as for the answer.
func (m Matcher) mismatch(s string) string {
	n := 0
	for _, set := range []bool{m.Equals != nil, m.Contains != nil, m.Regex != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return "the matcher must set exactly one of equals, contains, regex"
	}
	switch {
	case m.Equals != nil:
		if s != *m.Equals {
			return fmt.Sprintf("%q is not %q", clipRunes(s, excerptRunes), *m.Equals)
		}
	case m.Contains != nil:
		if !strings.Contains(s, *m.Contains) {
			return fmt.Sprintf("%q does not contain %q", clipRunes(s, excerptRunes), *m.Contains)
		}
	case m.Regex != nil:
		re, err := regexp.Compile(*m.Regex)
		if err != nil {
			return fmt.Sprintf("the regex does not compile: %v", err)
		}
		if !re.MatchString(s) {
			return fmt.Sprintf("%q does not match /%s/", clipRunes(s, excerptRunes), *m.Regex)
		}
	}
	return ""
}

// calledTools lists the tools a turn called, each once, in order, marking
// those whose every call failed.
func calledTools(calls []turn.ToolCallDiagnostics) string {
	var names []string
	ok := map[string]bool{}
	for _, c := range calls {
		if _, seen := ok[c.Name]; !seen {
			names = append(names, c.Name)
		}
		ok[c.Name] = ok[c.Name] || c.OK
	}
	if len(names) == 0 {
		return "no tools"
	}
	for i, n := range names {
		if !ok[n] {
			names[i] = n + " (failed)"
		}
	}
	return strings.Join(names, ", ")
}
