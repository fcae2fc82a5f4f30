package peer

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
	lcopenai "github.com/tmc/langchaingo/llms/openai"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// The turn: 10 model steps and 10 tool calls. Every step streams 2,000
// content tokens (20,000 in all); steps 1-9 then call the lookup tool (step
// 1 twice, one call after the other), and step 10 is the final answer.
const (
	peerSteps         = 10
	peerToolCalls     = 10
	peerTokensPerStep = 2000
	peerTokens        = peerSteps * peerTokensPerStep
)

// serverEnv makes the test binary serve the script instead of measuring:
// the server runs in a child process, so its allocations and heap do not
// count against either engine.
const serverEnv = "AGENTDECK_PEER_SERVER"

// BenchmarkPeerToolTurn runs the turn through Agentdeck's engine
// (agent.Agent over llm.OpenAI, events to a sink that counts tokens),
// through langchaingo (llms.GenerateContent with tools and a streaming
// func, in a loop) and through eino (its ReAct agent over eino-ext's OpenAI
// model, streaming), in rotation, against the scripted server in a child
// process. Per engine it reports the median wall time, heap allocations
// (runtime.MemStats Mallocs delta), bytes allocated (TotalAlloc delta) and
// peak live heap above the baseline (sampled every millisecond), and the
// ratio of Agentdeck's median to each peer's ("ms/eino"; below 1:
// Agentdeck uses less).
func BenchmarkPeerToolTurn(b *testing.B) {
	url := startServer(b)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	engines := peerEngines(b, url, hc)
	// One warm-up turn each: connections, schema compilation, first-use
	// allocations of the libraries.
	for _, e := range engines {
		if err := e.turn(context.Background()); err != nil {
			b.Fatalf("%s: %v", e.name, err)
		}
	}
	stats := make([][]turnStats, len(engines))
	i := 0
	for b.Loop() {
		// Each engine goes first, second and third in turn, so none is
		// always the one that runs after another's garbage.
		for k := range engines {
			j := (i + k) % len(engines)
			st, err := measure(engines[j].turn)
			if err != nil {
				b.Fatalf("%s: %v", engines[j].name, err)
			}
			stats[j] = append(stats[j], st)
		}
		i++
	}
	b.StopTimer()
	sums := make([]summary, len(engines))
	for j := range engines {
		sums[j] = summarize(stats[j])
	}
	for _, u := range []struct {
		unit string
		of   func(summary) float64
	}{
		{"ms", func(s summary) float64 { return s.wall }},
		{"allocs", func(s summary) float64 { return s.mallocs }},
		{"alloc-MB", func(s summary) float64 { return s.allocMB }},
		{"peak-heap-MB", func(s summary) float64 { return s.peakMB }},
	} {
		for j, e := range engines {
			b.ReportMetric(u.of(sums[j]), e.name+"-"+u.unit)
			if j > 0 {
				b.ReportMetric(u.of(sums[0])/u.of(sums[j]), u.unit+"/"+e.name)
			}
		}
	}
}

// engine is one side of the comparison; Agentdeck is the first.
type engine struct {
	name string
	run  func(ctx context.Context) (outcome, error)
}

// turn runs the turn and checks that it did what the script asks.
func (e engine) turn(ctx context.Context) error {
	o, err := e.run(ctx)
	if err != nil {
		return err
	}
	return o.check()
}

func peerEngines(tb testing.TB, url string, hc *http.Client) []engine {
	return []engine{
		{"agentdeck", agentdeckTurn(tb, url, hc)},
		{"langchaingo", langchaingoTurn(tb, url, hc)},
		{"eino", einoTurn(tb, url, hc)},
	}
}

// outcome is what a side reports of its turn: the content tokens its
// caller saw stream, the model and tool calls made, the final answer.
type outcome struct {
	tokens, modelCalls, toolCalls int
	answer                        string
}

// check compares an outcome with the script. The tool's arguments and
// results are checked on the server's side, by TestPeerToolTurn.
func (o outcome) check() error {
	if o.tokens != peerTokens || o.modelCalls != peerSteps || o.toolCalls != peerToolCalls {
		return fmt.Errorf("%d tokens, %d model calls, %d tool calls; want %d, %d, %d", o.tokens, o.modelCalls, o.toolCalls, peerTokens, peerSteps, peerToolCalls)
	}
	if o.answer != finalAnswer {
		return fmt.Errorf("the final answer is %d bytes (%.40q...), want the last step's %d bytes", len(o.answer), o.answer, len(finalAnswer))
	}
	return nil
}

// agentdeckTurn is Agentdeck's engine: the tool-calling loop with its
// limits, guards and schema checks, every token an event.
func agentdeckTurn(tb testing.TB, url string, hc *http.Client) func(context.Context) (outcome, error) {
	tools, err := tool.NewSet(tool.Func{
		Def: tool.Spec{Name: "lookup", Description: "Looks a key up.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}`)},
		Fn: func(_ context.Context, args json.RawMessage) (string, error) { return lookup(args) },
	})
	if err != nil {
		tb.Fatal(err)
	}
	ag := &agent.Agent{Name: "bench", Client: openai.NewClient(openai.Config{BaseURL: url, HTTPClient: hc}), Model: "m", Tools: tools}
	return func(ctx context.Context) (outcome, error) {
		var tokens atomic.Int64
		em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: turn.NewID(), Sinks: []turn.Sink{turn.SinkFunc(func(e turn.Event) error {
			if e.Type == turn.EventToken {
				tokens.Add(1)
			}
			return nil
		})}})
		res := turn.RunTurn(ctx, em, func(ctx context.Context) turn.Result { return ag.Run(ctx, em, agent.Input{User: "go"}) })
		if !res.OK {
			return outcome{}, fmt.Errorf("turn failed: %s %s", res.Termination.Kind, res.Error)
		}
		return outcome{tokens: int(tokens.Load()), modelCalls: len(res.ModelCalls), toolCalls: len(res.ToolCalls), answer: res.FinalText}, nil
	}
}

// langchaingoTurn is langchaingo's way: GenerateContent with the tools,
// streaming, and the tool results appended as tool messages, until the
// model answers without a tool call.
func langchaingoTurn(tb testing.TB, url string, hc *http.Client) func(context.Context) (outcome, error) {
	model, err := lcopenai.New(lcopenai.WithBaseURL(url), lcopenai.WithToken("none"), lcopenai.WithModel("m"), lcopenai.WithHTTPClient(hc))
	if err != nil {
		tb.Fatal(err)
	}
	tools := []llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "lookup", Description: "Looks a key up.",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string"}}, "required": []string{"key"}}}}}
	return func(ctx context.Context) (outcome, error) {
		var o outcome
		stream := llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
			if len(chunk) > 0 && chunk[0] != '[' { // tool-call deltas arrive as a JSON array
				o.tokens++
			}
			return nil
		})
		msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "go")}
		for o.modelCalls < 25 {
			resp, err := model.GenerateContent(ctx, msgs, llms.WithTools(tools), stream)
			if err != nil {
				return o, err
			}
			o.modelCalls++
			choice := resp.Choices[0]
			ai := llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextContent{Text: choice.Content}}}
			for _, tc := range choice.ToolCalls {
				ai.Parts = append(ai.Parts, tc)
			}
			msgs = append(msgs, ai)
			if len(choice.ToolCalls) == 0 {
				o.answer = choice.Content
				break
			}
			for _, tc := range choice.ToolCalls {
				out, err := lookup(json.RawMessage(tc.FunctionCall.Arguments))
				if err != nil {
					return o, err
				}
				o.toolCalls++
				msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
					llms.ToolCallResponse{ToolCallID: tc.ID, Name: tc.FunctionCall.Name, Content: out}}})
			}
		}
		return o, nil
	}
}

// lookup is the trivial tool every engine calls.
func lookup(args json.RawMessage) (string, error) {
	var a struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return "", err
	}
	return "the value of " + a.Key, nil
}

// Measurement.

type turnStats struct {
	wall             time.Duration
	mallocs, alloc   uint64
	peakHeapOverBase uint64
}

// measure runs one turn after a GC and returns its wall time, allocation
// deltas and the peak of live heap objects above the starting level.
func measure(run func(context.Context) error) (turnStats, error) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	base := heapObjects()
	stop, peak := make(chan struct{}), make(chan uint64)
	go func() {
		hi := base
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				peak <- max(hi, heapObjects())
				return
			case <-t.C:
				hi = max(hi, heapObjects())
			}
		}
	}()
	start := time.Now()
	err := run(context.Background())
	wall := time.Since(start)
	close(stop)
	hi := <-peak
	runtime.ReadMemStats(&after)
	return turnStats{wall: wall, mallocs: after.Mallocs - before.Mallocs, alloc: after.TotalAlloc - before.TotalAlloc, peakHeapOverBase: hi - base}, err
}

// heapObjects reads the bytes of heap objects (live and not yet swept)
// without stopping the world.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

type summary struct{ wall, mallocs, allocMB, peakMB float64 }

func summarize(st []turnStats) summary {
	med := func(f func(turnStats) float64) float64 {
		v := make([]float64, len(st))
		for i, s := range st {
			v[i] = f(s)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return summary{
		wall:    med(func(s turnStats) float64 { return float64(s.wall.Nanoseconds()) / 1e6 }),
		mallocs: med(func(s turnStats) float64 { return float64(s.mallocs) }),
		allocMB: med(func(s turnStats) float64 { return float64(s.alloc) / 1e6 }),
		peakMB:  med(func(s turnStats) float64 { return float64(s.peakHeapOverBase) / 1e6 }),
	}
}

// The scripted server, in a child process.

// startServer runs this test binary again as the scripted server and
// returns its URL; the child exits when the benchmark ends.
func startServer(b *testing.B) string {
	cmd := exec.Command(os.Args[0], "-test.run=^TestScriptedServer$", "-test.count=1")
	cmd.Env = append(os.Environ(), serverEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if url, ok := strings.CutPrefix(sc.Text(), "URL "); ok {
			go func() { // drain the rest (the test framework's PASS line)
				for sc.Scan() {
				}
			}()
			return url
		}
	}
	b.Fatalf("the server process printed no URL: %v", sc.Err())
	return ""
}

// TestScriptedServer is the child process's body: it serves a script until
// its stdin closes. It does nothing in a normal test run. With
// AGENTDECK_PEER_SERVER=ui it serves scripts/bench.sh's UI streaming
// figures instead: 2,000 tokens a second for 40 s (a markdown answer of
// 80,000 tokens, uistream_test.go) to every request but figure 7c's
// (uipaint_test.go), which are answered at once.
func TestScriptedServer(t *testing.T) {
	mode := os.Getenv(serverEnv)
	if mode == "" {
		t.Skip("runs only as a benchmark's server process")
	}
	srv := llmtest.NewServer(t)
	srv.Respond(script)
	if mode == "ui" {
		srv.Respond(func(req llmtest.Request) llmtest.Reply {
			if r, ok := paintReply(req); ok {
				return r
			}
			return llmtest.Reply{Handler: pacedStream(2000, 40*time.Second)}
		})
	}
	fmt.Printf("URL %s\n", srv.URL())
	_, _ = bufio.NewReader(os.Stdin).ReadString(0) // until EOF
}

// script answers by step: the number of assistant messages in the request
// says how many steps came before.
func script(req llmtest.Request) llmtest.Reply {
	step := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			step++
		}
	}
	chunks := make([]llmtest.Chunk, 0, peerTokensPerStep+8)
	for i := range peerTokensPerStep {
		chunks = append(chunks, llmtest.Chunk{Content: token(step, i)})
	}
	usage := &llmtest.Usage{PromptTokens: 100 + step*peerTokensPerStep, CompletionTokens: peerTokensPerStep}
	if step >= peerSteps-1 {
		return llmtest.Reply{Chunks: append(chunks, llmtest.Chunk{FinishReason: "stop"}), Usage: usage}
	}
	for c, key := range scriptCalls(step) {
		id := fmt.Sprintf("call_%d_%d", step, c)
		chunks = append(chunks, llmtest.ToolCallChunks(c, id, "lookup", `{"key":"`+key+`"}`, 3)...)
	}
	return llmtest.Reply{Chunks: llmtest.WithFinish(chunks, "tool_calls"), Usage: usage}
}

// scriptCalls are the keys the script's step looks up, one per call.
func scriptCalls(step int) []string {
	n := 1
	if step == 0 {
		n = 2
	}
	keys := make([]string, n)
	for c := range keys {
		keys[c] = fmt.Sprintf("k%d_%d", step, c)
	}
	return keys
}

// token is the script's i-th content token of a step.
func token(step, i int) string { return "tok" + strconv.Itoa(step*peerTokensPerStep+i) + " " }

// finalAnswer is the text of the last step, the turn's answer.
var finalAnswer = func() string {
	var sb strings.Builder
	for i := range peerTokensPerStep {
		sb.WriteString(token(peerSteps-1, i))
	}
	return sb.String()
}()

// pacedStream streams rate tokens a second for d as OpenAI server-sent
// events. llmtest's Delay sleeps between chunks, and a sleep of 0.5 ms
// lasts about 1 ms, so it cannot reach 2,000 chunks a second: this keeps
// to an absolute schedule instead, sending whatever is due at each wake-up
// (one or two tokens).
func pacedStream(rate int, d time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		event := func(delta, finish string) {
			fmt.Fprintf(w, `data: {"id":"chatcmpl-ui","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", delta, finish)
		}
		n := int(d.Seconds() * float64(rate))
		gap := time.Second / time.Duration(rate)
		start := time.Now()
		for i := range n {
			if wait := time.Until(start.Add(time.Duration(i) * gap)); wait > 0 {
				if rc.Flush() != nil {
					return
				}
				select {
				case <-time.After(wait):
				case <-r.Context().Done():
					return
				}
			}
			delta, _ := json.Marshal(map[string]string{"content": uiToken(i)})
			event(string(delta), "null")
		}
		event(`{}`, `"stop"`)
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}
