package setup

import (
	"cmp"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/mcp"
	"github.com/agentdeck/agentdeck/backend/store"
)

// The SQLite store is one the engine takes, and one the app takes.
var (
	_ Store    = (*store.DB)(nil)
	_ AppStore = (*store.DB)(nil)
)

// ConnectMCP returns only once every configured server has connected or
// failed, so what it returns, and the tools the runner gathers after it,
// are final: no polling. A server that hangs at start is stopped at the
// start timeout instead of holding the caller.
func TestConnectMCPWaitsForEveryServer(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "testserver")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/agentdeck/agentdeck/backend/mcp/internal/testserver").CombinedOutput(); err != nil {
		t.Fatalf("building the MCP test server: %v\n%s", err, out)
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal("no sleep command")
	}
	type want struct {
		connected bool
		err       string // the status's error, "" for none
	}
	tests := []struct {
		name string
		// files are written into the data directory.
		files     map[string]string
		mcpConfig string // Options.MCPConfig, relative to the data directory
		// startTimeout is the manager's; zero: the default (10s), which a
		// server that works meets even on a loaded machine.
		startTimeout time.Duration
		want         map[string]want
		wantTools    []string // those of the Manager after ConnectMCP, with prefix
		wantErr      string
	}{
		{name: "no mcp.json", want: map[string]want{}},
		{
			name:      "one server",
			files:     map[string]string{"mcp.json": `{"mcpServers": {"files": {"command": "BIN"}}}`},
			want:      map[string]want{"files": {connected: true}},
			wantTools: []string{"files__add", "files__crash", "files__cwd", "files__echo", "files__env", "files__fail", "files__image", "files__slow"},
		},
		{
			name: "one fails, one connects",
			files: map[string]string{"mcp.json": `{"mcpServers": {
				"broken": {"command": "BIN", "args": ["-exit", "2"]},
				"files": {"command": "BIN"}}}`},
			want: map[string]want{
				"broken": {err: `server "broken" failed to start: it exited (exit status 2) (its last output: "testserver: refusing to start: bad configuration")`},
				"files":  {connected: true},
			},
			wantTools: []string{"files__add", "files__crash", "files__cwd", "files__echo", "files__env", "files__fail", "files__image", "files__slow"},
		},
		{
			// That the others connect meanwhile is backend/mcp's test.
			name:         "one hangs",
			files:        map[string]string{"mcp.json": `{"mcpServers": {"mute": {"command": "SLEEP", "args": ["30"]}}}`},
			startTimeout: 500 * time.Millisecond,
			want:         map[string]want{"mute": {err: `server "mute" did not answer within 500ms; it was stopped`}},
		},
		{
			name: "another file",
			files: map[string]string{
				"mcp.json":   `{"mcpServers": {"files": {"command": "BIN"}}}`,
				"other.json": `{"mcpServers": {"other": {"command": "BIN", "disabled": true}}}`,
			},
			mcpConfig: "other.json",
			want:      map[string]want{"other": {}},
		},
		{
			name:    "a broken file",
			files:   map[string]string{"mcp.json": `{"mcpServers": [`},
			wantErr: "mcp.json:1:17: the file ends too early",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			dir := t.TempDir()
			for name, text := range tt.files {
				text = strings.NewReplacer("BIN", bin, "SLEEP", sleep).Replace(text)
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ctx := context.Background()
			db, err := store.Open(ctx, filepath.Join(dir, "agentdeck.db"), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			opts := Options{DataDir: dir, MCP: mcp.Options{StartTimeout: tt.startTimeout}}
			if tt.mcpConfig != "" {
				opts.MCPConfig = filepath.Join(dir, tt.mcpConfig)
			}
			eng, err := Build(ctx, db, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			if want := filepath.Join(dir, cmp.Or(tt.mcpConfig, "mcp.json")); eng.MCPConfigPath() != want {
				t.Errorf("MCPConfigPath = %s, want %s", eng.MCPConfigPath(), want)
			}

			statuses, err := eng.ConnectMCP(ctx)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tt.wantErr)
				}
				if _, serr := eng.MCPStatus(); serr == nil {
					t.Error("MCPStatus does not report the configuration's error")
				}
			} else if err != nil {
				t.Fatalf("ConnectMCP: %v", err)
			}
			got := map[string]want{}
			for _, st := range statuses {
				got[st.Name] = want{connected: st.Connected, err: st.Error}
			}
			if tt.want != nil && !maps.Equal(got, tt.want) {
				t.Errorf("statuses %+v, want %+v", got, tt.want)
			}
			var tools []string
			for _, tl := range eng.MCP.Tools() {
				tools = append(tools, tl.Spec().Name)
			}
			if !slices.Equal(tools, tt.wantTools) {
				t.Errorf("tools after ConnectMCP %v, want %v", tools, tt.wantTools)
			}
			if err := eng.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}
