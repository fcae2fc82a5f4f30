package foreign

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
)

// App is the app a file came from, as a person names it.
type App string

// The formats Read knows.
const (
	Ours      App = "Agentdeck"
	ChatGPT   App = "ChatGPT"
	OpenWebUI App = "Open WebUI"
	LMStudio  App = "LM Studio"
	OpenAI    App = "OpenAI messages"
)

// Result is what Read made of a file: one document per conversation, in
// the file's order, and the report of what it took and left out.
type Result struct {
	App       App
	Documents []export.Document
	Report    FileReport
}

// FileReport says what an import took and what it left out, per
// conversation.
type FileReport struct {
	App           App                  `json:"app"`
	Conversations []ConversationReport `json:"conversations"`
	// Empty are the titles of the conversations that held no message
	// with text (or whose tree had no start): no session was made.
	Empty []string `json:"empty,omitempty"`
}

// ConversationReport is one conversation of the file.
type ConversationReport struct {
	Title string `json:"title"`
	// SessionID is the session it became (set once stored).
	SessionID string `json:"session_id,omitempty"`
	Turns     int    `json:"turns"`
	// Branches is how many branches the tree has (its turns that no turn
	// follows); 1 for a conversation without versions.
	Branches int `json:"branches"`
	// LeftOut says what was not imported, one line a kind ("3 images not
	// in the file").
	LeftOut []string `json:"left_out"`
}

// Totals sums the report's conversations.
func (r FileReport) Totals() (turns, branches int) {
	for _, c := range r.Conversations {
		turns += c.Turns
		branches += c.Branches
	}
	return turns, branches
}

// Read detects the file's format and converts its conversations. name is
// the file's name, used only in messages. Our own export comes back as
// Ours with no documents: export.Decode reads it.
func Read(ctx context.Context, name string, data []byte) (Result, error) {
	f, err := Detect(data)
	if err != nil {
		return Result{}, placed(name, err)
	}
	if f == Ours {
		return Result{App: Ours, Report: FileReport{App: Ours}}, nil
	}
	var convs []*conv
	switch f {
	case ChatGPT:
		convs, err = readChatGPT(data)
	case OpenWebUI:
		convs, err = readOpenWebUI(data)
	case LMStudio:
		convs, err = readLMStudio(data)
	default:
		convs, err = readOpenAI(data)
	}
	if err != nil {
		return Result{}, placed(name, err)
	}
	if len(convs) == 0 {
		return Result{}, apperr.New(apperr.Invalid, "%s holds no conversations; nothing was imported.", name)
	}
	res := Result{App: f, Report: FileReport{App: f}}
	for _, c := range convs {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		doc, rep := c.document(f)
		if len(doc.Turns) == 0 {
			res.Report.Empty = append(res.Report.Empty, rep.Title)
			continue
		}
		res.Documents = append(res.Documents, doc)
		res.Report.Conversations = append(res.Report.Conversations, rep)
	}
	if len(res.Documents) == 0 {
		return Result{}, apperr.New(apperr.Invalid, "%s holds no messages with text to import; nothing was imported.", name)
	}
	return res, nil
}

// Detect tells the file's format from its content.
func Detect(data []byte) (App, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return "", &placeError{msg: "is empty"}
	}
	if trimmed[0] != '[' && trimmed[0] != '{' {
		return "", &placeError{msg: "is not JSON or JSONL: it does not start with [ or {"}
	}
	if !json.Valid(trimmed) {
		if f, ok := detectJSONL(trimmed); ok {
			return f, nil
		}
		return "", syntaxError(data)
	}
	if trimmed[0] == '{' {
		var o map[string]json.RawMessage
		_ = json.Unmarshal(trimmed, &o)
		return detectObject(o), nil
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &list); err != nil {
		return "", &placeError{at: "[0]", msg: "is not an object: the file is a list, but not of conversations or messages"}
	}
	if len(list) == 0 {
		return "", &placeError{msg: "is an empty list: it holds no conversations"}
	}
	if _, ok := list[0]["role"]; ok {
		return OpenAI, nil
	}
	return detectObject(list[0]), nil
}

// detectObject tells a conversation object's app by its fields.
func detectObject(o map[string]json.RawMessage) App {
	switch {
	case string(o["format"]) == `"`+export.FormatName+`"`:
		return Ours
	case o["mapping"] != nil:
		return ChatGPT
	case o["history"] != nil, o["chat"] != nil:
		return OpenWebUI
	case o["messages"] != nil && bytes.Contains(o["messages"], []byte(`"versions"`)):
		return LMStudio
	}
	return OpenAI
}

// detectJSONL accepts a file whose first line is a JSON object.
func detectJSONL(data []byte) (App, bool) {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	var o map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(first), &o) != nil {
		return "", false
	}
	return OpenAI, true
}

// placeError is a fault at a place in the file: a JSON path (at) or a
// line and column.
type placeError struct {
	at  string
	msg string
}

func (e *placeError) Error() string { return strings.TrimSpace(e.at + " " + e.msg) }

// errAt is a fault at a JSON path.
func errAt(at, format string, args ...any) error {
	return &placeError{at: at, msg: fmt.Sprintf(format, args...)}
}

// placed makes a reader's fault a message a person can act on.
func placed(name string, err error) error {
	pe, ok := err.(*placeError)
	if !ok {
		return err
	}
	where := name
	switch {
	case pe.at == "":
	case pe.at[0] >= '0' && pe.at[0] <= '9': // line:col: or line: path
		where = name + ":" + pe.at
	case strings.HasPrefix(pe.at, "["):
		where = name + pe.at
	case pe.at != "":
		where = name + ": " + pe.at
	}
	return apperr.New(apperr.Invalid, "This file cannot be imported: %s %s. Nothing was imported.", where, pe.msg)
}

// syntaxError names the line and column of the file's first JSON fault.
func syntaxError(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var off int64
	msg := "is not valid JSON"
	switch e := err.(type) {
	case *json.SyntaxError:
		off, msg = e.Offset, "is not valid JSON: "+e.Error()
	default:
		if err != nil {
			msg = "is not valid JSON: " + err.Error()
		}
		off = int64(len(data))
	}
	line, col := lineCol(data, off)
	return &placeError{at: fmt.Sprintf("%d:%d:", line, col), msg: msg}
}

// lineCol is the 1-based line and column of byte offset off.
func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// decodeAt decodes raw into v, naming the place of a value of the wrong
// kind under the path at.
func decodeAt(raw json.RawMessage, v any, at string) error {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		p := at
		if te.Field != "" {
			p = joinPath(at, te.Field)
		}
		return errAt(p, "is %s where %s was expected", valueKind(te.Value), kindOf(te.Type.Kind().String()))
	}
	return errAt(at, "cannot be read: %v", err)
}

// valueKind names a JSON value's kind as UnmarshalTypeError gives it.
func valueKind(v string) string {
	switch v {
	case "number", "string":
		return "a " + v
	case "object":
		return "an object"
	case "array":
		return "a list"
	case "bool":
		return "true or false"
	}
	return v
}

func kindOf(k string) string {
	switch k {
	case "string":
		return "a string"
	case "slice":
		return "a list"
	case "map", "struct":
		return "an object"
	case "float64", "int", "int64":
		return "a number"
	}
	return k
}

// joinPath joins a JSON path and a field path.
func joinPath(at, field string) string {
	if at == "" {
		return field
	}
	return at + "." + field
}

// leftOut counts what a conversation left out, by kind (its plural),
// with the kind's singular for a count of one.
type leftOut struct {
	n   map[string]int
	one map[string]string
}

func newLeftOut() *leftOut { return &leftOut{n: map[string]int{}, one: map[string]string{}} }

func (l *leftOut) add(one, many string, n int) {
	if n > 0 {
		l.n[many] += n
		l.one[many] = one
	}
}

// lines is the report's list: "3 images not in the file", sorted.
func (l *leftOut) lines() []string {
	out := []string{}
	for many, n := range l.n {
		kind := many
		if n == 1 {
			kind = l.one[many]
		}
		out = append(out, fmt.Sprintf("%d %s", n, kind))
	}
	sort.Strings(out)
	return out
}

func sortStrings(s []string) { sort.Strings(s) }
