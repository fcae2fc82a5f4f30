package workflow

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
)

// executorSpec is everything the package knows about one executor: what
// it does, the fields a stage of its kind reads (the agents of its roles,
// its numbers and its blocks) and how it runs. Each executor declares its
// spec next to its run function and registers it in init; loading,
// normalizing, validation, the JSON Schema, the kinds table of
// docs/WORKFLOWS.md and the engine's dispatch all read it, so adding an
// executor is one file and its test.
type executorSpec struct {
	kind Kind
	// order places the kind in lists (messages, the schema, the docs).
	order int
	// doc says what the kind does, for the schema: "one agent with tools".
	doc     string
	roles   []role
	numbers []number
	// blocks are the structured settings the kind reads (pass_check),
	// among those every stage can hold (see blocks).
	blocks []string
	// run runs one stage of the kind on its input.
	run func(r *wfRun, ctx context.Context, st *Stage, input string) stageOutcome
}

// role is an agent a kind needs, named by a field of the stage.
type role struct {
	name string
	// doc says what the agent does: "the agent that judges each draft";
	// for a list, "the agents triage may hand the conversation to".
	doc string
	// more is said in the schema after doc.
	more     string
	required bool
	// deflt is the role whose agent plays this one when it is not set.
	deflt string
	// list: the role takes a list of agents (held in Stage.Teams).
	list bool
	// answers: the role writes what the person reads, so its agents
	// receive the session's instructions by default (instructions.go).
	answers bool
}

// number is a numeric setting. 0 or absent means its default.
type number struct {
	name string
	doc  string // "the most revisions before the stage fails"
	more string // said in the schema after doc and the default
	// deflt is the value used when the stage leaves it at 0.
	deflt    float64
	integer  bool
	min, max float64 // max 0: no maximum
	// rangeNote explains the range in Validate's message.
	rangeNote string
}

// block is a structured setting (a mapping of its own in the file) that a
// kind may read: its schema is in $defs, its checks in the checker.
type block struct {
	def   string // its name in the schema's $defs
	deflt string // what holds without it, for the docs: "the verdict"
	isSet func(*Stage) bool
}

// blocks are the structured settings a Stage has fields for.
var blocks = map[string]block{
	"pass_check":      {def: "passCheck", deflt: "the verdict", isSet: func(st *Stage) bool { return st.PassCheck != nil }},
	"post_pass_check": {def: "postPassCheck", isSet: func(st *Stage) bool { return st.PostPassCheck != nil }},
}

// reservedFields are the fields of a workflow and of a stage that belong
// to no executor, which no executor field may be named.
var reservedFields = []string{"name", "description", "kind", "agents", "phases", "token_budget",
	"input", "skip_if", "max_attempts", "validate", "on_failure"}

// fieldKind is the shape of an executor field.
type fieldKind int

const (
	fieldRole fieldKind = iota
	fieldTeam
	fieldNumber
	fieldBlock
)

// field is an executor field as all the kinds that read it declare it.
type field struct {
	name  string
	kind  fieldKind
	num   number // fieldNumber: its type and range (the docs may differ by kind)
	kinds []Kind // the kinds that read it, in order
}

// registry is an immutable set of executors; registering one makes a new
// one, so readers never lock.
type registry struct {
	specs  []*executorSpec // by order
	byKind map[Kind]*executorSpec
	fields []*field // every executor field, in the order the specs declare them
	byName map[string]*field
	// schema is the JSON Schema of these executors, made on first use.
	schema func() (*schemaSet, error)
}

// current holds the registry. Executors register in init; only tests
// change it later (see register).
var current atomic.Pointer[registry]

// executors returns the registered executors.
func executors() *registry {
	if r := current.Load(); r != nil {
		return r
	}
	return newRegistry(nil)
}

// register adds an executor and returns what removes it again (for tests).
// A spec that contradicts another (a field of the same name with another
// shape) or names an unknown block is a programming error: it panics.
func register(s executorSpec) (undo func()) {
	for {
		old := current.Load()
		var specs []*executorSpec
		if old != nil {
			specs = old.specs
		}
		next := newRegistry(append(slices.Clone(specs), &s))
		if current.CompareAndSwap(old, next) {
			return func() { current.CompareAndSwap(next, old) }
		}
	}
}

func newRegistry(specs []*executorSpec) *registry {
	slices.SortStableFunc(specs, func(a, b *executorSpec) int { return cmp.Compare(a.order, b.order) })
	r := &registry{specs: specs, byKind: map[Kind]*executorSpec{}, byName: map[string]*field{}}
	for _, s := range specs {
		if s.kind == "" || s.kind == KindPipeline || r.byKind[s.kind] != nil || s.run == nil {
			panic(fmt.Sprintf("workflow: executor %q: a kind must be new, not pipeline, and have a run function", s.kind))
		}
		r.byKind[s.kind] = s
		for _, rl := range s.roles {
			k := fieldRole
			if rl.list {
				k = fieldTeam
			}
			r.addField(s, rl.name, k, number{})
			if rl.deflt != "" && !slices.ContainsFunc(s.roles, func(o role) bool { return o.name == rl.deflt && !o.list }) {
				panic(fmt.Sprintf("workflow: executor %s: role %s defaults to %q, not one of its roles", s.kind, rl.name, rl.deflt))
			}
		}
		for _, n := range s.numbers {
			r.addField(s, n.name, fieldNumber, n)
		}
		for _, b := range s.blocks {
			if _, ok := blocks[b]; !ok {
				panic(fmt.Sprintf("workflow: executor %s: unknown block %q", s.kind, b))
			}
			r.addField(s, b, fieldBlock, number{})
		}
	}
	r.schema = sync.OnceValues(func() (*schemaSet, error) { return newSchemaSet(r) })
	return r
}

func (r *registry) addField(s *executorSpec, name string, k fieldKind, n number) {
	if _, isBlock := blocks[name]; slices.Contains(reservedFields, name) || isBlock && k != fieldBlock {
		panic(fmt.Sprintf("workflow: executor %s: %q is a field of every workflow or stage", s.kind, name))
	}
	f := r.byName[name]
	if f == nil {
		f = &field{name: name, kind: k, num: n}
		r.byName[name] = f
		r.fields = append(r.fields, f)
	}
	same := f.num.integer == n.integer && f.num.min == n.min && f.num.max == n.max
	if f.kind != k || !same {
		panic(fmt.Sprintf("workflow: executor %s declares %q with another type or range than %v", s.kind, name, f.kinds))
	}
	f.kinds = append(f.kinds, s.kind)
}

// lookup returns the executor of a kind, or nil.
func (r *registry) lookup(k Kind) *executorSpec {
	return r.byKind[k]
}

// kindNames lists the kinds in order, and pipeline last when asked.
func (r *registry) kindNames(pipeline bool) []string {
	names := make([]string, 0, len(r.specs)+1)
	for _, s := range r.specs {
		names = append(names, string(s.kind))
	}
	if pipeline {
		names = append(names, string(KindPipeline))
	}
	return names
}

// reads reports whether the kind reads the field.
func (s *executorSpec) reads(name string) bool {
	return slices.ContainsFunc(s.roles, func(r role) bool { return r.name == name }) ||
		slices.ContainsFunc(s.numbers, func(n number) bool { return n.name == name }) ||
		slices.Contains(s.blocks, name)
}

func (s *executorSpec) role(name string) (role, bool) {
	i := slices.IndexFunc(s.roles, func(r role) bool { return r.name == name })
	if i < 0 {
		return role{}, false
	}
	return s.roles[i], true
}

func (s *executorSpec) number(name string) (number, bool) {
	i := slices.IndexFunc(s.numbers, func(n number) bool { return n.name == name })
	if i < 0 {
		return number{}, false
	}
	return s.numbers[i], true
}

// The defaults of a stage's settings are applied here and only here: the
// executors read their settings through these, and Normalize fills in the
// roles with them.

// spec is the executor of the stage; a stage without a kind is a chat.
func (st *Stage) spec() *executorSpec {
	return executors().lookup(cmp.Or(st.Kind, KindChat))
}

// role returns the agent of a role: the one set, else that of the role it
// defaults to.
func (st *Stage) role(name string) string {
	if a := st.Roles[name]; a != "" {
		return a
	}
	if s := st.spec(); s != nil {
		if rl, ok := s.role(name); ok && rl.deflt != "" {
			return st.Roles[rl.deflt]
		}
	}
	return ""
}

// team returns the agents of a role played by a list of agents.
func (st *Stage) team(name string) []string {
	return st.Teams[name]
}

// number returns a numeric setting, or its default when it is 0 or less.
func (st *Stage) number(name string) float64 {
	if v := st.Numbers[name]; v > 0 {
		return v
	}
	if s := st.spec(); s != nil {
		if n, ok := s.number(name); ok {
			return n.deflt
		}
	}
	return 0
}

// count returns a whole-number setting, or its default.
func (st *Stage) count(name string) int {
	v := st.number(name)
	if v >= math.MaxInt {
		return math.MaxInt
	}
	return int(v)
}

// normalizeRoles fills in the roles that default to another.
func (st *Stage) normalizeRoles() {
	s := executors().lookup(st.Kind)
	if s == nil {
		return
	}
	for _, rl := range s.roles {
		if a := st.role(rl.name); a != "" && !rl.list && st.Roles[rl.name] == "" {
			if st.Roles == nil {
				st.Roles = Roles{}
			}
			st.Roles[rl.name] = a
		}
	}
}

// shape says what a field holds, for messages.
func (f *field) shape() string {
	switch f.kind {
	case fieldRole:
		return "the name of an agent"
	case fieldTeam:
		return "a list of agent names"
	case fieldNumber:
		return "a number"
	}
	return "a mapping"
}

// fieldNames lists every executor field's name.
func (r *registry) fieldNames() []string {
	names := make([]string, len(r.fields))
	for i, f := range r.fields {
		names[i] = f.name
	}
	return names
}
