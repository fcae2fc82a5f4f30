package tokens

import (
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// Method says how a count was made.
type Method string

// The ways a count is made.
const (
	// MethodO200k is exact: OpenAI's o200k_base tokenizer (GPT-4o, GPT-4.1,
	// GPT-5, o-series).
	MethodO200k Method = "tiktoken:o200k_base"
	// MethodCl100k is exact: OpenAI's cl100k_base tokenizer (GPT-4,
	// GPT-3.5 Turbo, text-embedding-3).
	MethodCl100k Method = "tiktoken:cl100k_base"
	// MethodEstimate is llm.EstimateTokens, about four bytes a token: every
	// other model, whose tokenizer is not built in.
	MethodEstimate Method = "estimate"
)

// Exact reports whether m counts with the model's real tokenizer.
func (m Method) Exact() bool { return m != MethodEstimate }

// Counter counts tokens. It is safe for concurrent use. A vocabulary is
// loaded the first time a model that needs it is counted, and only once.
type Counter struct {
	o200k  func() *codec.Codec
	cl100k func() *codec.Codec
	// loads counts vocabularies this Counter has loaded, so a test can see
	// that New loads none.
	loads atomic.Int32
}

// New returns a Counter that has loaded nothing yet.
func New() *Counter {
	c := &Counter{}
	c.o200k = sync.OnceValue(func() *codec.Codec { return c.load(codec.NewO200kBase) })
	c.cl100k = sync.OnceValue(func() *codec.Codec { return c.load(codec.NewCl100kBase) })
	return c
}

// Text counts the tokens of s as model's tokenizer splits it.
func (c *Counter) Text(model, s string) (int, Method) {
	m := MethodFor(model)
	return c.count(m, s), m
}

// MethodFor says how model's tokens are counted, without loading anything.
// Names are matched case-insensitively, with an OpenRouter "openai/" or a
// fine-tune "ft:" prefix ignored; a family matches its dated and sized
// variants ("gpt-4o-mini", "gpt-4o-2024-08-06", "gpt-5.1", "o3-mini").
func MethodFor(model string) Method {
	name := strings.ToLower(strings.TrimSpace(model))
	name = strings.TrimPrefix(name, "openai/")
	name = strings.TrimPrefix(name, "ft:")
	for _, f := range families {
		rest, ok := strings.CutPrefix(name, f.prefix)
		if ok && (rest == "" || strings.ContainsRune("-.:", rune(rest[0]))) {
			return f.method
		}
	}
	return MethodEstimate
}

// families maps model-name prefixes to their tokenizer. The first match
// wins, so "gpt-4o" and "gpt-4.1" must come before "gpt-4".
var families = []struct {
	prefix string
	method Method
}{
	{"gpt-4o", MethodO200k},
	{"chatgpt-4o", MethodO200k},
	{"gpt-4.1", MethodO200k},
	{"gpt-4.5", MethodO200k},
	{"gpt-5", MethodO200k},
	{"o1", MethodO200k},
	{"o3", MethodO200k},
	{"o4", MethodO200k},
	// gpt-oss (LM Studio, vLLM, Ollama) uses o200k_harmony: o200k_base
	// with more special tokens, so ordinary text splits the same.
	{"gpt-oss", MethodO200k},
	{"gpt-4", MethodCl100k},
	{"gpt-3.5-turbo", MethodCl100k},
	{"gpt-35-turbo", MethodCl100k}, // Azure's spelling
	{"text-embedding-3", MethodCl100k},
	{"text-embedding-ada-002", MethodCl100k},
}

// Corrected scales estimate, a count for the next call of a conversation,
// by how far the previous call's count (lastEstimate) was from the
// prompt_tokens the server reported for it (lastReported). What no counter
// here sees, such as a chat template's own tokens, a system prompt the
// server adds, reasoning sent back or a high-detail image, shows up in
// that ratio and carries over to the next call, which differs from the
// previous one only by a message or two.
//
// The ratio is clamped to [0.5, 2] so one odd report (a cached prompt, a
// server that counts differently) cannot swing the meter wildly. Without
// a usable previous call (either number zero or negative) estimate is
// returned unchanged, as it is when estimate itself is not positive.
func Corrected(estimate, lastEstimate, lastReported int) int {
	if estimate <= 0 || lastEstimate <= 0 || lastReported <= 0 {
		return estimate
	}
	ratio := min(max(float64(lastReported)/float64(lastEstimate), 0.5), 2)
	return int(math.Round(float64(estimate) * ratio))
}

// count counts s by method m, loading m's vocabulary if it is the first
// use. An empty string is 0 without loading anything.
func (c *Counter) count(m Method, s string) int {
	if s == "" {
		return 0
	}
	k := c.codec(m)
	if k == nil {
		return llm.EstimateTokens(s)
	}
	n, err := k.Count(s)
	if err != nil {
		// Only ErrorModeStrict or a regexp timeout fail, and neither is
		// set; an estimate keeps the meter working if that ever changes.
		return llm.EstimateTokens(s)
	}
	return n
}

// codec returns m's tokenizer, or nil for MethodEstimate.
func (c *Counter) codec(m Method) *codec.Codec {
	switch m {
	case MethodO200k:
		return c.o200k()
	case MethodCl100k:
		return c.cl100k()
	}
	return nil
}

// load builds a codec: the library fills its vocabulary map on the first
// call in the process (later calls, from other Counters, reuse it) and
// compiles the split pattern.
func (c *Counter) load(newCodec func() *codec.Codec) *codec.Codec {
	c.loads.Add(1)
	k := newCodec()
	// Invalid UTF-8 reaches the server as U+FFFD (JSON encoding replaces
	// it), so count it that way rather than as raw bytes.
	k.SetErrorMode(codec.ErrorModeReplace)
	return k
}
