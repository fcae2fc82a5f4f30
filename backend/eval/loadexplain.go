package eval

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentdeck/agentdeck/backend/yamlcheck"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// What a person is told about a suite file that does not read: the
// explanations the checker gives, by the rule each breaks.

// explain words the schema's errors that a suite says its own way.
func explain(root any) yamlcheck.Explain {
	return func(e *jsonschema.ValidationError) ([]yamlcheck.Issue, bool) {
		path := slices.Clone(e.InstanceLocation)
		field := ""
		if len(path) > 0 {
			field = path[len(path)-1]
		}
		sch, _ := compiledSchema()
		one := func(msg string) ([]yamlcheck.Issue, bool) {
			return []yamlcheck.Issue{{Path: path, Msg: sch.At(path, msg)}}, true
		}
		switch k := e.ErrorKind.(type) {
		case *kind.OneOf: // only a case has one: prompt, messages or from
			m, _ := yamlcheck.ValueAt(root, path).(map[string]any)
			_, from := m["from"]
			_, prompt := m["prompt"]
			_, messages := m["messages"]
			switch {
			case from && (prompt || messages):
				return []yamlcheck.Issue{{Path: append(path, "from"), Key: true, Msg: sch.At(path, fromXorPrompt)}}, true
			case prompt && messages:
				return []yamlcheck.Issue{{Path: append(path, "messages"), Key: true, Msg: sch.At(path, promptXorMessages+", not both")}}, true
			}
			return one("missing prompt: " + promptXorMessages + orFrom)
		case *kind.Required:
			var out []yamlcheck.Issue
			for _, f := range k.Missing {
				msg := "missing " + f
				if why, ok := missingWhy[f]; ok {
					msg += ": " + why
				}
				out = append(out, yamlcheck.Issue{Path: path, Msg: sch.At(path, msg)})
			}
			return out, true
		case *kind.Pattern:
			switch field {
			case "id":
				return one(idMessage(k.Got))
			case "step":
				return one(stepMessage(k.Got))
			}
			return one(modelMessage(k.Got))
		case *kind.Enum:
			switch field {
			case "measure":
				return one(measureMessage(fmt.Sprint(k.Got)))
			case "kind":
				return one(yamlcheck.EnumMessage(fmt.Sprint(k.Got), editKinds))
			}
		case *kind.MinItems:
			if noun, ok := itemNouns[field]; ok {
				return one("needs at least one " + noun)
			}
		case *kind.MinProperties, *kind.MaxProperties:
			m, _ := yamlcheck.ValueAt(root, path).(map[string]any)
			return one(exactlyOneMessage(path, slices.Sorted(maps.Keys(m))))
		}
		return nil, false
	}
}

const promptXorMessages = "a case needs a prompt or messages"

// missingWhy says what a required field is for.
var missingWhy = map[string]string{
	"name":      `every suite needs a name, such as "capitals"`,
	"models":    `the models to run every case on, such as [openai/gpt-4o-mini]`,
	"cases":     "a list of cases, each a prompt and its assertions",
	"assert":    "a case needs at least one assertion, such as - contains: Paris",
	"rubric":    "what the critic scores the answer against",
	"model":     `the critic's model, such as "openai/gpt-4o"`,
	"reference": "the answer to compare with",
	"turn":      "the id of the recorded turn to start from, as turns show prints it",
	"step":      "the step of the turn to start from: start, stageN, callN or toolN",
	"kind":      "what the edit changes: " + strings.Join(editKinds, ", "),
}

var itemNouns = map[string]string{"models": "model", "cases": "case", "assert": "assertion", "messages": "message", "is": "termination kind"}

// exactlyOneMessage says that the mapping at path (an assertion, a
// matcher or a termination rule) must set exactly one of its keys.
func exactlyOneMessage(path []string, got []string) string {
	var what string
	var want []string
	switch {
	case len(path) > 0 && path[len(path)-1] == "termination":
		what, want = "a termination rule", []string{"is", "not_limit"}
	case len(path) > 2 && path[len(path)-2] == "args":
		what, want = "an argument matcher", []string{"equals", "contains", "regex"}
	default:
		what, want = "an assertion", assertKinds
	}
	if len(got) == 0 {
		return what + " needs exactly one of " + strings.Join(want, ", ")
	}
	msg := what + " has exactly one of " + strings.Join(want, ", ") + "; this one has " + strings.Join(got, " and ")
	if what == "an assertion" {
		msg += " (write each as its own list item: - contains: ...)"
	}
	return msg
}

func idMessage(got string) string { return yamlcheck.SlugMessage(got, "case id", 64) }

func modelMessage(got string) string {
	return fmt.Sprintf(`%q is not a model as provider/model: the provider's name, a "/", then the model, such as "openai/gpt-4o-mini"`, got)
}

func measureMessage(got string) string {
	return fmt.Sprintf("%q is not a known measure: %s (F1 of the two texts' word tokens) is the only one for now", got, MeasureTokenF1)
}

// checker collects the problems of meaning in one suite, after the schema
// accepted its shape, and fills in default ids and repeat.
type checker struct {
	s      *Suite
	sch    *yamlcheck.Schema
	dir    string // the suite's folder, to find attachments; "" not to look
	issues []yamlcheck.Issue
}
