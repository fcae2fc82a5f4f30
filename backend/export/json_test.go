package export

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// TestEncodeMatchesEncodingJSON: the document Encode writes by hand reads
// back as what encoding/json would have written, for every field of every
// type of the document, each set (a new field the writer misses fails
// here), strings holding what JSON must escape, invalid UTF-8 and the
// characters encoding/json treats specially. Empty lists, absent images
// and nil values read back as encoding/json's do too, except that a
// list of the document that is nil is written empty (Decode reads null and
// [] the same).
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	full := Document{}
	fillAll(reflect.ValueOf(&full).Elem(), "v")
	tests := []struct {
		name string
		doc  Document
	}{
		{"every field set", full},
		{"empty", Document{Format: FormatName, Version: 3, Turns: []Turn{}}},
		{"empty lists and nil values", Document{Format: FormatName, Version: 4, Session: Session{ID: "s"},
			Turns:  []Turn{{ID: "t", Seq: 1, Messages: []llm.Message{}, Events: nil, Stages: []Stage{{ID: "st"}}, ModelCalls: []ModelCall{}, ToolCalls: nil, Approvals: []Approval{}}},
			Images: []Image{{ID: "i", Data: []byte{}}, {ID: "j"}}, Captures: []Capture{{Key: "k", Calls: []Call{}}},
			Documents: []KnowledgeDocument{{ID: "d", Passages: []KnowledgePassage{}}, {ID: "e"}, {ID: "f", Passages: []KnowledgePassage{{ID: 1}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got bytes.Buffer
			if err := Encode(&got, &tt.doc); err != nil {
				t.Fatal(err)
			}
			if !json.Valid(got.Bytes()) {
				t.Fatalf("Encode wrote invalid JSON:\n%s", got.Bytes())
			}
			want, err := json.Marshal(listsAsWritten(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if a, b := decodeAny(t, got.Bytes()), decodeAny(t, want); !reflect.DeepEqual(a, b) {
				t.Fatalf("Encode wrote\n%s\nencoding/json\n%s", got.Bytes(), want)
			}
		})
	}
}

// TestEncodeIndents: the top levels of the file are indented, one field to
// a line, and a turn's messages and events one to a line, so a person can
// read the file and a line-based diff of two exports says which event
// changed.
func TestEncodeIndents(t *testing.T) {
	doc := Document{Format: FormatName, Version: 3, Session: Session{ID: "s", Settings: json.RawMessage(`{"a":1}`)},
		Turns: []Turn{{ID: "t", Seq: 1, Messages: []llm.Message{{Role: "user", Content: "hi"}}, Events: []turn.Event{{ID: "e1", Seq: 1, Data: json.RawMessage(`{"text":"x"}`)}, {ID: "e2", Seq: 2}}}}}
	var b bytes.Buffer
	if err := Encode(&b, &doc); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	for _, want := range []string{
		`  "format": "agentdeck-session",`,
		`  "version": 3,`,
		`    "settings": {"a":1}`,
		`      "seq": 1,`,
		`        {"role":"user","content":"hi"}`,
		`        {"id":"e1","session_id":"","turn_id":"","stage_id":"","seq":1,"parent_id":"","at":"0001-01-01T00:00:00.000Z","type":"","phase":"","checkpoint":false,"data":{"text":"x"}},`,
	} {
		found := false
		for _, l := range lines {
			found = found || l == want
		}
		if !found {
			t.Errorf("no line %q in\n%s", want, b.String())
		}
	}
}

// listsAsWritten is doc with the lists Encode writes empty when they are
// nil made empty.
func listsAsWritten(doc Document) *Document {
	empty := func(v any) {
		if p := reflect.ValueOf(v).Elem(); p.IsNil() {
			p.Set(reflect.MakeSlice(p.Type(), 0, 0))
		}
	}
	empty(&doc.Turns)
	doc.Turns = slices.Clone(doc.Turns) // not the caller's turns
	for i := range doc.Turns {
		t := &doc.Turns[i]
		empty(&t.Messages)
		empty(&t.Events)
		empty(&t.Stages)
		empty(&t.ModelCalls)
		empty(&t.ToolCalls)
	}
	doc.Documents = slices.Clone(doc.Documents)
	for i := range doc.Documents {
		empty(&doc.Documents[i].Passages)
	}
	return &doc
}

func decodeAny(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v in\n%s", err, b)
	}
	return v
}

// tricky is in every string fillAll sets: what JSON escapes, HTML
// characters (left as they are), invalid UTF-8 and JavaScript's line ends.
const tricky = "a\"b\\c\n\r\t\x01\x1f<&>é€😀\u2028\u2029\xff\xc3"

// fillAll sets every settable field below v, so that each is written.
func fillAll(v reflect.Value, name string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(name + tricky)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(len(name)) + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(len(name)) + 1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(v.Elem(), name)
	case reflect.Slice:
		switch {
		case v.Type() == reflect.TypeOf(json.RawMessage(nil)):
			v.SetBytes([]byte(`{"` + name + `":[1,"x\u00e9",null,{"n":true}]}`))
		case v.Type().Elem().Kind() == reflect.Uint8:
			v.SetBytes([]byte("bytes of " + name + "\x00\xff"))
		default:
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			for i := range 2 {
				fillAll(v.Index(i), name+"_"+string(rune('a'+i)))
			}
		}
	case reflect.Map:
		if v.Type().Key().Kind() == reflect.String {
			v.Set(reflect.MakeMap(v.Type()))
			e := reflect.New(v.Type().Elem()).Elem()
			fillAll(e, name+"_value")
			v.SetMapIndex(reflect.ValueOf(name+"_key").Convert(v.Type().Key()), e)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Date(2025, 3, 1, 10, 0, len(name)%60, 123456789, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				fillAll(f, name+"."+v.Type().Field(i).Name)
			}
		}
	}
}
