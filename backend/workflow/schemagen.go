package workflow

import (
	"strings"

	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

// generateSchema writes the JSON Schema of a workflow file for the
// registered executors: their fields, kinds and required roles come from
// their specs; the rest of the file format (agents, phases, policies, the
// check blocks) is written here.
func generateSchema(r *registry) []byte {
	return yamlcheck.WriteSchema(schemaDoc(r))
}

const agentNamePattern = "^[a-z0-9][a-z0-9_-]{0,47}$"

func schemaDoc(r *registry) obj {
	exec := executorProperties(r)
	top := obj{
		{"name", obj{
			{"description", "The workflow's id, shown in the workflow picker: lowercase letters, digits, '-' and '_', starting with a letter or digit, at most 64 characters. A file whose name matches a built-in workflow replaces it."},
			{"type", "string"},
			{"pattern", "^[a-z0-9][a-z0-9_-]{0,63}$"},
		}},
		{"description", obj{
			{"description", "One or two sentences saying what the workflow is good for; shown next to its name."},
			{"type", "string"},
		}},
		{"kind", obj{
			{"description", "How a turn runs: " + orList(append(kindDocs(r), "pipeline (phases of stages of the other kinds)")) + "."},
			{"enum", r.kindNames(true)},
		}},
		{"agents", obj{
			{"description", "The workflow's agents by name. Stages refer to them by these names."},
			{"type", "object"},
			{"propertyNames", obj{
				{"description", "An agent name: lowercase letters, digits, '-' and '_', at most 48 characters (handoff turns it into a tool name)."},
				{"pattern", agentNamePattern},
			}},
			{"additionalProperties", ref("agent")},
		}},
		{"phases", obj{
			{"description", "pipeline: the phases, run in order. Each stage gets the previous stage's output as its input."},
			{"type", "array"},
			{"minItems", 1},
			{"items", ref("phase")},
		}},
		{"token_budget", obj{
			{"description", "The most tokens (prompt and completion, all agents together) one turn may use; the run stops before the next stage once it is spent. 0 or absent: no budget."},
			{"type", "integer"},
			{"minimum", 0},
		}},
	}
	top = append(append(top, exec...), policyProperties(false)...)
	return obj{
		{"$schema", "https://json-schema.org/draft/2020-12/schema"},
		{"$id", SchemaURL},
		{"title", "Agentdeck workflow"},
		{"description", "One Agentdeck workflow: named agents and how a turn runs through them. Files live in the data directory's workflows/ folder, one workflow per .yaml, .yml or .json file. See docs/WORKFLOWS.md."},
		{"type", "object"},
		{"properties", top},
		{"required", []any{"name", "kind"}},
		{"additionalProperties", false},
		{"allOf", []any{
			ref("roles"),
			obj{{"if", kindIs(KindPipeline)}, {"then", obj{{"required", []any{"phases"}}}}},
		}},
		{"$defs", schemaDefs(r, exec)},
	}
}

// executorProperties are the schema of every executor field, each said
// for every kind that reads it.
func executorProperties(r *registry) obj {
	var props obj
	for _, f := range r.fields {
		desc := fieldDoc(r, f)
		switch {
		case f.kind == fieldRole:
			props = append(props, member{f.name, obj{{"$ref", "#/$defs/agentRef"}, {"description", desc}}})
		case f.kind == fieldTeam:
			props = append(props, member{f.name, obj{{"description", desc}, {"type", "array"}, {"minItems", 1},
				{"uniqueItems", true}, {"items", ref("agentRef")}}})
		case f.kind == fieldBlock:
			props = append(props, member{f.name, ref(blocks[f.name].def)})
		case f.num.integer && f.num.min == 0 && f.num.max == 0:
			props = append(props, member{f.name, obj{{"$ref", "#/$defs/count"}, {"description", desc}}})
		default:
			typ := "number"
			if f.num.integer {
				typ = "integer"
			}
			p := obj{{"description", desc}, {"type", typ}, {"minimum", f.num.min}}
			if f.num.max != 0 {
				p = append(p, member{"maximum", f.num.max})
			}
			props = append(props, member{f.name, p})
		}
	}
	return props
}

// fieldDoc says what a field is for each kind that reads it:
// "critique-revise: the most revisions before the stage fails (default 3)."
func fieldDoc(r *registry, f *field) string {
	var parts []string
	for _, k := range f.kinds {
		s := r.lookup(k)
		var doc, more string
		if rl, ok := s.role(f.name); ok {
			doc, more = rl.doc, rl.more
			if rl.deflt != "" {
				doc += " (default: the " + rl.deflt + ")"
			}
		} else if n, ok := s.number(f.name); ok {
			doc, more = n.doc+" (default "+yamlcheck.FormatNumber(n.deflt)+")", n.more
		}
		part := string(k) + ": " + doc + "."
		if more != "" {
			part += " " + more
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " ")
}

// policyProperties are the policy fields of a stage, or of a workflow's own
// stage (whose token_budget is the workflow's).
func policyProperties(stage bool) obj {
	props := obj{
		{"input", ref("input")},
		{"skip_if", ref("condition")},
		{"max_attempts", obj{{"$ref", "#/$defs/count"}, {"description", "How many times the stage runs before it counts as failed: a failed run or a failed validate check is retried (default 1)."}}},
	}
	if stage {
		props = append(props, member{"token_budget", obj{{"$ref", "#/$defs/count"}, {"description", "The most tokens this stage may use (0: no budget of its own)."}}})
	}
	return append(props, member{"validate", ref("validation")}, member{"on_failure", ref("onFailure")})
}

func schemaDefs(r *registry, exec obj) obj {
	stage := obj{
		{"name", obj{
			{"description", "The stage's name, unique in the workflow and shown in the run's progress (default: stage-1, stage-2, ... by position in the workflow)."},
			{"type", "string"},
			{"minLength", 1},
			{"maxLength", 64},
		}},
		{"kind", obj{
			{"description", "The stage's executor: " + orList(r.kindNames(false)) + " (a pipeline does not nest)."},
			{"enum", r.kindNames(false)},
		}},
	}
	stage = append(append(stage, exec...), policyProperties(true)...)
	defs := obj{
		{"agentRef", obj{{"description", "The name of an agent defined under agents."}, {"type", "string"}, {"pattern", agentNamePattern}}},
		{"count", obj{{"description", "A whole number, 0 or more; 0 or absent means the default."}, {"type", "integer"}, {"minimum", 0}}},
		{"input", obj{
			{"description", "What the stage works on: previous (default: the previous stage's output, or the user's message for the first stage) or user (the user's message)."},
			{"enum", []any{"previous", "user"}},
		}},
		{"onFailure", obj{
			{"description", "What a failed stage does to the run: abort (default: stop with the failure) or continue (go on to the next stage, which gets the same input this stage had)."},
			{"enum", []any{"abort", "continue"}},
		}},
		{"duration", obj{
			{"description", `A duration such as "30s", "2m" or "1h30m" (units ns, us, ms, s, m, h), or a whole number of seconds.`},
			{"type", []any{"string", "integer"}},
			{"pattern", `^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|μs|ms|s|m|h))+)$`},
			{"minimum", 0},
		}},
		{"agent", agentDef},
		{"limits", limitsDef},
		{"phase", phaseDef},
		{"stage", obj{
			{"description", "One step of a pipeline: an executor with its agents, settings and policy."},
			{"type", "object"},
			{"properties", stage},
			{"required", []any{"kind"}},
			{"additionalProperties", false},
			{"allOf", []any{ref("roles")}},
		}},
		{"condition", conditionDef},
		{"validation", validationDef},
		{"passCheck", withKinds(r, "pass_check", passCheckDef)},
		{"postPassCheck", withKinds(r, "post_pass_check", postPassCheckDef)},
	}
	var roles []any
	for _, s := range r.specs {
		var required []any
		for _, rl := range s.roles {
			if rl.required {
				required = append(required, rl.name)
			}
		}
		if len(required) > 0 {
			roles = append(roles, obj{{"if", kindIs(s.kind)}, {"then", obj{{"required", required}}}})
		}
	}
	return append(defs, member{"roles", obj{{"description", "The agents each kind needs."}, {"allOf", roles}}})
}

// withKinds starts a block's description with the kinds that read it.
func withKinds(r *registry, name string, def obj) obj {
	out := append(obj(nil), def...)
	desc := out[0][1].(string)
	f := r.byName[name]
	if f == nil {
		out[0][1] = strings.ToUpper(desc[:1]) + desc[1:]
		return out
	}
	kinds := make([]string, len(f.kinds))
	for i, k := range f.kinds {
		kinds[i] = string(k)
	}
	out[0][1] = strings.Join(kinds, ", ") + ": " + desc
	return out
}

func kindDocs(r *registry) []string {
	var docs []string
	for _, s := range r.specs {
		docs = append(docs, string(s.kind)+" ("+s.doc+")")
	}
	return docs
}

func kindIs(k Kind) obj {
	return obj{{"properties", obj{{"kind", obj{{"const", string(k)}}}}}, {"required", []any{"kind"}}}
}

func ref(def string) obj { return obj{{"$ref", "#/$defs/" + def}} }

// orList joins items as a sentence does: "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// obj is a JSON object that keeps its keys in the order written.
type (
	obj    = yamlcheck.Obj
	member = yamlcheck.Member
)

// kindsTable is the table of kinds in docs/WORKFLOWS.md: what each kind
// needs, and what it may be given with its default.
func kindsTable(r *registry) string {
	var b strings.Builder
	b.WriteString("| kind | needs | optional (default) |\n|---|---|---|\n")
	for _, s := range r.specs {
		var needs, optional []string
		for _, rl := range s.roles {
			switch {
			case rl.required:
				needs = append(needs, "`"+rl.name+"`")
			case rl.deflt != "":
				optional = append(optional, "`"+rl.name+"` (the "+rl.deflt+")")
			default:
				optional = append(optional, "`"+rl.name+"`")
			}
		}
		for _, n := range s.numbers {
			optional = append(optional, "`"+n.name+"` ("+yamlcheck.FormatNumber(n.deflt)+")")
		}
		for _, name := range s.blocks {
			cell := "`" + name + "`"
			if d := blocks[name].deflt; d != "" {
				cell += " (" + d + ")"
			}
			optional = append(optional, cell)
		}
		b.WriteString("|")
		for _, cell := range []string{"`" + string(s.kind) + "`", strings.Join(needs, ", "), strings.Join(optional, ", ")} {
			if cell != "" {
				b.WriteString(" " + cell)
			}
			b.WriteString(" |")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
