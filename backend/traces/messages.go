package traces

import (
	"encoding/json"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// finishReasons are the model calls' finish reasons, by index. The store
// does not keep the reason a server sent; it keeps what follows from it,
// and that is what is given: in a stage's loop a call is followed by
// another only when it asked for tools ("tool_calls"), and the stage's
// last call asked for tools if the stage's response holds tool calls,
// else it stopped ("stop"). A failed call has none.
func finishReasons(t *export.Turn) []string {
	out := make([]string, len(t.ModelCalls))
	last := map[string]int{}
	for i, mc := range t.ModelCalls {
		if mc.OK {
			last[mc.StageID] = i
		}
	}
	responses := map[string]llm.Message{}
	for _, st := range t.Stages {
		var m llm.Message
		if json.Unmarshal(st.Response, &m) == nil {
			responses[st.ID] = m
		}
	}
	for i, mc := range t.ModelCalls {
		switch {
		case !mc.OK:
		case last[mc.StageID] != i:
			out[i] = "tool_calls"
		case len(responses[mc.StageID].ToolCalls) > 0:
			out[i] = "tool_calls"
		default:
			out[i] = "stop"
		}
	}
	return out
}

// callMessages are the messages model call i was given from this turn and
// the one it answered with, where the record says which they were: a turn
// of one stage whose every answered call left one assistant message. The
// conversation before the turn is not repeated on each call (it is in the
// earlier turns' traces).
func callMessages(t *export.Turn, i int) (in []llm.Message, out llm.Message, ok bool) {
	if len(t.Stages) > 1 || !t.ModelCalls[i].OK {
		return nil, llm.Message{}, false
	}
	var assistant []int
	for j, m := range t.Messages {
		if m.Role == llm.RoleAssistant {
			assistant = append(assistant, j)
		}
	}
	k := 0 // call i is the k-th answered call
	answered := 0
	for j, mc := range t.ModelCalls {
		if mc.OK {
			if j == i {
				k = answered
			}
			answered++
		}
	}
	if answered != len(assistant) {
		return nil, llm.Message{}, false
	}
	at := assistant[k]
	return t.Messages[:at], t.Messages[at], true
}

// toolResult is the text a tool call returned, from the tool message that
// answers it.
func toolResult(t *export.Turn, callID string) (string, bool) {
	for _, m := range t.Messages {
		if m.Role == llm.RoleTool && m.ToolCallID == callID {
			return m.Content, true
		}
	}
	return "", false
}

// The message shapes of the conventions' input and output messages JSON
// schemas: a role and its parts.
type part struct {
	Type      string          `json:"type"`
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  *string         `json:"response,omitempty"`
}

type message struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

func toMessage(m llm.Message) message {
	out := message{Role: string(m.Role), Parts: []part{}}
	if m.Reasoning != "" {
		out.Parts = append(out.Parts, part{Type: "reasoning", Content: m.Reasoning})
	}
	if m.Role == llm.RoleTool {
		r := m.Content
		out.Parts = append(out.Parts, part{Type: "tool_call_response", ID: m.ToolCallID, Response: &r})
		return out
	}
	if m.Content != "" {
		out.Parts = append(out.Parts, part{Type: "text", Content: m.Content})
	}
	for _, im := range m.Images {
		// The bytes are never sent: what the image was, by name.
		out.Parts = append(out.Parts, part{Type: "text", Content: "[image " + im.Name + " " + im.MIME + "]"})
	}
	for _, tc := range m.ToolCalls {
		args := json.RawMessage(tc.Arguments)
		if !json.Valid(args) {
			b, _ := json.Marshal(tc.Arguments)
			args = b
		}
		out.Parts = append(out.Parts, part{Type: "tool_call", ID: tc.ID, Name: tc.Name, Arguments: args})
	}
	return out
}

func messagesJSON(ms []llm.Message) string {
	out := make([]message, 0, len(ms))
	for _, m := range ms {
		out = append(out, toMessage(m))
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func outputJSON(m llm.Message, reason string) string {
	msg := toMessage(m)
	msg.FinishReason = firstOf(reason, "stop")
	b, _ := json.Marshal([]message{msg})
	return string(b)
}

// reviewAttributes are a person's reviews of the turn as attributes, by
// the step they rate ("" for the whole turn; else a timeline step id,
// "stage2", "call3", "tool1", which the spans carry as agentdeck.step.id):
// agentdeck.review.thumb (+1, -1), .score (1-5), .labels and .note, each
// only when set. A step with several reviews gives its latest.
func reviewAttributes(t *export.Turn) map[string][]attribute.KeyValue {
	latest := map[string]turn.Review{}
	for _, r := range t.Reviews {
		if old, ok := latest[r.Step]; !ok || r.UpdatedAt.After(old.UpdatedAt) {
			latest[r.Step] = r
		}
	}
	out := map[string][]attribute.KeyValue{}
	for step, r := range latest {
		var attrs []attribute.KeyValue
		if r.Thumb != 0 {
			attrs = append(attrs, AttrReviewThumb.Int(r.Thumb))
		}
		if r.Score != 0 {
			attrs = append(attrs, AttrReviewScore.Int(r.Score))
		}
		if len(r.Labels) > 0 {
			attrs = append(attrs, AttrReviewLabels.StringSlice(r.Labels))
		}
		if r.Note != "" {
			attrs = append(attrs, AttrReviewNote.String(r.Note))
		}
		if len(attrs) > 0 {
			out[step] = attrs
		}
	}
	return out
}
