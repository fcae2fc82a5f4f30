package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/web"
)

// sources runs fn with an emitter and returns the sources it reported.
func sources(t *testing.T, fn func(ctx context.Context)) []turn.Source {
	t.Helper()
	var got []turn.Source
	fn(tool.WithEmitter(context.Background(), func(d turn.Draft) {
		if s, ok := d.Data.(turn.SourcesData); ok {
			got = append(got, s.Sources...)
		}
	}))
	return got
}

// The page is numbered after the turn's earlier sources, reported as a
// source, and a replay of its output reports the same source again.
func TestToolNumbersAndReplaysThePage(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(article))
	})
	numbers := &knowledge.Numbers{}
	numbers.Take(2) // two passages search_knowledge gave before
	ft := web.NewTool(allowing(srv, web.Options{MaxRunes: 200}), numbers)
	if !ft.Spec().Recorded || ft.Spec().SideEffects {
		t.Fatalf("spec %+v: fetch_url is recorded and changes nothing", ft.Spec())
	}
	args := json.RawMessage(`{"url":"` + srv.URL + `/solar"}`)
	var out string
	ran := sources(t, func(ctx context.Context) {
		var err error
		if out, err = ft.Execute(ctx, args); err != nil {
			t.Fatal(err)
		}
	})
	var res web.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.N != 3 || !res.Truncated || len([]rune(res.Text)) > 200 || !strings.HasPrefix(res.Text, "# Solar power") {
		t.Fatalf("result %+v", res)
	}
	want := []turn.Source{{N: 3, Kind: turn.SourcePage, Document: res.Title, URL: srv.URL + "/solar", Text: res.Text}}
	if !reflect.DeepEqual(ran, want) {
		t.Fatalf("sources %+v, want %+v", ran, want)
	}

	// A replay in a new turn: the server is not asked, the numbers follow.
	srv.Close()
	again := &knowledge.Numbers{}
	replayed := sources(t, func(ctx context.Context) { web.NewTool(web.New(web.Options{}), again).Replayed(ctx, args, out) })
	if !reflect.DeepEqual(replayed, want) {
		t.Fatalf("replayed sources %+v, want %+v", replayed, want)
	}
	if next := again.Take(1); next != 4 {
		t.Fatalf("the next number after a replayed [3] is %d", next)
	}
}

func TestToolScopeIsTheSite(t *testing.T) {
	ft := web.NewTool(web.New(web.Options{}), nil)
	for args, want := range map[string]string{
		`{"url":"https://Example.com/a?b=1"}`: "example.com",
		`{"url":"http://example.com:8080/"}`:  "example.com:8080",
		`{"url":"ftp://example.com/"}`:        "",
		`{"url":7}`:                           "",
	} {
		if got := ft.Scope(json.RawMessage(args)); got != want {
			t.Errorf("Scope(%s) = %q, want %q", args, got, want)
		}
	}
}

func TestToolErrorsSayWhatHappened(t *testing.T) {
	_, err := web.NewTool(web.New(web.Options{}), nil).Execute(context.Background(), json.RawMessage(`{"url":"http://127.0.0.1:1/"}`))
	if err == nil || !strings.Contains(err.Error(), "Allow private addresses in Settings") || strings.Contains(err.Error(), "dial") {
		t.Fatalf("err = %v", err)
	}
}
