package llmtest

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	tests := []struct {
		s      string
		pieces int
		want   []string
	}{
		{"Hello", 2, []string{"He", "llo"}},
		{"Hello", 5, []string{"H", "e", "l", "l", "o"}},
		{"Hello", 9, []string{"H", "e", "l", "l", "o"}},
		{"Hello", 1, []string{"Hello"}},
		{"Hello", 0, []string{"Hello"}},
		{"Hello", -3, []string{"Hello"}},
		{"", 3, nil},
		{"héllo wörld", 3, []string{"hél", "lo w", "örld"}},
		{"日本語テキスト", 3, []string{"日本", "語テ", "キスト"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q/%d", tt.s, tt.pieces), func(t *testing.T) {
			chunks := Text(tt.s, tt.pieces)
			last := chunks[len(chunks)-1]
			if !isBareFinish(last) || last.FinishReason != "stop" {
				t.Errorf("last chunk %+v, want a bare stop", last)
			}
			var got []string
			for _, c := range chunks[:len(chunks)-1] {
				if !utf8.ValidString(c.Content) {
					t.Errorf("chunk %q cuts a rune", c.Content)
				}
				got = append(got, c.Content)
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
				t.Errorf("pieces %q, want %q", got, tt.want)
			}
			if Content(chunks) != tt.s {
				t.Errorf("Content %q, want %q", Content(chunks), tt.s)
			}
		})
	}
}

func TestToolCallChunks(t *testing.T) {
	chunks := ToolCallChunks(2, "call_9", "write_file", `{"path":"ü.txt"}`, 3)
	if len(chunks) != 4 {
		t.Fatalf("%d chunks, want 4", len(chunks))
	}
	first := chunks[0].ToolCalls[0]
	if first != (ToolCallDelta{Index: 2, ID: "call_9", Name: "write_file"}) {
		t.Errorf("first delta %+v", first)
	}
	var args strings.Builder
	for _, c := range chunks[1:] {
		d := c.ToolCalls[0]
		if d.Index != 2 || d.ID != "" || d.Name != "" || d.Arguments == "" || c.FinishReason != "" {
			t.Errorf("delta %+v", d)
		}
		args.WriteString(d.Arguments)
	}
	if args.String() != `{"path":"ü.txt"}` {
		t.Errorf("arguments %q", args.String())
	}
	if n := len(ToolCallChunks(0, "c", "f", "", 3)); n != 1 {
		t.Errorf("empty arguments: %d chunks, want 1", n)
	}
}

func TestWithFinish(t *testing.T) {
	tests := []struct {
		name   string
		chunks []Chunk
		want   []Chunk
	}{
		{"replaces a bare finish", Text("a", 1), []Chunk{{Content: "a"}, {FinishReason: "length"}}},
		{"appends after content", []Chunk{{Content: "a", FinishReason: "stop"}}, []Chunk{{Content: "a", FinishReason: "stop"}, {FinishReason: "length"}}},
		{"appends to tool calls", ToolCallChunks(0, "c", "f", "", 1), []Chunk{{ToolCalls: []ToolCallDelta{{ID: "c", Name: "f"}}}, {FinishReason: "length"}}},
		{"empty", nil, []Chunk{{FinishReason: "length"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fmt.Sprintf("%+v", tt.chunks)
			got := WithFinish(tt.chunks, "length")
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if fmt.Sprintf("%+v", tt.chunks) != before {
				t.Errorf("input modified: %+v", tt.chunks)
			}
		})
	}
}

func TestTokens(t *testing.T) {
	chunks := Tokens(3)
	if got := Content(chunks); got != "tok0 tok1 tok2 " || chunks[3].FinishReason != "stop" || len(chunks) != 4 {
		t.Errorf("Tokens(3) = %+v", chunks)
	}
	if got := Stream(Tokens(1), Reasoning("r", 1)); len(got) != 3 || got[2].Reasoning != "r" {
		t.Errorf("Stream = %+v", got)
	}
}
