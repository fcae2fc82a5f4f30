package catalog

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// DefaultContextWindow is assumed for a model nothing knows.
const DefaultContextWindow = 8_192

// knownWindows are context sizes in tokens of well-known models, matched by
// model-name prefix (after any "provider/" part); the longest prefix wins.
var knownWindows = map[string]int{
	"gpt-4o": 128_000, "gpt-4.1": 1_000_000, "gpt-4-turbo": 128_000, "gpt-4": 8_192, "gpt-3.5-turbo": 16_385,
	"gpt-5": 400_000, "o1": 200_000, "o3": 200_000, "o4": 200_000,
	"claude": 200_000, "gemini": 1_000_000,
	"llama3.1": 128_000, "llama3.2": 128_000, "llama3.3": 128_000, "llama3": 8_192, "llama-3": 128_000,
	"qwen2.5": 32_768, "qwen3": 40_960, "qwen": 32_768, "mistral": 32_768, "mixtral": 32_768,
	"gemma3": 128_000, "gemma2": 8_192, "gemma": 8_192, "phi4": 16_384, "phi3": 4_096,
	"deepseek": 65_536, "command-r": 128_000,
}

// KnownWindow is model's window from the table of well-known models, or
// DefaultContextWindow.
func KnownWindow(model string) llm.Window {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	best, w := 0, llm.Window{Tokens: DefaultContextWindow, Source: llm.WindowDefault}
	for prefix, n := range knownWindows {
		if strings.HasPrefix(m, prefix) && len(prefix) > best {
			best, w = len(prefix), llm.Window{Tokens: n, Source: llm.WindowKnown}
		}
	}
	return w
}

// ContextWindow asks p's server for model's window and falls back on
// KnownWindow when the server does not say or cannot be reached; err says
// why the server did not answer (for the log: the window is usable either
// way). key is p's API key, "" for none.
func ContextWindow(ctx context.Context, hc *http.Client, p llm.Provider, key, model string) (llm.Window, error) {
	n, err := ServerWindow(ctx, hc, p, key, model)
	if n > 0 {
		return llm.Window{Tokens: n, Source: llm.WindowServer}, nil
	}
	return KnownWindow(model), err
}

// ServerWindow asks p's server for model's window, the way its kind says
// it: Ollama's /api/show (the num_ctx it runs the model with, else the
// model's context_length), LM Studio's /api/v0/models (the loaded context,
// else the most it can load), llama.cpp's /props (n_ctx), vLLM's
// /v1/models (max_model_len) and OpenRouter's /models (context_length). A
// server of another kind is asked the OpenAI-style list, then /props. It
// returns 0 when the server does not say.
func ServerWindow(ctx context.Context, hc *http.Client, p llm.Provider, key, model string) (int, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	base := strings.TrimRight(p.BaseURL, "/")
	root := strings.TrimSuffix(base, "/v1")
	q := serverQuery{ctx: ctx, hc: hc, key: key, model: model}
	switch p.Kind {
	case KindOllama:
		return q.ollama(root)
	case KindLMStudio:
		return q.listWindow(root + "/api/v0/models")
	case KindLlamaCpp:
		return q.llamaCpp(root)
	case KindVLLM, KindOpenRouter:
		return q.listWindow(base + "/models")
	case KindOpenAI:
		return 0, nil // its list has no windows
	}
	n, err := q.listWindow(base + "/models")
	if n > 0 {
		return n, nil
	}
	if m, err2 := q.llamaCpp(root); m > 0 {
		return m, nil
	} else if err == nil {
		err = err2
	}
	return 0, err
}

// ErrUnreachable marks a server query that got no answer at all (the
// server is down, or did not answer in time), as opposed to an answer
// that said nothing: the one is worth asking again, the other not.
var ErrUnreachable = errors.New("the server could not be reached")

// serverQuery asks a model's server something about the model (its
// window here, its price in price.go).
type serverQuery struct {
	ctx        context.Context
	hc         *http.Client
	key, model string
}

// ollama reads /api/show: its parameters text ("num_ctx 8192" on a line)
// and model_info's "<architecture>.context_length".
func (q serverQuery) ollama(root string) (int, error) {
	var show struct {
		Parameters string                     `json:"parameters"`
		ModelInfo  map[string]json.RawMessage `json:"model_info"`
	}
	body, _ := json.Marshal(map[string]string{"model": q.model})
	if err := q.get(http.MethodPost, root+"/api/show", body, &show); err != nil {
		return 0, err
	}
	for _, line := range strings.Split(show.Parameters, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return n, nil
			}
		}
	}
	for k, v := range show.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			var n int
			if json.Unmarshal(v, &n) == nil && n > 0 {
				return n, nil
			}
		}
	}
	return 0, nil
}

// llamaCpp reads /props: default_generation_settings.n_ctx, or a top-level
// n_ctx in other versions. llama.cpp serves one model, whatever is asked.
func (q serverQuery) llamaCpp(root string) (int, error) {
	var props struct {
		NCtx     int `json:"n_ctx"`
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if err := q.get(http.MethodGet, root+"/props", nil, &props); err != nil {
		return 0, err
	}
	return max(cmp.Or(props.Settings.NCtx, props.NCtx), 0), nil
}

// listedModel is a model as an OpenAI-style /models list gives it, with
// the fields some servers add: its window (LM Studio's loaded and max
// context, vLLM's max_model_len, OpenRouter's context_length) and
// OpenRouter's prices.
type listedModel struct {
	ID          string `json:"id"`
	Loaded      int    `json:"loaded_context_length"`
	Max         int    `json:"max_context_length"`
	MaxModelLen int    `json:"max_model_len"`
	Context     int    `json:"context_length"`
	Pricing     struct {
		Prompt     string `json:"prompt"`
		Completion string `json:"completion"`
		CacheRead  string `json:"input_cache_read"`
	} `json:"pricing"`
}

// window is the model's window: the context LM Studio has it loaded with,
// else the most any server says it takes; 0 when the list does not say.
func (m listedModel) window() int {
	return max(cmp.Or(m.Loaded, m.Max, m.MaxModelLen, m.Context), 0)
}

// modelList finds q's model in the list of models at url; ok is false
// when the list lacks it.
func (q serverQuery) modelList(url string) (m listedModel, ok bool, err error) {
	var list struct {
		Data []listedModel `json:"data"`
	}
	if err := q.get(http.MethodGet, url, nil, &list); err != nil {
		return listedModel{}, false, err
	}
	for _, m := range list.Data {
		if m.ID == q.model {
			return m, true, nil
		}
	}
	return listedModel{}, false, nil
}

// listWindow is the window of q's model in the list at url (0: none).
func (q serverQuery) listWindow(url string) (int, error) {
	m, _, err := q.modelList(url)
	return m.window(), err
}

// maxQueryBody bounds what a serverQuery reads: OpenRouter's list of
// every model with its prices is a few megabytes.
const maxQueryBody = 16 << 20

func (q serverQuery) get(method, url string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(q.ctx, method, url, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if q.key != "" {
		req.Header.Set("Authorization", "Bearer "+q.key)
	}
	resp, err := q.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: the server answered %s", method, url, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxQueryBody)).Decode(out); err != nil {
		return fmt.Errorf("%s %s: the answer is not the JSON expected: %w", method, url, err)
	}
	return nil
}
