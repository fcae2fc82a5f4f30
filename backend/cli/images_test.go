package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/store/storetest"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// squarePNG is a real 3×2 PNG, so its size can be read.
func squarePNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// webpBytes begin as a WebP file does: the type is known by its bytes,
// its size is not (the standard library reads no WebP).
var webpBytes = []byte("RIFF\x1a\x00\x00\x00WEBPVP8 \x0e\x00\x00\x00 not really pixels")

func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunSendsImages: run --image (repeatable) sends each file as an
// image_url part with a data URL of its bytes, after the prompt's text,
// and stores them with the turn: named in the message with their type,
// file name and (where the standard library reads it) size in pixels,
// their bytes in the images table. Images alone are a message too.
func TestRunSendsImages(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	sq := squarePNG(t)
	pngPath, webpPath := writeFile(t, dir, "square.png", sq), writeFile(t, dir, "photo.webp", webpBytes)
	dataURL := func(mime string, b []byte) string {
		return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)
	}

	tests := []struct {
		name   string
		args   []string
		parts  string // the user message's content parts, by type
		title  string
		stored []llm.Image
		note   bool // the model is not known to see: stderr says so
	}{
		{"a prompt and two images", []string{"--image", pngPath, "What are these?", "--image", webpPath}, "text image_url image_url", "What are these?",
			[]llm.Image{{MIME: "image/png", Name: "square.png", Width: 3, Height: 2, Data: sq}, {MIME: "image/webp", Name: "photo.webp", Data: webpBytes}}, true},
		{"an image alone, to a vision model", []string{"--image", pngPath, "--model", "qwen2.5vl:7b"}, "image_url", "square.png",
			[]llm.Image{{MIME: "image/png", Name: "square.png", Width: 3, Height: 2, Data: sq}}, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("A red square.", 2)})
			r := agentdeck(t, db, srv.URL(), nil, nil, append([]string{"run", "--json"}, tt.args...)...)
			if r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			req := srv.Requests()[i]
			for _, im := range tt.stored {
				if n := bytes.Count(req.Raw, []byte(dataURL(im.MIME, im.Data))); n != 1 {
					t.Errorf("the request holds %s's data URL %d times, want once", im.Name, n)
				}
			}
			if got := userParts(t, req.Raw); got != tt.parts {
				t.Errorf("the user message's parts are %q, want %q", got, tt.parts)
			}
			// A hint, never a gate: the images went all the same.
			const note = "test-model is not known to see images; if it refuses them, pick a vision model (such as qwen2.5vl, llava or gemma3) with --model"
			if strings.Contains(r.stderr, note) != tt.note || strings.Contains(r.stderr, "qwen2.5vl:7b is not known") {
				t.Errorf("stderr %q: the note about a model not known to see should show: %v", r.stderr, tt.note)
			}

			var first turn.Event
			json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &first)
			st, err := store.Open(context.Background(), db, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			sess, err := st.GetSession(context.Background(), first.SessionID)
			if err != nil || sess.Title != tt.title {
				t.Errorf("session %q (%v), want the title %q", sess.Title, err, tt.title)
			}
			d, err := st.GetTurn(context.Background(), first.TurnID, false)
			if err != nil || len(d.Messages) == 0 || len(d.Messages[0].Images) != len(tt.stored) {
				t.Fatalf("the stored turn: %+v %v", d.Messages, err)
			}
			for j, want := range tt.stored {
				ref := d.Messages[0].Images[j]
				im, err := st.Image(context.Background(), ref.ID)
				if err != nil || !bytes.Equal(im.Data, want.Data) || im.MIME != want.MIME || im.Name != want.Name || im.Width != want.Width || im.Height != want.Height {
					t.Errorf("image %d stored as %s %q %d×%d (%d bytes, %v), want %s %q %d×%d", j, im.MIME, im.Name, im.Width, im.Height, len(im.Data), err,
						want.MIME, want.Name, want.Width, want.Height)
				}
			}
		})
	}
}

// userParts lists the types of the content parts of the request's user
// message.
func userParts(t *testing.T, raw []byte) string {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	for _, m := range body.Messages {
		if m.Role != "user" {
			continue
		}
		var parts []struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			return "text only: " + string(m.Content)
		}
		var types []string
		for _, p := range parts {
			types = append(types, p.Type)
		}
		return strings.Join(types, " ")
	}
	return "no user message"
}

// TestRunRefusesImagesItCannotSend: a file that is not a PNG, JPEG, WebP
// or GIF by its bytes, one over 20 MB, one that is not there, and images
// given to a continuation are usage errors that name the file and why,
// before anything is sent or stored.
func TestRunRefusesImagesItCannotSend(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	big := filepath.Join(dir, "huge.png")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(store.MaxImageBytes + 1); err != nil { // sparse: nothing is written
		t.Fatal(err)
	}
	f.Close()
	notes := writeFile(t, dir, "notes.png", []byte("a text file named like an image"))
	bmp := writeFile(t, dir, "old.bmp", append([]byte("BM"), make([]byte, 64)...))
	empty := writeFile(t, dir, "empty.png", nil)
	good := writeFile(t, dir, "square.png", squarePNG(t))

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"not an image", []string{"--image", notes, "hi"}, "--image " + notes + " is text/plain, not an image a model can be sent (PNG, JPEG, WebP or GIF)"},
		{"an image of another type", []string{"--image", bmp, "hi"}, "is image/bmp, not an image a model can be sent"},
		{"too big", []string{"--image", good, "--image", big, "hi"}, "--image " + big + " is 20.0 MB; an image may be at most 20 MB"},
		{"missing", []string{"--image", filepath.Join(dir, "gone.png"), "hi"}, "gone.png: there is no such file"},
		{"a folder", []string{"--image", dir, "hi"}, "is a folder, not an image"},
		{"empty", []string{"--image", empty, "hi"}, "empty.png is empty"},
		{"with --continue", []string{"--session", "s", "--continue", "t", "--image", good}, "--continue takes no --image"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := agentdeck(t, db, srv.URL(), nil, nil, append([]string{"run"}, tt.args...)...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d (want %d), stderr %q should say %q", r.code, ExitUsage, r.stderr, tt.want)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the model", n)
	}
	if list := agentdeck(t, db, srv.URL(), nil, nil, "sessions", "list"); strings.TrimSpace(list.stdout) != "" {
		t.Fatalf("a refused run left a session:\n%s", list.stdout)
	}
}

// TestExportMarkdownWithImages: sessions export --format md -o FILE.md
// writes the images in FILE_images/ beside it and links them there; on
// stdout the Markdown names them instead. A folder that is already there
// is not written into, and the failed export leaves no file.
func TestExportMarkdownWithImages(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("A red square.", 2)})
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	sq := squarePNG(t)
	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "--image", writeFile(t, dir, "square.png", sq), "What is it?")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var first turn.Event
	json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &first)

	out := filepath.Join(dir, "notes.md")
	if e := agentdeck(t, db, "", nil, nil, "sessions", "export", first.SessionID, "--format", "md", "-o", out); e.code != ExitOK {
		t.Fatalf("export: exit %d: %s", e.code, e.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "notes_images", "*.png"))
	if len(files) != 1 {
		t.Fatalf("the images folder holds %v", files)
	}
	if b, _ := os.ReadFile(files[0]); !bytes.Equal(b, sq) {
		t.Fatal("the image file does not hold the image's bytes")
	}
	md, _ := os.ReadFile(out)
	if link := "What is it?\n\n![square.png](notes_images/" + filepath.Base(files[0]) + ")\n"; !strings.Contains(string(md), link) {
		t.Fatalf("the Markdown lacks the link %q:\n%s", link, md)
	}

	stdout := agentdeck(t, db, "", nil, nil, "sessions", "export", first.SessionID, "--format", "md")
	if note := "_Image: square.png (3×2, " + mdBytes(len(sq)) + "), in the JSON export_"; !strings.Contains(stdout.stdout, note) {
		t.Fatalf("the Markdown on stdout lacks %q:\n%s", note, stdout.stdout)
	}

	if err := os.Mkdir(filepath.Join(dir, "again_images"), 0o700); err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "again.md")
	e := agentdeck(t, db, "", nil, nil, "sessions", "export", first.SessionID, "--format", "md", "-o", again)
	if e.code != ExitFailed || !strings.Contains(e.stderr, "again_images") || !strings.Contains(e.stderr, "must not exist yet") {
		t.Fatalf("export beside a folder already there: exit %d: %s", e.code, e.stderr)
	}
	if _, err := os.Stat(again); !os.IsNotExist(err) {
		t.Fatal("the failed export left its file")
	}
	if _, err := os.Stat(filepath.Join(dir, "again_images")); err != nil {
		t.Fatal("the folder that was there before was removed")
	}
}

// mdBytes is the size of a file under 1 KB as the Markdown gives it.
func mdBytes(n int) string { return strconv.Itoa(n) + " bytes" }

// TestImportRefusesAnExportMissingItsImage: a JSON export whose images
// list was removed is refused by sessions import, naming where the image
// is missing, with a non-zero exit, and the database's bytes are as they
// were. The export as written imports.
func TestImportRefusesAnExportMissingItsImage(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Text("A red square.", 2)} })
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	sess, _, good := runAndExport(t, db, srv.URL(), "--image", writeFile(t, dir, "square.png", squarePNG(t)), "What is it?")
	var doc map[string]any
	b, _ := os.ReadFile(good)
	if err := json.Unmarshal(b, &doc); err != nil || doc["images"] == nil {
		t.Fatalf("the export holds no images: %v\n%s", err, b)
	}
	delete(doc, "images")
	b, _ = json.Marshal(doc)
	broken := writeFile(t, dir, "broken.json", b)

	other := filepath.Join(dir, "other.db")
	if e := agentdeck(t, other, srv.URL(), nil, nil, "run", "hello"); e.code != ExitOK {
		t.Fatalf("exit %d: %s", e.code, e.stderr)
	}
	before := storetest.Files(t, other)
	e := agentdeck(t, other, "", nil, nil, "sessions", "import", broken)
	if e.code == ExitOK || !strings.Contains(e.stderr, "turns[0].messages[0].images[0] names image") || !strings.Contains(e.stderr, "(square.png)") ||
		!strings.Contains(e.stderr, "Nothing was imported") || strings.Contains(e.stdout, "imported session") {
		t.Fatalf("sessions import of a file without its images: exit %d\n%s%s", e.code, e.stdout, e.stderr)
	}
	if !bytes.Equal(before, storetest.Files(t, other)) {
		t.Fatal("the refused import changed the database's bytes")
	}
	if e := agentdeck(t, other, "", nil, nil, "sessions", "import", good); e.code != ExitOK || !strings.Contains(e.stdout, "imported session "+sess) {
		t.Fatalf("sessions import of the export as written: exit %d\n%s%s", e.code, e.stdout, e.stderr)
	}
}

// runAndExport runs a turn into a new session of the database at db and
// exports the session as JSON beside it; it returns the session, the turn
// and the file.
func runAndExport(t *testing.T, db, baseURL string, args ...string) (sess, tr, file string) {
	t.Helper()
	r := agentdeck(t, db, baseURL, nil, nil, append([]string{"run"}, args...)...)
	if r.code != ExitOK {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	sess, tr = idsOf(t, r.stderr)
	file = filepath.Join(filepath.Dir(db), "session.json")
	if e := agentdeck(t, db, "", nil, nil, "sessions", "export", sess, "--format", "json", "-o", file); e.code != ExitOK {
		t.Fatalf("export: exit %d: %s", e.code, e.stderr)
	}
	return sess, tr, file
}
