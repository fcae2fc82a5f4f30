package store

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/export/exporttest"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// catPNG stands for an image: the store checks the type it is given, not
// the bytes.
var catPNG = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte("cat pixels "), 200)...)

// TestImagesExportedAndImported: the JSON export of a session with an
// image holds the image with its bytes (a version 5 file); it imports into
// another database under the same ids and exports the same again, and
// into the same one as a copy whose message names its own copy of the
// image; either way the next message is sent the bytes. A session without
// images is still written as version 3, which older Agentdecks read.
func TestImagesExportedAndImported(t *testing.T) {
	t.Parallel()
	src := mustOpen(t)
	s := newSession(t, src, "vision")
	one := storeImageTurn(t, src, s.ID, "", llm.Image{MIME: "image/png", Name: "cat.png", Width: 4, Height: 3, Data: catPNG})
	two, _ := storeTurn(t, src, s.ID, "And now?", "Still a cat.")
	ref := imageOf(t, src, one.ID)

	first := importExport(t, src, s.ID, export.Options{})
	var doc export.Document
	if err := json.Unmarshal(first, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 5 || len(doc.Images) != 1 {
		t.Fatalf("version %d with %d images, want 5 with 1", doc.Version, len(doc.Images))
	}
	want := export.Image{ID: ref.ID, TurnID: one.ID, MIME: "image/png", Name: "cat.png", Width: 4, Height: 3, Size: len(catPNG), SHA256: ref.SHA256,
		CreatedAt: doc.Images[0].CreatedAt, Data: catPNG}
	if got := doc.Images[0]; !reflect.DeepEqual(got, want) || got.CreatedAt.IsZero() {
		t.Fatalf("the file holds %+v,\nwant %+v", got, want)
	}

	t.Run("into another database", func(t *testing.T) {
		dst := mustOpen(t)
		if _, err := dst.Import(ctx, bytes.NewReader(first)); err != nil {
			t.Fatal(err)
		}
		if im, err := dst.Image(ctx, ref.ID); err != nil || !bytes.Equal(im.Data, catPNG) || im.Name != "cat.png" || im.SHA256 != ref.SHA256 {
			t.Fatalf("Image: %+v %v", im, err)
		}
		if again := importExport(t, dst, s.ID, export.Options{}); !bytes.Equal(importDropExportedAt(first), importDropExportedAt(again)) {
			t.Fatalf("exported again, it differs:\n%s\n---\n%s", first, again)
		}
		checkSentAgain(t, dst, two.ID)
	})
	t.Run("as a copy", func(t *testing.T) {
		cp, err := src.Import(ctx, bytes.NewReader(first))
		if err != nil {
			t.Fatal(err)
		}
		page, err := src.ListTurns(ctx, cp.ID, Page{})
		if err != nil || len(page.Turns) != 2 {
			t.Fatalf("%+v %v", page, err)
		}
		cOne, cTwo := page.Turns[1], page.Turns[0] // newest first
		cref := imageOf(t, src, cOne.ID)
		if cref.ID == ref.ID || !strings.HasPrefix(cref.ID, "img_") {
			t.Fatalf("the copy names image %q, the original's is %q", cref.ID, ref.ID)
		}
		if im, err := src.Image(ctx, cref.ID); err != nil || !bytes.Equal(im.Data, catPNG) {
			t.Fatalf("Image: %+v %v", im, err)
		}
		if n := importCountWhere(t, src, "images", "id = '"+cref.ID+"' AND session_id = '"+cp.ID+"' AND turn_id = '"+cOne.ID+"'"); n != 1 {
			t.Fatalf("the copy's image is not owned by the copy's turn (%d rows)", n)
		}
		checkSentAgain(t, src, cTwo.ID)
		if err := src.DeleteSession(ctx, cp.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := src.Image(ctx, ref.ID); err != nil {
			t.Fatalf("deleting the copy took the original's image: %v", err)
		}
	})
	t.Run("a session without images", func(t *testing.T) {
		plain := newSession(t, src, "text")
		storeTurn(t, src, plain.ID, "q", "a")
		b := importExport(t, src, plain.ID, export.Options{})
		if !bytes.Contains(b, []byte(`"version": 3,`)) || bytes.Contains(b, []byte(`"images"`)) {
			t.Fatalf("a session without images:\n%s", b)
		}
	})
}

// TestImportRefusesABrokenImage: an image whose bytes do not match what
// the file says of them, of a type no model reads, or owned by no turn of
// the file, refuses the whole file with a message that says which turn and
// image, and leaves nothing behind.
func TestImportRefusesABrokenImage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		brk   func(im *export.Image)
		wants []string
	}{
		{"as exported", func(*export.Image) {}, nil},
		{"a byte changed", func(im *export.Image) { im.Data[20] ^= 0xff }, []string{"turn 1", "image (cat.png)", "do not match the size and SHA-256", "changed or damaged"}},
		{"the hash changed", func(im *export.Image) { im.SHA256 = strings.Repeat("0", 64) }, []string{"turn 1", "do not match the size and SHA-256"}},
		{"cut short", func(im *export.Image) { im.Data = im.Data[:100] }, []string{"turn 1", "do not match the size and SHA-256"}},
		{"no bytes", func(im *export.Image) { im.Data = nil }, []string{"turn 1", "image (cat.png) with no bytes"}},
		{"not an image", func(im *export.Image) { im.MIME = "text/html" }, []string{"turn 1", `of type "text/html", not one a model can be sent`}},
		{"owned by no turn", func(im *export.Image) { im.TurnID = "gone" }, []string{"image cat.png belongs to no turn in the file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t)
			before := importCounts(t, db)
			doc := imageChat()
			tt.brk(&doc.Images[0])
			_, err := db.Import(ctx, bytes.NewReader(exporttest.JSON(t, doc)))
			if tt.wants == nil {
				if err != nil {
					t.Fatal(err)
				}
				if im, err := db.Image(ctx, "img-a"); err != nil || !bytes.Equal(im.Data, catPNG) {
					t.Fatalf("Image: %+v %v", im, err)
				}
				return
			}
			importCheckRefused(t, err, apperr.Invalid, append(tt.wants, "Nothing was imported")...)
			if after := importCounts(t, db); !reflect.DeepEqual(before, after) {
				t.Fatalf("a refused file left rows behind: %v -> %v", before, after)
			}
		})
	}
}

// TestImportRefusesAMissingImage: an export whose message names an image
// the file no longer holds (its images list removed, an id changed on
// either side) is refused, naming the place in the file, and the
// database's bytes are as they were. So is an image no message names.
// Refused too: a version 4 file (older Agentdecks wrote it only with
// images) whose images were removed.
func TestImportRefusesAMissingImage(t *testing.T) {
	t.Parallel()
	src := mustOpen(t)
	s := newSession(t, src, "vision")
	one := storeImageTurn(t, src, s.ID, "", llm.Image{MIME: "image/png", Name: "cat.png", Data: catPNG})
	storeImageTurn(t, src, s.ID, one.ID, llm.Image{MIME: "image/png", Name: "dog.png", Data: append(bytes.Clone(catPNG), "dog"...)})
	file := importExport(t, src, s.ID, export.Options{})

	tests := []struct {
		name  string
		edit  func(doc map[string]any)
		wants []string
	}{
		{"as exported", func(map[string]any) {}, nil},
		{"the images list removed", func(doc map[string]any) { delete(doc, "images") },
			[]string{"turns[0].messages[0].images[0] names image", "(cat.png)"}},
		{"the images list emptied", func(doc map[string]any) { doc["images"] = []any{} },
			[]string{"turns[0].messages[0].images[0]"}},
		{"one image removed", func(doc map[string]any) { doc["images"] = jsonList(doc["images"])[:1] },
			[]string{"turns[1].messages[0].images[0]", "(dog.png)"}},
		{"an image's id changed in the list", func(doc map[string]any) { jsonObject(jsonList(doc["images"])[1])["id"] = "img_other" },
			[]string{"turns[1].messages[0].images[0]"}},
		{"an image's id changed in its message", func(doc map[string]any) { jsonObject(jsonRef(doc, 0)["images"].([]any)[0])["id"] = "img_other" },
			[]string{"turns[0].messages[0].images[0] names image img_other (cat.png)"}},
		{"an image no message names", func(doc map[string]any) {
			jsonObject(jsonRef(doc, 1)["images"].([]any)[0])["id"] = jsonObject(jsonList(doc["images"])[0])["id"]
		}, []string{"images[1] (dog.png) is named by no message"}},
		{"version 4 without images", func(doc map[string]any) { doc["version"] = 4; delete(doc, "images") },
			[]string{"turns[0].messages[0].images[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(file, &doc); err != nil {
				t.Fatal(err)
			}
			tt.edit(doc)
			broken, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			// A database with a session, closed so its background work
			// (search entries, checkpoints) is done, and opened again.
			path := filepath.Join(t.TempDir(), "agentdeck.db")
			seed, err := Open(ctx, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			storeTurn(t, seed, newSession(t, seed, "already here").ID, "q", "a")
			seed.Close()
			before := fileBytes(t, path)
			dst, err := Open(ctx, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			counts := importCounts(t, dst)
			_, err = dst.Import(ctx, bytes.NewReader(broken))
			if tt.wants == nil { // the control: an import changes the bytes
				dst.Close()
				if err != nil || reflect.DeepEqual(before, fileBytes(t, path)) {
					t.Fatalf("the file as exported: %v, or its import left the bytes as they were", err)
				}
				return
			}
			importCheckRefused(t, err, apperr.Invalid, append(tt.wants, "changed or damaged", "Nothing was imported")...)
			if after := importCounts(t, dst); !reflect.DeepEqual(counts, after) {
				t.Fatalf("a refused file left rows behind: %v -> %v", counts, after)
			}
			dst.Close()
			if after := fileBytes(t, path); !reflect.DeepEqual(before, after) {
				t.Fatal("a refused file changed the database's bytes")
			}
		})
	}
}

// TestImportKeepsASessionWhoseImageWasGone: a message naming an image
// that was deleted before the export (a version of a turn naming that
// turn's image, the turn deleted since) is exported with the image marked
// gone, and imports, and forks, with the name dropped: the session can go
// on (a history naming a missing image could not be sent).
func TestImportKeepsASessionWhoseImageWasGone(t *testing.T) {
	t.Parallel()
	src := mustOpen(t)
	s := newSession(t, src, "vision")
	one := storeImageTurn(t, src, s.ID, "", llm.Image{MIME: "image/png", Name: "cat.png", Data: catPNG})
	ref := imageOf(t, src, one.ID)
	again := storeImageTurn(t, src, s.ID, "", ref) // a version of one, naming its image
	if _, err := src.DeleteTurn(ctx, one.ID); err != nil {
		t.Fatal(err)
	}
	file := importExport(t, src, s.ID, export.Options{})
	var doc struct {
		Version int              `json:"version"`
		Images  []map[string]any `json:"images"`
	}
	if err := json.Unmarshal(file, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"id": ref.ID, "turn_id": again.ID, "mime": "image/png", "name": "cat.png", "width": 0.0, "height": 0.0,
		"size": float64(len(catPNG)), "sha256": ref.SHA256, "created_at": "0001-01-01T00:00:00Z", "gone": true, "data": nil}
	if doc.Version != 5 || len(doc.Images) != 1 || !reflect.DeepEqual(doc.Images[0], want) {
		t.Fatalf("version %d, images %v; want 5, the image marked gone: %v", doc.Version, doc.Images, want)
	}

	for _, tt := range []struct {
		name string
		into *DB
	}{{"into another database", mustOpen(t)}, {"as a copy", src}} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.into.Import(ctx, bytes.NewReader(file))
			if err != nil {
				t.Fatal(err)
			}
			if h, err := tt.into.PathHistory(ctx, got.ActiveTurnID); err != nil || len(h) != 2 || len(h[0].Images) != 0 || h[0].Content != "What is it?" {
				t.Fatalf("history %+v %v", h, err)
			}
		})
	}
	t.Run("forked", func(t *testing.T) {
		f, err := src.ForkSession(ctx, again.ID)
		if err != nil {
			t.Fatal(err)
		}
		if h, err := src.PathHistory(ctx, f.ActiveTurnID); err != nil || len(h) != 2 || len(h[0].Images) != 0 {
			t.Fatalf("the fork's history %+v %v", h, err)
		}
	})
}

// TestImportOlderFilesMissingImages: a file older than version 5 does not
// mark an image gone, so one it lacks may have been gone when it was
// written: it imports as it always did, the name dropped. A version 3 file
// naming images held none (older Agentdecks wrote version 3 when every
// image named was gone); a version 4 file held the others.
func TestImportOlderFilesMissingImages(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		version int
		keep    bool // the file keeps its images list
		images  int  // images the imported history names
	}{
		{"version 3", 3, false, 0},
		{"version 4, one of two gone", 4, true, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := exporttest.Chat(exporttest.Exchange{ID: "a", User: "What is it?", Answer: "A cat."}, exporttest.Exchange{ID: "b", Parent: "a", User: "And this?", Answer: "A dog."})
			exporttest.AddImage(&doc, export.Image{ID: "img-a", TurnID: "a", MIME: "image/png", Name: "cat.png", Data: bytes.Clone(catPNG)})
			exporttest.AddImage(&doc, export.Image{ID: "img-b", TurnID: "b", MIME: "image/png", Name: "dog.png", Data: bytes.Clone(catPNG)})
			doc.Version = tt.version
			doc.Images = doc.Images[:0]
			if tt.keep {
				doc.Images = doc.Images[:1]
			}
			db := mustOpen(t)
			s, err := db.Import(ctx, bytes.NewReader(exporttest.JSON(t, doc)))
			if err != nil {
				t.Fatal(err)
			}
			h, err := db.PathHistory(ctx, s.ActiveTurnID)
			if err != nil || len(h) != 4 || len(h[0].Images)+len(h[2].Images) != tt.images || len(h[2].Images) != 0 {
				t.Fatalf("history %+v %v", h, err)
			}
		})
	}
}

// TestForkKeepsImages: a fork copies the images of its branch, owned by
// the fork's turns, with their bytes. A version that names the image of
// the turn it is a version of (as a replay or a re-run of it does) keeps
// it when forked without that turn, and deleting that turn later leaves
// the fork's copy.
func TestForkKeepsImages(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "origin")
	one := storeImageTurn(t, db, s.ID, "", llm.Image{MIME: "image/png", Name: "cat.png", Data: catPNG})
	two, _ := storeTurn(t, db, s.ID, "And now?", "Still a cat.")
	ref := imageOf(t, db, one.ID)
	again := storeImageTurn(t, db, s.ID, "", ref) // a version of one, naming its image

	for _, tt := range []struct {
		name  string
		from  string
		turns int
	}{
		{"the branch of the image's turn", two.ID, 2},
		{"a version naming another turn's image", again.ID, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := db.ForkSession(ctx, tt.from)
			if err != nil || f.Turns != tt.turns {
				t.Fatalf("fork %+v %v", f, err)
			}
			h, err := db.PathHistory(ctx, f.ActiveTurnID)
			if err != nil || len(h) < 1 || len(h[0].Images) != 1 || !bytes.Equal(h[0].Images[0].Data, catPNG) {
				t.Fatalf("the fork's history %+v %v", h, err)
			}
			id := h[0].Images[0].ID
			if id == ref.ID || importCountWhere(t, db, "images", "id = '"+id+"' AND session_id = '"+f.ID+"'") != 1 {
				t.Fatalf("the fork names image %s, not a copy of its own", id)
			}
		})
	}
	if _, err := db.DeleteTurn(ctx, one.ID); err != nil {
		t.Fatal(err)
	}
	if n := importCountWhere(t, db, "images", "session_id <> '"+s.ID+"'"); n != 2 {
		t.Fatalf("%d images in the forks after the original's turn was deleted, want 2", n)
	}
}

// storeImageTurn stores a turn whose message carries im (with bytes, or
// naming a stored image), following parent ("" for a first message).
func storeImageTurn(t *testing.T, db *DB, sessionID, parent string, im llm.Image) Turn {
	t.Helper()
	tr, err := db.StartTurn(ctx, Turn{SessionID: sessionID, UserMessage: "What is it?", Workflow: "chat", Model: "m", ParentTurnID: parent}, StartOptions{Follows: true})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "What is it?", Images: []llm.Image{im}}, {Role: llm.RoleAssistant, Content: "A cat."}}
	if err := db.FinishTurn(ctx, tr.ID, 0, turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, FinalText: "A cat.", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	return tr
}

// imageOf is the image a turn's first message names.
func imageOf(t *testing.T, db *DB, turnID string) llm.Image {
	t.Helper()
	d, err := db.GetTurn(ctx, turnID, false)
	if err != nil || len(d.Messages) == 0 || len(d.Messages[0].Images) != 1 {
		t.Fatalf("turn %s: %+v %v", turnID, d.Messages, err)
	}
	return d.Messages[0].Images[0]
}

// checkSentAgain checks that the history a message after turnID is sent
// holds the image with its bytes.
func checkSentAgain(t *testing.T, db *DB, turnID string) {
	t.Helper()
	h, err := db.PathHistory(ctx, turnID)
	if err != nil || len(h) != 4 || len(h[0].Images) != 1 || !bytes.Equal(h[0].Images[0].Data, catPNG) {
		t.Fatalf("history %+v %v", h, err)
	}
}

// jsonList, jsonObject and jsonRef reach into a JSON document decoded as
// any; jsonRef is the first message of the document's i'th turn.
func jsonList(v any) []any            { return v.([]any) }
func jsonObject(v any) map[string]any { return v.(map[string]any) }
func jsonRef(doc map[string]any, i int) map[string]any {
	return jsonObject(jsonList(jsonObject(jsonList(doc["turns"])[i])["messages"])[0])
}

// imageChat is a one-turn document whose message has an image.
func imageChat() export.Document {
	doc := exporttest.Chat(exporttest.Exchange{ID: "a", User: "What is it?", Answer: "A cat."})
	exporttest.AddImage(&doc, export.Image{ID: "img-a", TurnID: "a", MIME: "image/png", Name: "cat.png", Data: bytes.Clone(catPNG)})
	return doc
}
