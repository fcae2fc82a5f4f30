package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Name is the tool's name.
const Name = "fetch_url"

// Tool is fetch_url for one turn: it numbers the pages it gives with the
// turn's other sources (knowledge.Numbers), and reports each as a source.
type Tool struct {
	fetcher *Fetcher
	numbers *knowledge.Numbers
}

// NewTool returns fetch_url over a Fetcher, numbering its pages with the
// turn's numbers (nil: its own, for a tool used alone).
func NewTool(f *Fetcher, numbers *knowledge.Numbers) *Tool {
	if numbers == nil {
		numbers = &knowledge.Numbers{}
	}
	return &Tool{fetcher: f, numbers: numbers}
}

var (
	_ tool.Tool     = (*Tool)(nil)
	_ tool.Replayer = (*Tool)(nil)
	_ tool.Scoped   = (*Tool)(nil)
)

// Spec implements tool.Tool. The tool is Recorded: what a page said
// when the turn read it is its result, and a replay gives that back.
func (t *Tool) Spec() tool.Spec {
	return tool.Spec{
		Name: Name,
		Description: "Read a web page (http or https) and get its main text as Markdown, with a number [n] to cite it by. " +
			"The user approves each site the first time. Pages of private networks are refused unless the user allowed them; " +
			"PDFs, images and other files are refused.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string","description":"The page's full address, such as https://example.com/page"}},"required":["url"],"additionalProperties":false}`),
		Recorded:   true,
	}
}

// Result is the tool's output: the page as the model got it, and all a
// replay needs to report it as a source again.
type Result struct {
	// N is the number the answer cites the page by.
	N     int    `json:"n"`
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
	// Text is the page's Markdown, cut to the limit when Truncated.
	Text      string `json:"text"`
	Truncated bool   `json:"truncated,omitempty"`
}

type args struct {
	URL string `json:"url"`
}

// Execute implements tool.Tool.
func (t *Tool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", err
	}
	p, err := t.fetcher.Fetch(ctx, a.URL)
	if err != nil {
		// The model reads the message, not the cause's details.
		return "", errors.New(apperr.MessageOf(err))
	}
	text, cut := clip(p.Markdown(), t.fetcher.opts.MaxRunes)
	res := Result{N: t.numbers.Take(1), URL: p.URL, Title: p.Title, Text: text, Truncated: cut}
	out, err := encode(res)
	if err != nil {
		return "", err
	}
	emitSource(ctx, res)
	return out, nil
}

// Replayed implements tool.Replayer: the recorded page is reported as the
// turn's source again, under its number.
func (t *Tool) Replayed(ctx context.Context, _ json.RawMessage, output string) {
	var res Result
	if json.Unmarshal([]byte(output), &res) != nil || res.N == 0 {
		return
	}
	t.numbers.Seen(res.N)
	emitSource(ctx, res)
}

// Scope implements tool.Scoped: a call reaches the site (host and port)
// of its URL, which the person approves once.
func (t *Tool) Scope(raw json.RawMessage) string {
	var a args
	if json.Unmarshal(raw, &a) != nil {
		return ""
	}
	u, err := CheckURL(a.URL)
	if err != nil {
		return "" // refused before anything is read
	}
	return strings.ToLower(u.Host)
}

func emitSource(ctx context.Context, res Result) {
	tool.Emit(ctx, turn.Draft{Data: turn.SourcesData{Sources: []turn.Source{{
		N: res.N, Kind: turn.SourcePage, Document: res.Title, URL: res.URL, Text: res.Text,
	}}}})
}

// encode is JSON with the page's Markdown as written (<, > and & not
// escaped).
func encode(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
