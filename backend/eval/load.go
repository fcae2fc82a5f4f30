package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

// MaxFileSize bounds a suite file; a bigger one is surely not a suite and
// is not read.
const MaxFileSize = 1 << 20

// fileFormat names a suite in yamlcheck's messages.
var fileFormat = yamlcheck.Format{Noun: "suite", Needs: "name, models and cases", MaxSize: MaxFileSize}

// Parse reads one suite from YAML or JSON (JSON is YAML). It checks, in
// order: the syntax, the JSON Schema (suite.schema.json: unknown or
// misspelled fields, wrong types, missing fields), then the meaning (ids
// unique, placeholders and vars, regular expressions and schemas that
// compile, known termination kinds, attachments that stay in the suite's
// folder, models listed once). The first step that finds problems returns
// them all as yamlcheck.Problems, each "file:line:col: message". name is
// the file's name for messages and becomes the suite's Source.
//
// It fills in what a file may leave out: a case's id (case-N by its
// 1-based place) and repeat (1). Whether attached files exist is Load's
// to check: Parse has no folder to look in.
func Parse(name string, data []byte) (*Suite, error) {
	return parse(name, data, "")
}

// Load reads and parses the suite file at path (at most MaxFileSize
// bytes), and checks that the files its cases attach exist, relative to
// the file's folder.
func Load(path string) (*Suite, error) {
	data, err := fileFormat.ReadFile(path)
	if err != nil {
		return nil, yamlcheck.Problems{{File: path, Message: err.Error()}}
	}
	return parse(path, data, filepath.Dir(path))
}

// ParseAt parses data as the suite file it is to be saved as at path: the
// files its cases attach are checked in path's folder, as Load would.
func ParseAt(path string, data []byte) (*Suite, error) {
	return parse(path, data, filepath.Dir(path))
}

// parse is Parse, and with dir also checks attachments exist in dir.
func parse(name string, data []byte, dir string) (*Suite, error) {
	doc, err := fileFormat.Read(name, data)
	if err != nil {
		return nil, err
	}
	sch, err := compiledSchema()
	if err != nil {
		return nil, yamlcheck.Problems{{File: name, Message: err.Error()}}
	}
	if issues := sch.Check(doc.Value, explain(doc.Value)); len(issues) > 0 {
		return nil, doc.Problems(issues)
	}
	// The schema has accepted the shape; encoding/json reads it, since an
	// assertion's json_schema is kept as raw JSON.
	raw, err := json.Marshal(doc.Value)
	if err != nil {
		return nil, yamlcheck.Problems{{File: name, Message: err.Error()}}
	}
	var s Suite
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, yamlcheck.Problems{{File: name, Message: err.Error()}}
	}
	s.Source = name
	c := &checker{s: &s, sch: sch, dir: dir}
	if c.check(); len(c.issues) > 0 {
		return nil, doc.Problems(c.issues)
	}
	return &s, nil
}

// placeholderRe finds a {{name}} placeholder, spaces allowed inside.
var placeholderRe = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// Render is case c's conversation with its {{name}} placeholders filled
// from its Vars: prompt is the user's message to send, history the
// messages before it (nil for a case with a prompt). There is no
// template language: "{{name}}" and "{{ name }}" are replaced by the
// var's value as it is, a placeholder with no var is left as written
// (Parse refuses such a case), and text without placeholders is
// unchanged. The suite is the receiver so that suite-wide vars can join
// later without changing callers.
func (s *Suite) Render(c Case) (prompt string, history []Message) {
	if len(c.Messages) == 0 {
		return c.fill(c.Prompt), nil
	}
	last := len(c.Messages) - 1
	for _, m := range c.Messages[:last] {
		history = append(history, Message{Role: m.Role, Content: c.fill(m.Content)})
	}
	return c.fill(c.Messages[last].Content), history
}

func (c Case) fill(text string) string {
	if len(c.Vars) == 0 {
		return text
	}
	return placeholderRe.ReplaceAllStringFunc(text, func(ph string) string {
		if v, ok := c.Vars[placeholderRe.FindStringSubmatch(ph)[1]]; ok {
			return v
		}
		return ph
	})
}

func (c *checker) add(path []string, key bool, msg string) {
	c.issues = append(c.issues, yamlcheck.Issue{Path: path, Key: key, Msg: c.sch.At(path, msg)})
}

var (
	idRe    = regexp.MustCompile(idPattern)
	modelRe = regexp.MustCompile(modelPattern)
)

func (c *checker) check() {
	s := c.s
	if strings.TrimSpace(s.Name) == "" {
		c.add([]string{"name"}, false, "must not be empty")
	}
	switch {
	case s.Repeat == 0:
		s.Repeat = 1
	case s.Repeat < 1 || s.Repeat > maxRepeat:
		c.add([]string{"repeat"}, false, fmt.Sprintf("must be between 1 and %d, got %d", maxRepeat, s.Repeat))
	}
	seen := map[string]int{}
	for i, m := range s.Models {
		p := []string{"models", strconv.Itoa(i)}
		if !modelRe.MatchString(m) {
			c.add(p, false, modelMessage(m))
		}
		if first, dup := seen[m]; dup {
			c.add(p, false, fmt.Sprintf("%q is listed twice (items %d and %d); a model runs once per repeat", m, first+1, i+1))
			continue
		}
		seen[m] = i
	}
	c.checkIDs()
	for i := range s.Cases {
		c.checkCase(i, &s.Cases[i])
	}
}

// checkIDs fills in the ids left out (case-N) and checks every id is
// valid and used once.
func (c *checker) checkIDs() {
	at := map[string]int{}
	for i := range c.s.Cases {
		cs := &c.s.Cases[i]
		p := []string{"cases", strconv.Itoa(i)}
		given := cs.ID != ""
		if !given {
			cs.ID = "case-" + strconv.Itoa(i+1)
		} else if !idRe.MatchString(cs.ID) {
			c.add(append(p, "id"), false, idMessage(cs.ID))
		}
		first, dup := at[cs.ID]
		switch {
		case !dup:
			at[cs.ID] = i
		case given:
			c.add(append(p, "id"), false, fmt.Sprintf("case id %q is already used by cases[%d]; ids must be unique", cs.ID, first))
		default:
			c.add(p, false, fmt.Sprintf("this case's default id %q is already used by cases[%d]; give this case an id", cs.ID, first))
		}
	}
}

func (c *checker) checkCase(i int, cs *Case) {
	p := []string{"cases", strconv.Itoa(i)}
	switch {
	case cs.From != nil && (cs.Prompt != "" || len(cs.Messages) > 0):
		c.add(append(p, "from"), true, fromXorPrompt)
	case cs.Prompt != "" && len(cs.Messages) > 0:
		c.add(append(p, "messages"), true, promptXorMessages+", not both")
	case cs.Prompt == "" && len(cs.Messages) == 0 && cs.From == nil:
		c.add(p, false, "missing prompt: "+promptXorMessages+orFrom)
	}
	if cs.From != nil {
		c.checkFrom(p, cs)
	}
	c.checkMessages(p, cs.Messages)
	c.checkVars(p, cs)
	if len(cs.Assert) == 0 {
		c.add(p, false, "missing assert: "+missingWhy["assert"])
	}
	for j, a := range cs.Assert {
		c.checkAssert(append(p, "assert", strconv.Itoa(j)), a)
	}
	for k, name := range cs.Attach {
		c.checkAttach(append(p, "attach", strconv.Itoa(k)), name)
	}
}

func (c *checker) checkMessages(p []string, msgs []Message) {
	for k, m := range msgs {
		if m.Role != "user" && m.Role != "assistant" {
			c.add(append(p, "messages", strconv.Itoa(k), "role"), false, yamlcheck.EnumMessage(m.Role, []string{"user", "assistant"}))
		}
	}
	if n := len(msgs); n > 0 && msgs[n-1].Role != "user" {
		c.add(append(p, "messages", strconv.Itoa(n-1)), false,
			fmt.Sprintf("the last message is the one the case sends, so it must be the user's, not %q", msgs[n-1].Role))
	}
}

// checkVars checks every placeholder has a var and every var is used.
func (c *checker) checkVars(p []string, cs *Case) {
	names := slices.Sorted(maps.Keys(cs.Vars))
	used := map[string]bool{}
	texts := []struct {
		path []string
		text string
	}{{append(p, "prompt"), cs.Prompt}}
	for k, m := range cs.Messages {
		texts = append(texts, struct {
			path []string
			text string
		}{append(p, "messages", strconv.Itoa(k), "content"), m.Content})
	}
	for _, t := range texts {
		for _, m := range placeholderRe.FindAllStringSubmatch(t.text, -1) {
			name := m[1]
			used[name] = true
			if _, ok := cs.Vars[name]; ok {
				continue
			}
			msg := fmt.Sprintf("{{%s}} has no var; give it under vars", name)
			if len(names) > 0 {
				msg += " (vars: " + strings.Join(names, ", ") + ")"
			}
			if s := yamlcheck.Suggest(name, names); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			c.add(t.path, false, msg)
		}
	}
	var placeholders []string
	for name := range used {
		placeholders = append(placeholders, name)
	}
	slices.Sort(placeholders)
	for _, name := range names {
		if used[name] {
			continue
		}
		msg := fmt.Sprintf("var %q is not used: no {{%s}} in the prompt or messages", name, name)
		if s := yamlcheck.Suggest(name, placeholders); s != "" {
			msg += fmt.Sprintf(" (did you mean {{%s}}?)", s)
		}
		c.add(append(p, "vars", name), true, msg)
	}
}

func (c *checker) checkAssert(p []string, a Assert) {
	kinds := a.kinds()
	if len(kinds) != 1 {
		c.add(p, false, exactlyOneMessage(p, kinds))
		return
	}
	at := append(p, kinds[0])
	switch {
	case a.Regex != nil:
		c.regexp(at, *a.Regex)
	case len(a.JSONSchema) > 0:
		if _, err := compileAssertSchema(a.JSONSchema); err != nil {
			c.add(at, false, "not a JSON Schema the answer can be checked against: "+err.Error())
		}
	case a.ToolCalled != nil:
		if strings.TrimSpace(a.ToolCalled.Name) == "" {
			c.add(at, false, "missing name: the tool that must be called")
		}
		for _, arg := range slices.Sorted(maps.Keys(a.ToolCalled.Args)) {
			c.checkMatcher(append(at, "args", arg), a.ToolCalled.Args[arg])
		}
	case a.MaxLatency != nil && *a.MaxLatency < 0, a.MaxTokens != nil && *a.MaxTokens < 0, a.MaxCost != nil && *a.MaxCost < 0:
		c.add(at, false, "must be 0 or more")
	case a.Termination != nil:
		c.checkTermination(at, *a.Termination)
	case a.Judge != nil:
		j := a.Judge
		if strings.TrimSpace(j.Rubric) == "" {
			c.add(at, false, "missing rubric: "+missingWhy["rubric"])
		}
		if !modelRe.MatchString(j.Model) {
			c.add(append(at, "model"), false, modelMessage(j.Model))
		}
		c.threshold(append(at, "threshold"), j.Threshold)
	case a.SimilarTo != nil:
		if m := a.SimilarTo.Measure; m != "" && m != MeasureTokenF1 {
			c.add(append(at, "measure"), false, measureMessage(m))
		}
		c.threshold(append(at, "threshold"), a.SimilarTo.Threshold)
	}
}

func (c *checker) checkMatcher(p []string, m Matcher) {
	var set []string
	for _, f := range []struct {
		name string
		v    *string
	}{{"equals", m.Equals}, {"contains", m.Contains}, {"regex", m.Regex}} {
		if f.v != nil {
			set = append(set, f.name)
		}
	}
	if len(set) != 1 {
		c.add(p, false, exactlyOneMessage(p, set))
		return
	}
	if m.Regex != nil {
		c.regexp(append(p, "regex"), *m.Regex)
	}
}

func (c *checker) checkTermination(p []string, t TerminationRule) {
	switch {
	case len(t.Is) > 0 && t.NotLimit:
		c.add(p, false, exactlyOneMessage(p, []string{"is", "not_limit"}))
	case len(t.Is) == 0 && !t.NotLimit:
		c.add(p, false, "give is (the termination kinds that pass) or not_limit: true; not_limit: false checks nothing")
	}
	known := make([]string, len(terminationKinds))
	for i, k := range terminationKinds {
		known[i] = string(k)
	}
	for i, k := range t.Is {
		if !slices.Contains(known, k) {
			c.add(append(p, "is", strconv.Itoa(i)), false, yamlcheck.EnumMessage(k, known))
		}
	}
}

// checkAttach checks an attachment's path stays inside the suite's
// folder, and, when Load gave the folder, that the file is there.
func (c *checker) checkAttach(p []string, name string) {
	local := filepath.FromSlash(name)
	switch {
	case filepath.IsAbs(local) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.VolumeName(local) != "":
		c.add(p, false, fmt.Sprintf("%q is an absolute path; name the file relative to the suite file's folder", name))
		return
	case !filepath.IsLocal(local):
		c.add(p, false, fmt.Sprintf("%q leaves the suite file's folder; attach only files in it or below it", name))
		return
	case c.dir == "":
		return
	}
	info, err := os.Stat(filepath.Join(c.dir, local))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.add(p, false, fmt.Sprintf("no file %q in %s", name, c.dir))
	case err != nil:
		c.add(p, false, fmt.Sprintf("cannot read %q: %v", name, err))
	case info.IsDir():
		c.add(p, false, fmt.Sprintf("%q is a folder; attach names files", name))
	}
}

func (c *checker) regexp(p []string, expr string) {
	if msg := yamlcheck.RegexpMessage(expr); msg != "" {
		c.add(p, false, msg)
	}
}

func (c *checker) threshold(p []string, t *float64) {
	if t != nil && (*t < 0 || *t > 1) {
		c.add(p, false, fmt.Sprintf("must be between 0 and 1, got %v", *t))
	}
}
