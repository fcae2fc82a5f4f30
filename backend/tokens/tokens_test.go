package tokens

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// A Counter starts no goroutines (regexp2 would, for match timeouts,
// which are not set).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestMethodFor(t *testing.T) {
	tests := []struct {
		model string
		want  Method
	}{
		{"gpt-4o", MethodO200k},
		{"gpt-4o-mini", MethodO200k},
		{"gpt-4o-2024-08-06", MethodO200k},
		{"openai/gpt-4o-mini", MethodO200k},
		{"OpenAI/GPT-4o", MethodO200k},
		{"chatgpt-4o-latest", MethodO200k},
		{"gpt-4.1", MethodO200k},
		{"gpt-4.1-nano", MethodO200k},
		{"gpt-4.5-preview", MethodO200k},
		{"gpt-5", MethodO200k},
		{"gpt-5-mini", MethodO200k},
		{"gpt-5.1", MethodO200k},
		{"openai/gpt-5.2-codex", MethodO200k},
		{"o1", MethodO200k},
		{"o1-preview", MethodO200k},
		{"o3-mini", MethodO200k},
		{"openai/o4-mini-high", MethodO200k},
		{"ft:gpt-4o-mini-2024-07-18:acme::abc123", MethodO200k},
		{"openai/gpt-oss-20b", MethodO200k},
		{"gpt-oss:120b", MethodO200k},
		{"gpt-4", MethodCl100k},
		{"gpt-4-0613", MethodCl100k},
		{"gpt-4-turbo", MethodCl100k},
		{"openai/gpt-4-32k", MethodCl100k},
		{"gpt-3.5-turbo", MethodCl100k},
		{"gpt-3.5-turbo-0125", MethodCl100k},
		{"gpt-35-turbo", MethodCl100k},
		{"text-embedding-3-small", MethodCl100k},
		{"text-embedding-ada-002", MethodCl100k},
		{"llama-3.1-8b-instruct", MethodEstimate},
		{"meta-llama/llama-3.3-70b-instruct", MethodEstimate},
		{"qwen/qwen3-coder", MethodEstimate},
		{"mistral-small", MethodEstimate},
		{"anthropic/claude-sonnet-4", MethodEstimate},
		{"google/gemini-2.5-pro", MethodEstimate},
		{"o1x", MethodEstimate},            // not a family boundary
		{"gpt-4oops", MethodEstimate},      // likewise
		{"gpt-40", MethodEstimate},         // likewise
		{"my-gpt-4o", MethodEstimate},      // prefix only
		{"mistral/gpt-4o", MethodEstimate}, // only OpenRouter's openai/ is trusted
		{"", MethodEstimate},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			if got := MethodFor(tt.model); got != tt.want {
				t.Errorf("MethodFor(%q) = %q, want %q", tt.model, got, tt.want)
			}
		})
	}
}

// Counts for exact strings. Those marked published are from OpenAI's
// cookbook "How to count tokens with tiktoken"; the others were checked
// against a second implementation (pkoukk/tiktoken-go reading OpenAI's
// .tiktoken files, whose SHA-256 223921b7… and 446a9538… are the ones
// tiktoken pins), which gave the same token IDs.
func TestTextExact(t *testing.T) {
	tests := []struct {
		name  string
		model string
		text  string
		want  int
	}{
		{"cl100k hello world", "gpt-4", "hello world", 2},
		{"cl100k tiktoken is great (published)", "gpt-4", "tiktoken is great!", 6},
		{"cl100k Hello, world!", "gpt-3.5-turbo", "Hello, world!", 4},
		{"cl100k digits in threes", "gpt-4", "12345678901", 4},
		{"cl100k contractions", "gpt-4", "I'm they'll WE'RE", 6},
		{"cl100k accents cjk emoji", "gpt-4", "naïve café 東京 🙂", 8},
		{"cl100k code", "gpt-4", "func main() {\n\tfmt.Println(\"hi\")\n}\n", 10},
		{"o200k hello world", "gpt-4o", "hello world", 2},
		{"o200k tiktoken is great (published)", "gpt-4o", "tiktoken is great!", 6},
		{"o200k Hello, world!", "gpt-5", "Hello, world!", 4},
		{"o200k digits in threes", "o3", "12345678901", 4},
		{"o200k contractions", "gpt-4o", "I'm they'll WE'RE", 5},
		{"o200k accents cjk emoji", "gpt-4.1", "naïve café 東京 🙂", 6},
		{"o200k code", "gpt-4o", "func main() {\n\tfmt.Println(\"hi\")\n}\n", 10},
		{"empty", "gpt-4o", "", 0},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, m := c.Text(tt.model, tt.text)
			if !m.Exact() {
				t.Fatalf("Text(%q) method %q, want an exact one", tt.model, m)
			}
			if got != tt.want {
				t.Errorf("Text(%q, %q) = %d, want %d", tt.model, tt.text, got, tt.want)
			}
		})
	}
}

// Token IDs: the published ones of the cookbook's examples, and those of
// "hello world", which are the ranks of "hello" and " world" in OpenAI's
// vocabulary files (grep the base64 of each in cl100k_base.tiktoken and
// o200k_base.tiktoken). They show the embedded vocabularies are OpenAI's.
func TestTokenIDs(t *testing.T) {
	tests := []struct {
		method Method
		text   string
		want   []uint
	}{
		{MethodCl100k, "hello world", []uint{15339, 1917}},
		{MethodO200k, "hello world", []uint{24912, 2375}},
		{MethodCl100k, "tiktoken is great!", []uint{83, 1609, 5963, 374, 2294, 0}},
		{MethodO200k, "tiktoken is great!", []uint{83, 8251, 2488, 382, 2212, 0}},
		{MethodCl100k, "antidisestablishmentarianism", []uint{519, 85342, 34500, 479, 8997, 2191}},
		{MethodO200k, "antidisestablishmentarianism", []uint{493, 129901, 376, 160388, 21203, 2367}},
		{MethodCl100k, "2 + 2 = 4", []uint{17, 489, 220, 17, 284, 220, 19}},
		{MethodO200k, "2 + 2 = 4", []uint{17, 659, 220, 17, 314, 220, 19}},
		{MethodCl100k, "お誕生日おめでとう", []uint{33334, 45918, 243, 21990, 9080, 33334, 62004, 16556, 78699}},
		{MethodO200k, "お誕生日おめでとう", []uint{8930, 9697, 243, 128225, 8930, 17693, 4344, 48669}},
	}
	c := New()
	for _, tt := range tests {
		t.Run(string(tt.method)+" "+tt.text, func(t *testing.T) {
			ids, _, err := c.codec(tt.method).Encode(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids, tt.want) {
				t.Errorf("Encode(%q) = %v, want %v", tt.text, ids, tt.want)
			}
		})
	}
}

// Encoding and decoding gives back the input, for both vocabularies.
func TestRoundTrip(t *testing.T) {
	texts := []string{
		"hello world",
		"  leading and trailing  \n\n",
		"naïve café 東京 🙂 Ελληνικά русский עברית",
		"func main() {\n\tfmt.Println(\"hi\")\n}\n",
		strings.Repeat("a", 500), // one long piece: the heap merge path
		tenKB,
	}
	c := New()
	for _, m := range []Method{MethodO200k, MethodCl100k} {
		for _, s := range texts {
			t.Run(string(m)+" "+s[:min(len(s), 16)], func(t *testing.T) {
				k := c.codec(m)
				ids, _, err := k.Encode(s)
				if err != nil {
					t.Fatal(err)
				}
				back, err := k.Decode(ids)
				if err != nil {
					t.Fatal(err)
				}
				if back != s {
					t.Errorf("decode(encode(%q)) = %q", s, back)
				}
				if n, _ := c.Text(modelFor[m], s); n != len(ids) {
					t.Errorf("Text = %d, Encode gave %d tokens", n, len(ids))
				}
			})
		}
	}
}

var modelFor = map[Method]string{MethodO200k: "gpt-4o", MethodCl100k: "gpt-4"}

func TestTextEstimate(t *testing.T) {
	tests := []struct {
		model string
		text  string
	}{
		{"llama-3.1-8b-instruct", "hello world"},
		{"meta-llama/llama-3.3-70b-instruct", "The quick brown fox jumps over the lazy dog."},
		{"qwen3-32b", tenKB},
		{"unknown", ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			got, m := c.Text(tt.model, tt.text)
			if m != MethodEstimate {
				t.Errorf("method %q, want %q", m, MethodEstimate)
			}
			if want := llm.EstimateTokens(tt.text); got != want {
				t.Errorf("Text = %d, want llm.EstimateTokens = %d", got, want)
			}
		})
	}
	if n := c.loads.Load(); n != 0 {
		t.Errorf("estimating loaded %d vocabularies, want none", n)
	}
}

func TestInvalidUTF8(t *testing.T) {
	c := New()
	got, _ := c.Text("gpt-4o", "a\xffb")
	want, _ := c.Text("gpt-4o", "a\uFFFDb")
	if got != want {
		t.Errorf("invalid UTF-8 counted %d, its U+FFFD form %d", got, want)
	}
}

// New loads nothing; each vocabulary loads on its first use, once.
func TestLazyLoad(t *testing.T) {
	c := New()
	steps := []struct {
		model string
		text  string
		loads int32
	}{
		{"", "", 0},
		{"llama-3", "estimates need no vocabulary", 0},
		{"gpt-4o", "", 0}, // nothing to count
		{"gpt-4o", "hello", 1},
		{"gpt-5", "again", 1},
		{"gpt-4", "hello", 2},
		{"gpt-3.5-turbo", "again", 2},
	}
	if n := c.loads.Load(); n != 0 {
		t.Fatalf("New loaded %d vocabularies", n)
	}
	for _, s := range steps {
		c.Text(s.model, s.text)
		if n := c.loads.Load(); n != s.loads {
			t.Errorf("after Text(%q, %q): %d loaded, want %d", s.model, s.text, n, s.loads)
		}
	}
}

// Many goroutines counting at once, starting before anything is loaded,
// agree with a count made alone (run with -race).
func TestConcurrent(t *testing.T) {
	models := []string{"gpt-4o", "gpt-4", "llama-3", "openai/gpt-4o-mini", "gpt-3.5-turbo"}
	texts := []string{"hello world", "naïve café 東京 🙂", tenKB[:2000]}
	want := map[[2]string]int{}
	ref := New()
	for _, m := range models {
		for _, s := range texts {
			want[[2]string{m, s}], _ = ref.Text(m, s)
		}
	}

	c := New()
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			for i := range 20 {
				m, s := models[(g+i)%len(models)], texts[i%len(texts)]
				if got, _ := c.Text(m, s); got != want[[2]string{m, s}] {
					t.Errorf("Text(%q, %.10q) = %d, want %d", m, s, got, want[[2]string{m, s}])
				}
			}
		})
	}
	wg.Wait()
	if n := c.loads.Load(); n != 2 {
		t.Errorf("%d loads, want 2 (each vocabulary once)", n)
	}
}

func TestCorrected(t *testing.T) {
	tests := []struct {
		name                                 string
		estimate, lastEstimate, lastReported int
		want                                 int
	}{
		{"no previous call", 1000, 0, 0, 1000},
		{"no report", 1000, 900, 0, 1000},
		{"zero estimate before", 1000, 0, 950, 1000},
		{"negative report", 1000, 900, -5, 1000},
		{"negative estimate before", 1000, -900, 950, 1000},
		{"nothing to correct", 0, 900, 950, 0},
		{"exact before", 1000, 800, 800, 1000},
		{"server counted more", 1000, 800, 1000, 1250},
		{"server counted less", 1000, 1000, 900, 900},
		{"rounds", 3, 3, 4, 4},
		{"clamped up to 2", 1000, 100, 1000, 2000},
		{"clamped down to 0.5", 1000, 1000, 10, 500},
		{"at the upper bound", 1000, 500, 1000, 2000},
		{"at the lower bound", 1000, 1000, 500, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Corrected(tt.estimate, tt.lastEstimate, tt.lastReported); got != tt.want {
				t.Errorf("Corrected(%d, %d, %d) = %d, want %d", tt.estimate, tt.lastEstimate, tt.lastReported, got, tt.want)
			}
		})
	}
}

// tenKB is 10,240 bytes of English prose and a little code.
var tenKB = func() string {
	const para = "The composer shows how much of the model's context a prompt will take before it is sent. " +
		"It counts with the model's own tokenizer when it has one, and otherwise estimates about four bytes a token. " +
		"When the server reports prompt_tokens for a call, the next estimate is scaled by how far off the last one was.\n" +
		"for i, m := range msgs {\n\tn += count(m.Content) + 3\n}\n"
	return strings.Repeat(para, 10240/len(para)+1)[:10240]
}()
