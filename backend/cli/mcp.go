package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/agentdeck/agentdeck/backend/mcp"
	"github.com/agentdeck/agentdeck/backend/setup"
)

// mcpFlags are the MCP flags of run and replay. A headless turn uses the
// same MCP servers as the window and serve (mcp.json beside the database),
// so the model is offered the same tools and --approve governs the same
// side effects.
type mcpFlags struct {
	config string // another configuration file
	off    bool   // connect nothing
}

func (m *mcpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.config, "mcp-config", "", "MCP servers from this file instead of mcp.json beside the database")
	fs.BoolVar(&m.off, "no-mcp", false, "connect no MCP server")
}

// check reports flags that cannot be used: a file named on purpose must
// exist (a missing mcp.json beside the database is no servers, but a
// missing --mcp-config file is a typo).
func (m mcpFlags) check(env Env) int {
	if m.config == "" {
		return ExitOK
	}
	if m.off {
		fmt.Fprintln(env.Stderr, "agentdeck: --mcp-config and --no-mcp cannot be used together")
		return ExitUsage
	}
	if fi, err := os.Stat(m.config); err != nil || fi.IsDir() {
		fmt.Fprintf(env.Stderr, "agentdeck: --mcp-config %s: no such file\n", m.config)
		return ExitUsage
	}
	return ExitOK
}

// options sets what setup.Build needs to know of the flags.
func (m mcpFlags) options(o setup.Options) setup.Options {
	o.MCPConfig = m.config
	return o
}

// connectMCP connects the configured MCP servers and waits until each has
// connected or failed, so that the turn's first model call is offered
// every tool. A server that fails is one line on stderr and the turn runs
// without its tools; the manager's start timeout bounds the wait. A signal
// while waiting stops the command (ExitCancelled).
func connectMCP(ctx context.Context, eng *setup.Engine, m mcpFlags, env Env) int {
	if m.off {
		return ExitOK
	}
	type connected struct {
		statuses []mcp.ServerStatus
		err      error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan connected, 1)
	go func() {
		st, err := eng.ConnectMCP(ctx)
		done <- connected{st, err}
	}()
	var c connected
	select {
	case c = <-done:
	case <-env.Signals:
		cancel()
		<-done
		fmt.Fprintln(env.Stderr, "agentdeck: stopped while connecting the MCP servers")
		return ExitCancelled
	}
	for _, line := range mcpProblems(c.statuses, c.err) {
		fmt.Fprintln(env.Stderr, line)
	}
	return ExitOK
}

// mcpProblems is one line per server that did not connect, or one line
// for a configuration that could not be read.
func mcpProblems(statuses []mcp.ServerStatus, err error) []string {
	if err != nil {
		return []string{fmt.Sprintf("agentdeck: MCP configuration: %v; no MCP server is connected", err)}
	}
	var out []string
	for _, st := range statuses {
		if st.Disabled || st.Connected || st.Error == "" {
			continue
		}
		// The manager's messages start with `server "name" `.
		what, ok := strings.CutPrefix(st.Error, fmt.Sprintf("server %q ", st.Name))
		if !ok {
			what = "did not connect: " + st.Error
		}
		out = append(out, fmt.Sprintf("agentdeck: MCP server %q %s; its tools are left out", st.Name, what))
	}
	return out
}
