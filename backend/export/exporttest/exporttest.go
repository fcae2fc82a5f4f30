// Package exporttest gives tests of the session file a fixed document: a
// session with every kind of turn, with fixed ids and times, that a test
// imports into a store, exports, or breaks to see how Import refuses it.
package exporttest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Fixture is a session with every kind of turn, with fixed ids and
// times: a completed turn with a tool call, a plan, a chart and one stage;
// a stopped one with two stages and an open code fence; a failed one; and
// one still running.
func Fixture() export.Document {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	ptr := func(t time.Time) *time.Time { return &t }
	raw := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return b
	}
	seqs := map[string]int64{}
	ev := func(tr, stage string, sec int, typ turn.EventType, data any) turn.Event {
		seqs[tr]++
		if data == nil {
			data = json.RawMessage(`{}`)
		}
		return turn.Event{ID: fmt.Sprintf("%s-e%d", tr, seqs[tr]), SessionID: "sess-fixture", TurnID: tr, StageID: stage, Seq: seqs[tr],
			At: turn.Time{Time: at(sec)}, Type: typ, Phase: turn.PhaseOf(typ), Checkpoint: turn.IsCheckpoint(typ), Data: raw(data)}
	}
	stage := func(id, name, ag string, out turn.Outcome, term turn.Termination, in, outTok int, ms int64) export.Stage {
		return export.Stage{ID: id, Name: name, Agent: ag, Phase: "", Outcome: out, Termination: raw(term), Response: json.RawMessage(`null`),
			Diagnostics: raw(turn.StageDiagnostics{DurationMS: ms, Usage: llm.Usage{InputTokens: in, OutputTokens: outTok, TotalTokens: in + outTok}})}
	}
	var rows strings.Builder
	for i := range 250 {
		fmt.Fprintf(&rows, "%d-%02d,%d\n", 2000+i/12, i%12+1, 1000+i*7)
	}
	longResult := "month,sales\n```\n" + rows.String()
	chart := json.RawMessage(`{"$schema":"https://vega.github.io/schema/vega-lite/v5.json","mark":"bar","encoding":{"x":{"field":"month"},"y":{"field":"sales","type":"quantitative"}}}`)
	plan := []turn.PlanStep{{Title: "Read the data", Status: "done"}, {Title: "Draw a chart", Status: "running"}}

	t1 := export.Turn{ID: "turn-1", Seq: 1, UserMessage: "What were sales by month? Use `sales.csv`.", State: export.StateCompleted, Workflow: "chat", Model: "m",
		StartedAt: at(0), CompletedAt: ptr(at(5)), FinalText: "Sales peaked in **March**.", Outcome: turn.OutcomeSucceeded,
		Termination: raw(turn.Termination{Kind: turn.TermNaturalCompletion}),
		Result:      raw(turn.TurnCompletedData{Result: turn.Result{OK: true, FinalText: "Sales peaked in **March**.", PlanSteps: plan, Outcome: turn.OutcomeSucceeded}}),
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "What were sales by month? Use `sales.csv`."},
			{Role: llm.RoleAssistant, Content: "Let me read the file.", Reasoning: "The data is in `sales.csv`; read it <b>first</b>.",
				ReasoningDetails: json.RawMessage(`[{"type":"reasoning.text","text":"The data is in ` + "`sales.csv`" + `; read it <b>first</b>.","signature":"sig-1","index":0}]`),
				ToolCalls:        []llm.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"sales.csv"}`}}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Name: "read_file", Content: longResult},
			{Role: llm.RoleAssistant, Content: "Sales peaked in **March**.\n\n```python\nprint(max(sales))\n```"},
		},
		Stages: []export.Stage{stage("turn-1", "chat", "assistant", turn.OutcomeSucceeded, turn.Termination{Kind: turn.TermNaturalCompletion}, 800, 120, 850)},
		ModelCalls: []export.ModelCall{{StageID: "turn-1", Idx: 0, Model: "m", StartedAt: at(1), DurationMS: 400, TTFTMS: 90, InputTokens: 400, OutputTokens: 60, OK: true},
			{StageID: "turn-1", Idx: 1, Model: "m", StartedAt: at(3), DurationMS: 450, TTFTMS: 80, InputTokens: 400, OutputTokens: 60, OK: true}},
		ToolCalls: []export.ToolCall{{StageID: "turn-1", CallID: "call_1", Name: "read_file", Arguments: `{"path":"sales.csv"}`, ResultSize: len(longResult), StartedAt: at(2), DurationMS: 12, OK: true}},
		Approvals: []export.Approval{{CallID: "call_1", Tool: "read_file", Args: `{"path":"sales.csv"}`, Guard: "workspace", Answer: "allow", At: at(2)}},
	}
	t1.Events = []turn.Event{
		ev("turn-1", "turn-1", 1, turn.EventPlanGenerated, turn.PlanData{Steps: plan}),
		ev("turn-1", "turn-1", 1, turn.EventThinkStart, nil),
		ev("turn-1", "turn-1", 1, turn.EventReasoning, turn.ReasoningData{Text: "The data is in `sales.csv`; read it <b>first</b>."}),
		ev("turn-1", "turn-1", 1, turn.EventToken, turn.TokenData{Text: "Let me read the file."}),
		ev("turn-1", "turn-1", 2, turn.EventThinkEnd, turn.ThinkEndData{PromptTokens: 400, CompletionTokens: 60}),
		ev("turn-1", "turn-1", 2, turn.EventToolCall, turn.ToolCallData{CallID: "call_1", Name: "read_file", Args: json.RawMessage(`{"path":"sales.csv"}`)}),
	}
	res := ev("turn-1", "turn-1", 2, turn.EventToolResult, turn.ToolResultData{CallID: "call_1", Name: "read_file", Output: longResult, DurationMS: 12})
	res.ParentID = t1.Events[5].ID
	t1.Events = append(t1.Events, res,
		ev("turn-1", "turn-1", 3, turn.EventChart, turn.ChartData{Spec: chart, Title: "Sales by month"}),
		ev("turn-1", "turn-1", 4, turn.EventFinalAnswer, turn.FinalAnswerData{Text: "Sales peaked in **March**."}),
		ev("turn-1", "", 5, turn.EventTurnCompleted, json.RawMessage(t1.Result)),
	)

	t2 := export.Turn{ID: "turn-2", Seq: 2, UserMessage: "Write a long report", State: export.StateCancelled, Workflow: "research", Model: "m",
		StartedAt: at(60), CompletedAt: ptr(at(70)), FinalText: "Here is the start:", Outcome: turn.OutcomeCancelled,
		Termination: raw(turn.Termination{Kind: turn.TermCancelled}),
		Result:      raw(turn.TurnCompletedData{Result: turn.Result{Cancelled: true, FinalText: "Here is the start:", Outcome: turn.OutcomeCancelled}}),
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "Write a long report"},
			{Role: llm.RoleAssistant, Content: "Here is the start:\n\n```go\nfunc main() {"},
		},
		Stages: []export.Stage{
			stage("stage-2a", "research", "researcher", turn.OutcomeSucceeded, turn.Termination{Kind: turn.TermMaxIterations, Limit: 5, Used: 5}, 1200, 300, 2500),
			stage("stage-2b", "writer", "writer", turn.OutcomeCancelled, turn.Termination{Kind: turn.TermCancelled}, 500, 40, 300),
		},
		ModelCalls: []export.ModelCall{{StageID: "stage-2a", Idx: 0, Model: "m", StartedAt: at(61), DurationMS: 2500, InputTokens: 1200, OutputTokens: 300, OK: true}},
		ToolCalls:  []export.ToolCall{},
	}
	t2.Events = []turn.Event{
		ev("turn-2", "stage-2a", 60, turn.EventStageStart, nil),
		ev("turn-2", "stage-2a", 63, turn.EventStageEnd, nil),
		ev("turn-2", "stage-2b", 63, turn.EventStageStart, nil),
		ev("turn-2", "stage-2b", 70, turn.EventCancelled, turn.CancelledData{PartialText: "Here is the start:"}),
		ev("turn-2", "", 70, turn.EventTurnCompleted, json.RawMessage(t2.Result)),
	}

	t3 := export.Turn{ID: "turn-3", Seq: 3, UserMessage: "Summarise <pre> blocks", State: export.StateFailed, Workflow: "chat", Model: "m",
		StartedAt: at(120), CompletedAt: ptr(at(121)), Outcome: turn.OutcomeFailed,
		Termination: raw(turn.Termination{Kind: turn.TermFailed, Error: "the model server did not answer | try again"}),
		Result:      raw(turn.TurnCompletedData{Result: turn.Result{Error: "the model server did not answer | try again", Outcome: turn.OutcomeFailed}}),
		Messages:    []llm.Message{{Role: llm.RoleUser, Content: "Summarise <pre> blocks"}},
		Stages:      []export.Stage{stage("turn-3", "chat", "assistant", turn.OutcomeFailed, turn.Termination{Kind: turn.TermFailed, Error: "the model server did not answer | try again"}, 0, 0, 0)},
		ModelCalls:  []export.ModelCall{{StageID: "turn-3", Model: "m", StartedAt: at(120), DurationMS: 1000, Error: "connection refused"}},
		ToolCalls:   []export.ToolCall{},
	}
	t3.Events = []turn.Event{
		ev("turn-3", "", 121, turn.EventError, turn.ErrorData{Source: "llm", Message: "the model server did not answer | try again"}),
		ev("turn-3", "", 121, turn.EventTurnCompleted, json.RawMessage(t3.Result)),
	}

	t4 := export.Turn{ID: "turn-4", Seq: 4, UserMessage: "And the forecast?", State: export.StateRunning, Workflow: "chat", Model: "m",
		StartedAt: at(180), Termination: json.RawMessage(`{}`), Result: json.RawMessage(`{}`),
		Messages: []llm.Message{}, Stages: []export.Stage{}, ModelCalls: []export.ModelCall{}, ToolCalls: []export.ToolCall{}}
	t4.Events = []turn.Event{
		ev("turn-4", "", 180, turn.EventPlanGenerated, turn.PlanData{Steps: []turn.PlanStep{{Title: "Fit a trend", Status: "running"}}}),
		ev("turn-4", "", 181, turn.EventThinkStart, nil),
		ev("turn-4", "", 181, turn.EventToken, turn.TokenData{Text: "Partial answer "}),
		ev("turn-4", "", 182, turn.EventToken, turn.TokenData{Text: "so far"}),
	}

	// One line of turns, the last active.
	t2.ParentTurnID, t3.ParentTurnID, t4.ParentTurnID = t1.ID, t2.ID, t3.ID
	return export.Document{Format: export.FormatName, Version: export.Version, ExportedAt: at(200), AppVersion: "test",
		Session: export.Session{ID: "sess-fixture", Title: "Sales & forecasts", CreatedAt: t0, UpdatedAt: at(180), Provider: "local",
			Model: "m", Workflow: "chat", Workspace: "/tmp/ws", Settings: json.RawMessage(`{"temperature":0.2}`), ActiveTurnID: t4.ID},
		Turns: []export.Turn{t1, t2, t3, t4}}
}

// Exchange is one turn of a Chat document: a message and its answer.
type Exchange struct {
	// ID names the turn; Parent the turn it follows ("" for a first
	// message).
	ID, Parent string
	// User is the message; Answer the answer's text.
	User, Answer string
	// State is the turn's state, completed if "". Termination says how
	// it ended: by default as its state says (stopped, failed, or a
	// natural end).
	State       export.TurnState
	Termination turn.Termination
	// Continues marks a continuation of Parent's answer.
	Continues bool
	// Messages are the turn's messages: by default User (unless "") and
	// Answer (unless "").
	Messages []llm.Message
	// In and Out are the tokens of the turn's one stage.
	In, Out int
}

// Chat is a session of plain one-stage exchanges with fixed ids and times,
// a minute apart, the last active.
func Chat(exchanges ...Exchange) export.Document {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	raw := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return b
	}
	doc := export.Document{Format: export.FormatName, Version: export.Version, ExportedAt: t0.Add(time.Hour), AppVersion: "test",
		Session: export.Session{ID: "sess-chat", Title: "Chat", CreatedAt: t0, UpdatedAt: t0, Provider: "local",
			Model: "m", Workflow: "chat", Settings: json.RawMessage(`{}`)}}
	for i, x := range exchanges {
		start := t0.Add(time.Duration(i) * time.Minute)
		end := start.Add(10 * time.Second)
		state, term := x.State, x.Termination
		if state == "" {
			state = export.StateCompleted
		}
		if term.Kind == "" {
			term.Kind = map[export.TurnState]turn.TerminationKind{export.StateCancelled: turn.TermCancelled, export.StateInterrupted: turn.TermInterrupted,
				export.StateFailed: turn.TermFailed}[state]
			if term.Kind == "" {
				term.Kind = turn.TermNaturalCompletion
			}
		}
		res := turn.Result{OK: state == export.StateCompleted, Cancelled: state == export.StateCancelled, FinalText: x.Answer, Termination: term}
		res.Outcome = map[bool]turn.Outcome{true: turn.OutcomeSucceeded, false: turn.OutcomeFailed}[res.OK]
		if res.Cancelled {
			res.Outcome = turn.OutcomeCancelled
		}
		msgs := x.Messages
		if msgs == nil {
			msgs = []llm.Message{}
			if x.User != "" {
				msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: x.User})
			}
			if x.Answer != "" {
				msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: x.Answer})
			}
		}
		result := raw(turn.TurnCompletedData{Result: res})
		doc.Turns = append(doc.Turns, export.Turn{ID: x.ID, Seq: i + 1, UserMessage: x.User, State: state, Workflow: "chat", Model: "m",
			StartedAt: start, CompletedAt: &end, FinalText: x.Answer, Outcome: res.Outcome, Termination: raw(term), Result: result,
			ParentTurnID: x.Parent, Continues: x.Continues, Messages: msgs,
			Events: []turn.Event{{ID: x.ID + "-e1", SessionID: doc.Session.ID, TurnID: x.ID, Seq: 1, At: turn.Time{Time: end},
				Type: turn.EventTurnCompleted, Phase: turn.PhaseOf(turn.EventTurnCompleted), Checkpoint: turn.IsCheckpoint(turn.EventTurnCompleted), Data: result}},
			Stages: []export.Stage{{ID: x.ID, Name: "chat", Agent: "assistant", Outcome: res.Outcome, Termination: raw(term), Response: json.RawMessage(`null`),
				Diagnostics: raw(turn.StageDiagnostics{DurationMS: 10_000, Usage: llm.Usage{InputTokens: x.In, OutputTokens: x.Out, TotalTokens: x.In + x.Out}})}},
			ModelCalls: []export.ModelCall{}, ToolCalls: []export.ToolCall{}})
		doc.Session.UpdatedAt, doc.Session.ActiveTurnID = end, x.ID
	}
	return doc
}

// AddImage gives doc an image, as an export of a session with images
// holds it: im (TurnID, MIME, Data, and Name, Width and Height if known)
// completed with an id (if it has none), size and SHA-256, and named in
// the first user message of its turn. It returns the name, as a message
// holds it, to give other messages the same image.
func AddImage(doc *export.Document, im export.Image) llm.Image {
	if im.ID == "" {
		im.ID = fmt.Sprintf("img-%d", len(doc.Images)+1)
	}
	sum := sha256.Sum256(im.Data)
	im.Size, im.SHA256 = len(im.Data), hex.EncodeToString(sum[:])
	ref := llm.Image{ID: im.ID, MIME: im.MIME, Name: im.Name, Width: im.Width, Height: im.Height, Size: im.Size, SHA256: im.SHA256}
	doc.Images = append(doc.Images, im)
	for i := range doc.Turns {
		t := &doc.Turns[i]
		for j := range t.Messages {
			if t.ID == im.TurnID && t.Messages[j].Role == llm.RoleUser {
				t.Messages[j].Images = append(t.Messages[j].Images, ref)
				return ref
			}
		}
	}
	panic("AddImage: turn " + im.TurnID + " has no user message")
}

// JSON is doc as the JSON file holds it (export.Encode).
func JSON(t testing.TB, doc export.Document) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := export.Encode(&buf, &doc); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
