package mcp

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// newHTTPServer serves a small MCP server over streamable HTTP on loopback.
// Its "whoami" tool answers with the Authorization header it received.
func newHTTPServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "remote", Version: "v0"}, nil)
	type echoArgs struct {
		Text string `json:"text"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text back.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "whoami", Description: "Say who is calling."},
		func(_ context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: req.Extra.Header.Get("Authorization")}}}, nil, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(func() {
		ts.CloseClientConnections() // the client's event stream would hold Close up
		ts.Close()
		// A session whose client vanished without a DELETE stays open on
		// the server side until it is closed.
		for ss := range s.Sessions() {
			_ = ss.Close()
		}
	})
	return ts
}

func TestHTTPServer(t *testing.T) {
	ts := newHTTPServer(t)
	m := newManager(t, Options{})
	sts := connectOK(t, m, ServerConfig{Name: "remote", URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer t0k3n"}})
	if st := sts[0]; st.Transport != TransportHTTP || strings.Join(st.Tools, ",") != "echo,whoami" {
		t.Fatalf("status = %+v", st)
	}

	tools := m.Tools()
	echo := findTool(t, tools, "remote__echo")
	if spec := echo.Spec(); spec.Description != "[remote] Echo the text back." || spec.SideEffects {
		t.Errorf("spec = %+v", spec)
	}
	if !findTool(t, tools, "remote__whoami").Spec().SideEffects {
		t.Error("a tool without a read-only hint must have side effects")
	}
	if got, err := call(t, echo, `{"text":"over http"}`); err != nil || got != "over http" {
		t.Errorf("echo = %q, %v", got, err)
	}
	if got, err := call(t, findTool(t, tools, "remote__whoami"), `{}`); err != nil || got != "Bearer t0k3n" {
		t.Errorf("whoami = %q, %v; want the configured header", got, err)
	}
}

func TestHTTPConnectFailures(t *testing.T) {
	// A port that was just free: nothing listens there.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	free := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	status := func(code int) string {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, http.StatusText(code), code)
		}))
		t.Cleanup(ts.Close)
		return ts.URL
	}
	unauthorized, notFound := status(http.StatusUnauthorized), status(http.StatusNotFound)

	tests := []struct {
		name string
		url  string
		want string
	}{
		{"nothing listens", free, `server "remote" could not be reached at ` + free + ": dial tcp "},
		{"unauthorized", unauthorized, `server "remote" at ` + unauthorized + " did not accept the connection: "},
		{"not an MCP endpoint", notFound, `server "remote" at ` + notFound + " did not accept the connection: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newManager(t, Options{})
			sts := m.Connect(context.Background(), []ServerConfig{{Name: "remote", URL: tt.url}})
			if st := sts[0]; st.Connected || !strings.HasPrefix(st.Error, tt.want) {
				t.Fatalf("status = %+v, want an error starting %q", st, tt.want)
			}
			t.Log(sts[0].Error)
		})
	}
}

func TestHTTPServerGoesAway(t *testing.T) {
	ts := newHTTPServer(t)
	m := newManager(t, Options{})
	connectOK(t, m, ServerConfig{Name: "remote", URL: ts.URL})
	echo := findTool(t, m.Tools(), "remote__echo")

	ts.CloseClientConnections()
	ts.Close()
	_, err := call(t, echo, `{"text":"anyone?"}`)
	if err == nil || !strings.Contains(err.Error(), `MCP server "remote" could not be reached at `+ts.URL+` during the call to "echo"`) {
		t.Fatalf("err = %v, want a could-not-be-reached error", err)
	}
	if st := statusOf(t, m, "remote"); st.Connected || !strings.HasPrefix(st.Error, `server "remote" could not be reached at `+ts.URL+" (") {
		t.Fatalf("status = %+v, want disconnected", st)
	}
}
