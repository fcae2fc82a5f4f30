package mcp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadConfig(t *testing.T) {
	path := writeConfig(t, `{
  "mcpServers": {
    "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}},
    "files": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
      "env": {"DEBUG": "1"},
      "cwd": "work",
      "autoApprove": ["read_file"]
    },
    "old": {"command": "old-server", "disabled": true},
    "typed": {"type": "streamable-http", "url": "http://localhost:8080/mcp"},
    "abs": {"type": "stdio", "command": "srv", "cwd": "/srv"}
  },
  "someOtherClientSetting": true
}`)
	got, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []ServerConfig{
		{Name: "abs", Type: TransportStdio, Command: "srv", Cwd: "/srv"},
		{Name: "files", Type: TransportStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"},
			Env: map[string]string{"DEBUG": "1"}, Cwd: filepath.Join(filepath.Dir(path), "work")},
		{Name: "old", Type: TransportStdio, Command: "old-server", Disabled: true},
		{Name: "remote", Type: TransportHTTP, URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
		{Name: "typed", Type: TransportHTTP, URL: "http://localhost:8080/mcp"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("LoadConfig =\n%+v\nwant\n%+v", got, want)
	}
}

func TestLoadConfigEmpty(t *testing.T) {
	tests := []struct {
		name string
		path func(t *testing.T) string
	}{
		{"missing file", func(t *testing.T) string { return filepath.Join(t.TempDir(), "mcp.json") }},
		{"empty file", func(t *testing.T) string { return writeConfig(t, " \n") }},
		{"null", func(t *testing.T) string { return writeConfig(t, "null") }},
		{"no mcpServers", func(t *testing.T) string { return writeConfig(t, `{"theme": "dark"}`) }},
		{"null mcpServers", func(t *testing.T) string { return writeConfig(t, `{"mcpServers": null}`) }},
		{"no servers", func(t *testing.T) string { return writeConfig(t, `{"mcpServers": {}}`) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadConfig(tt.path(t))
			if err != nil || len(got) != 0 {
				t.Fatalf("LoadConfig = %v, %v; want nothing and no error", got, err)
			}
		})
	}
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string // after "<path>:"
	}{
		{"trailing comma", `{"mcpServers": {"a": {"command": "x",}}}`,
			`1:38: invalid character '}' looking for beginning of object key string`},
		{"ends early", `{"mcpServers": {"a": {}`,
			`1:24: the file ends too early; a closing } or ] or a quote is probably missing`},
		{"not an object", `["a"]`,
			`1:1: the file must hold a JSON object like {"mcpServers": {...}}, found an array`},
		{"servers not an object", `{"mcpServers": ["a"]}`,
			`1:16: "mcpServers" must be an object of named servers, found an array`},
		{"server not an object", `{"mcpServers": {"a": "npx"}}`,
			`1:22: server "a" must be an object like {"command": "..."} or {"url": "..."}, found a string`},
		{"args not an array", "{\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"npx\", \"args\": \"-y\"}\n  }\n}",
			`3:38: server "fs": "args" must be an array of strings, found a string`},
		{"env value not a string", "{\"mcpServers\": {\n  \"fs\": {\"command\": \"npx\",\n         \"env\": {\"PORT\": 8080}}}}",
			`3:26: server "fs": the values of "env" must be strings (quote numbers), found a number`},
		{"disabled not a bool", `{"mcpServers": {"a": {"command": "x", "disabled": "yes"}}}`,
			`1:51: server "a": "disabled" must be true or false, found a string`},
		{"neither command nor url", `{"mcpServers": {"empty": {"args": []}}}`,
			`1:26: server "empty" has neither "command" (a local server) nor "url" (a remote server)`},
		{"both command and url", `{"mcpServers": {"both": {"command": "x", "url": "http://h/"}}}`,
			`1:25: server "both" has both "command" and "url"`},
		{"stdio without command", `{"mcpServers": {"s": {"type": "stdio", "url": "http://h/"}}}`,
			`1:22: server "s" is a stdio server but has no "command"`},
		{"http without url", `{"mcpServers": {"h": {"type": "http", "command": "x"}}}`,
			`1:22: server "h" is an http server but has no "url"`},
		{"bad url", `{"mcpServers": {"h": {"url": "localhost:8080"}}}`,
			`1:22: server "h" has "url" "localhost:8080"; expected an http:// or https:// address`},
		{"sse", `{"mcpServers": {"h": {"type": "sse", "url": "http://h/sse"}}}`,
			`1:22: server "h" uses the legacy "sse" transport, which is not supported`},
		{"unknown type", `{"mcpServers": {"h": {"type": "websocket", "url": "ws://h/"}}}`,
			`1:22: server "h" has an unknown "type" "websocket"; expected "stdio" or "http"`},
		{"empty name", `{"mcpServers": {"": {"command": "x"}}}`,
			`1:21: a server has an empty name`},
		{"defined twice", `{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}`,
			`1:45: server "a" is defined twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, tt.text)
			got, err := LoadConfig(path)
			if err == nil {
				t.Fatalf("LoadConfig = %+v, want an error", got)
			}
			if want := path + ":" + tt.want; !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error =\n%s\nwant it to start with\n%s", err, want)
			}
		})
	}
}
