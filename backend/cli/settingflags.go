package cli

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// A layer of settings (turn.RunSettings) set from flags: each key is a
// flag (--temperature 0.3); an empty value (--temperature=) unsets it, so
// the layer below decides again. Only the flags given change anything.

// layerKey is one setting a flag sets.
type layerKey struct {
	name, usage string
	// set sets the value, or unsets it when v is "".
	set func(s *turn.RunSettings, v string) error
}

var layerKeys = []layerKey{
	{"system", "instructions (a system prompt); none: no instructions over those of a layer below",
		func(s *turn.RunSettings, v string) error {
			if v == "none" {
				s.Instructions = new(string)
				return nil
			}
			return setKey(s, "system", v, true)
		}},
	{"provider", "provider", keySetter("provider")},
	{"model", "model", keySetter("model")},
	{"workflow", "workflow", keySetter("workflow")},
	{"temperature", "sampling temperature, 0 to 2", keySetter("temperature")},
	{"top-p", "top-p, above 0 and at most 1", keySetter("top_p")},
	{"max-tokens", "most output tokens a model call may write", keySetter("max_tokens")},
	{"seed", "sampling seed", keySetter("seed")},
	{"stop", "stop sequences, separated by |", func(s *turn.RunSettings, v string) error {
		s.Stop = nil
		if v != "" {
			s.Stop = strings.Split(v, "|")
		}
		return nil
	}},
	{"reasoning-effort", "low, medium or high", keySetter("reasoning_effort")},
	{"max-steps", "most model calls a turn makes", intSetting(func(s *turn.RunSettings) *int { return &s.Limits.MaxSteps })},
	{"max-tool-calls", "most tool calls a turn makes", intSetting(func(s *turn.RunSettings) *int { return &s.Limits.MaxToolCalls })},
	{"token-budget", "most tokens a turn uses", intSetting(func(s *turn.RunSettings) *int { return &s.Limits.TokenBudget })},
	{"timeout", "longest a turn runs (a duration: 10m)", func(s *turn.RunSettings, v string) error {
		if v == "" {
			s.Limits.Timeout = 0
			return nil
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("%q is not valid; it must be a duration such as 90s or 10m", v)
		}
		s.Limits.Timeout = d
		return nil
	}},
	{"mcp", "MCP servers turns may use, separated by commas (none: no server)", func(s *turn.RunSettings, v string) error {
		switch v {
		case "":
			s.MCPServers = nil
		case "none":
			s.MCPServers = []string{}
		default:
			s.MCPServers = nil
			for n := range strings.SplitSeq(v, ",") {
				if n = strings.TrimSpace(n); n != "" {
					s.MCPServers = append(s.MCPServers, n)
				}
			}
		}
		return nil
	}},
}

// layerFlags are the flags of layerKeys on one flag set.
type layerFlags struct {
	fs     *flag.FlagSet
	values map[string]*string
}

// layerFlagsOf adds a flag for each settings key.
func layerFlagsOf(fs *flag.FlagSet) layerFlags {
	f := layerFlags{fs: fs, values: map[string]*string{}}
	for _, k := range layerKeys {
		f.values[k.name] = fs.String(k.name, "", k.usage)
	}
	return f
}

// apply sets on s the keys whose flags were given, and checks the result.
func (f layerFlags) apply(s *turn.RunSettings) error {
	var err error
	f.fs.Visit(func(fl *flag.Flag) {
		for _, k := range layerKeys {
			if k.name == fl.Name && err == nil {
				if e := k.set(s, strings.TrimSpace(*f.values[k.name])); e != nil {
					// setKey names its key first ("top_p: ..."): the flag's name says it here.
					msg := e.Error()
					if i := strings.Index(msg, ": "); i > 0 && !strings.Contains(msg[:i], " ") {
						msg = msg[i+2:]
					}
					err = apperr.New(apperr.Invalid, "--%s: %s.", k.name, msg)
				}
			}
		}
	})
	if err != nil {
		return err
	}
	if e := s.Validate(); e != nil {
		return apperr.New(apperr.Invalid, "Those settings are not valid: %v.", e)
	}
	return nil
}

func intSetting(field func(*turn.RunSettings) *int) func(*turn.RunSettings, string) error {
	return func(s *turn.RunSettings, v string) error {
		if v == "" {
			*field(s) = 0
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("%q is not valid; it must be a whole number", v)
		}
		*field(s) = n
		return nil
	}
}

// keySetter sets one key as sessions set reads it (setKey), so a value
// means the same, and is refused in the same words, everywhere.
func keySetter(key string) func(*turn.RunSettings, string) error {
	return func(s *turn.RunSettings, v string) error { return setKey(s, key, v, true) }
}

// settingsText is a layer for people, one "key: value" line each set key.
func settingsText(s turn.RunSettings) []string {
	var out []string
	add := func(k string, v any) { out = append(out, fmt.Sprintf("%s: %v", k, v)) }
	if s.Instructions != nil {
		add("instructions", strconv.Quote(*s.Instructions))
	}
	for _, kv := range []struct{ k, v string }{{"provider", s.Provider}, {"model", s.Model}, {"workflow", s.Workflow}, {"reasoning effort", s.ReasoningEffort}} {
		if kv.v != "" {
			add(kv.k, kv.v)
		}
	}
	if s.Temperature != nil {
		add("temperature", *s.Temperature)
	}
	if s.TopP != nil {
		add("top-p", *s.TopP)
	}
	if s.MaxTokens != nil {
		add("max tokens", *s.MaxTokens)
	}
	if s.Seed != nil {
		add("seed", *s.Seed)
	}
	if s.Stop != nil {
		add("stop", strings.Join(s.Stop, " | "))
	}
	for _, kv := range []struct {
		k string
		v int
	}{{"max steps", s.Limits.MaxSteps}, {"max tool calls", s.Limits.MaxToolCalls}, {"token budget", s.Limits.TokenBudget}} {
		if kv.v != 0 {
			add(kv.k, kv.v)
		}
	}
	if s.Limits.Timeout != 0 {
		add("timeout", s.Limits.Timeout)
	}
	if s.MCPServers != nil {
		add("mcp servers", strings.Join(s.MCPServers, ", "))
	}
	return out
}
