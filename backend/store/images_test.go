package store

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// TestImagesStoredWithTheTurn: a user message's images are stored when the
// turn finishes: the message names them (no bytes), Image and UserImages
// give the bytes back, the next turn's history carries them with their
// bytes, and deleting the turn deletes their rows. An image of a type no
// model reads, or over the limit, fails the store with a clear error.
func TestImagesStoredWithTheTurn(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "vision")
	png := []byte("\x89PNG\r\n\x1a\n pixels")
	tr, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "What is it?", Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "What is it?", Images: []llm.Image{{MIME: "image/png", Name: "a.png", Width: 4, Height: 3, Data: png}}},
		{Role: llm.RoleAssistant, Content: "A picture."},
	}
	if err := db.FinishTurn(ctx, tr.ID, 0, turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, FinalText: "A picture.", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	d, err := db.GetTurn(ctx, tr.ID, false)
	if err != nil || len(d.Messages[0].Images) != 1 {
		t.Fatalf("%+v %v", d.Messages, err)
	}
	ref := d.Messages[0].Images[0]
	if ref.ID == "" || len(ref.Data) != 0 || ref.Size != len(png) || ref.Name != "a.png" || ref.Width != 4 {
		t.Fatalf("the message names %+v", ref)
	}
	if msgs[0].Images[0].ID != "" {
		t.Error("storing the turn changed the caller's message")
	}
	if im, err := db.Image(ctx, ref.ID); err != nil || !bytes.Equal(im.Data, png) || im.SHA256 != ref.SHA256 {
		t.Fatalf("Image: %+v %v", im, err)
	}
	if ims, err := db.UserImages(ctx, tr.ID); err != nil || len(ims) != 1 || !bytes.Equal(ims[0].Data, png) {
		t.Fatalf("UserImages: %+v %v", ims, err)
	}
	h, err := db.PathHistory(ctx, tr.ID)
	if err != nil || len(h) != 2 || len(h[0].Images) != 1 || !bytes.Equal(h[0].Images[0].Data, png) {
		t.Fatalf("history %+v %v", h, err)
	}

	if _, err := db.DeleteTurn(ctx, tr.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Image(ctx, ref.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("the image outlived its turn: %v", err)
	}

	for _, tt := range []struct {
		name string
		im   llm.Image
		want string
	}{
		{"not an image", llm.Image{MIME: "text/plain", Name: "notes.txt", Data: []byte("hi")}, "notes.txt is text/plain"},
		{"too big", llm.Image{MIME: "image/png", Name: "huge.png", Data: make([]byte, MaxImageBytes+1)}, "huge.png is 20.0 MB; an image may be at most 20 MB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := CheckImage(tt.im); apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CheckImage: %v, want an invalid error saying %q", err, tt.want)
			}
			s := newSession(t, db, tt.name)
			tr, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "x", Workflow: "chat", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			res := turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, Messages: []llm.Message{{Role: llm.RoleUser, Content: "x", Images: []llm.Image{tt.im}}}}
			if err := db.FinishTurn(ctx, tr.ID, 0, res); apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v, want an invalid error saying %q", err, tt.want)
			}
		})
	}
}

// TestImagesOfATurnCutShort: the images are stored as the turn starts, so
// a turn whose process died keeps them: the recovered user message names
// them and the next turn's history sends them. A replay's copies are its
// own: UserImages gives bytes without ids, stored anew.
func TestImagesOfATurnCutShort(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "cut short")
	png := []byte("\x89PNG\r\n\x1a\n cut short")
	as := &DB{path: db.path, writer: db.writer, reader: db.reader, owner: deadOwner(t)}
	tr, err := as.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "see this", Workflow: "chat", Model: "m",
		Images: []llm.Image{{MIME: "image/png", Name: "c.png", Data: png}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Images) != 1 || tr.Images[0].ID == "" || !bytes.Equal(tr.Images[0].Data, png) {
		t.Fatalf("StartTurn gave back %+v", tr.Images)
	}
	if n, err := db.RecoverInterrupted(ctx); n != 1 || err != nil {
		t.Fatalf("RecoverInterrupted = %d, %v", n, err)
	}
	h, err := db.PathHistory(ctx, tr.ID)
	if err != nil || len(h) != 1 || len(h[0].Images) != 1 || h[0].Images[0].ID != tr.Images[0].ID || !bytes.Equal(h[0].Images[0].Data, png) {
		t.Fatalf("the recovered turn's history %+v %v", h, err)
	}
	ims, err := db.UserImages(ctx, tr.ID)
	if err != nil || len(ims) != 1 || ims[0].ID != "" || !bytes.Equal(ims[0].Data, png) {
		t.Fatalf("UserImages = %+v %v; want the bytes without the id", ims, err)
	}
}
