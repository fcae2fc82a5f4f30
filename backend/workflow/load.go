package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

// Problem is one thing wrong with a workflow file, with where it is when
// that is known; Problems is the error Parse returns: every problem found,
// in file order. Both are yamlcheck's, which reads workflow files.
type (
	Problem  = yamlcheck.Problem
	Problems = yamlcheck.Problems
)

// MaxFileSize bounds a workflow file; a bigger one is surely not a
// workflow and is not read.
const MaxFileSize = 1 << 20

// fileFormat names a workflow in yamlcheck's messages.
var fileFormat = yamlcheck.Format{Noun: "workflow", Needs: "name and kind", MaxSize: MaxFileSize}

// Parse reads one workflow from YAML or JSON (JSON is YAML). It checks, in
// order: the syntax, the JSON Schema (unknown or misspelled fields, wrong
// types, missing fields), then the meaning (Validate) after Normalize. The
// first step that finds problems returns them all as Problems, each with
// its line and column. name is the file's name for messages and becomes
// the definition's Source.
func Parse(name string, data []byte) (*Definition, error) {
	file, err := fileFormat.Read(name, data)
	if err != nil {
		return nil, err
	}
	doc := file.Value
	if issues := schemaIssues(doc); len(issues) > 0 {
		return nil, file.Problems(issues)
	}

	// The schema has rejected every field the file format does not have;
	// the decoder reads the fixed fields, readSettings the executors'.
	var d Definition
	if err := file.Decode(&d); err != nil {
		return nil, err
	}
	if issues := d.readSettings(doc); len(issues) > 0 {
		return nil, file.Problems(issues)
	}
	d.Source = name
	d.Normalize()
	if issues := d.validate(); len(issues) > 0 {
		return nil, file.Problems(issues)
	}
	return &d, nil
}

// LoadDir parses every *.yaml, *.yml and *.json file directly in dir, in
// name order, skipping *.schema.json (the schema may sit next to the files
// for editors). A bad file is reported as Problems and never stops the
// others; a missing dir is no problem (the user has no workflows yet).
func LoadDir(dir string) (defs []*Definition, problems []Problem) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []Problem{{File: dir, Message: "cannot read the workflows folder: " + err.Error()}}
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !isWorkflowFile(name) {
			continue
		}
		path := filepath.Join(dir, name)
		def, err := loadFile(path)
		if err != nil {
			var ps Problems
			if errors.As(err, &ps) {
				problems = append(problems, ps...)
			} else {
				problems = append(problems, Problem{File: path, Message: err.Error()})
			}
			continue
		}
		defs = append(defs, def)
	}
	return defs, problems
}

func isWorkflowFile(name string) bool {
	if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".schema.json") {
		return false
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

func loadFile(path string) (*Definition, error) {
	data, err := fileFormat.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// UnmarshalYAML reads "30s", "2m", "1h30m" or a whole number of seconds.
func (d *Duration) UnmarshalYAML(unmarshal func(any) error) error {
	var v any
	if err := unmarshal(&v); err != nil {
		return err
	}
	return d.set(v)
}

// UnmarshalJSON reads "30s", "2m", "1h30m" or a whole number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if n, ok := v.(json.Number); ok {
		i, err := n.Int64()
		if err != nil {
			return fmt.Errorf("invalid duration %s: %s", n, durationHint)
		}
		v = i
	}
	return d.set(v)
}

// MarshalJSON writes the duration as a string such as "2m".
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(d.String())
}

// MarshalYAML writes the duration as a string such as "2m".
func (d Duration) MarshalYAML() (any, error) {
	return d.String(), nil
}

// String is time.Duration's form without zero trailing units: "2m", not
// "2m0s".
func (d Duration) String() string {
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

const durationHint = `expected a duration such as "30s", "2m" or "1h30m", or a whole number of seconds`

func (d *Duration) set(v any) error {
	switch v := v.(type) {
	case string:
		t, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("invalid duration %q: %s", v, durationHint)
		}
		*d = Duration(t)
		return nil
	case int64, int, uint64:
		n, _ := strconv.ParseInt(fmt.Sprint(v), 10, 64)
		if fmt.Sprint(n) != fmt.Sprint(v) || n > math.MaxInt64/int64(time.Second) || n < math.MinInt64/int64(time.Second) {
			return fmt.Errorf("invalid duration: %v seconds is too long", v)
		}
		*d = Duration(time.Duration(n) * time.Second)
		return nil
	case nil:
		*d = 0
		return nil
	}
	return fmt.Errorf("invalid duration %v: %s", v, durationHint)
}
