package runner

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentdeck/agentdeck/backend/tool"
)

type namedTool struct{ name, server string }

func (t namedTool) Spec() tool.Spec { return tool.Spec{Name: t.name} }
func (t namedTool) Execute(context.Context, json.RawMessage) (string, error) {
	return "", nil
}

type mcpTool struct{ namedTool }

func (t mcpTool) Server() string { return t.server }

// Only the enabled MCP servers' tools are offered; other tools stay.
func TestEnabledTools(t *testing.T) {
	all := []tool.Tool{namedTool{name: "read_file"}, mcpTool{namedTool{"gh_issues", "github"}}, mcpTool{namedTool{"fs_list", "files"}}}
	names := func(ts []tool.Tool) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Spec().Name)
		}
		return out
	}
	tests := []struct {
		name    string
		servers []string
		want    []string
	}{
		{"none set: all", nil, []string{"read_file", "gh_issues", "fs_list"}},
		{"one enabled", []string{"github"}, []string{"read_file", "gh_issues"}},
		{"none enabled", []string{}, []string{"read_file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := names(enabledTools(all, tt.servers)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if len(all) != 3 {
		t.Error("enabledTools changed its input")
	}
}
