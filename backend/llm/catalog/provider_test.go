package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
)

func TestPresets(t *testing.T) {
	presets := Presets()
	seen := map[string]bool{}
	for _, p := range presets {
		t.Run(p.Name, func(t *testing.T) {
			if err := Validate(p); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if seen[p.Name] {
				t.Fatalf("duplicate preset name %q", p.Name)
			}
			seen[p.Name] = true
			if p.Local == p.NeedsKey {
				t.Errorf("Local=%v NeedsKey=%v: local presets need no key, hosted ones do", p.Local, p.NeedsKey)
			}
			if !strings.HasSuffix(p.BaseURL, "/v1") {
				t.Errorf("BaseURL %q does not end in /v1", p.BaseURL)
			}
			if KindLabel(p.Kind) == "" {
				t.Errorf("kind %q has no label", p.Kind)
			}
			// A local server's "is not running" error says how to start it.
			if pre, _ := presetOf(p.Kind); p.Local && pre.start == "" {
				t.Errorf("local kind %q does not say how to start it", p.Kind)
			}
			if !strings.Contains(Validate(llm.Provider{Name: "x", Kind: "nope"}).Error(), p.Kind) {
				t.Errorf("the unknown-kind error does not offer %q", p.Kind)
			}
		})
	}
	if len(presets) != 8 {
		t.Errorf("got %d presets, want 8", len(presets))
	}
	presets[0].BaseURL = "http://changed"
	if Presets()[0].BaseURL == "http://changed" {
		t.Error("Presets shares its slice between calls")
	}
}

func TestProviderValidate(t *testing.T) {
	ok := llm.Provider{Name: "work-openai", Kind: KindCustom, BaseURL: "http://10.0.0.5:8000/v1"}
	with := func(f func(*llm.Provider)) llm.Provider {
		p := ok
		f(&p)
		return p
	}
	tests := []struct {
		name    string
		p       llm.Provider
		wantMsg string // substring of the message; "" means valid
	}{
		{"valid custom", ok, ""},
		{"valid with key ref and models", with(func(p *llm.Provider) {
			p.APIKeyRef = "provider/work-openai"
			p.Models = []string{"a", "b"}
			p.DefaultModel = "a"
		}), ""},
		{"valid localhost no path", with(func(p *llm.Provider) { p.BaseURL = "http://localhost:11434" }), ""},
		{"valid ipv6", with(func(p *llm.Provider) { p.BaseURL = "http://[::1]:8080/v1" }), ""},
		{"empty name", with(func(p *llm.Provider) { p.Name = "" }), "needs a name"},
		{"upper-case name", with(func(p *llm.Provider) { p.Name = "Work" }), "lowercase"},
		{"name with space", with(func(p *llm.Provider) { p.Name = "work openai" }), "lowercase"},
		{"name starting with dash", with(func(p *llm.Provider) { p.Name = "-x" }), "starting with"},
		{"long name", with(func(p *llm.Provider) { p.Name = strings.Repeat("a", 65) }), "up to 64"},
		{"unknown kind", with(func(p *llm.Provider) { p.Kind = "anthropic" }), "kind \"anthropic\" is unknown"},
		{"empty kind", with(func(p *llm.Provider) { p.Kind = "" }), "is unknown"},
		{"empty url", with(func(p *llm.Provider) { p.BaseURL = "" }), "needs a base URL"},
		{"unparsable url", with(func(p *llm.Provider) { p.BaseURL = "http://[::1" }), "not a valid URL"},
		{"ftp scheme", with(func(p *llm.Provider) { p.BaseURL = "ftp://host/v1" }), "http:// or https://"},
		{"no scheme", with(func(p *llm.Provider) { p.BaseURL = "127.0.0.1:11434/v1" }), "http:// or https://"},
		{"no host", with(func(p *llm.Provider) { p.BaseURL = "http:///v1" }), "no host"},
		{"bad port", with(func(p *llm.Provider) { p.BaseURL = "http://host:99999/v1" }), "invalid port"},
		{"credentials", with(func(p *llm.Provider) { p.BaseURL = "https://user:sk-secret@host/v1" }), "key field"},
		{"key in query", with(func(p *llm.Provider) { p.BaseURL = "https://host/v1?api_key=sk-secret" }), "key field"},
		{"empty query", with(func(p *llm.Provider) { p.BaseURL = "https://host/v1?" }), "query"},
		{"fragment", with(func(p *llm.Provider) { p.BaseURL = "https://host/v1#x" }), "fragment"},
		{"hosted over http", with(func(p *llm.Provider) { p.Kind = KindOpenAI; p.BaseURL = "http://api.openai.com/v1" }), "https"},
		{"blank model", with(func(p *llm.Provider) { p.Models = []string{"a", " "} }), "empty name"},
		{"blank default", with(func(p *llm.Provider) { p.DefaultModel = "  " }), "blank"},
		{"key pasted as ref", with(func(p *llm.Provider) { p.APIKeyRef = "sk-proj-abcdef" }), "looks like an API key"},
		{"bad ref", with(func(p *llm.Provider) { p.APIKeyRef = "a ref with spaces" }), "key reference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.p)
			if tt.wantMsg == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var ae *apperr.Error
			if !errors.As(err, &ae) {
				t.Fatalf("Validate = %v, want *apperr.Error", err)
			}
			if ae.Code != apperr.Invalid {
				t.Errorf("code = %q, want invalid", ae.Code)
			}
			if !strings.Contains(ae.Message, tt.wantMsg) {
				t.Errorf("message %q does not contain %q", ae.Message, tt.wantMsg)
			}
			if strings.Contains(ae.Error(), "sk-secret") || strings.Contains(ae.Error(), "sk-proj") {
				t.Errorf("message echoes the secret: %q", ae.Error())
			}
		})
	}
}

// TestProvidersDocMatchesPresets keeps docs/PROVIDERS.md true: each preset
// (and Custom) has a row in the reasoning table whose "sent back" column
// says what EchoFor does for it.
func TestProvidersDocMatchesPresets(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "PROVIDERS.md"))
	if err != nil {
		t.Fatal(err)
	}
	says := map[openai.ReasoningEcho]string{
		openai.EchoNone:          "nothing",
		openai.EchoContent:       "`reasoning_content`, when there is some",
		openai.EchoContentAlways: "`reasoning_content`, always",
		openai.EchoReasoning:     "`reasoning`",
		openai.EchoDetails:       "`reasoning_details`",
	}
	// The reasoning table: the section up to the next heading (the chunk
	// shapes table below it names the same servers).
	_, reasoning, _ := strings.Cut(string(doc), "## Reasoning: where it arrives")
	reasoning, _, _ = strings.Cut(reasoning, "\n## ")
	rows := map[string][]string{}
	for _, line := range strings.Split(reasoning, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) >= 4 && strings.HasPrefix(line, "| ") {
			rows[strings.TrimPrefix(cells[0], "| ")] = cells
		}
	}
	prefixRows := map[string][]string{}
	if _, section, ok := strings.Cut(string(doc), "## Continue: a partial answer as a prefix"); ok {
		for _, line := range strings.Split(section, "\n") {
			if cells := strings.Split(line, " | "); len(cells) >= 3 && strings.HasPrefix(line, "| ") {
				prefixRows[strings.TrimPrefix(cells[0], "| ")] = cells
			}
		}
	}
	sends := map[openai.Prefix]string{openai.PrefixNone: "an instruction", openai.PrefixTrailing: "the partial answer, as the last message", openai.PrefixContinueFinal: "the partial answer, with `continue_final_message`"}
	for _, p := range append(append([]preset(nil), presets...), customPreset) {
		if row, ok := prefixRows[p.label]; !ok || row[1] != sends[p.prefix] {
			t.Errorf("docs/PROVIDERS.md's Continue table says %s gets %q; the code sends %q", p.label, row, sends[p.prefix])
		}
		row, ok := rows[p.label]
		if !ok {
			t.Errorf("docs/PROVIDERS.md has no row for %s", p.label)
			continue
		}
		if sent := row[2]; !strings.HasPrefix(sent, says[p.echo]) || (p.echo == openai.EchoReasoning && strings.HasPrefix(sent, "`reasoning_")) {
			t.Errorf("docs/PROVIDERS.md says %s gets %q back; the code sends %q", p.label, sent, says[p.echo])
		}
	}
}
