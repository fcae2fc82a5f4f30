package mcp

import (
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestToolNames(t *testing.T) {
	long := strings.Repeat("x", 70)
	tests := []struct {
		server, tool string
		want         string // "" when only validity and length are checked
	}{
		{"files", "read_file", "files__read_file"},
		{"brave-search", "web-search", "brave-search__web-search"},
		{"my.server", "get/thing", "my_server__get_thing"},
		{"日本", "検索", "______"}, // one '_' per character, around the "__"
		{"s", long, ""},
		{long, "t", ""},
	}
	for _, tt := range tests {
		t.Run(tt.server+"/"+tt.tool, func(t *testing.T) {
			got := toolName(tt.server, tt.tool)
			if !validName.MatchString(got) {
				t.Fatalf("toolName = %q, not a valid tool name", got)
			}
			if tt.want != "" && got != tt.want {
				t.Fatalf("toolName = %q, want %q", got, tt.want)
			}
		})
	}
	if a, b := toolName("s", long+"a"), toolName("s", long+"b"); a == b {
		t.Errorf("two long names were cut to the same %q", a)
	}
}

func TestToolNamesStayUnique(t *testing.T) {
	m := NewManager(nil, Options{})
	srv := func(name string, tools ...string) *server {
		s := &server{cfg: ServerConfig{Name: name}}
		for _, tl := range tools {
			s.tools = append(s.tools, remoteTool{def: &sdk.Tool{Name: tl}, schema: []byte(`{"type":"object"}`)})
		}
		return s
	}
	// "a.b" and "a_b" both sanitize to "a_b"; so do "x.y" and "x_y".
	tools := m.toolsOf([]*server{srv("a.b", "run"), srv("a_b", "run", "x.y", "x_y"), srv("c", "run")})
	seen := map[string]bool{}
	var names []string
	for _, tl := range tools {
		n := tl.Spec().Name
		if seen[n] || !validName.MatchString(n) {
			t.Errorf("name %q is repeated or invalid", n)
		}
		seen[n] = true
		names = append(names, n)
	}
	if len(names) != 5 || !seen["c__run"] {
		t.Fatalf("names = %v; want 5 names, an unclashing one kept as is", names)
	}
}

func TestResultText(t *testing.T) {
	size := int64(99)
	tests := []struct {
		name string
		res  *sdk.CallToolResult
		want string
	}{
		{"texts", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "one"}, &sdk.TextContent{Text: "two"}}}, "one\ntwo"},
		{"small image", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: make([]byte, 300)}}}, "[image 300 B]"},
		{"audio", &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{Data: make([]byte, 3*1024*1024/2)}}}, "[audio 1.5 MB]"},
		{"link", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ResourceLink{URI: "file:///a.txt", Name: "a", Size: &size}}}, "[resource file:///a.txt]"},
		{"embedded text", &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.txt", Text: "hello"}}}}, "[resource file:///a.txt]\nhello"},
		{"embedded blob", &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.bin", Blob: make([]byte, 2048)}}}}, "[resource file:///a.bin 2 KB]"},
		{"structured only", &sdk.CallToolResult{StructuredContent: map[string]any{"sum": 5}}, `{"sum":5}`},
		{"nothing", &sdk.CallToolResult{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resultText(tt.res); got != tt.want {
				t.Fatalf("resultText = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUsableToolsSkipsBadSchemas(t *testing.T) {
	m := NewManager(nil, Options{})
	got := m.usableTools("s", []*sdk.Tool{
		{Name: "good", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}},
		{Name: "none"}, // no schema: any object
		{Name: "bad", InputSchema: map[string]any{"type": 12}},
		{Name: "good"}, // listed twice: the first wins
		nil,
		{Name: ""},
	})
	var names []string
	for _, rt := range got {
		names = append(names, rt.def.Name+"="+string(rt.schema))
	}
	want := `good={"properties":{"q":{"type":"string"}},"type":"object"} none={"type":"object"}`
	if strings.Join(names, " ") != want {
		t.Fatalf("usableTools = %v, want %s", names, want)
	}
}
