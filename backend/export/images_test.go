package export_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/export/exporttest"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/store"
)

// imagesSession stores two turns with images: the first a 640×480 PNG of
// 120 KB, the second a WebP of unknown size whose name has a space, and
// the first's image again (as a replay names it).
func imagesSession(t *testing.T) (*store.DB, string, [][]byte) {
	t.Helper()
	cat := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 120<<10-8)...)
	dog := []byte("RIFF\x00\x00\x00\x00WEBPVP8 dog")
	doc := exporttest.Chat(exporttest.Exchange{ID: "a", User: "What is it?", Answer: "A cat."},
		exporttest.Exchange{ID: "b", Parent: "a", User: "And these?", Answer: "A dog, and the cat."})
	ref := exporttest.AddImage(&doc, export.Image{TurnID: "a", MIME: "image/png", Name: "cat.png", Width: 640, Height: 480, Data: cat})
	exporttest.AddImage(&doc, export.Image{TurnID: "b", MIME: "image/webp", Name: "dog one.webp", Data: dog})
	doc.Turns[1].Messages[0].Images = append(doc.Turns[1].Messages[0].Images, ref)
	db := openStore(t)
	s, err := db.Import(ctx, bytes.NewReader(exporttest.JSON(t, doc)))
	if err != nil {
		t.Fatal(err)
	}
	return db, s.ID, [][]byte{cat, dog}
}

// TestMarkdownImages: given somewhere to store them, a Markdown export
// stores each image once, under a name of its content, and links it where
// each message has it, the path escaped; without it, each is named with
// its size and the reader sent to the JSON export. Its bytes are never in
// the Markdown.
func TestMarkdownImages(t *testing.T) {
	db, id, data := imagesSession(t)
	tests := []struct {
		name  string
		dir   string // the folder the images go in; "" for no ImageFile
		wants []string
	}{
		{"linked files", "notes_images", []string{
			"### You\n\nWhat is it?\n\n![cat.png](notes_images/{cat})\n\n### Assistant",
			"### You\n\nAnd these?\n\n![dog one.webp](notes_images/{dog})\n\n![cat.png](notes_images/{cat})\n\n### Assistant"}},
		{"a folder that needs escaping", "my notes (1)_images", []string{"![cat.png](my%20notes%20%281%29_images/{cat})"}},
		{"named only", "", []string{
			"What is it?\n\n_Image: cat.png (640×480, 120 KB), in the JSON export_\n\n",
			"_Image: dog one.webp (19 bytes), in the JSON export_\n\n_Image: cat.png (640×480, 120 KB), in the JSON export_"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored := map[string][]byte{}
			var opts export.Options
			if tt.dir != "" {
				opts.ImageFile = func(file string, b []byte) (string, error) {
					if _, again := stored[file]; again {
						t.Errorf("%s stored twice", file)
					}
					stored[file] = b
					return tt.dir + "/" + file, nil
				}
			}
			var buf bytes.Buffer
			if err := export.Write(ctx, db, id, export.Markdown, &buf, opts); err != nil {
				t.Fatal(err)
			}
			md := buf.String()
			files := map[string]string{}
			for file, b := range stored {
				for i, name := range []string{"cat", "dog"} {
					if bytes.Equal(b, data[i]) {
						files["{"+name+"}"] = file
					}
				}
			}
			if tt.dir != "" && (len(stored) != 2 || len(files) != 2 || !strings.HasSuffix(files["{cat}"], ".png") || !strings.HasSuffix(files["{dog}"], ".webp")) {
				t.Fatalf("stored %d files: %v", len(stored), files)
			}
			for _, want := range tt.wants {
				for k, v := range files {
					want = strings.ReplaceAll(want, k, v)
				}
				if !strings.Contains(md, want) {
					t.Errorf("the Markdown lacks\n%s\n---\n%s", want, md)
				}
			}
			if strings.Contains(md, base64.StdEncoding.EncodeToString(data[1])) || strings.Contains(md, "base64") {
				t.Error("the Markdown holds an image's bytes")
			}
		})
	}
	t.Run("a file that cannot be stored", func(t *testing.T) {
		refused := apperr.New(apperr.Unavailable, "The folder for the images cannot be made.")
		opts := export.Options{ImageFile: func(string, []byte) (string, error) { return "", refused }}
		err := export.Write(ctx, db, id, export.Markdown, &bytes.Buffer{}, opts)
		if !errors.Is(err, refused) {
			t.Fatalf("%v, want the error ImageFile gave", err)
		}
	})
}

// TestJSONLImages: a user message with images is written as OpenAI's
// vision data has it: a text part and an image_url part per image, with a
// data URL of the bytes; a line holds the images of its whole context.
func TestJSONLImages(t *testing.T) {
	db, id, data := imagesSession(t)
	var buf bytes.Buffer
	if err := export.Write(ctx, db, id, export.JSONL, &buf, export.Options{}); err != nil {
		t.Fatal(err)
	}
	type part struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	url := func(mime string, b []byte) string {
		return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)
	}
	cat, dog := url("image/png", data[0]), url("image/webp", data[1])
	want := [][]string{
		{"text:What is it?", "image_url:" + cat},
		{"text:What is it?", "image_url:" + cat, "|", "text:And these?", "image_url:" + dog, "image_url:" + cat},
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	for i, line := range lines {
		var l struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range l.Messages {
			if m.Role != string(llm.RoleUser) {
				continue
			}
			if len(got) > 0 {
				got = append(got, "|")
			}
			var parts []part
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				t.Fatalf("line %d: a user message's content is %s, not parts", i+1, m.Content)
			}
			for _, p := range parts {
				got = append(got, p.Type+":"+p.Text+p.ImageURL.URL)
			}
		}
		if strings.Join(got, " ") != strings.Join(want[i], " ") {
			t.Errorf("line %d: user content %.300q, want %.300q", i+1, got, want[i])
		}
		if !strings.Contains(line, `"role":"assistant","content":"A cat."`) {
			t.Errorf("line %d: an answer is not plain text: %.300s", i+1, line)
		}
	}
}
