package runner_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/knowledge/cite"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

const (
	quinces = "# Quinces\n\nQuinces need frost and a long autumn.\n"
	pears   = "# Pears\n\nPears ripen off the tree.\n"
)

// An attached document goes to the session's knowledge; the model
// searches it, cites [1] and [2], and the stored turn holds the passages
// it was given. A citation of a number never given is unverified. A
// replay, with the document removed and the server gone, gives back the
// same sources.
func TestSearchKnowledgeCitesAndReplays(t *testing.T) {
	dir, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	if err := db.SaveProvider(bg, llm.Provider{Name: "local", Kind: catalog.KindCustom, BaseURL: srv.URL()}); err != nil {
		t.Fatal(err)
	}
	st, _ := db.AppSettings(bg)
	st.EmbedProvider, st.EmbedModel = "local", "embed-small"
	if err := db.SaveAppSettings(bg, st); err != nil {
		t.Fatal(err)
	}
	files := []string{filepath.Join(dir, "quinces.md"), filepath.Join(dir, "pears.txt")}
	os.WriteFile(files[0], []byte(quinces), 0o600)
	os.WriteFile(files[1], []byte(pears), 0o600)
	const answer = "Quinces need frost [1]; pears ripen off the tree [2]. Apples keep [7]."
	srv.Enqueue(
		llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "c1", cite.Name, `{"query":"quinces frost"}`, 2), "tool_calls")},
		llmtest.Reply{Chunks: llmtest.Text(answer, 3)},
	)
	sess, _ := db.CreateSession(bg, store.Session{Title: "orchard", Model: "m", Provider: "local"})
	res, rec, id := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "When do quinces ripen?", Attach: files})
	if !res.OK || res.FinalText != answer {
		t.Fatalf("turn: %q (%s)", res.FinalText, res.Error)
	}

	// The documents are knowledge, embedded, not tables.
	docs, err := db.ListDocuments(bg, knowledge.Place{SessionID: sess.ID})
	if err != nil || len(docs) != 2 || docs[1].Name != "quinces.md" || docs[1].EmbedModel != "embed-small" {
		t.Fatalf("documents = %+v, %v", docs, err)
	}
	if _, err := os.Stat(filepath.Join(store.SessionDir(db.Path(), sess.ID), "data.db")); !os.IsNotExist(err) {
		t.Errorf("a document was loaded as a table too (%v)", err)
	}
	if reqs := srv.Requests(); !slices.Contains(reqs[0].Tools, cite.Name) {
		t.Errorf("offered %v, want %s", reqs[0].Tools, cite.Name)
	}
	out := srv.Requests()[1].Messages
	if tr := out[len(out)-1].Content; !strings.Contains(tr, `"mode":"hybrid"`) || !strings.Contains(tr, cite.Instruction) {
		t.Errorf("the tool gave %s, want hybrid passages and the instruction", tr)
	}

	sources := sourcesOf(t, rec)
	if len(sources) != 2 || sources[0].N != 1 || sources[1].N != 2 || !strings.Contains(sources[0].Text, "Quinces need frost") ||
		sources[0].Version != docs[1].Version || sources[0].DocumentID != docs[1].ID || sources[0].PassageID == 0 || sources[1].Document != "pears.txt" {
		t.Fatalf("sources = %+v", sources)
	}
	d, err := db.GetTurn(bg, id, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Sources, sources) {
		t.Fatalf("the stored turn holds %+v, want %+v", d.Sources, sources)
	}
	verified := map[int]bool{}
	for _, c := range cite.Citations(d.Messages[len(d.Messages)-1].Content, d.Sources) {
		verified[c.N] = c.Verified()
	}
	if want := map[int]bool{1: true, 2: true, 7: false}; !reflect.DeepEqual(verified, want) {
		t.Errorf("citations %v, want %v", verified, want)
	}

	// The record stays true: no documents, no embeddings server.
	for _, d := range docs {
		if err := db.RemoveDocument(bg, d.ID); err != nil {
			t.Fatal(err)
		}
	}
	srv.Close()
	rep, rrec, rid := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Replay: &runner.Replay{TurnID: id, Strict: true}})
	if !rep.OK || rep.FinalText != answer {
		t.Fatalf("replay: %q (%s)", rep.FinalText, rep.Error)
	}
	if dv := divergences(t, rrec); len(dv) != 0 {
		t.Fatalf("the replay diverged: %+v", dv)
	}
	if got := sourcesOf(t, rrec); !reflect.DeepEqual(got, sources) {
		t.Errorf("replayed sources %+v, want %+v", got, sources)
	}
	if rd, _ := db.GetTurn(bg, rid, false); !reflect.DeepEqual(rd.Sources, sources) {
		t.Errorf("the replay stored %+v, want %+v", rd.Sources, sources)
	}
}

// A session without documents is not offered search_knowledge: its
// requests (and recordings' keys) stay as they were.
func TestNoDocumentsNoSearchTool(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Hi.", 1)})
	sess, _ := db.CreateSession(bg, store.Session{Title: "plain", Model: "m"})
	if res, _, _ := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Hi", BaseURL: srv.URL()}); !res.OK {
		t.Fatalf("turn: %+v", res)
	}
	if tools := srv.Requests()[0].Tools; slices.Contains(tools, cite.Name) {
		t.Errorf("offered %v to a session without documents", tools)
	}
}

// A document that cannot be read refuses the message, and the documents
// attached with it are not kept.
func TestAFailedDocumentLeavesNothing(t *testing.T) {
	dir, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	good := filepath.Join(dir, "good.md")
	os.WriteFile(good, []byte(quinces), 0o600)
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("\xff\xfe\x00binary\x00"), 0o600)
	sess, _ := db.CreateSession(bg, store.Session{Title: "refused", Model: "m"})
	if _, err := eng.Runner.Start(bg, runner.Request{SessionID: sess.ID, Message: "read", BaseURL: srv.URL(), Attach: []string{good, bad, filepath.Join(dir, "missing.csv")}}); err == nil {
		t.Fatal("Start took a message with files that cannot be attached")
	}
	if docs, _ := db.ListDocuments(bg, knowledge.Place{SessionID: sess.ID}); len(docs) != 0 {
		t.Errorf("a refused message left documents %+v", docs)
	}
	if page, _ := db.ListTurns(bg, sess.ID, store.Page{}); len(page.Turns) != 0 {
		t.Errorf("a refused message left %d turn(s)", len(page.Turns))
	}
}

func sourcesOf(t *testing.T, rec *turntest.Recorder) []turn.Source {
	t.Helper()
	var out []turn.Source
	for _, e := range rec.Of(turn.EventSources) {
		out = append(out, turntest.Data[turn.SourcesData](t, e).Sources...)
	}
	return out
}
