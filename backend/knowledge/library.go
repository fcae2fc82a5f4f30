package knowledge

import (
	"context"
	"fmt"
)

// Store keeps documents and passages (the store's methods).
type Store interface {
	AddDocument(ctx context.Context, d Document, ps []Passage) (Document, error)
	ListDocuments(ctx context.Context, sc Place) ([]Document, error)
	GetDocument(ctx context.Context, id string) (Document, error)
	DocumentPassages(ctx context.Context, id string) ([]Passage, error)
	RemoveDocument(ctx context.Context, id string) error
	SearchPassages(ctx context.Context, sc Place, query string, limit int) ([]Hit, error)
}

// Extractor reads a file's text (package extract's Read).
type Extractor func(ctx context.Context, name string, b []byte) (Extracted, error)

// Library adds, lists, searches and removes documents: what the app, the
// command line and the search_knowledge tool call.
type Library struct {
	Store   Store
	Extract Extractor
}

// File is a document to add: its bytes and where it goes.
type File struct {
	Place Place // exactly one of SessionID and ProjectID
	Name  string
	Bytes []byte
	// URL is where a web page was read from; Format FormatWeb with it.
	URL    string
	Format DocFormat
}

// Add reads a file, cuts it into passages and stores it.
func (l *Library) Add(ctx context.Context, f File) (Document, error) {
	ex, err := l.Extract(ctx, f.Name, f.Bytes)
	if err != nil {
		return Document{}, err
	}
	ps := Split(ex, DefaultPassageRunes)
	format := ex.Format
	if f.Format != "" {
		format = f.Format
	}
	d := Document{
		SessionID: f.Place.SessionID, ProjectID: f.Place.ProjectID,
		Name: f.Name, Format: format, URL: f.URL,
		Version: VersionOf(f.Bytes), Size: int64(len(f.Bytes)),
		Pages: len(ex.Pages), Note: ex.Note,
	}
	return l.Store.AddDocument(ctx, d, ps)
}

// Results are a search's hits and how they were ranked.
type Results struct {
	Mode Mode  `json:"mode"`
	Hits []Hit `json:"hits"`
}

// Search finds the passages of a scope that best answer query.
func (l *Library) Search(ctx context.Context, sc Place, query string, limit int) (Results, error) {
	hits, err := l.Store.SearchPassages(ctx, sc, query, limit)
	if err != nil {
		return Results{}, fmt.Errorf("searching documents: %w", err)
	}
	return Results{Mode: Lexical, Hits: hits}, nil
}
