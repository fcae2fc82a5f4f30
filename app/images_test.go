package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/export/exporttest"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
)

// TestImagesThroughTheAPI: a message with an image reaches the model as an
// image_url part, is stored with the turn, and GetImage gives back the
// same bytes; a file that is not an image, whatever it claims, is refused
// before anything is stored.
func TestImagesThroughTheAPI(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Respond(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Text("A blue pixel.", 1)} })
	s := f.session(t, "vision")
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(0, 0, color.RGBA{B: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	data := base64.StdEncoding.EncodeToString(buf.Bytes())

	ref, err := f.api.SendMessage(SendRequest{SessionID: s.ID, Message: "What colour?", Images: []ImageData{{Name: "pixel.png", MIME: "image/png", Width: 3, Height: 2, Data: data}}})
	if err != nil {
		t.Fatal(err)
	}
	f.waitTurn(t, ref.TurnID)
	if !strings.Contains(string(f.srv.Requests()[0].Raw), "data:image/png;base64,"+data) {
		t.Fatal("the model was not sent the image")
	}
	d, err := f.api.GetTurn(ref.TurnID, false)
	if err != nil || len(d.Messages) == 0 || len(d.Messages[0].Images) != 1 {
		t.Fatalf("turn messages %+v %v", d.Messages, err)
	}
	got, err := f.api.GetImage(d.Messages[0].Images[0].ID)
	if err != nil || got.Data != data || got.MIME != "image/png" || got.Name != "pixel.png" || got.Width != 3 {
		t.Fatalf("GetImage = %+v, %v", got, err)
	}

	before := len(f.srv.Requests())
	for _, bad := range []ImageData{
		{Name: "notes.png", MIME: "image/png", Data: base64.StdEncoding.EncodeToString([]byte("just some text"))},
		{Name: "broken.png", MIME: "image/png", Data: "not base64!"},
	} {
		_, err := f.api.SendMessage(SendRequest{SessionID: s.ID, Message: "and this?", Images: []ImageData{bad}})
		if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), bad.Name) {
			t.Errorf("%s: %v, want an invalid error naming it", bad.Name, err)
		}
	}
	if len(f.srv.Requests()) != before {
		t.Error("a refused image reached the model")
	}
	if got, _ := f.api.GetSession(s.ID); got.Turns != 1 {
		t.Errorf("%d turns stored, want only the first", got.Turns)
	}
}

// TestImageFile reads an image dropped on the window by its path, and
// refuses a file that is not an image, whatever its name says.
func TestImageFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 5, 4))
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	good, fake := filepath.Join(dir, "drop.png"), filepath.Join(dir, "fake.png")
	if err := os.WriteFile(good, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fake, []byte("plain text"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := f.api.ImageFile(good)
	if err != nil || got.Name != "drop.png" || got.MIME != "image/png" || got.Width != 5 || got.Height != 4 || got.Data != base64.StdEncoding.EncodeToString(buf.Bytes()) {
		t.Fatalf("ImageFile = %+v, %v", got, err)
	}
	if _, err := f.api.ImageFile(fake); apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), "fake.png is text/plain") {
		t.Errorf("a text file named .png: %v", err)
	}
	if _, err := f.api.ImageFile(filepath.Join(dir, "gone.png")); apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing file: %v", err)
	}
}

// clipboardFunc is a Clipboard that answers what a test says.
type clipboardFunc func(ctx context.Context) ([]byte, error)

func (f clipboardFunc) Image(ctx context.Context) ([]byte, error) { return f(ctx) }

// TestClipboardImage reads what the Linux window's clipboard holds, for a
// paste its web view hands the page empty: an image is taken as its bytes
// say it is, and everything else says what happened and what to do.
func TestClipboardImage(t *testing.T) {
	t.Parallel()
	pixel := func(enc func(*bytes.Buffer, image.Image) error) []byte {
		var buf bytes.Buffer
		if err := enc(&buf, image.NewRGBA(image.Rect(0, 0, 7, 3))); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	pngBytes := pixel(func(b *bytes.Buffer, m image.Image) error { return png.Encode(b, m) })
	jpegBytes := pixel(func(b *bytes.Buffer, m image.Image) error { return jpeg.Encode(b, m, nil) })
	answer := func(data []byte, err error) Clipboard {
		return clipboardFunc(func(context.Context) ([]byte, error) { return data, err })
	}
	for _, tc := range []struct {
		name      string
		clipboard Clipboard
		want      ImageData // on success
		code      apperr.Code
		msg       string
	}{
		{name: "png", clipboard: answer(pngBytes, nil), want: ImageData{Name: "pasted-image.png", MIME: "image/png", Width: 7, Height: 3, Data: base64.StdEncoding.EncodeToString(pngBytes)}},
		{name: "jpeg as copied", clipboard: answer(jpegBytes, nil), want: ImageData{Name: "pasted-image.jpeg", MIME: "image/jpeg", Width: 7, Height: 3, Data: base64.StdEncoding.EncodeToString(jpegBytes)}},
		{name: "no image", clipboard: answer(nil, nil), code: apperr.Invalid, msg: "The clipboard holds no image. Copy one, or add it with the image button."},
		{name: "not an image", clipboard: answer([]byte("a note, not a picture"), nil), code: apperr.Invalid, msg: "The pasted image is text/plain, not an image a model can be sent (PNG, JPEG, WebP or GIF)"},
		{name: "too big", clipboard: answer(append(pngBytes, make([]byte, store.MaxImageBytes)...), nil), code: apperr.Invalid, msg: "an image may be at most 20 MB"},
		// What a read answers when clipboardWait runs out.
		{name: "owner silent", clipboard: answer(nil, fmt.Errorf("reading: %w", context.DeadlineExceeded)), code: apperr.Unavailable, msg: "did not hand it over within 10s"},
		{name: "read failed", clipboard: answer(nil, errors.New("the program that copied the image handed over nothing")), code: apperr.Unavailable, msg: "The clipboard could not be read"},
		{name: "not the window", code: apperr.Unavailable, msg: "paste the image into the page"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := NewService(Config{}) // no database: reading the clipboard needs none
			svc.clipboard = tc.clipboard
			got, err := svc.api.ClipboardImage()
			if tc.code == "" {
				if err != nil || got != tc.want {
					t.Fatalf("ClipboardImage = %+v, %v; want %+v", got, err, tc.want)
				}
				return
			}
			if apperr.CodeOf(err) != tc.code || !strings.Contains(apperr.MessageOf(err), tc.msg) {
				t.Fatalf("ClipboardImage error = %v (%s), want %s: %q", err, apperr.CodeOf(err), tc.code, tc.msg)
			}
		})
	}
}

// TestImportSessionRefusesAFileMissingItsImage: the window's (and serve's)
// import refuses an export whose image was removed from it, naming the
// place, and imports nothing; the file as exported imports.
func TestImportSessionRefusesAFileMissingItsImage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	doc := exporttest.Chat(exporttest.Exchange{ID: "a", User: "What is it?", Answer: "A cat."})
	exporttest.AddImage(&doc, export.Image{ID: "img-a", TurnID: "a", MIME: "image/png", Name: "cat.png", Data: []byte("\x89PNG\r\n\x1a\n not really pixels")})
	good := exporttest.JSON(t, doc)
	doc.Images = nil
	broken := exporttest.JSON(t, doc)

	_, err := f.api.ImportSession(string(broken))
	if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(apperr.MessageOf(err), "turns[0].messages[0].images[0] names image img-a (cat.png)") {
		t.Fatalf("ImportSession of a file without its image: %v", err)
	}
	if page, err := f.api.ListSessions(store.Page{}); err != nil || len(page.Sessions) != 0 {
		t.Fatalf("the refused import left %+v (%v)", page.Sessions, err)
	}
	if s, err := f.api.ImportSession(string(good)); err != nil || s.Turns != 1 {
		t.Fatalf("ImportSession of the file as exported: %+v %v", s, err)
	}
}
