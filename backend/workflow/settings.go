package workflow

import (
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
)

// A stage's executor settings sit flat beside its other fields, in a file
// and in JSON (the form a turn stores its workflow in, for replays), but
// are held in Stage.Roles, Teams and Numbers: this file reads and writes
// them, typed by the registered executor fields.

// MarshalJSON writes the definition as a file holds it: the stage's
// settings flat beside its other fields.
func (d Definition) MarshalJSON() ([]byte, error) {
	var o jsonObject
	o.add("name", d.Name, false)
	o.add("description", d.Description, true)
	o.add("agents", d.Agents, true)
	d.Stage.writeFields(&o, true)
	o.add("phases", d.Phases, true)
	o.add("token_budget", d.TokenBudget, true)
	o.add("source", d.Source, true)
	return o.close()
}

// UnmarshalJSON reads what MarshalJSON writes.
func (d *Definition) UnmarshalJSON(data []byte) error {
	var own struct {
		Name        string              `json:"name"`
		Description string              `json:"description"`
		Agents      map[string]AgentDef `json:"agents"`
		Phases      []Phase             `json:"phases"`
		TokenBudget int                 `json:"token_budget"`
		Source      string              `json:"source"`
	}
	if err := json.Unmarshal(data, &own); err != nil {
		return err
	}
	var st Stage
	if err := st.UnmarshalJSON(data); err != nil {
		return err
	}
	// A workflow's name and token budget are its own, not its stage's.
	st.Name, st.TokenBudget = "", 0
	*d = Definition{Name: own.Name, Description: own.Description, Agents: own.Agents, Stage: st,
		Phases: own.Phases, TokenBudget: own.TokenBudget, Source: own.Source}
	return nil
}

// MarshalJSON writes the stage as a file holds it.
func (st Stage) MarshalJSON() ([]byte, error) {
	var o jsonObject
	st.writeFields(&o, false)
	return o.close()
}

// UnmarshalJSON reads what MarshalJSON writes. Fields of executors that
// are not registered are ignored.
func (st *Stage) UnmarshalJSON(data []byte) error {
	type plain Stage // the fixed fields, without these methods
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	*st = Stage(p)
	if issues := st.readSettings(m, nil); len(issues) > 0 {
		return fmt.Errorf("workflow stage: %s", issues[0].Msg)
	}
	return nil
}

// writeFields writes the stage's fields; a workflow's own stage (top)
// leaves name and token_budget to the workflow.
func (st *Stage) writeFields(o *jsonObject, top bool) {
	if !top {
		o.add("name", st.Name, true)
	}
	o.add("kind", st.Kind, false)
	st.writeSettings(o)
	o.add("pass_check", st.PassCheck, true)
	o.add("post_pass_check", st.PostPassCheck, true)
	o.add("input", st.Input, true)
	o.add("skip_if", st.SkipIf, true)
	o.add("max_attempts", st.MaxAttempts, true)
	if !top {
		o.add("token_budget", st.TokenBudget, true)
	}
	o.add("validate", st.Validate, true)
	o.add("on_failure", st.OnFailure, true)
}

// readSettings fills the definition's stage settings from the file's
// value, as jsonValue made it (after the schema accepted it), and reports
// what does not fit their Go types.
func (d *Definition) readSettings(doc any) []issue {
	top, _ := doc.(map[string]any)
	issues := d.Stage.readSettings(top, nil)
	phases, _ := top["phases"].([]any)
	for i := range min(len(phases), len(d.Phases)) {
		ph, _ := phases[i].(map[string]any)
		stages, _ := ph["stages"].([]any)
		for j := range min(len(stages), len(d.Phases[i].Stages)) {
			m, _ := stages[j].(map[string]any)
			p := []string{"phases", strconv.Itoa(i), "stages", strconv.Itoa(j)}
			issues = append(issues, d.Phases[i].Stages[j].readSettings(m, p)...)
		}
	}
	return issues
}

// readSettings sets the executor fields found in m, the stage's mapping at
// path. Values that mean "not set" (0, an empty list) are left out, as
// they are when written.
func (st *Stage) readSettings(m map[string]any, path []string) []issue {
	reg := executors()
	var issues []issue
	for _, name := range slices.Sorted(maps.Keys(m)) {
		f := reg.byName[name]
		if f == nil {
			continue
		}
		p := sub(path, name)
		switch v := m[name]; f.kind {
		case fieldRole:
			s, ok := v.(string)
			if !ok {
				issues = append(issues, issue{Path: p, Msg: at(p, "expected a string, got "+jsonTypeName(v))})
			} else if s != "" {
				st.Roles = setIn(st.Roles, name, s)
			}
		case fieldTeam:
			list, err := stringList(v)
			if err != "" {
				issues = append(issues, issue{Path: p, Msg: at(p, err)})
			} else if len(list) > 0 {
				st.Teams = setIn(st.Teams, name, list)
			}
		case fieldNumber:
			n, err := numberValue(v, f.num.integer)
			if err != "" {
				issues = append(issues, issue{Path: p, Msg: at(p, err)})
			} else if n != 0 {
				st.Numbers = setIn(st.Numbers, name, n)
			}
		}
	}
	return issues
}

func setIn[M ~map[string]V, V any](m M, k string, v V) M {
	if m == nil {
		m = M{}
	}
	m[k] = v
	return m
}

func stringList(v any) ([]string, string) {
	items, ok := v.([]any)
	if !ok {
		return nil, "expected a list, got " + jsonTypeName(v)
	}
	out := make([]string, len(items))
	for i, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, fmt.Sprintf("item %d: expected a string, got %s", i+1, jsonTypeName(it))
		}
		out[i] = s
	}
	return out, ""
}

// numberValue reads a number of the file; a whole number must fit an int.
func numberValue(v any, integer bool) (float64, string) {
	var f float64
	switch n := v.(type) {
	case int:
		f = float64(n)
	case int64:
		f = float64(n)
	case uint64:
		if integer && n > math.MaxInt64 {
			return 0, fmt.Sprintf("must be at most %d, got %d", int64(math.MaxInt64), n)
		}
		f = float64(n)
	case float64:
		f = n
	default:
		return 0, "expected a number, got " + jsonTypeName(v)
	}
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return 0, "not a value a workflow can hold (infinite or not a number?)"
	case integer && f != math.Trunc(f):
		return 0, "expected a whole number, got a number"
	case integer && (f >= math.MaxInt64 || f < math.MinInt64):
		return 0, fmt.Sprintf("must be at most %d, got %s", int64(math.MaxInt64), strconv.FormatFloat(f, 'g', -1, 64))
	}
	return f, ""
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "true or false"
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	case nil:
		return "nothing"
	}
	return "a number"
}

// writeSettings writes the stage's settings in the order the executors
// declare them, then any no executor declares, by name.
func (st *Stage) writeSettings(o *jsonObject) {
	reg := executors()
	for _, f := range reg.fields {
		switch f.kind {
		case fieldRole:
			o.add(f.name, st.Roles[f.name], true)
		case fieldTeam:
			o.add(f.name, st.Teams[f.name], true)
		case fieldNumber:
			o.add(f.name, st.Numbers[f.name], true)
		}
	}
	var other []string
	for name := range st.settingNames() {
		if reg.byName[name] == nil {
			other = append(other, name)
		}
	}
	slices.Sort(other)
	for _, name := range slices.Compact(other) {
		switch {
		case st.Roles[name] != "":
			o.add(name, st.Roles[name], true)
		case len(st.Teams[name]) > 0:
			o.add(name, st.Teams[name], true)
		default:
			o.add(name, st.Numbers[name], true)
		}
	}
}

// settingNames yields the names of the settings that have a value.
func (st *Stage) settingNames() iter.Seq[string] {
	return func(yield func(string) bool) {
		for k, v := range st.Roles {
			if v != "" && !yield(k) {
				return
			}
		}
		for k, v := range st.Teams {
			if len(v) > 0 && !yield(k) {
				return
			}
		}
		for k, v := range st.Numbers {
			if v != 0 && !yield(k) {
				return
			}
		}
	}
}

// jsonObject writes a JSON object field by field, in order.
type jsonObject struct {
	buf []byte
	err error
}

// add writes key and v; omitEmpty leaves out a zero or empty v, as the
// omitempty tag option does.
func (o *jsonObject) add(key string, v any, omitEmpty bool) {
	if o.err != nil || omitEmpty && isEmpty(v) {
		return
	}
	val, err := json.Marshal(v)
	if err != nil {
		o.err = err
		return
	}
	k, _ := json.Marshal(key)
	o.buf = append(o.buf, ',')
	o.buf = append(append(append(o.buf, k...), ':'), val...)
}

func (o *jsonObject) close() ([]byte, error) {
	if o.err != nil {
		return nil, o.err
	}
	if len(o.buf) == 0 {
		return []byte("{}"), nil
	}
	out := append([]byte{'{'}, o.buf[1:]...)
	return append(out, '}'), nil
}

func isEmpty(v any) bool {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Invalid:
		return true
	case reflect.Map, reflect.Slice, reflect.String:
		return rv.Len() == 0
	}
	return rv.IsZero()
}
