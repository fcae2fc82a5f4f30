package app

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// kindsOf is the kinds of a subscriber's envelopes, with the run id of
// each EvalProgress, to tell them apart.
func kindsOf(envs []Envelope) []string {
	out := make([]string, len(envs))
	for i, env := range envs {
		out[i] = string(env.Kind)
		if p, ok := env.Data.(EvalProgress); ok {
			out[i] += ":" + p.RunID
		}
	}
	return out
}

// A subscriber gets what is published from its Subscribe to its Close, in
// the order it was published, and its leaving changes nothing for the
// others.
func TestBusSubscribers(t *testing.T) {
	t.Parallel()
	b := NewBus()
	progress := func(id string) Message { return EvalProgress{RunID: id} }
	b.Publish(progress("1")) // before anyone listens
	subA, subB := b.Subscribe(uiQueue), b.Subscribe(uiQueue)
	b.Publish(progress("2"))
	b.Publish(TurnsChanged{{TurnID: "t"}})
	subA.Close()
	b.Publish(progress("3"))
	subC := b.Subscribe(uiQueue)
	b.Publish(progress("4"))
	a, bb, c := subA.Drain(), subB.Drain(), subC.Drain()
	subB.Close()
	subC.Close()
	subC.Close() // twice is harmless
	b.Publish(progress("5"))
	for _, tt := range []struct {
		name      string
		got, want []string
	}{
		{"a", kindsOf(a), nil},
		{"b", kindsOf(bb), []string{"eval_progress:2", "turns_changed", "eval_progress:3", "eval_progress:4"}},
		{"c", kindsOf(c), []string{"eval_progress:4"}},
	} {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("subscriber %s got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if len(b.subs) != 0 {
		t.Fatalf("%d subscribers left after every Close", len(b.subs))
	}
}

// A subscriber that falls limit messages behind loses them for one Resync,
// and gets what follows after it; Publish never waits for it.
func TestBusSlowSubscriberResyncs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		limit, n int
		want     []string
	}{
		{name: "within its limit", limit: 3, n: 3, want: []string{"eval_progress:1", "eval_progress:2", "eval_progress:3"}},
		{name: "one past it", limit: 3, n: 4, want: []string{"resync", "eval_progress:4"}},
		{name: "past it and on", limit: 3, n: 5, want: []string{"resync", "eval_progress:4", "eval_progress:5"}},
		{name: "past it twice", limit: 3, n: 7, want: []string{"resync", "eval_progress:6", "eval_progress:7"}},
		{name: "a limit too small for a resync is 2", limit: 0, n: 3, want: []string{"resync", "eval_progress:3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBus()
			sub := b.Subscribe(tt.limit)
			defer sub.Close()
			for i := 1; i <= tt.n; i++ {
				b.Publish(EvalProgress{RunID: fmt.Sprint(i)})
			}
			select {
			case <-sub.Ready():
			default:
				t.Fatal("not ready with messages waiting")
			}
			if got := kindsOf(sub.Drain()); !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			if got := sub.Drain(); len(got) != 0 {
				t.Fatalf("drained twice: %v", kindsOf(got))
			}
		})
	}
}

// Publishers on many goroutines: every subscriber sees the same order, and
// each publisher's messages in the order it published them.
func TestBusOrderUnderConcurrentPublishers(t *testing.T) {
	t.Parallel()
	const publishers, each = 4, 200
	b := NewBus()
	subs := []*Subscription{b.Subscribe(publishers * each), b.Subscribe(publishers * each)}
	var wg sync.WaitGroup
	for p := range publishers {
		wg.Go(func() {
			for i := range each {
				b.Publish(EvalProgress{RunID: fmt.Sprint(p), Done: i})
			}
		})
	}
	wg.Wait()
	var first []string
	for n, sub := range subs {
		got := sub.Drain()
		sub.Close()
		next := map[string]int{}
		for _, env := range got {
			p := env.Data.(EvalProgress)
			if p.Done != next[p.RunID] {
				t.Fatalf("subscriber %d: publisher %s's message %d came when %d was due", n, p.RunID, p.Done, next[p.RunID])
			}
			next[p.RunID]++
		}
		if len(got) != publishers*each {
			t.Fatalf("subscriber %d got %d messages, want %d", n, len(got), publishers*each)
		}
		seq := make([]string, len(got))
		for i, env := range got {
			p := env.Data.(EvalProgress)
			seq[i] = fmt.Sprint(p.RunID, "/", p.Done)
		}
		if n == 0 {
			first = seq
		} else if !slices.Equal(seq, first) {
			t.Fatal("two subscribers saw the messages in different orders")
		}
	}
}

// Pump hands every message on, in order, on the caller's goroutine, and
// returns at Close (TestMain's goleak checks that it did).
func TestBusPump(t *testing.T) {
	t.Parallel()
	b := NewBus()
	sub := b.Subscribe(uiQueue)
	got := make(chan Envelope)
	pumped := make(chan struct{})
	go func() {
		defer close(pumped)
		sub.Pump(func(env Envelope) { got <- env })
	}()
	for i := range 3 {
		b.Publish(EvalProgress{RunID: fmt.Sprint(i)})
	}
	for i := range 3 {
		if p := (<-got).Data.(EvalProgress); p.RunID != fmt.Sprint(i) {
			t.Fatalf("message %d is run %s", i, p.RunID)
		}
	}
	sub.Close()
	<-pumped
	b.Publish(EvalProgress{}) // after Close: reaches no one, blocks nothing
}

// Each payload goes out tagged with its kind, its data as the payload's
// own JSON: {"kind":...,"data":...}.
func TestEnvelopeJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg  Message
		want string
	}{
		{EventBatch{{Event: turn.Event{TurnID: "t", Seq: 3, Type: turn.EventToken}, FirstSeq: 2}}, `{"kind":"events","data":[{`},
		{PendingApproval{ApprovalRequest: agent.ApprovalRequest{Guard: "g"}}, `{"kind":"approval","data":{`},
		{TurnsChanged{{TurnID: "t", SessionID: "s", State: store.StateInterrupted}}, `{"kind":"turns_changed","data":[{"turn_id":"t","session_id":"s","state":"interrupted"}]}`},
		{EvalProgress{RunID: "r", State: store.EvalRunning}, `{"kind":"eval_progress","data":{"run_id":"r",`},
		{Resync{}, `{"kind":"resync","data":{}}`},
	}
	for _, tt := range tests {
		t.Run(string(tt.msg.Kind()), func(t *testing.T) {
			b := NewBus()
			sub := b.Subscribe(uiQueue)
			defer sub.Close()
			b.Publish(tt.msg)
			got, err := json.Marshal(sub.Drain()[0])
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(got), tt.want) {
				t.Fatalf("%s\nwant it to begin %s", got, tt.want)
			}
		})
	}
}

// The kinds are declared in bus.go and nowhere else, so a new kind is one
// line there. (The frontend's union is generated from them and from each
// payload's Kind method: make types-check keeps it in step.)
func TestBusKindsLiveInBusGo(t *testing.T) {
	t.Parallel()
	goKinds := map[string]string{} // kind: the file declaring it
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "MessageKind" {
						continue
					}
					for _, v := range vs.Values {
						if lit, ok := v.(*ast.BasicLit); ok {
							goKinds[strings.Trim(lit.Value, `"`)] = name
						}
					}
				}
			}
		}
	}
	for kind, file := range goKinds {
		if file != "bus.go" {
			t.Errorf("the kind %q is declared in %s: the kinds live in bus.go", kind, file)
		}
	}
}
