package app

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/data"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
)

func TestUploadName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 80) + ".csv" // 164 bytes
	tests := []struct{ name, in, want string }{
		{"a plain name", "sales 2024.csv", "sales 2024.csv"},
		{"letters of any script", "données_été.csv", "données_été.csv"},
		{"a path climbing out", "../../x", "x"},
		{"a Windows path climbing out", `..\..\evil.csv`, "evil.csv"},
		{"a full path", "/home/me/data/sales.csv", "sales.csv"},
		{"only dots", "..", "upload"},
		{"nothing", "", "upload"},
		{"ends in a slash", "dir/", "upload"},
		{"a hidden file", ".bashrc", "bashrc"},
		{"trailing dots and spaces", "notes. . ", "notes"},
		{"shell and control characters", "rm -rf $(x);\x00\n.csv", "rm -rf _x_.csv"},
		{"not UTF-8", "a\xff\xfeb.csv", "a_b.csv"},
		{"a Windows device", "CON.csv", "_CON.csv"},
		{"a device name within a word", "console.csv", "console.csv"},
		{"too long, the extension kept", long, strings.Repeat("é", 48) + ".csv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := uploadName(tt.in)
			if got != tt.want {
				t.Fatalf("uploadName(%q) = %q, want %q", tt.in, got, tt.want)
			}
			// Whatever came in: one element, inside its folder, valid, short.
			dir := filepath.Join("uploads", "id")
			if strings.ContainsAny(got, `/\`) || filepath.Dir(filepath.Join(dir, got)) != dir || !utf8.ValidString(got) || len(got) > maxNameBytes {
				t.Fatalf("uploadName(%q) = %q is not a safe name", tt.in, got)
			}
		})
	}
}

// uploadFixture is a fixture whose uploads may be at most limit bytes.
func uploadFixture(t *testing.T, limit int) *fixture {
	f := newFixture(t)
	f.svc.maxUpload = limit
	return f
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// uploadsIn lists the files under the uploads folder, relative to it.
func uploadsIn(t *testing.T, f *fixture) []string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(f.db.Path()), "uploads")
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return err
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

func TestUploadAttachment(t *testing.T) {
	t.Parallel()
	const limit = 64
	tests := []struct {
		name     string
		file     string
		content  string
		wantName string      // the stored file's name
		wantCode apperr.Code // or the error's code
		wantMsg  string      // and a part of its message
	}{
		{name: "a CSV", file: "sales.csv", content: b64("region,revenue\nNorth,42\n"), wantName: "sales.csv"},
		{name: "a name climbing out stays in", file: "../../../x.csv", content: b64("a\n1\n"), wantName: "x.csv"},
		{name: "exactly the limit", file: "full.csv", content: b64(strings.Repeat("a", limit)), wantName: "full.csv"},
		{name: "one byte over the limit", file: "big.csv", content: b64(strings.Repeat("a", limit+1)), wantCode: apperr.Invalid, wantMsg: "big.csv is 0.0 MB, over the 0.0 MB"},
		{name: "far over, refused before decoding", file: "huge.csv", content: strings.Repeat("QUFB", 1000), wantCode: apperr.Invalid, wantMsg: "attach this one by its path"},
		{name: "bad base64", file: "sales.csv", content: "not base64!", wantCode: apperr.Invalid, wantMsg: "sales.csv arrived damaged (its content is not base64). Attach it again."},
		{name: "a data URL is not base64", file: "sales.csv", content: "data:text/csv;base64," + b64("a\n1\n"), wantCode: apperr.Invalid, wantMsg: "not base64"},
		{name: "empty", file: "empty.csv", content: "", wantCode: apperr.Invalid, wantMsg: "empty.csv is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := uploadFixture(t, limit)
			got, err := f.api.UploadAttachment(tt.file, tt.content)
			if tt.wantCode != "" {
				var ae *apperr.Error
				if !errors.As(err, &ae) || ae.Code != tt.wantCode || !strings.Contains(ae.Message, tt.wantMsg) || ae.Err != nil {
					t.Fatalf("UploadAttachment = %#v, want %s saying %q", err, tt.wantCode, tt.wantMsg)
				}
				if left := uploadsIn(t, f); len(left) > 0 {
					t.Fatalf("a refused upload left %v", left)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(filepath.Dir(f.db.Path()), "uploads")
			if got.Name != tt.wantName || filepath.Base(got.Path) != tt.wantName || filepath.Dir(filepath.Dir(got.Path)) != dir {
				t.Fatalf("stored %+v, want %s in a folder of its own in %s", got, tt.wantName, dir)
			}
			want, _ := base64.StdEncoding.DecodeString(tt.content)
			stored, err := os.ReadFile(got.Path)
			if err != nil || string(stored) != string(want) || got.Size != int64(len(want)) {
				t.Fatalf("stored %q (size %d), %v; want %q", stored, got.Size, err, want)
			}
			if left := uploadsIn(t, f); len(left) != 1 {
				t.Fatalf("uploads/ holds %v, want the one file", left)
			}
		})
	}
}

// Two files of one name are both kept, each under its own name.
func TestUploadsOfOneNameDoNotClash(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, err := f.api.UploadAttachment("sales.csv", b64("a\n1\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.api.UploadAttachment("sales.csv", b64("b\n2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Path == b.Path || a.Name != "sales.csv" || b.Name != "sales.csv" {
		t.Fatalf("two uploads: %+v and %+v", a, b)
	}
	for path, want := range map[string]string{a.Path: "a\n1\n", b.Path: "b\n2\n"} {
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Fatalf("%s holds %q, %v; want %q", path, got, err, want)
		}
	}
}

// The browser's way: the upload over HTTP with the token, then a message
// that attaches it. The file becomes the session's table and the upload
// goes; a message that fails keeps its upload for another try.
func TestUploadOverHTTPThenAttach(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv, base := startServer(t, f)
	client := httpClient(t)
	post := func(method, token string, args ...any) (*http.Response, map[string]any) {
		t.Helper()
		b, _ := json.Marshal(args)
		req, _ := http.NewRequest("POST", base+"/api/call/"+method, strings.NewReader(string(b)))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return resp, body
	}

	if resp, body := post("UploadAttachment", "", "sales.csv", b64("region,revenue\n")); resp.StatusCode != 401 || body["code"] != "invalid" {
		t.Fatalf("without the token: %d %v", resp.StatusCode, body)
	}
	if left := uploadsIn(t, f); len(left) > 0 {
		t.Fatalf("a call without the token stored %v", left)
	}
	if resp, body := post("UploadAttachment", srv.Token(), "sales.csv", "%%%"); resp.StatusCode != 400 || body["code"] != "invalid" || !strings.Contains(body["message"].(string), "not base64") {
		t.Fatalf("bad base64 over HTTP: %d %v", resp.StatusCode, body)
	}

	const csv = "region,revenue\nNorth,42\nSouth,31\n"
	resp, body := post("UploadAttachment", srv.Token(), "../sales.csv", b64(csv))
	if resp.StatusCode != 200 {
		t.Fatalf("upload: %d %v", resp.StatusCode, body)
	}
	path, _ := body["path"].(string)
	if body["name"] != "sales.csv" || body["size"] != float64(len(csv)) || filepath.Base(path) != "sales.csv" {
		t.Fatalf("upload answered %v", body)
	}

	// A message whose other file cannot be attached fails, and keeps the upload.
	s := f.session(t, "web")
	if resp, body := post("SendMessage", srv.Token(), SendRequest{SessionID: s.ID, Message: "hi", Attach: []string{path, filepath.Join(t.TempDir(), "gone.csv")}}); resp.StatusCode != 404 {
		t.Fatalf("a message with a missing file: %d %v", resp.StatusCode, body)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the upload of a failed message is gone: %v", err)
	}

	f.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("read it", 2)})
	resp, body = post("SendMessage", srv.Token(), SendRequest{SessionID: s.ID, Message: "hi", Attach: []string{path}})
	if resp.StatusCode != 200 {
		t.Fatalf("SendMessage: %d %v", resp.StatusCode, body)
	}
	f.waitTurn(t, body["turn_id"].(string))
	if left := uploadsIn(t, f); len(left) > 0 {
		t.Fatalf("the attached upload is still there: %v", left)
	}
	ddb, err := data.Open(context.Background(), filepath.Join(store.SessionDir(f.db.Path(), s.ID), "data.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ddb.Close()
	tables, err := ddb.Tables(context.Background())
	if err != nil || len(tables) != 1 || tables[0].Name != "sales" || tables[0].Source != "sales.csv" || tables[0].Rows != 2 {
		t.Fatalf("the session's tables: %+v, %v", tables, err)
	}
}

// Uploads that no message attached within a day go when the next file is
// uploaded, or when the app starts; younger ones stay.
func TestUploadsLeftBehindAreRemoved(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	upload := func(name string) UploadedFile {
		t.Helper()
		u, err := f.api.UploadAttachment(name, b64("a\n1\n"))
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	age := func(u UploadedFile, d time.Duration) {
		t.Helper()
		at := time.Now().Add(-d)
		if err := os.Chtimes(filepath.Dir(u.Path), at, at); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(u UploadedFile) bool { _, err := os.Stat(u.Path); return err == nil }

	old, recent := upload("old.csv"), upload("recent.csv")
	age(old, uploadTTL+time.Minute)
	age(recent, uploadTTL-time.Hour)
	next := upload("next.csv")
	if exists(old) || !exists(recent) || !exists(next) {
		t.Fatalf("after an upload: old %v, recent %v, next %v; want only old gone", exists(old), exists(recent), exists(next))
	}

	age(recent, uploadTTL+time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	f.svc.startup(ctx)
	t.Cleanup(func() { cancel(); f.svc.shutdown() })
	if exists(recent) || !exists(next) {
		t.Fatalf("after startup: recent %v, next %v; want recent gone", exists(recent), exists(next))
	}
}
