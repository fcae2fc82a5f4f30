// Package llmtest is a scripted OpenAI-compatible chat-completions server
// for tests, in the manner of net/http/httptest. It speaks the protocol as
// OpenAI, Ollama, vLLM and llama.cpp do (server-sent events, tool-call
// fragments, usage chunks, OpenAI error bodies), and can misbehave on cue:
// slow first byte, slow tokens, hangs, cut connections, malformed events,
// rate limits, HTML pages from a proxy.
//
// It does not import package llm, so llm's own tests can use it.
//
// Rules:
//
//   - Routes: POST /v1/chat/completions answers from the script; GET
//     /v1/models lists the ids given to SetModels; POST /v1/embeddings
//     answers every input with Embedding(input), deterministic (or fails
//     on cue: FailEmbeddings). Anything else is a 404 with an
//     OpenAI-style JSON error.
//   - Each chat request takes the next Enqueued reply; when the queue is
//     empty the Respond func, if set, chooses one. A request with neither
//     is answered 500 "llmtest: no reply scripted" and counted by
//     Unscripted; the server never fails the test itself, so check
//     Unscripted (and Pending) where it matters. A body that is not a JSON
//     object is answered 400 and takes no reply.
//   - Every chat request is recorded, in arrival order, before it is
//     answered: Requests and WaitRequests see it as soon as it arrives.
//   - A reply is a stream when the request has "stream": true, one JSON
//     object otherwise; the same Chunks script both. Usage is streamed
//     only if the request set stream_options.include_usage, as real
//     servers do.
//   - Events are framed as OpenAI frames them: "data: {json}\n\n", then
//     "data: [DONE]\n\n". Each chunk has id "chatcmpl-llmtest-N" (N is
//     Request.Seq, also sent as the X-Request-Id header "req-llmtest-N"),
//     the request's model, role "assistant" in the first delta only, empty
//     delta fields omitted and "finish_reason":null until set. With
//     include_usage every chunk also carries "usage":null, and the usage
//     chunk has "choices":[].
//   - A disconnect is recorded when the client goes away while a response
//     is in progress (hanging, sleeping or writing). Cuts the server makes
//     (DropAfter, Close) are not disconnects.
//   - The server is closed by t.Cleanup; Close cuts in-flight responses so
//     it never waits on a client. All methods are safe for concurrent use;
//     a Respond func must be too.
//   - Tests built on this kit assert no durations: they wait with
//     WaitRequests and WaitDisconnect (generous timeouts) and compare the
//     order of events, never their spacing, so they hold under -race and
//     on a loaded machine.
//
// A test scripts the replies, points the client at URL, and checks what
// the server received:
//
//	func TestAsk(t *testing.T) {
//		srv := llmtest.NewServer(t)
//		srv.Enqueue(
//			llmtest.RateLimited("1"),
//			llmtest.Reply{
//				Chunks: llmtest.Text("Hello, world.", 3),
//				Usage:  &llmtest.Usage{PromptTokens: 12, CompletionTokens: 4},
//			},
//		)
//		got := ask(t, srv.URL(), "Say hello") // the client under test
//		if got != "Hello, world." {
//			t.Errorf("got %q", got)
//		}
//		reqs := srv.Requests()
//		if len(reqs) != 2 || reqs[1].Messages[0].Content != "Say hello" {
//			t.Errorf("requests: %+v", reqs)
//		}
//		if n := srv.Unscripted(); n != 0 {
//			t.Errorf("%d unscripted requests", n)
//		}
//	}
//
// A tool call, streamed in fragments and ended as OpenAI ends it:
//
//	llmtest.Reply{Chunks: llmtest.WithFinish(
//		llmtest.ToolCallChunks(0, "call_1", "read_file", `{"path":"a.txt"}`, 4),
//		"tool_calls")}
//
// Concurrent requests whose order is unknown are answered by content:
//
//	srv.Respond(func(req llmtest.Request) llmtest.Reply {
//		last := req.Messages[len(req.Messages)-1].Content
//		return llmtest.Reply{Chunks: llmtest.Text("echo: "+last, 2)}
//	})
package llmtest
