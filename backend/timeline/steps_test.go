package timeline_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/timeline"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// e is one event of a test log: its type, stage id and data.
type e struct {
	typ   turn.EventType
	stage string
	data  string
}

// log numbers the events from 1, as the event log does.
func log(evs ...e) []turn.Event {
	out := make([]turn.Event, len(evs))
	for i, ev := range evs {
		data := ev.data
		if data == "" {
			data = "{}"
		}
		out[i] = turn.Event{Seq: int64(i + 1), ID: fmt.Sprintf("ev%d", i+1), Type: ev.typ, StageID: ev.stage, Data: json.RawMessage(data)}
	}
	return out
}

// brief is a step as the table states it: "id rc=R tools=T" and what
// else it carries.
func brief(s timeline.TimelineStep) string {
	b := fmt.Sprintf("%s@%d rc=%d tools=%d", s.ID, s.Seq, s.RecordedCalls, s.Tools)
	if s.Stage != "" {
		b += " stage=" + s.Stage + "/" + s.Agent
	}
	if s.Recorded {
		b += " recorded"
	}
	if s.Tool != "" {
		b += " " + s.Tool + "#" + s.CallID
	}
	if s.Error {
		b += " error"
	}
	if s.Live {
		b += " live"
	}
	return b
}

var (
	thinkStart = e{typ: turn.EventThinkStart}
	recordedOK = e{typ: turn.EventThinkEnd, data: `{"capture":"recorded"}`}
	replayedOK = e{typ: turn.EventThinkEnd, data: `{"capture":"replayed"}`}
	failedCall = e{typ: turn.EventThinkEnd, data: `{"capture":""}`}
	pre45      = e{typ: turn.EventThinkEnd, data: `{"prompt_tokens":3}`}
)

func result(id, name string) e {
	return e{typ: turn.EventToolResult, data: fmt.Sprintf(`{"call_id":%q,"name":%q,"output":"ok"}`, id, name)}
}

func inStage(ev e, stage string) e { ev.stage = stage; return ev }

func TestSteps(t *testing.T) {
	tests := []struct {
		name string
		log  []turn.Event
		want []string
	}{
		{"no events: the start alone", nil, []string{"start@0 rc=0 tools=0"}},
		{"chat with tools, two of them in one batch", log(
			thinkStart, recordedOK, result("a1", "append_line"), result("s1", "shout"),
			thinkStart, recordedOK, result("a2", "append_line"),
			thinkStart, recordedOK,
		), []string{
			"start@0 rc=0 tools=0",
			"call1@1 rc=0 tools=0 recorded",
			"tool1@3 rc=1 tools=0 append_line#a1",
			"tool2@4 rc=1 tools=1 shout#s1",
			"call2@5 rc=1 tools=2 recorded",
			"tool3@7 rc=2 tools=2 append_line#a2",
			"call3@8 rc=2 tools=3 recorded",
		}},
		{"stages name their steps", log(
			e{typ: turn.EventStageStart, stage: "S1", data: `{"stage":"write","agent":"writer"}`},
			inStage(thinkStart, "S1"), inStage(recordedOK, "S1"),
			e{typ: turn.EventStageStart, stage: "S2", data: `{"stage":"critique 1","agent":"critic"}`},
			inStage(thinkStart, "S2"), inStage(recordedOK, "S2"),
		), []string{
			"start@0 rc=0 tools=0",
			"stage1@1 rc=0 tools=0 stage=write/writer",
			"call1@2 rc=0 tools=0 stage=write/writer recorded",
			"stage2@4 rc=1 tools=0 stage=critique 1/critic",
			"call2@5 rc=1 tools=0 stage=critique 1/critic recorded",
		}},
		{"a failed call has no recording and does not count", log(
			thinkStart, recordedOK, thinkStart, failedCall, thinkStart, recordedOK,
		), []string{"start@0 rc=0 tools=0", "call1@1 rc=0 tools=0 recorded", "call2@3 rc=1 tools=0", "call3@5 rc=1 tools=0 recorded"}},
		{"a tool error is a step", log(
			thinkStart, recordedOK, e{typ: turn.EventToolError, data: `{"call_id":"w1","name":"write_file","error":"denied"}`},
		), []string{"start@0 rc=0 tools=0", "call1@1 rc=0 tools=0 recorded", "tool1@3 rc=1 tools=0 write_file#w1 error"}},
		{"a compression summary counts as a recorded call", log(
			thinkStart, recordedOK,
			e{typ: turn.EventContextCompressed, data: `{"summarized":true}`},
			thinkStart, recordedOK,
			e{typ: turn.EventContextCompressed, data: `{"summarized":false}`},
			thinkStart, recordedOK,
		), []string{"start@0 rc=0 tools=0", "call1@1 rc=0 tools=0 recorded", "call2@4 rc=2 tools=0 recorded", "call3@7 rc=3 tools=0 recorded"}},
		{"think_end from before issue 45 (no capture) counts as recorded", log(
			thinkStart, pre45, thinkStart, pre45,
		), []string{"start@0 rc=0 tools=0", "call1@1 rc=0 tools=0 recorded", "call2@3 rc=1 tools=0 recorded"}},
		{"a replayed call is recorded", log(thinkStart, replayedOK),
			[]string{"start@0 rc=0 tools=0", "call1@1 rc=0 tools=0 recorded"}},
		{"live_from marks the call under way and what follows live", log(
			thinkStart, replayedOK, result("a1", "append_line"),
			thinkStart, e{typ: turn.EventLiveFrom, data: `{"from_step":"call2"}`}, recordedOK, result("a2", "append_line"),
		), []string{
			"start@0 rc=0 tools=0",
			"call1@1 rc=0 tools=0 recorded",
			"tool1@3 rc=1 tools=0 append_line#a1",
			"call2@4 rc=1 tools=1 recorded live",
			"tool2@7 rc=2 tools=1 append_line#a2 live",
		}},
		{"live_from at a tool: the tool result after it is live", log(
			thinkStart, replayedOK, e{typ: turn.EventLiveFrom}, result("a1", "append_line"), thinkStart, recordedOK,
		), []string{"start@0 rc=0 tools=0", "call1@1 rc=0 tools=0 recorded", "tool1@4 rc=1 tools=0 append_line#a1 live", "call2@5 rc=1 tools=1 recorded live"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range timeline.Steps(tt.log) {
				got = append(got, brief(s))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("steps\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestStepLabels(t *testing.T) {
	for _, tt := range []struct {
		step timeline.TimelineStep
		want string
	}{
		{timeline.TimelineStep{Kind: timeline.KindStart}, "Start of the turn"},
		{timeline.TimelineStep{Kind: timeline.KindStage, N: 2, Stage: "critique 1"}, "Stage 2 (critique 1)"},
		{timeline.TimelineStep{Kind: timeline.KindCall, N: 3}, "Model call 3"},
		{timeline.TimelineStep{Kind: timeline.KindTool, N: 1, Tool: "read_file", Stage: "gather"}, "Tool result 1: read_file (gather)"},
	} {
		if got := tt.step.Label(); got != tt.want {
			t.Errorf("label %q, want %q", got, tt.want)
		}
	}
}

func TestFind(t *testing.T) {
	steps := timeline.Steps(log(thinkStart, recordedOK, result("a1", "x")))
	for _, tt := range []struct {
		id   string
		want string // "" when not found
	}{
		{"start", "start"}, {"call1", "call1"}, {" TOOL1 ", "tool1"}, {"call2", ""}, {"", ""}, {"stage1", ""},
	} {
		s, ok := timeline.Find(steps, tt.id)
		if ok != (tt.want != "") || s.ID != tt.want {
			t.Errorf("Find(%q) = %q, %v; want %q", tt.id, s.ID, ok, tt.want)
		}
	}
}

func TestParseRef(t *testing.T) {
	for _, tt := range []struct {
		ref, turn, step string
		bad             bool
	}{
		{ref: "7f3a:call2", turn: "7f3a", step: "call2"},
		{ref: " 7f3a:CALL2 ", turn: "7f3a", step: "call2"},
		{ref: "7f3a:start", turn: "7f3a", step: "start"},
		{ref: "7f3a", bad: true},
		{ref: ":call2", bad: true},
		{ref: "7f3a:", bad: true},
		{ref: "", bad: true},
	} {
		turnID, step, err := timeline.ParseRef(tt.ref)
		if tt.bad {
			if err == nil || !strings.Contains(err.Error(), "is not TURN_ID:STEP") {
				t.Errorf("ParseRef(%q): %v, want a refusal", tt.ref, err)
			}
			continue
		}
		if err != nil || turnID != tt.turn || step != tt.step {
			t.Errorf("ParseRef(%q) = %q, %q, %v; want %q, %q", tt.ref, turnID, step, err, tt.turn, tt.step)
		}
	}
}
