package peer

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/model"
	einotool "github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	ub "github.com/cloudwego/eino/utils/callbacks"
)

// einoTurn is eino's way: its ReAct agent (flow/agent/react, a compiled
// graph of a chat model node and a tools node) over eino-ext's OpenAI
// model, run with Agent.Stream. The answer of the last step is the graph's
// output stream; the tokens of every step reach the caller through a chat
// model callback, the way eino's own WithMessageFuture streams a ReAct
// run's intermediate messages to a UI.
func einoTurn(tb testing.TB, url string, hc *http.Client) func(context.Context) (outcome, error) {
	ctx := context.Background()
	cm, err := einoopenai.NewChatModel(ctx, &einoopenai.ChatModelConfig{BaseURL: url, APIKey: "none", Model: "m", HTTPClient: hc})
	if err != nil {
		tb.Fatal(err)
	}
	lk := &einoLookup{}
	ag, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: cm,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []einotool.BaseTool{lk}},
		// A graph step is a node run: a model call and a tools run per
		// step, so 25 model steps as the other sides allow.
		MaxStep: 2 * 25,
		// The default checker decides on the first chunk that has content
		// or tool calls, which works only for models that call tools
		// before saying anything; the script streams its text first, as
		// eino's doc comment says Claude does, so read the whole message.
		StreamToolCallChecker: anyToolCall,
	})
	if err != nil {
		tb.Fatal(err)
	}
	var (
		tokens, calls atomic.Int64
		readers       sync.WaitGroup
	)
	streams := agent.WithComposeOptions(compose.WithCallbacks(ub.NewHandlerHelper().ChatModel(&ub.ModelCallbackHandler{
		OnEndWithStreamOutput: func(ctx context.Context, _ *callbacks.RunInfo, out *schema.StreamReader[*model.CallbackOutput]) context.Context {
			calls.Add(1)
			readers.Add(1)
			go func() {
				defer readers.Done()
				defer out.Close()
				for {
					chunk, err := out.Recv()
					if err != nil {
						return
					}
					if chunk.Message != nil && chunk.Message.Content != "" {
						tokens.Add(1)
					}
				}
			}()
			return ctx
		},
	}).Handler()))
	return func(ctx context.Context) (outcome, error) {
		tokens.Store(0)
		calls.Store(0)
		lk.calls.Store(0)
		sr, err := ag.Stream(ctx, []*schema.Message{schema.UserMessage("go")}, streams)
		if err != nil {
			return outcome{}, err
		}
		var chunks []*schema.Message
		for {
			m, err := sr.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				sr.Close()
				return outcome{}, err
			}
			chunks = append(chunks, m)
		}
		sr.Close()
		readers.Wait()
		answer, err := schema.ConcatMessages(chunks)
		if err != nil {
			return outcome{}, err
		}
		return outcome{tokens: int(tokens.Load()), modelCalls: int(calls.Load()), toolCalls: int(lk.calls.Load()), answer: answer.Content}, nil
	}
}

// anyToolCall reads a model's whole streamed message and says whether it
// calls a tool.
func anyToolCall(_ context.Context, sr *schema.StreamReader[*schema.Message]) (bool, error) {
	defer sr.Close()
	found := false
	for {
		m, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return found, nil
		}
		if err != nil {
			return false, err
		}
		found = found || len(m.ToolCalls) > 0
	}
}

// einoLookup is the lookup tool as an eino InvokableTool. The tools node
// runs a step's calls in parallel (its default), so it counts atomically.
type einoLookup struct{ calls atomic.Int64 }

func (*einoLookup) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "lookup", Desc: "Looks a key up.", ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
		"key": {Type: schema.String, Required: true},
	})}, nil
}

func (l *einoLookup) InvokableRun(_ context.Context, args string, _ ...einotool.Option) (string, error) {
	l.calls.Add(1)
	return lookup(json.RawMessage(args))
}
