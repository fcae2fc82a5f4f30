package artifact

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// Versions numbers the versions of a turn's artifacts by key, after those
// the conversation before the turn made: one per turn, shared by its
// agents. It is seeded from the history the model is sent, not from the
// store, so a replay or a re-run (which send the original's history)
// numbers as the original did. The history is read at the first Next, so
// a turn that makes no artifact does not read it. Two calls for one key
// in one model reply run in parallel and may take their numbers in
// either order.
type Versions struct {
	once    sync.Once
	history []llm.Message
	mu      sync.Mutex
	n       map[string]int
}

// NewVersions numbers after the versions history made: each
// create_artifact call that succeeded, and each artifact block of an
// answer (an assistant message without tool calls that ends its turn).
func NewVersions(history []llm.Message) *Versions {
	return &Versions{history: slices.Clone(history)}
}

// count counts the versions the history made.
func count(history []llm.Message) map[string]int {
	n := map[string]int{}
	calls := map[string]string{} // call id → key
	for i, m := range history {
		switch m.Role {
		case llm.RoleAssistant:
			for _, tc := range m.ToolCalls {
				if tc.Name == Name {
					calls[tc.ID] = callKey(tc.Arguments)
				}
			}
			if len(m.ToolCalls) == 0 && m.Content != "" && (i == len(history)-1 || history[i+1].Role == llm.RoleUser) {
				for _, a := range Blocks(m.Content) {
					n[a.Key]++
				}
			}
		case llm.RoleTool:
			if key, ok := calls[m.ToolCallID]; ok && key != "" && !strings.HasPrefix(m.Content, "Error:") {
				n[key]++
			}
		}
	}
	return n
}

// callKey is the key a create_artifact call's arguments name.
func callKey(args string) string {
	var in input
	if json.Unmarshal([]byte(args), &in) != nil {
		return ""
	}
	return KeyOf(in.Key, in.Title, in.Kind)
}

// Next is the number of a new version of key, from 1.
func (v *Versions) Next(key string) int {
	v.once.Do(func() { v.n, v.history = count(v.history), nil })
	v.mu.Lock()
	defer v.mu.Unlock()
	v.n[key]++
	return v.n[key]
}
