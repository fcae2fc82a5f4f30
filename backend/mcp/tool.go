package mcp

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolError is a tool's own report of failure: a result with isError set.
// Its message is the tool's text, which the agent sends back to the model
// so it can correct itself. The server is fine.
type ToolError struct {
	Server  string
	Tool    string
	Message string
}

func (e *ToolError) Error() string { return e.Message }

// remoteTool is a tool as a server listed it, with its schema ready to send.
type remoteTool struct {
	def    *sdk.Tool
	schema json.RawMessage
}

// serverTool is one remoteTool of one server as a tool.Tool.
type serverTool struct {
	m    *Manager
	srv  *server
	def  *sdk.Tool
	spec tool.Spec
}

func (t *serverTool) Spec() tool.Spec { return t.spec }

// Execute calls the tool. A result marked isError comes back as a
// *ToolError. A server that crashes during the call or does not answer
// within CallTimeout is marked lost and stopped; the error says so.
func (t *serverTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	s := t.srv
	if !t.m.connected(s) {
		what, detail := t.m.whyLost(s)
		return "", fmt.Errorf("MCP server %q %s (%s), so %q cannot be used until it is reconnected", s.cfg.Name, what, detail, t.def.Name)
	}
	callCtx, cancel := context.WithTimeout(ctx, t.m.opts.CallTimeout)
	defer cancel()
	defer context.AfterFunc(s.life, cancel)()
	params := &sdk.CallToolParams{Name: t.def.Name}
	if len(bytes.TrimSpace(args)) > 0 {
		params.Arguments = args
	}
	res, err := s.session.CallTool(callCtx, params)
	if err != nil {
		return "", t.m.callFailed(ctx, callCtx, s, t.def.Name, err)
	}
	text := resultText(res)
	if res.IsError {
		if text == "" {
			text = fmt.Sprintf("the tool %q reported an error without a message", t.def.Name)
		}
		return "", &ToolError{Server: s.cfg.Name, Tool: t.def.Name, Message: text}
	}
	return text, nil
}

// callFailed sorts out a failed call: the caller stopped (the server is
// fine), the server refused the call (it is fine too), or it is gone or hung
// (it is marked lost and stopped).
func (m *Manager) callFailed(ctx, callCtx context.Context, s *server, toolName string, err error) error {
	name := s.cfg.Name
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case s.life.Err() != nil:
		// Stopped under us: lost through another call, or disconnected.
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		m.lost(s, "stopped responding", fmt.Sprintf("a call to %q got no answer within %s", toolName, m.opts.CallTimeout))
	default:
		if ue, ok := errors.AsType[*url.Error](err); ok {
			// The streamable HTTP transport could not deliver the request (it
			// reports that as a JSON-RPC "rejected by transport" error, so this
			// check comes first): the HTTP analog of a crashed process.
			m.lost(s, "could not be reached at "+s.cfg.URL, ue.Err.Error())
			break
		}
		if rpc, ok := errors.AsType[*jsonrpc.Error](err); ok {
			return fmt.Errorf("MCP server %q refused the call to %q: %s", name, toolName, rpc.Message)
		}
		if !m.sessionEnded(s, err) {
			return fmt.Errorf("MCP server %q: the call to %q failed: %v", name, toolName, err)
		}
	}
	what, detail := m.whyLost(s)
	return fmt.Errorf("MCP server %q %s during the call to %q (%s); its tools are unavailable until it is reconnected", name, what, toolName, detail)
}

// sessionEnded reports whether err means the session is over, and if so
// makes sure s is marked lost, with how it ended. A broken connection comes
// back as EOF or "connection closed" a little before the session reports
// its end (the SDK is still reaping the child), so that gets some time. Any
// other error with the session still up is a reply that could not be read.
func (m *Manager) sessionEnded(s *server, err error) bool {
	wait := 100 * time.Millisecond
	broken := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, sdk.ErrConnectionClosed)
	if broken {
		wait = m.stopGrace
	}
	select {
	case <-s.done:
		what, detail := s.endState()
		m.lost(s, what, detail)
		return true
	case <-time.After(wait):
	}
	if broken {
		m.lost(s, "stopped responding", err.Error())
	}
	return broken
}

// resultText renders a result for the model: text as is, one part per
// line; other content as a short summary, since the model cannot use bytes.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s]", size(len(c.Data))))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s]", size(len(c.Data))))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s]", cmp.Or(c.URI, c.Name)))
		case *sdk.EmbeddedResource:
			parts = append(parts, embeddedText(c.Resource))
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", c))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			return string(b)
		}
	}
	return strings.Join(parts, "\n")
}

func embeddedText(r *sdk.ResourceContents) string {
	switch {
	case r == nil:
		return "[resource]"
	case r.Text != "":
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	default:
		return fmt.Sprintf("[resource %s %s]", r.URI, size(len(r.Blob)))
	}
}

func size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%d KB", (n+512)/1024)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
}

// usableTools keeps the tools the agent can take: named, listed once, with
// a schema that compiles as the agent will compile it. One bad tool must not
// make the whole toolset fail to build.
func (m *Manager) usableTools(serverName string, defs []*sdk.Tool) []remoteTool {
	var out []remoteTool
	seen := map[string]bool{}
	for _, d := range defs {
		if d == nil || d.Name == "" || seen[d.Name] {
			continue
		}
		seen[d.Name] = true
		schema := json.RawMessage(`{"type":"object"}`)
		if d.InputSchema != nil {
			b, err := json.Marshal(d.InputSchema)
			if err != nil {
				m.log.Warn("MCP tool skipped: its input schema is not JSON", "server", serverName, "tool", d.Name, "error", err)
				continue
			}
			schema = b
		}
		probe := tool.Func{Def: tool.Spec{Name: "probe", Parameters: schema}}
		if _, err := tool.NewSet(probe); err != nil {
			m.log.Warn("MCP tool skipped: its input schema does not compile", "server", serverName, "tool", d.Name, "error", err)
			continue
		}
		out = append(out, remoteTool{def: d, schema: schema})
	}
	slices.SortFunc(out, func(a, b remoteTool) int { return cmp.Compare(a.def.Name, b.def.Name) })
	return out
}

// toolsOf wraps the tools of servers, named "<server>__<tool>" and made
// unique; see toolName.
func (m *Manager) toolsOf(servers []*server) []tool.Tool {
	type entry struct {
		s    *server
		rt   remoteTool
		name string
	}
	var entries []entry
	count := map[string]int{}
	for _, s := range servers {
		for _, rt := range s.tools {
			n := toolName(s.cfg.Name, rt.def.Name)
			entries = append(entries, entry{s, rt, n})
			count[n]++
		}
	}
	for i, e := range entries {
		if count[e.name] > 1 {
			entries[i].name = hashedName(e.name, e.s.cfg.Name, e.rt.def.Name)
		}
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.name, b.name) })

	out := make([]tool.Tool, 0, len(entries))
	for _, e := range entries {
		d := e.rt.def
		desc := cmp.Or(d.Description, d.Title)
		if desc == "" && d.Annotations != nil {
			desc = d.Annotations.Title
		}
		out = append(out, &serverTool{m: m, srv: e.s, def: d, spec: tool.Spec{
			Name:        e.name,
			Description: strings.TrimSpace("[" + e.s.cfg.Name + "] " + desc),
			Parameters:  e.rt.schema,
			SideEffects: d.Annotations == nil || !d.Annotations.ReadOnlyHint,
		}})
	}
	return out
}

// maxToolName is the longest tool name model APIs accept.
const maxToolName = 64

// toolName is "<server>__<tool>" with every character outside [a-zA-Z0-9_-]
// replaced by '_'. A name longer than 64 is cut and ends with a hash of the
// original pair, so it stays unique.
func toolName(serverName, toolName string) string {
	n := sanitize(serverName) + "__" + sanitize(toolName)
	if len(n) > maxToolName {
		return hashedName(n, serverName, toolName)
	}
	return n
}

// hashedName makes name unique for the (server, tool) pair: two pairs can
// sanitize to the same name ("a.b" and "a_b").
func hashedName(name, serverName, toolName string) string {
	sum := sha256.Sum256([]byte(serverName + "\x00" + toolName))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return name[:min(len(name), maxToolName-len(suffix))] + suffix
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// Server names the MCP server the tool belongs to, so a turn can offer
// only the tools of the servers its settings enable.
func (t *serverTool) Server() string { return t.srv.cfg.Name }
