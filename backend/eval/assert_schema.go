package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The json_schema assertion: the answer (or its fenced JSON block) checked
// against a JSON Schema.

// checkJSONSchema validates the answer as JSON: the whole answer when it
// is a JSON document, else the first fenced code block labelled json (or
// not labelled at all), since models wrap JSON in fences. The schema is
// compiled per check (draft 2020-12 unless it says otherwise) and may not
// refer to anything outside itself.
func checkJSONSchema(schema json.RawMessage, answer string) AssertOutcome {
	sch, err := compileAssertSchema(schema)
	if err != nil {
		return failsf("the schema does not compile: %v", err)
	}
	doc, from, err := answerJSON(answer)
	if err != nil {
		return failsf("the answer is not JSON (%v); %s", err, answerExcerpt(answer))
	}
	err = sch.Validate(doc)
	if err == nil {
		return holds("the " + from + " matches the schema")
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return failsf("the schema could not be checked: %v", err)
	}
	at, msg := firstSchemaLeaf(ve)
	return failsf("the %s does not match the schema: at %s: %s", from, at, clipRunes(msg, 300))
}

const assertSchemaURL = "mem:///eval/assert-schema.json"

func compileAssertSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(assertSchemaLoader{})
	if err := c.AddResource(assertSchemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(assertSchemaURL)
}

// assertSchemaLoader keeps compiling an assertion's schema off the network and
// the file system; the metaschemas are built into the library.
type assertSchemaLoader struct{}

func (assertSchemaLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("refusing to load %q: a json_schema assertion may refer only to itself", url)
}

// jsonFenceRe finds fenced code blocks: the info string and the body.
var jsonFenceRe = regexp.MustCompile("(?s)```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)\n?```")

// answerJSON decodes the answer, else its first fenced block labelled
// json, else its first unlabelled one; from says which, for the reason.
func answerJSON(answer string) (doc any, from string, err error) {
	doc, err = jsonschema.UnmarshalJSON(strings.NewReader(answer))
	if err == nil {
		return doc, "answer", nil
	}
	var block *string
	for _, m := range jsonFenceRe.FindAllStringSubmatch(answer, -1) {
		if strings.EqualFold(m[1], "json") {
			block = &m[2]
			break
		}
		if m[1] == "" && block == nil {
			block = &m[2]
		}
	}
	if block == nil {
		return nil, "", err
	}
	if doc, err = jsonschema.UnmarshalJSON(strings.NewReader(*block)); err != nil {
		return nil, "", fmt.Errorf("the fenced block is not JSON: %w", err)
	}
	return doc, "answer's fenced JSON", nil
}

// firstSchemaLeaf returns the first failing leaf of a validation error: its
// instance location as a JSON pointer ("/" for the whole document) and
// its message.
func firstSchemaLeaf(e *jsonschema.ValidationError) (at, msg string) {
	for len(e.Causes) > 0 {
		e = e.Causes[0]
	}
	at = "/" + strings.Join(pointerTokens(e.InstanceLocation), "/")
	if out := e.BasicOutput(); out != nil && out.Error != nil {
		msg = out.Error.String()
	} else {
		msg = "invalid value"
	}
	return at, msg
}

func pointerTokens(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = strings.NewReplacer("~", "~0", "/", "~1").Replace(t)
	}
	return out
}
