package app

import (
	"context"
	"os"
	"path/filepath"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// Knowledge: the API's part. The rules are package knowledge's; the rows
// are the store's (store/knowledge.go).

// AddDocumentRequest is a document to add to a session or a project
// (exactly one of SessionID and ProjectID): a file the page uploaded
// (UploadAttachment's Path), or a web page by its URL.
type AddDocumentRequest struct {
	SessionID string `json:"session_id,omitempty"`
	ProjectID string `json:"project_id,omitempty"`
	Path      string `json:"path,omitempty"`
	URL       string `json:"url,omitempty"`
}

// DocumentText is a document with its passages in order: what the
// passage viewer shows, a cited passage highlighted.
type DocumentText struct {
	Document knowledge.Document  `json:"document"`
	Passages []knowledge.Passage `json:"passages"`
}

// AddDocument reads a document, cuts it into passages and stores it with
// the session or project. The upload is removed once it is stored. A web
// page is read as fetch_url reads it (http and https only, public
// addresses unless Settings allow private ones, within its size and time
// limits), without asking: the person asked for it.
func (a *API) AddDocument(req AddDocumentRequest) (knowledge.Document, error) {
	return call(a, needDB, func(ctx context.Context) (knowledge.Document, error) { return a.s.addDocument(ctx, req) })
}

// ListDocuments lists a session's documents and its project's, or a
// project's, newest first.
func (a *API) ListDocuments(scope knowledge.Place) ([]knowledge.Document, error) {
	return call(a, needDB, func(ctx context.Context) ([]knowledge.Document, error) { return a.s.db.ListDocuments(ctx, scope) })
}

// GetDocument loads a document with its passages.
func (a *API) GetDocument(id string) (DocumentText, error) {
	return call(a, needDB, func(ctx context.Context) (DocumentText, error) {
		d, err := a.s.db.GetDocument(ctx, id)
		if err != nil {
			return DocumentText{}, err
		}
		ps, err := a.s.db.DocumentPassages(ctx, id)
		return DocumentText{Document: d, Passages: ps}, err
	})
}

// RemoveDocument deletes a document, its passages and their index and
// embeddings from the file. Turns that cited it keep their copies.
func (a *API) RemoveDocument(id string) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.db.RemoveDocument(ctx, id)) })
}

// SearchKnowledge searches a scope's documents as search_knowledge does,
// saying whether the search was hybrid or lexical.
func (a *API) SearchKnowledge(scope knowledge.Place, query string) (knowledge.Results, error) {
	return call(a, needDB, func(ctx context.Context) (knowledge.Results, error) {
		return a.s.library.Search(ctx, scope, query, 20)
	})
}

func (s *Service) addDocument(ctx context.Context, req AddDocumentRequest) (knowledge.Document, error) {
	place := knowledge.Place{SessionID: req.SessionID, ProjectID: req.ProjectID}
	if (place.SessionID == "") == (place.ProjectID == "") {
		return knowledge.Document{}, apperr.New(apperr.Invalid, "Say which session or which project the document is for.")
	}
	if req.URL != "" {
		return s.addPage(ctx, place, req.URL)
	}
	path, err := s.ownUpload(req.Path)
	if err != nil {
		return knowledge.Document{}, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return knowledge.Document{}, apperr.Wrap(err, apperr.NotFound, "The uploaded file is gone (uploads are kept for a day). Add it again.")
	}
	d, err := s.library.Add(ctx, knowledge.File{Place: place, Name: filepath.Base(path), Bytes: b})
	if err != nil {
		return knowledge.Document{}, err
	}
	s.consumeUploads([]string{path})
	return d, nil
}

// addPage reads a web page and stores its main text as a document.
func (s *Service) addPage(ctx context.Context, place knowledge.Place, url string) (knowledge.Document, error) {
	p, err := s.web.Fetch(ctx, url)
	if err != nil {
		return knowledge.Document{}, err
	}
	d, ps := p.Document(place)
	return s.library.AddPassages(ctx, d, ps)
}

// ownUpload checks that path is an upload of this app (UploadAttachment's
// answer): a page may not name any other file of the machine.
func (s *Service) ownUpload(path string) (string, error) {
	dir, err := s.uploadsDir()
	if err != nil {
		return "", err
	}
	clean := filepath.Clean(path)
	if path == "" || filepath.Dir(filepath.Dir(clean)) != dir {
		return "", apperr.New(apperr.Invalid, "Upload the file first (UploadAttachment), then add the path it answers.")
	}
	return clean, nil
}
