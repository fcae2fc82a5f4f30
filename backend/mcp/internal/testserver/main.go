// Command testserver is a tiny MCP server on stdio for the tests of package
// mcp. Its tools: echo {text}, add {a, b}, slow {ms}, fail, crash (exits
// with status 3 in the middle of the call), image {bytes}, env {name} and cwd.
//
// With -exit N it writes a line to stderr and exits with status N before
// speaking MCP, like a server with a bad configuration. With -noise it
// writes a line that is not JSON to stdout first, like a server that logs
// to the wrong stream. With -linger it ignores SIGTERM and does not exit
// when its stdin is closed. With -child it starts "sleep 60" and its tool
// child {} returns that process's PID. With -calls FILE it appends the name
// of every tool it is asked to run to FILE, one a line, before running it,
// so a test can tell which calls reached the server.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type slowArgs struct {
	MS int `json:"ms" jsonschema:"how long to take, in milliseconds"`
	// Started, when set, names a pipe the call writes a line to once it
	// has begun, so a test can wait for it to reach the server.
	Started string `json:"started,omitempty"`
}

type imageArgs struct {
	Bytes int `json:"bytes"`
}

type envArgs struct {
	Name string `json:"name"`
}

type none struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func main() {
	exit := flag.Int("exit", -1, "exit at once with this status")
	noise := flag.Bool("noise", false, "write a line that is not JSON to stdout first")
	linger := flag.Bool("linger", false, "ignore SIGTERM and the end of stdin")
	child := flag.Bool("child", false, "start a child process")
	calls := flag.String("calls", "", "append the name of every tool called to this file")
	flag.Parse()
	if *noise {
		fmt.Println("Server listening on stdio")
	}
	if *exit >= 0 {
		fmt.Fprintln(os.Stderr, "testserver: refusing to start: bad configuration")
		os.Exit(*exit)
	}
	fmt.Fprintln(os.Stderr, "testserver: ready")
	if *linger {
		signal.Ignore(syscall.SIGTERM)
	}

	s := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "v0"}, nil)
	if *calls != "" {
		s.AddReceivingMiddleware(logCalls(*calls))
	}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back.", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers.", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(in.A + in.B)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Take a while."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in slowArgs) (*mcp.CallToolResult, any, error) {
			if in.Started != "" {
				if err := os.WriteFile(in.Started, []byte("started\n"), 0o600); err != nil {
					return nil, nil, err
				}
			}
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return text("done"), nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Report a failure."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			r := text("the disk is full")
			r.IsError = true
			return r, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exit in the middle of the call."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "testserver: crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "image", Description: "Return an image and a caption."},
		func(_ context.Context, _ *mcp.CallToolRequest, in imageArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "a grey square"},
				&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, in.Bytes)},
			}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Read an environment variable.", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in envArgs) (*mcp.CallToolResult, any, error) {
			return text(os.Getenv(in.Name)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "cwd", Description: "Say the working directory.", Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			wd, err := os.Getwd()
			return text(wd), nil, err
		})
	if *child {
		sleep := exec.Command("sleep", "60")
		if err := sleep.Start(); err != nil {
			log.Fatal(err)
		}
		mcp.AddTool(s, &mcp.Tool{Name: "child", Description: "Say the PID of the child process."},
			func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
				return text(fmt.Sprint(sleep.Process.Pid)), nil, nil
			})
	}
	err := s.Run(context.Background(), &mcp.StdioTransport{})
	if *linger {
		time.Sleep(time.Hour)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// logCalls appends the tool's name to path before each tools/call runs.
func logCalls(path string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if call, ok := req.(*mcp.CallToolRequest); ok {
				f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err != nil {
					return nil, err
				}
				_, err = fmt.Fprintln(f, call.Params.Name)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return nil, err
				}
			}
			return next(ctx, method, req)
		}
	}
}
