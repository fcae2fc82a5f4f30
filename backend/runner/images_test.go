package runner_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
)

// TestImagesSentStoredAndReplayed sends a message with an image: the model
// gets it as an image_url part, the turn stores it (named in the message,
// its bytes in the store), the next message's request holds it again from
// the store, and a strict offline replay of the first turn is served from
// its recording, image and all.
func TestImagesSentStoredAndReplayed(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	ctx := context.Background()
	srv := llmtest.NewServer(t)
	srv.Respond(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Text("A red square.", 2)} })
	sess, _ := db.CreateSession(ctx, store.Session{Title: "vision", Model: "qwen2.5vl"})
	png := []byte("\x89PNG\r\n\x1a\n a tiny red square")

	first, _, id := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "What is this?", BaseURL: srv.URL(),
		Images: []llm.Image{{MIME: "image/png", Name: "square.png", Width: 2, Height: 2, Data: png}}})
	if !first.OK {
		t.Fatalf("%+v", first)
	}
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	if n := strings.Count(string(srv.Requests()[0].Raw), dataURL); n != 1 {
		t.Fatalf("the first request holds the image %d times", n)
	}
	d, err := db.GetTurn(ctx, id, false)
	if err != nil || len(d.Messages) == 0 || len(d.Messages[0].Images) != 1 {
		t.Fatalf("stored messages %+v %v", d.Messages, err)
	}
	ref := d.Messages[0].Images[0]
	if ref.ID == "" || ref.Name != "square.png" || ref.Size != len(png) || ref.SHA256 != recording.ImageSHA256(llm.Image{Data: png}) || len(ref.Data) != 0 {
		t.Fatalf("stored image %+v", ref)
	}
	if im, err := db.Image(ctx, ref.ID); err != nil || !bytes.Equal(im.Data, png) || im.MIME != "image/png" {
		t.Fatalf("Image(%s) = %+v, %v", ref.ID, im, err)
	}
	if b, _ := json.Marshal(d); bytes.Contains(b, []byte(base64.StdEncoding.EncodeToString(png))) {
		t.Error("the turn as read for display carries the image's bytes")
	}

	run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "And its colour?", BaseURL: srv.URL()})
	if n := strings.Count(string(srv.Requests()[1].Raw), dataURL); n != 1 {
		t.Fatalf("the next request holds the image %d times, want once (in the history)", n)
	}

	// An image no model reads is refused before anything is stored.
	if _, err := eng.Runner.Start(ctx, runner.Request{SessionID: sess.ID, Message: "and this?", BaseURL: srv.URL(),
		Images: []llm.Image{{MIME: "application/pdf", Name: "doc.pdf", Data: []byte("%PDF")}}}); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("a PDF as an image: %v", err)
	}
	if got, _ := db.GetSession(ctx, sess.ID); got.Turns != 2 || got.RunningTurn != "" {
		t.Fatalf("after the refusal: %d turns, running %q", got.Turns, got.RunningTurn)
	}

	srv.Close()
	rsess, _ := db.CreateSession(ctx, store.Session{Title: "replay"})
	res, rec, rid := run(t, eng.Runner, runner.Request{SessionID: rsess.ID, Replay: &runner.Replay{TurnID: id, Strict: true}})
	if !res.OK || res.FinalText != "A red square." || len(divergences(t, rec)) != 0 {
		t.Fatalf("replay: ok %v %q %s %+v", res.OK, res.FinalText, res.Error, divergences(t, rec))
	}
	// The replay keeps its own copy: the original session can go.
	if err := db.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	h, err := db.PathHistory(ctx, rid)
	if err != nil || len(h) == 0 || len(h[0].Images) != 1 || !bytes.Equal(h[0].Images[0].Data, png) {
		t.Fatalf("the replay's history after the original went: %+v %v", h, err)
	}
}
