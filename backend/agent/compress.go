package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// estimate guesses the prompt size of msgs plus tool definitions.
func estimate(msgs []llm.Message, tools []llm.Tool) int {
	n := 0
	for _, m := range msgs {
		n += 4 + llm.EstimateTokens(m.Content)
		for _, tc := range m.ToolCalls {
			n += 4 + llm.EstimateTokens(tc.Name) + llm.EstimateTokens(tc.Arguments)
		}
	}
	for _, t := range tools {
		n += llm.EstimateTokens(t.Name) + llm.EstimateTokens(t.Description) + llm.EstimateTokens(string(t.Parameters))
	}
	return n
}

// window returns the context budget for the prompt: the model's window
// minus room for the answer.
func (r *loop) window() int {
	w := r.a.ContextWindow
	if w <= 0 {
		w = catalog.KnownWindow(r.a.Model).Tokens
	}
	reserve := r.a.MaxTokens
	if reserve <= 0 {
		reserve = w / 4
	}
	return w - reserve
}

// maybeCompress shrinks the transcript before a model call that would not
// fit. force compresses even when the estimate fits (the server said the
// context was too long).
func (r *loop) maybeCompress(ctx context.Context, tools []llm.Tool, force bool) bool {
	budget := r.window()
	before := estimate(r.msgs, tools)
	if force {
		// The server's window is smaller than we believed: assume it holds
		// at most three quarters of what it just refused, for the rest of the run.
		r.learnedWindow = min(budget, before*3/4)
	}
	if r.learnedWindow > 0 {
		budget = min(budget, r.learnedWindow)
	}
	if !force && before <= budget {
		return false
	}
	head, old, keep := r.split(budget/2, tools)
	if len(old) == 0 {
		return false
	}
	beforeCount := len(r.msgs)
	summary, answered, err := r.summarize(ctx, old)
	var out []llm.Message
	out = append(out, head...)
	if err == nil {
		out = append(out, llm.Message{Role: llm.RoleUser, Content: "[Earlier conversation, summarized by Agentdeck to fit the model's context]\n" + summary})
	} else {
		r.log.Warn("summarizing for compression failed; dropping the oldest messages", "err", err)
	}
	out = append(out, keep...)
	if err != nil {
		// Without a summary, drop whole groups from the front of keep until it fits.
		out = dropOldest(out, len(head), budget, tools)
	}
	r.msgs = out
	r.em.Emit(turn.Draft{StageID: r.stageID, Data: turn.CompressedData{
		BeforeCount: beforeCount, AfterCount: len(out), BeforeTokens: before, AfterTokens: estimate(out, tools), Summarized: answered,
	}})
	return true
}

// split divides the transcript into the system head, an old part to
// summarize, and a recent part to keep verbatim. The recent part always
// starts at a user message or an assistant message (never at a tool
// result, so a call and its results stay together) and always contains the
// current user request.
func (r *loop) split(keepBudget int, tools []llm.Tool) (head, old, keep []llm.Message) {
	i := 0
	for i < len(r.msgs) && r.msgs[i].Role == llm.RoleSystem {
		i++
	}
	head = r.msgs[:i]
	body := r.msgs[i:]
	lastUser := -1
	for j := len(body) - 1; j >= 0; j-- {
		if body[j].Role == llm.RoleUser {
			lastUser = j
			break
		}
	}
	cut := len(body)
	for j := len(body) - 1; j >= 0; j-- {
		if body[j].Role == llm.RoleTool {
			continue // never start the kept part at a tool result
		}
		if estimate(body[j:], tools) > keepBudget && j < lastUser {
			break
		}
		cut = j
	}
	if lastUser >= 0 && cut > lastUser {
		cut = lastUser
	}
	return head, body[:cut], body[cut:]
}

// summarize asks the model, without tools, for a compact summary of msgs.
func (r *loop) summarize(ctx context.Context, msgs []llm.Message) (summary string, answered bool, err error) {
	var b strings.Builder
	for _, m := range msgs {
		switch {
		case m.Role == llm.RoleTool:
			fmt.Fprintf(&b, "[tool %s result] %s\n", m.Name, clip(m.Content, 2000))
		case len(m.ToolCalls) > 0:
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(&b, "[assistant called %s %s]\n", tc.Name, clip(tc.Arguments, 500))
			}
			if m.Content != "" {
				fmt.Fprintf(&b, "[assistant] %s\n", m.Content)
			}
		default:
			fmt.Fprintf(&b, "[%s] %s\n", m.Role, m.Content)
		}
	}
	{
		if steps := r.planSnapshot(); len(steps) > 0 {
			b.WriteString("[current plan]\n")
			for i, s := range steps {
				fmt.Fprintf(&b, "%d. %s (%s)\n", i+1, s.Title, s.Status)
			}
		}
	}
	req := llm.Request{Model: r.a.Model, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You compress conversations. Summarize the transcript below so the work can continue: keep the user's goals and constraints, decisions, facts and numbers found, file and table names, tool results that matter, and the plan with each step's status. Be brief; use bullet points."},
		{Role: llm.RoleUser, Content: b.String()},
	}}
	resp, err := r.a.Client.Stream(ctx, req, func(llm.Chunk) error { return nil })
	r.usage = r.usage.Add(resp.Usage)
	r.mcalls = append(r.mcalls, resp.Diagnostics)
	if err != nil {
		return "", false, err
	}
	if strings.TrimSpace(resp.Message.Content) == "" {
		return "", true, fmt.Errorf("the model returned an empty summary")
	}
	return resp.Message.Content, true, nil
}

// dropOldest removes messages after the head, a whole group at a time (an
// assistant message with its tool results), until the transcript fits or
// only the last user request and what follows remain.
func dropOldest(msgs []llm.Message, head, budget int, tools []llm.Tool) []llm.Message {
	lastUser := len(msgs)
	for j := len(msgs) - 1; j >= head; j-- {
		if msgs[j].Role == llm.RoleUser {
			lastUser = j
			break
		}
	}
	for estimate(msgs, tools) > budget && head < lastUser {
		end := head + 1
		for end < lastUser && msgs[end].Role == llm.RoleTool {
			end++
		}
		msgs = append(msgs[:head:head], msgs[end:]...)
		lastUser -= end - head
	}
	return msgs
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
