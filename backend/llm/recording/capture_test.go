package recording_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/capturefile"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
)

// captureMemStore is an in-memory Store and Lister.
type captureMemStore struct {
	mu   sync.Mutex
	caps map[string]*recording.Capture
	puts int
	// putErr fails every PutCapture when set.
	putErr error
}

func newCaptureMemStore() *captureMemStore {
	return &captureMemStore{caps: map[string]*recording.Capture{}}
}

func (s *captureMemStore) GetCapture(_ context.Context, key string) (*recording.Capture, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.caps[key]
	if !ok {
		return nil, nil
	}
	cp := *c
	return &cp, nil
}

func (s *captureMemStore) PutCapture(_ context.Context, c *recording.Capture) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.putErr != nil {
		return s.putErr
	}
	s.puts++
	cp := *c
	s.caps[c.Key] = &cp
	return nil
}

func (s *captureMemStore) CaptureRequests(_ context.Context, model string, limit int) ([]recording.Capture, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []recording.Capture
	for _, c := range s.caps {
		if model == "" || c.Model == model {
			out = append(out, recording.Capture{Key: c.Key, Request: c.Request, Model: c.Model, RecordedAt: c.RecordedAt})
		}
	}
	return out, nil
}

func (s *captureMemStore) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.caps)
}

// captureGetOnlyStore hides captureMemStore's CaptureRequests.
type captureGetOnlyStore struct{ s *captureMemStore }

func (g captureGetOnlyStore) GetCapture(ctx context.Context, key string) (*recording.Capture, error) {
	return g.s.GetCapture(ctx, key)
}

func (g captureGetOnlyStore) PutCapture(ctx context.Context, c *recording.Capture) error {
	return g.s.PutCapture(ctx, c)
}

// captureClock is a Now for Options that only moves when told to.
type captureClock struct {
	mu  sync.Mutex
	now time.Time
}

func newCaptureClock() *captureClock {
	return &captureClock{now: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *captureClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *captureClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// captureScript is what the fake model does: wait gap, send a chunk, and so on,
// then return resp (or err).
type captureScript struct {
	chunks []llm.Chunk
	gaps   []time.Duration // on the fake clock, before each chunk
	resp   llm.Response
	err    error
	clock  *captureClock
}

// captureFakeModel is an inner Client built from llm.ClientFunc that plays a script
// and counts its calls.
func captureFakeModel(sc captureScript, calls *atomic.Int32) llm.Client {
	return llm.ClientFunc(func(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
		calls.Add(1)
		var text strings.Builder
		for i, ch := range sc.chunks {
			if err := ctx.Err(); err != nil {
				r := sc.resp
				r.Message.Content = text.String()
				return r, &llm.Error{Kind: llm.ErrCancelled, Message: "cancelled", Err: err}
			}
			if sc.clock != nil && i < len(sc.gaps) {
				sc.clock.Advance(sc.gaps[i])
			}
			if err := fn(ch); err != nil {
				r := sc.resp
				r.Message.Content = text.String()
				return r, err
			}
			text.WriteString(ch.Content)
		}
		return sc.resp, sc.err
	})
}

// captureFailingModel fails the test if it is ever called.
func captureFailingModel(t *testing.T) llm.Client {
	return llm.ClientFunc(func(context.Context, llm.Request, func(llm.Chunk) error) (llm.Response, error) {
		t.Error("inner client called during replay")
		return llm.Response{}, errors.New("inner client called")
	})
}

func captureReq(user string) llm.Request {
	return llm.Request{
		Model:       "qwen3:8b",
		Temperature: capF32(0.2),
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "Be brief."},
			{Role: llm.RoleUser, Content: user},
		},
	}
}

func captureWeatherScript(clock *captureClock) captureScript {
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	return captureScript{
		clock: clock,
		gaps:  []time.Duration{120 * time.Millisecond, 30 * time.Millisecond, 30 * time.Millisecond, 10 * time.Millisecond},
		chunks: []llm.Chunk{
			{Reasoning: "The user wants weather."},
			{Content: "Let me check."},
			{ToolCalls: []llm.ToolCallDelta{{Index: 0, ID: "call_1", Name: "weather", Arguments: `{"city":`}}},
			{ToolCalls: []llm.ToolCallDelta{{Index: 0, Arguments: `"Oslo"}`}}, FinishReason: "tool_calls",
				Usage: &llm.Usage{InputTokens: 20, OutputTokens: 9, TotalTokens: 29}},
		},
		resp: llm.Response{
			Message: llm.Message{Role: llm.RoleAssistant, Content: "Let me check.", Reasoning: "The user wants weather.",
				ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "weather", Arguments: `{"city":"Oslo"}`}}},
			FinishReason: "tool_calls",
			Usage:        llm.Usage{InputTokens: 20, OutputTokens: 9, TotalTokens: 29},
			Diagnostics: llm.CallDiagnostics{Model: "qwen3:8b-q4", StartedAt: start, CompletedAt: start.Add(time.Second),
				Duration: time.Second, TimeToFirstToken: 120 * time.Millisecond, RequestMessages: 2, Attempts: 1, OK: true,
				Usage: llm.Usage{InputTokens: 20, OutputTokens: 9, TotalTokens: 29}},
		},
	}
}

// captureCollect streams req through c and returns the chunks it delivered.
func captureCollect(ctx context.Context, c llm.Client, req llm.Request) ([]llm.Chunk, llm.Response, error) {
	var got []llm.Chunk
	resp, err := c.Stream(ctx, req, func(ch llm.Chunk) error {
		got = append(got, ch)
		return nil
	})
	return got, resp, err
}

// captureWithoutStamps clears what replay is allowed to change.
func captureWithoutStamps(r llm.Response) llm.Response {
	r.Diagnostics.Capture = ""
	r.Diagnostics.StartedAt = time.Time{}
	r.Diagnostics.CompletedAt = time.Time{}
	r.Diagnostics.Duration = 0
	return r
}

func TestCaptureRecordThenReplay(t *testing.T) {
	stores := []struct {
		name string
		open func(t *testing.T) recording.Store
	}{
		{"memory", func(*testing.T) recording.Store { return newCaptureMemStore() }},
		{"files", func(t *testing.T) recording.Store {
			s, err := capturefile.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			store := st.open(t)
			clock := newCaptureClock()
			sc := captureWeatherScript(clock)
			var calls atomic.Int32
			rec := recording.WithCapture(captureFakeModel(sc, &calls), recording.Options{Mode: recording.Record, Store: store, Now: clock.Now})
			req := captureReq("Weather in Oslo?")

			live, liveResp, err := captureCollect(context.Background(), rec, req)
			if err != nil {
				t.Fatalf("record: %v", err)
			}
			if liveResp.Diagnostics.Capture != llm.CaptureRecorded {
				t.Errorf("record: Capture = %q, want %q", liveResp.Diagnostics.Capture, llm.CaptureRecorded)
			}
			if !reflect.DeepEqual(live, sc.chunks) {
				t.Errorf("record changed the chunks:\ngot  %+v\nwant %+v", live, sc.chunks)
			}

			c, err := store.GetCapture(context.Background(), recording.Key(req))
			if err != nil || c == nil {
				t.Fatalf("GetCapture = %v, %v; want the recording", c, err)
			}
			wantAt := []time.Duration{120 * time.Millisecond, 150 * time.Millisecond, 180 * time.Millisecond, 190 * time.Millisecond}
			for i, rc := range c.Chunks {
				if rc.At != wantAt[i] {
					t.Errorf("chunk %d recorded at %v, want %v", i, rc.At, wantAt[i])
				}
			}
			if string(c.Request) != string(recording.CanonicalRequest(req)) || c.Model != req.Model {
				t.Errorf("capture request/model = %s / %q", c.Request, c.Model)
			}

			play := recording.WithCapture(captureFailingModel(t), recording.Options{Mode: recording.Replay, Store: store, Now: clock.Now})
			clock.Advance(time.Hour)
			replayed, resp, err := captureCollect(context.Background(), play, req)
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			if !reflect.DeepEqual(replayed, live) {
				t.Errorf("replayed chunks differ:\ngot  %+v\nwant %+v", replayed, live)
			}
			if !reflect.DeepEqual(captureWithoutStamps(resp), captureWithoutStamps(liveResp)) {
				t.Errorf("replayed response differs:\ngot  %+v\nwant %+v", resp, liveResp)
			}
			d := resp.Diagnostics
			if d.Capture != llm.CaptureReplayed || !d.StartedAt.Equal(clock.Now()) || !d.CompletedAt.Equal(clock.Now()) || d.Duration != 0 {
				t.Errorf("replay diagnostics = %+v; want replayed, stamped now", d)
			}
			if calls.Load() != 1 {
				t.Errorf("inner called %d times, want 1", calls.Load())
			}
		})
	}
}

func TestCaptureReplayMiss(t *testing.T) {
	store := newCaptureMemStore()
	clock := newCaptureClock()
	var calls atomic.Int32
	rec := recording.WithCapture(captureFakeModel(captureWeatherScript(nil), &calls), recording.Options{Mode: recording.Record, Store: store, Now: clock.Now})
	near := captureReq("Weather in Oslo?")
	far := captureReq("Something else entirely")
	far.Messages = append(far.Messages, llm.Message{Role: llm.RoleAssistant, Content: "ok"})
	far.Temperature = capF32(0.2)
	for _, r := range []llm.Request{near, far} {
		if _, _, err := captureCollect(context.Background(), rec, r); err != nil {
			t.Fatal(err)
		}
	}
	other := near
	other.Model = "llama3"
	if _, _, err := captureCollect(context.Background(), rec, other); err != nil {
		t.Fatal(err)
	}

	long := "Weather in Bergen? " + strings.Repeat("x", 100)
	miss := captureReq(long)
	miss.Temperature = capF32(0.7)

	tests := []struct {
		name    string
		store   recording.Store
		req     llm.Request
		want    []string
		notWant []string
	}{
		{
			name:  "nearest recording explained",
			store: store,
			req:   miss,
			want: []string{
				`model "qwen3:8b"`, "2 messages",
				`last user message "` + long[:80] + `…"`,
				"key " + recording.Key(miss)[:12],
				"nearest recording of this model (key " + recording.Key(near)[:12],
				"message 2 (user) text differs",
				"temperature 0.7 vs 0.2",
				"Record it with capture mode record or auto",
			},
			notWant: []string{"3 messages vs", "model \"qwen3:8b\" vs"},
		},
		{
			name:  "no recording of the model",
			store: store,
			req:   llm.Request{Model: "unknown-model"},
			want:  []string{`model "unknown-model"`, "0 messages", "last user message (none)", `no recording of model "unknown-model"`},
		},
		{
			name:    "store that cannot list",
			store:   captureGetOnlyStore{store},
			req:     miss,
			want:    []string{`model "qwen3:8b"`, "key " + recording.Key(miss)[:12]},
			notWant: []string{"nearest"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			play := recording.WithCapture(captureFailingModel(t), recording.Options{Mode: recording.Replay, Store: tt.store})
			var delivered int
			resp, err := play.Stream(context.Background(), tt.req, func(llm.Chunk) error { delivered++; return nil })
			if llm.KindOf(err) != llm.ErrReplayMiss {
				t.Fatalf("err = %v, want kind %s", err, llm.ErrReplayMiss)
			}
			msg := err.Error()
			t.Log(msg)
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("miss message lacks %q:\n%s", w, msg)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(msg, w) {
					t.Errorf("miss message has %q:\n%s", w, msg)
				}
			}
			if delivered != 0 || resp.Diagnostics.ErrorKind != llm.ErrReplayMiss || resp.Diagnostics.OK {
				t.Errorf("delivered %d chunks, diagnostics %+v", delivered, resp.Diagnostics)
			}
		})
	}
}

func TestCaptureAuto(t *testing.T) {
	store := newCaptureMemStore()
	var calls atomic.Int32
	sc := captureWeatherScript(nil)
	c := recording.WithCapture(captureFakeModel(sc, &calls), recording.Options{Mode: recording.Auto, Store: store})
	req := captureReq("Weather in Oslo?")
	for i, want := range []string{llm.CaptureRecorded, llm.CaptureReplayed, llm.CaptureReplayed} {
		chunks, resp, err := captureCollect(context.Background(), c, req)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if resp.Diagnostics.Capture != want {
			t.Errorf("call %d: Capture = %q, want %q", i, resp.Diagnostics.Capture, want)
		}
		if !reflect.DeepEqual(chunks, sc.chunks) {
			t.Errorf("call %d: chunks = %+v", i, chunks)
		}
	}
	if calls.Load() != 1 || store.puts != 1 {
		t.Errorf("inner called %d times, stored %d times; want 1 and 1", calls.Load(), store.puts)
	}
	// A different request is a miss, so auto calls the model again.
	if _, _, err := captureCollect(context.Background(), c, captureReq("Weather in Bergen?")); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 || store.len() != 2 {
		t.Errorf("after a new request: %d calls, %d captures; want 2 and 2", calls.Load(), store.len())
	}
}

func TestCaptureAutoConcurrent(t *testing.T) {
	store := newCaptureMemStore()
	var calls atomic.Int32
	c := recording.WithCapture(captureFakeModel(captureWeatherScript(nil), &calls), recording.Options{Mode: recording.Auto, Store: store})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := captureCollect(context.Background(), c, captureReq(string(rune('a'+i%4)))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if store.len() != 4 {
		t.Errorf("%d captures, want 4", store.len())
	}
}

func TestCaptureReplayPartialToolCalls(t *testing.T) {
	store := newCaptureMemStore()
	sc := captureWeatherScript(nil)
	// Two calls whose first fragments arrive out of index order.
	sc.chunks = []llm.Chunk{
		{ToolCalls: []llm.ToolCallDelta{{Index: 1, ID: "b", Name: "second", Arguments: "{"}}},
		{ToolCalls: []llm.ToolCallDelta{{Index: 0, ID: "a", Name: "first", Arguments: "{}"}}},
		{ToolCalls: []llm.ToolCallDelta{{Index: 1, Arguments: "}"}}, Usage: &llm.Usage{OutputTokens: 7}},
		{FinishReason: "tool_calls"},
	}
	rec := recording.WithCapture(captureFakeModel(sc, new(atomic.Int32)), recording.Options{Mode: recording.Record, Store: store})
	req := captureReq("two tools")
	if _, _, err := captureCollect(context.Background(), rec, req); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	n := 0
	play := recording.WithCapture(captureFailingModel(t), recording.Options{Mode: recording.Replay, Store: store})
	resp, err := play.Stream(context.Background(), req, func(llm.Chunk) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v", err)
	}
	want := []llm.ToolCall{{ID: "a", Name: "first", Arguments: "{}"}, {ID: "b", Name: "second", Arguments: "{}"}}
	if !reflect.DeepEqual(resp.Message.ToolCalls, want) || resp.Usage.OutputTokens != 7 {
		t.Errorf("partial message %+v usage %+v; want calls %+v", resp.Message, resp.Usage, want)
	}
}

func TestParseCaptureMode(t *testing.T) {
	tests := []struct {
		in      string
		want    recording.Mode
		wantErr bool
	}{
		{"", recording.Off, false},
		{"off", recording.Off, false},
		{"record", recording.Record, false},
		{" Replay ", recording.Replay, false},
		{"AUTO", recording.Auto, false},
		{"playback", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := recording.ParseMode(tt.in)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("ParseCaptureMode(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestWithCaptureOff(t *testing.T) {
	inner := captureFakeModel(captureWeatherScript(nil), new(atomic.Int32))
	for _, m := range []recording.Mode{"", recording.Off} {
		c := recording.WithCapture(inner, recording.Options{Mode: m})
		if reflect.ValueOf(c).Pointer() != reflect.ValueOf(inner).Pointer() {
			t.Errorf("mode %q wrapped the client; want it passed through untouched", m)
		}
	}
}

func TestWithCapturePanicsOnMiswiring(t *testing.T) {
	tests := []struct {
		name string
		opts recording.Options
	}{
		{"unknown mode", recording.Options{Mode: "playback", Store: newCaptureMemStore()}},
		{"nil store", recording.Options{Mode: recording.Replay}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("WithCapture did not panic")
				}
			}()
			recording.WithCapture(captureFailingModel(t), tt.opts)
		})
	}
}

// TestChunksJSON: the recording's chunks written in one buffer, from
// blocks split anywhere, read back as json.Marshal's of them in one slice
// do, for text, reasoning, tool calls, usage, characters that need
// escaping, and no chunks at all.
func TestChunksJSON(t *testing.T) {
	chunks := []recording.RecordedChunk{
		{At: 5, Chunk: llm.Chunk{Content: `plain`}},
		{At: 7, Chunk: llm.Chunk{Content: "<b>\"quoted\" & back\\slash\n\u2028 naïve"}},
		{At: 9, Chunk: llm.Chunk{Reasoning: "thinking…"}},
		{At: 11, Chunk: llm.Chunk{ToolCalls: []llm.ToolCallDelta{{Index: 0, ID: "call_1", Name: "plan", Arguments: `{"a":1}`}}}},
		{At: 13, Chunk: llm.Chunk{FinishReason: "stop", Usage: &llm.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}}},
	}
	for _, tc := range []struct {
		name   string
		blocks [][]recording.RecordedChunk
		want   []recording.RecordedChunk
	}{
		{"one block", [][]recording.RecordedChunk{chunks}, chunks},
		{"blocks", [][]recording.RecordedChunk{chunks[:1], chunks[1:3], {}, chunks[3:]}, chunks},
		{"an empty block", [][]recording.RecordedChunk{{}}, []recording.RecordedChunk{}},
		{"no blocks", nil, []recording.RecordedChunk{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := recording.ChunksJSON(tc.blocks...)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(tc.want)
			var g, w any
			if err := json.Unmarshal([]byte(got), &g); err != nil {
				t.Fatalf("%s does not read: %v", got, err)
			}
			_ = json.Unmarshal(want, &w)
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
			var back []recording.RecordedChunk
			if err := json.Unmarshal([]byte(got), &back); err != nil || !reflect.DeepEqual(back, tc.want) {
				t.Fatalf("read back %+v (%v), want %+v", back, err, tc.want)
			}
		})
	}
}

// blocksStore is a capture store that takes recordings in blocks.
type blocksStore struct {
	*captureMemStore
	blocks [][]recording.RecordedChunk
}

func (s *blocksStore) PutCaptureBlocks(ctx context.Context, c *recording.Capture, blocks [][]recording.RecordedChunk) error {
	if c.Chunks != nil {
		return errors.New("chunks given twice")
	}
	s.blocks = blocks
	for _, b := range blocks {
		c.Chunks = append(c.Chunks, b...)
	}
	return s.PutCapture(ctx, c)
}

// TestRecordHandsBlocksToAStoreThatTakesThem: a long call's chunks reach
// a BlocksPutter in several blocks, every chunk once and in order,
// and the recording replays as the call streamed.
func TestRecordHandsBlocksToAStoreThatTakesThem(t *testing.T) {
	srv := llmtest.NewServer(t)
	const n = 9000
	srv.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Tokens(n)} })
	st := &blocksStore{captureMemStore: newCaptureMemStore()}
	c := recording.WithCapture(openai.NewClient(openai.Config{BaseURL: srv.URL()}), recording.Options{Mode: recording.Record, Store: st})
	var streamed strings.Builder
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "go"}}}
	if _, err := c.Stream(context.Background(), req, func(ch llm.Chunk) error { streamed.WriteString(ch.Content); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(st.blocks) < 2 {
		t.Fatalf("%d chunks came in %d blocks", n, len(st.blocks))
	}
	var recorded strings.Builder
	for _, b := range st.blocks {
		for _, rc := range b {
			recorded.WriteString(rc.Chunk.Content)
		}
	}
	if recorded.String() != streamed.String() || streamed.Len() == 0 {
		t.Fatalf("the blocks hold %d bytes of text, the stream %d", recorded.Len(), streamed.Len())
	}
	replay := recording.WithCapture(openai.NewClient(openai.Config{BaseURL: srv.URL()}), recording.Options{Mode: recording.Replay, Store: st})
	var again strings.Builder
	if _, err := replay.Stream(context.Background(), req, func(ch llm.Chunk) error { again.WriteString(ch.Content); return nil }); err != nil {
		t.Fatal(err)
	}
	if again.String() != streamed.String() {
		t.Fatal("the recording replays differently")
	}
}
