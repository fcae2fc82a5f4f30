package capturefile_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/capturefile"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
)

func openStore(t *testing.T) *capturefile.Store {
	t.Helper()
	s, err := capturefile.Open(filepath.Join(t.TempDir(), "captures"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sampleCapture(model, user string, at time.Time) *recording.Capture {
	temp := float32(0.2)
	req := llm.Request{
		Model:       model,
		Temperature: &temp,
		Messages:    []llm.Message{{Role: llm.RoleUser, Content: user}},
		Tools:       []llm.Tool{{Name: "f", Parameters: json.RawMessage(`{"type":"object","description":"<b> & co"}`)}},
	}
	return &recording.Capture{
		Key:     recording.Key(req),
		Request: recording.CanonicalRequest(req),
		Model:   model,
		Chunks: []recording.RecordedChunk{
			{At: 5 * time.Millisecond, Chunk: llm.Chunk{Content: "Hel"}},
			{At: 9 * time.Millisecond, Chunk: llm.Chunk{Content: "lo <there>", ToolCalls: []llm.ToolCallDelta{{Index: 0, ID: "c", Name: "f", Arguments: "{}"}}}},
			{At: 12 * time.Millisecond, Chunk: llm.Chunk{FinishReason: "stop", Usage: &llm.Usage{InputTokens: 3, OutputTokens: 2, TotalTokens: 5}}},
		},
		Response: llm.Response{
			Message:      llm.Message{Role: llm.RoleAssistant, Content: "Hello <there>", ToolCalls: []llm.ToolCall{{ID: "c", Name: "f", Arguments: "{}"}}},
			FinishReason: "stop",
			Usage:        llm.Usage{InputTokens: 3, OutputTokens: 2, TotalTokens: 5},
			Diagnostics: llm.CallDiagnostics{Model: model, StartedAt: at, CompletedAt: at.Add(12 * time.Millisecond),
				Duration: 12 * time.Millisecond, Attempts: 1, OK: true, Capture: llm.CaptureRecorded},
		},
		RecordedAt: at,
	}
}

func TestStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	want := sampleCapture("m", "hi", time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))

	if got, err := s.GetCapture(ctx, want.Key); got != nil || err != nil {
		t.Fatalf("GetCapture before Put = %v, %v; want nil, nil", got, err)
	}
	if err := s.PutCapture(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetCapture(ctx, want.Key)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip changed the capture:\ngot  %+v\nwant %+v", got, want)
	}
	if string(got.Request) != string(want.Request) {
		t.Errorf("Request is not the exact canonical form:\ngot  %s\nwant %s", got.Request, want.Request)
	}

	// Replacing keeps one file, with the new content, and no temporary files.
	want.Response.Message.Content = "replaced"
	if err := s.PutCapture(ctx, want); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetCapture(ctx, want.Key); got.Response.Message.Content != "replaced" {
		t.Errorf("after replace: %q", got.Response.Message.Content)
	}
	entries, err := os.ReadDir(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != want.Key+".json" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v; want only %s.json", names, want.Key)
	}
	data, _ := os.ReadFile(s.Path(want.Key))
	if !strings.Contains(string(data), "<there>") {
		t.Errorf("file escapes HTML, which makes review harder:\n%s", data)
	}
}

func TestStoreConcurrentPuts(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	base := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := sampleCapture("m", "same", base.Add(time.Duration(i)*time.Second))
			if err := s.PutCapture(ctx, c); err != nil {
				t.Error(err)
			}
			if got, err := s.GetCapture(ctx, c.Key); err != nil || got == nil {
				t.Errorf("GetCapture during writes = %v, %v", got, err)
			}
		}()
	}
	wg.Wait()
	entries, _ := os.ReadDir(s.Dir())
	if len(entries) != 1 {
		t.Errorf("%d files after concurrent writes of one key, want 1 (temporary files left?)", len(entries))
	}
}

func TestStoreCaptureRequests(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	base := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	caps := []*recording.Capture{
		sampleCapture("a", "one", base),
		sampleCapture("a", "two", base.Add(2*time.Minute)),
		sampleCapture("a", "three", base.Add(time.Minute)),
		sampleCapture("b", "four", base.Add(3*time.Minute)),
	}
	for _, c := range caps {
		if err := s.PutCapture(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	// Stray files are ignored.
	os.WriteFile(filepath.Join(s.Dir(), ".x.json.123.tmp"), []byte("{"), 0o644)
	os.WriteFile(filepath.Join(s.Dir(), "README.md"), []byte("notes"), 0o644)

	tests := []struct {
		model string
		limit int
		want  []*recording.Capture
	}{
		{"a", 0, []*recording.Capture{caps[1], caps[2], caps[0]}},
		{"a", 2, []*recording.Capture{caps[1], caps[2]}},
		{"b", 10, []*recording.Capture{caps[3]}},
		{"", 0, []*recording.Capture{caps[3], caps[1], caps[2], caps[0]}},
		{"none", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			got, err := s.CaptureRequests(ctx, tt.model, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d captures, want %d", len(got), len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Key != w.Key || g.Model != w.Model || !g.RecordedAt.Equal(w.RecordedAt) || string(g.Request) != string(w.Request) {
					t.Errorf("capture %d = %s %s %v, want %s %s %v", i, g.Key, g.Model, g.RecordedAt, w.Key, w.Model, w.RecordedAt)
				}
				if g.Chunks != nil {
					t.Errorf("capture %d: listing loaded the chunks", i)
				}
			}
		})
	}
}

func TestStoreErrors(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	good := sampleCapture("m", "hi", time.Now())
	if err := s.PutCapture(ctx, good); err != nil {
		t.Fatal(err)
	}
	corruptKey := strings.Repeat("c", 64)
	if err := os.WriteFile(s.Path(corruptKey), []byte(`{"key": "cccc", "chunks": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	otherKey := strings.Repeat("d", 64)
	data, _ := os.ReadFile(s.Path(good.Key))
	if err := os.WriteFile(s.Path(otherKey), data, 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		run  func() error
		want []string
	}{
		{"corrupt file", func() error { _, err := s.GetCapture(ctx, corruptKey); return err },
			[]string{s.Path(corruptKey), "corrupt"}},
		{"listing a corrupt file", func() error { _, err := s.CaptureRequests(ctx, "", 0); return err },
			[]string{s.Path(corruptKey), "corrupt"}},
		{"file under the wrong name", func() error { _, err := s.GetCapture(ctx, otherKey); return err },
			[]string{s.Path(otherKey), good.Key}},
		{"path in key", func() error { _, err := s.GetCapture(ctx, "../etc/passwd"); return err },
			[]string{"invalid capture key"}},
		{"empty key on put", func() error { return s.PutCapture(ctx, &recording.Capture{}) },
			[]string{"invalid capture key"}},
		{"nil capture", func() error { return s.PutCapture(ctx, nil) },
			[]string{"nil capture"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
