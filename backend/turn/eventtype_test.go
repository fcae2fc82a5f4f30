package turn_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// source is what the package's own files declare: the EventType constants
// in order, and the types with an EventType method.
type source struct {
	eventTypes []turn.EventType
	payloads   map[string]bool
}

func parseSource(t *testing.T) source {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	src := source{payloads: map[string]bool{}}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				if d.Tok != token.CONST {
					continue
				}
				for _, s := range d.Specs {
					vs := s.(*ast.ValueSpec)
					if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "EventType" {
						continue
					}
					for _, v := range vs.Values {
						lit := v.(*ast.BasicLit)
						s, _ := strconv.Unquote(lit.Value)
						src.eventTypes = append(src.eventTypes, turn.EventType(s))
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil && d.Name.Name == "EventType" {
					src.payloads[d.Recv.List[0].Type.(*ast.Ident).Name] = true
				}
			}
		}
	}
	return src
}

// Every event type has exactly one payload type, which Payloads lists, in
// the order of the constants; and the kinds table gives every type a phase.
func TestEveryEventTypeHasOnePayload(t *testing.T) {
	src := parseSource(t)
	if len(src.eventTypes) < 30 {
		t.Fatalf("found %d EventType constants; the parse missed some", len(src.eventTypes))
	}
	byType := map[turn.EventType][]string{}
	listed := map[string]bool{}
	var order []turn.EventType
	for _, p := range turn.Payloads() {
		name := reflect.TypeOf(p).Name()
		if listed[name] {
			t.Errorf("Payloads lists %s twice", name)
		}
		listed[name] = true
		byType[p.EventType()] = append(byType[p.EventType()], name)
		order = append(order, p.EventType())
	}
	for name := range src.payloads {
		if !listed[name] {
			t.Errorf("%s has an EventType method but Payloads does not list it", name)
		}
	}
	for _, typ := range src.eventTypes {
		if got := byType[typ]; len(got) != 1 {
			t.Errorf("%s has payload types %v, want exactly one", typ, got)
		}
		if turn.PhaseOf(typ) == "" {
			t.Errorf("%s is missing from the kinds table", typ)
		}
	}
	for typ := range byType {
		if !slices.Contains(src.eventTypes, typ) {
			t.Errorf("a payload says %q, which is no EventType constant", typ)
		}
	}
	if !reflect.DeepEqual(order, src.eventTypes) {
		t.Errorf("Payloads is not in the order of the constants:\n%v\n%v", order, src.eventTypes)
	}
}

// The payload an event is emitted with gives it its type, and its data is
// the payload as encoding/json writes it: the empty payloads write {}, and
// stage_end's is the stage's result field for field.
func TestEmitTakesTheTypeFromThePayload(t *testing.T) {
	sr := turn.StageResult{ID: "st", Name: "draft", Agent: "writer", Outcome: turn.OutcomeSucceeded}
	srJSON, _ := json.Marshal(sr)
	tests := []struct {
		data turn.Payload
		typ  turn.EventType
		want string
	}{
		{turn.ThinkStartData{}, turn.EventThinkStart, `{}`},
		{turn.TokenData{Text: "hi"}, turn.EventToken, `{"text":"hi"}`},
		{turn.ReasoningData{Text: "hm"}, turn.EventReasoning, `{"text":"hm"}`},
		{turn.RefiningData{Iteration: 2}, turn.EventRefining, `{"iteration":2}`},
		{turn.StageEndData(sr), turn.EventStageEnd, string(srJSON)},
		{turn.FinalAnswerData{Text: "done"}, turn.EventFinalAnswer, `{"text":"done"}`},
	}
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t"})
	for _, tt := range tests {
		e := em.Emit(turn.Draft{StageID: "st", Data: tt.data})
		if e.Type != tt.typ || string(e.Data) != tt.want {
			t.Errorf("%T: %s %s, want %s %s", tt.data, e.Type, e.Data, tt.typ, tt.want)
		}
		if e.Phase != turn.PhaseOf(tt.typ) || e.Checkpoint != turn.IsCheckpoint(tt.typ) {
			t.Errorf("%T: phase %s checkpoint %v", tt.data, e.Phase, e.Checkpoint)
		}
	}
}

// Every Draft written in the module names its payload: one without has no
// type, which only this check (and the Emitter's log) would tell.
func TestEveryDraftHasAPayload(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "frontend" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || filepath.Base(path) == "eventtype_test.go" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(src, []byte("Draft{")) {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || !isDraft(lit.Type) {
				return true
			}
			for _, el := range lit.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Data" {
						return true
					}
				}
			}
			t.Errorf("%s: a Draft without its payload (Data)", fset.Position(lit.Pos()))
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func isDraft(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "Draft"
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && x.Name == "turn" && e.Sel.Name == "Draft"
	}
	return false
}

// A draft without a payload has no type: it is dropped, not sent untyped.
func TestEmitDropsADraftWithoutPayload(t *testing.T) {
	var got []turn.Event
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{turn.SinkFunc(func(e turn.Event) error {
		got = append(got, e)
		return nil
	})}})
	em.Emit(turn.Draft{StageID: "st"})
	em.Emit(turn.Draft{Data: turn.ThinkStartData{}})
	if len(got) != 1 || got[0].Type != turn.EventThinkStart || got[0].Seq != 1 {
		t.Fatalf("sinks saw %+v", got)
	}
}
