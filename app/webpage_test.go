package app

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// A page added by its URL is read as fetch_url reads it: refused at a
// loopback address until Settings allow private addresses, then stored as
// a web document with its URL, its passages under their headings.
func TestAddDocumentByURL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sess := f.session(t, "reading")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/file.zip" {
			w.Header().Set("Content-Type", "application/zip")
			_, _ = w.Write([]byte("PK"))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html><head><title>Bread</title></head><body><nav>MENU</nav><main>
<h1>Bread</h1><h2>Dough</h2><p>Flour, water, salt and yeast make a dough that rises in two hours.</p>
<h2>Baking</h2><p>Bake at 230 degrees for forty minutes, with steam for the first ten.</p></main></body></html>`))
	}))
	defer site.Close()
	req := AddDocumentRequest{SessionID: sess.ID, URL: site.URL + "/bread"}

	_, err := f.api.AddDocument(req)
	if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(apperr.MessageOf(err), "Allow private addresses in Settings") {
		t.Fatalf("a loopback page without the setting: %v", err)
	}
	st, err := f.api.GetSettings()
	if err != nil {
		t.Fatal(err)
	}
	st.AllowPrivateURLs = true
	if _, err := f.api.SaveSettings(st); err != nil {
		t.Fatal(err)
	}
	d, err := f.api.AddDocument(req)
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != knowledge.FormatWeb || d.URL != site.URL+"/bread" || d.Name != "Bread" || d.Passages != 2 {
		t.Fatalf("document %+v", d)
	}
	text, err := f.api.GetDocument(d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p := text.Passages[1]; p.Heading != "Baking" || !strings.Contains(p.Text, "230 degrees") || strings.Contains(p.Text, "MENU") {
		t.Fatalf("passages %+v", text.Passages)
	}
	if _, err := f.api.AddDocument(AddDocumentRequest{SessionID: sess.ID, URL: site.URL + "/file.zip"}); !strings.Contains(apperr.MessageOf(err), "not a web page") {
		t.Fatalf("a zip file by its URL: %v", err)
	}
}
