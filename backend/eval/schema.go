package eval

import (
	"sync"

	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

// SchemaURL is the $id of the suite schema: the address of
// suite.schema.json on the main branch, for editors. It is the name the
// schema is compiled under and is never fetched.
const SchemaURL = "https://raw.githubusercontent.com/agentdeck/agentdeck/main/backend/eval/suite.schema.json"

// suite.schema.json, shipped for editors, is Schema written out:
// TestSchemaFile fails when it differs, and with -update rewrites it.
//
//go:generate go test -run TestSchemaFile -update

// Schema returns the JSON Schema (draft 2020-12) of a suite file: the one
// Parse checks files against. The caller may keep or change the copy.
func Schema() []byte { return yamlcheck.WriteSchema(schemaDoc()) }

// compiledSchema is Schema compiled, on first use.
var compiledSchema = sync.OnceValues(func() (*yamlcheck.Schema, error) {
	return yamlcheck.CompileSchema(SchemaURL, Schema(), "suite")
})

type obj = yamlcheck.Obj

const (
	// idPattern is a case id's form, that of a workflow's name.
	idPattern = "^[a-z0-9][a-z0-9_-]{0,63}$"
	// modelPattern is "provider/model"; the model may hold more slashes.
	modelPattern = "^[^/]+/.+$"
	// maxRepeat bounds repeat: more runs add little to a pass rate.
	maxRepeat = 100
)

// terminationKinds are the kinds a termination assertion may name: every
// turn.TerminationKind, in the order turn declares them.
var terminationKinds = []turn.TerminationKind{
	turn.TermCompleted, turn.TermNaturalCompletion, turn.TermCompletedAfterToolCall,
	turn.TermMaxIterations, turn.TermMaxToolCalls, turn.TermBudgetExceeded, turn.TermStallDetected,
	turn.TermTimeout, turn.TermCancelled, turn.TermFailed, turn.TermSkipped, turn.TermInterrupted,
	turn.TermDiskFull, turn.TermCustom,
}

func schemaDoc() obj {
	return obj{
		{"$schema", "https://json-schema.org/draft/2020-12/schema"},
		{"$id", SchemaURL},
		{"title", "Agentdeck evaluation suite"},
		{"description", "An Agentdeck evaluation suite: cases (a prompt and what its answer must satisfy) run as real turns on every model listed, repeated for stability. Run it with agentdeck eval SUITE.yaml. See docs/EVALUATIONS.md."},
		{"type", "object"},
		{"properties", obj{
			{"name", obj{
				{"description", "The suite's name, shown in runs, lists and reports."},
				{"type", "string"},
				{"minLength", 1},
			}},
			{"workflow", obj{
				{"description", "The workflow every case runs: a workflow's name (built-in or in the workflows folder) or a workflow file's path relative to this file. Absent: the default workflow (chat)."},
				{"type", "string"},
			}},
			{"models", obj{
				{"description", `The matrix: every case runs on each of these models, written "provider/model" (the provider is a configured provider's name; the model is everything after the first "/").`},
				{"type", "array"},
				{"minItems", 1},
				{"items", ref("model")},
			}},
			{"repeat", obj{
				{"description", "How many times each case runs on each model, to see whether its answer is stable (default 1)."},
				{"type", "integer"},
				{"minimum", 1},
				{"maximum", maxRepeat},
			}},
			{"cases", obj{
				{"description", "The cases, run in file order."},
				{"type", "array"},
				{"minItems", 1},
				{"items", ref("case")},
			}},
		}},
		{"required", []any{"name", "models", "cases"}},
		{"additionalProperties", false},
		{"$defs", schemaDefs()},
	}
}

func schemaDefs() obj {
	kinds := make([]any, len(terminationKinds))
	for i, k := range terminationKinds {
		kinds[i] = string(k)
	}
	return obj{
		{"model", obj{
			{"description", `A model as "provider/model", such as "openai/gpt-4o-mini".`},
			{"type", "string"},
			{"pattern", modelPattern},
		}},
		{"threshold", obj{
			{"description", "The least score that passes, from 0 to 1 (default 0.5)."},
			{"type", "number"},
			{"minimum", 0},
			{"maximum", 1},
		}},
		{"case", obj{
			{"description", "One case: a prompt, a conversation, or a recorded turn's step to start from, and the assertions its answer must pass. Give one of prompt, messages or from."},
			{"type", "object"},
			{"properties", obj{
				{"id", obj{
					{"description", "The case's id, unique in the suite, matching cases across runs (eval diff): lowercase letters, digits, '-' and '_', starting with a letter or digit, at most 64 characters. Absent: case-N by the case's place in the file (case-1 is the first)."},
					{"type", "string"},
					{"pattern", idPattern},
				}},
				{"description", obj{
					{"description", "What the case checks, shown beside its id."},
					{"type", "string"},
				}},
				{"prompt", obj{
					{"description", "The user's message. {{name}} inserts the var name."},
					{"type", "string"},
					{"minLength", 1},
				}},
				{"messages", obj{
					{"description", "A conversation to continue instead of a prompt: user and assistant messages in order, the last one the user's. {{name}} inserts the var name."},
					{"type", "array"},
					{"minItems", 1},
					{"items", ref("message")},
				}},
				{"attach", obj{
					{"description", "Files to attach to the user's message, by path relative to this file and inside its folder: tables become the session's data, images go with the message, as in the app."},
					{"type", "array"},
					{"items", obj{{"type", "string"}, {"minLength", 1}}},
				}},
				{"vars", obj{
					{"description", "Values for the {{name}} placeholders of the prompt or messages, by name; each must be used."},
					{"type", "object"},
					{"additionalProperties", obj{{"type", "string"}}},
				}},
				{"from", ref("from")},
				{"assert", obj{
					{"description", "What the answer must satisfy: every assertion must pass."},
					{"type", "array"},
					{"minItems", 1},
					{"items", ref("assert")},
				}},
			}},
			{"required", []any{"assert"}},
			{"oneOf", []any{obj{{"required", []any{"prompt"}}}, obj{{"required", []any{"messages"}}}, obj{{"required", []any{"from"}}}}},
			{"additionalProperties", false},
		}},
		{"from", fromSchema()},
		{"edit", editSchema()},
		{"message", obj{
			{"description", "One message of a case's conversation."},
			{"type", "object"},
			{"properties", obj{
				{"role", obj{{"description", "Who wrote it: user or assistant."}, {"enum", []any{"user", "assistant"}}}},
				{"content", obj{{"description", "The message's text."}, {"type", "string"}}},
			}},
			{"required", []any{"role", "content"}},
			{"additionalProperties", false},
		}},
		{"assert", obj{
			{"description", "One assertion: a mapping of exactly one kind to its argument, such as contains: Paris."},
			{"type", "object"},
			{"properties", obj{
				{"contains", obj{{"description", "The answer contains this text (case-sensitive)."}, {"type", "string"}, {"minLength", 1}}},
				{"not_contains", obj{{"description", "The answer does not contain this text (case-sensitive)."}, {"type", "string"}, {"minLength", 1}}},
				{"regex", obj{{"description", "The answer matches this regular expression somewhere (Go RE2 syntax; (?i) ignores case)."}, {"type", "string"}, {"minLength", 1}}},
				{"equals", obj{{"description", "The answer is this text, but for surrounding whitespace."}, {"type", "string"}}},
				{"json_schema", obj{
					{"description", "The answer, read as JSON (the whole answer, else its first fenced JSON block), is valid against this JSON Schema (draft 2020-12)."},
					{"type", []any{"object", "boolean"}},
				}},
				{"tool_called", ref("toolCalled")},
				{"chart", obj{{"description", "true: the turn drew a valid chart; false: it drew none."}, {"type", "boolean"}}},
				{"max_latency_ms", obj{{"description", "The turn took at most this many milliseconds."}, {"type", "number"}, {"minimum", 0}}},
				{"max_tokens", obj{{"description", "The turn used at most this many tokens (prompt and completion, every call)."}, {"type", "integer"}, {"minimum", 0}}},
				{"max_cost", obj{{"description", "The turn cost at most this much, in US dollars."}, {"type", "number"}, {"minimum", 0}}},
				{"termination", obj{
					{"description", "How the turn ended. Give exactly one: is (a list of termination kinds, one of which it ended in) or not_limit: true (it reached no limit: steps, tool calls, budget, stall or time)."},
					{"type", "object"},
					{"properties", obj{
						{"is", obj{
							{"description", "The termination kinds that pass."},
							{"type", "array"},
							{"minItems", 1},
							{"items", obj{{"enum", kinds}}},
						}},
						{"not_limit", obj{{"description", "true: the turn must not have stopped at a limit."}, {"type", "boolean"}}},
					}},
					{"minProperties", 1},
					{"maxProperties", 1},
					{"additionalProperties", false},
				}},
				{"judge", obj{
					{"description", "A critic model scores the answer against a rubric, in the critique verdict format; it passes when the verdict passes and its score reaches threshold."},
					{"type", "object"},
					{"properties", obj{
						{"rubric", obj{{"description", "What a good answer does, for the critic."}, {"type", "string"}, {"minLength", 1}}},
						{"model", obj{{"$ref", "#/$defs/model"}, {"description", `The critic's model, "provider/model".`}}},
						{"threshold", ref("threshold")},
					}},
					{"required", []any{"rubric", "model"}},
					{"additionalProperties", false},
				}},
				{"similar_to", obj{
					{"description", "The answer is near a reference answer by a lexical measure; no model is needed."},
					{"type", "object"},
					{"properties", obj{
						{"reference", obj{{"description", "The reference answer."}, {"type", "string"}, {"minLength", 1}}},
						{"measure", obj{
							{"description", "How nearness is measured: token_f1 (the default and, for now, the only one: F1 of the two texts' sets of lowercase word tokens)."},
							{"enum", []any{MeasureTokenF1}},
						}},
						{"threshold", ref("threshold")},
					}},
					{"required", []any{"reference"}},
					{"additionalProperties", false},
				}},
			}},
			{"minProperties", 1},
			{"maxProperties", 1},
			{"additionalProperties", false},
		}},
		{"toolCalled", obj{
			{"description", "The turn called this tool successfully, with arguments matching args when given."},
			{"type", "object"},
			{"properties", obj{
				{"name", obj{{"description", "The tool's name."}, {"type", "string"}, {"minLength", 1}}},
				{"args", obj{
					{"description", "Argument name to a matcher its value (as JSON text when not a string) must satisfy."},
					{"type", "object"},
					{"additionalProperties", ref("matcher")},
				}},
			}},
			{"required", []any{"name"}},
			{"additionalProperties", false},
		}},
		{"matcher", obj{
			{"description", "A test of one text: exactly one of equals, contains or regex."},
			{"type", "object"},
			{"properties", obj{
				{"equals", obj{{"description", "The text is exactly this."}, {"type", "string"}}},
				{"contains", obj{{"description", "The text contains this (case-sensitive)."}, {"type", "string"}}},
				{"regex", obj{{"description", "The text matches this regular expression (Go RE2 syntax)."}, {"type", "string"}}},
			}},
			{"minProperties", 1},
			{"maxProperties", 1},
			{"additionalProperties", false},
		}},
	}
}

func ref(def string) obj { return obj{{"$ref", "#/$defs/" + def}} }
