package eval

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

// Checking a case's from (a recorded turn's step to start from) when the
// suite is read: the step's form, and that the edit fits the step and
// says what it needs. Whether the turn is in the database, and has that
// step, is the run's to find out: a suite names turns of the database it
// runs on, which Parse does not have.

const (
	fromXorPrompt = "a case that starts from a recorded turn (from) runs that turn's message: give no prompt or messages (to change the message, use edit: {kind: message, text: ...})"
	orFrom        = ", or from: a recorded turn's step to start from"
)

var stepRe = regexp.MustCompile(stepPattern)

func stepMessage(got string) string {
	return fmt.Sprintf("%q is not a step: use start, stageN, callN or toolN (such as tool2), as turns show --json lists them", got)
}

// editFits is the kind of step (the id's prefix) each edit applies to.
var editFits = map[string]string{"message": "start", "system_prompt": "start", "tool_result": "tool", "reply": "call", "stage": "stage"}

func (c *checker) checkFrom(p []string, cs *Case) {
	f := cs.From
	at := append(p, "from")
	if strings.TrimSpace(f.Turn) == "" {
		c.add(append(at, "turn"), false, "missing turn: "+missingWhy["turn"])
	}
	if !stepRe.MatchString(f.Step) {
		c.add(append(at, "step"), false, stepMessage(f.Step))
	}
	if len(cs.Attach) > 0 {
		c.add(append(p, "attach"), true, "a case that starts from a recorded turn (from) runs with that turn's attachments: attach nothing")
	}
	if e := f.Edit; e != nil {
		c.checkEdit(append(at, "edit"), f.Step, e)
	}
}

func (c *checker) checkEdit(p []string, step string, e *CaseEdit) {
	fits, known := editFits[e.Kind]
	switch {
	case !known:
		c.add(append(p, "kind"), false, yamlcheck.EnumMessage(e.Kind, editKinds))
		return
	case stepRe.MatchString(step) && !strings.HasPrefix(step, fits):
		c.add(append(p, "kind"), false, fmt.Sprintf("a %s edit does not fit step %s: it applies to %s", e.Kind, step, fitsWhat(fits)))
	}
	if e.Kind == "stage" {
		if e.Text != nil {
			c.add(append(p, "text"), true, "a stage edit sets stage: {KEY: VALUE}, not text")
		}
		if len(e.Stage) == 0 {
			c.add(p, false, "missing stage: a stage edit sets at least one of "+strings.Join(runner.StageEditKeys, ", "))
		}
		for _, k := range slices.Sorted(maps.Keys(e.Stage)) {
			if msg := stageValueProblem(k, e.Stage[k]); msg != "" {
				c.add(append(p, "stage", k), false, msg)
			}
		}
		return
	}
	switch {
	case e.Text == nil:
		c.add(p, false, fmt.Sprintf("missing text: the %s the step should have had", strings.ReplaceAll(e.Kind, "_", " ")))
	case e.Kind == "message" && strings.TrimSpace(*e.Text) == "":
		c.add(append(p, "text"), false, "the edited message is empty: type the message the turn should have been sent")
	case len(e.Stage) > 0:
		c.add(append(p, "stage"), true, "only a stage edit sets stage")
	}
}

func fitsWhat(prefix string) string {
	if prefix == "start" {
		return "the start"
	}
	return "a " + prefix + " step (" + prefix + "N)"
}

// stageValueProblem says what is wrong with a stage edit's value, "" if
// nothing.
func stageValueProblem(k string, v any) string {
	text := stageText(v)
	switch {
	case !runner.StageEditKey(k):
		return yamlcheck.EnumMessage(k, runner.StageEditKeys)
	case !runner.StageEditValue(k, text):
		return fmt.Sprintf("%s must be a number, not %q", k, text)
	}
	return ""
}

// stageText is a stage edit's value as the runner takes it: text.
func stageText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}
