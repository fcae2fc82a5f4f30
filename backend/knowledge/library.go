package knowledge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// Store keeps documents and passages (the store's methods). A Store that
// is also a VectorStore keeps embeddings too.
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
// command line and the search_knowledge tool call. Use it by pointer: it
// keeps the vectors of the places searched last in memory.
type Library struct {
	Store   Store
	Extract Extractor
	// Embedding is the embedding model the user picked, read at each Add
	// and Search (nil, or a choice with no Model: lexical only).
	Embedding func(ctx context.Context) (EmbeddingChoice, error)
	Logger    *slog.Logger

	cache vectorCache
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

// Add reads a file, cuts it into passages, embeds them when an embedding
// model is picked, and stores it. A failure to embed keeps the document,
// searched by its words only, and says so in its Note.
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
	return l.AddPassages(ctx, d, ps)
}

// AddPassages stores a document whose text is already cut into passages
// (a web page read by its URL; Add for files), embedding them when an
// embedding model is picked, as Add does.
func (l *Library) AddPassages(ctx context.Context, d Document, ps []Passage) (Document, error) {
	vs, ok := l.Store.(VectorStore)
	if !ok || len(ps) == 0 {
		return l.Store.AddDocument(ctx, d, ps)
	}
	choice := l.choice(ctx)
	if choice.Model == "" {
		return l.Store.AddDocument(ctx, d, ps)
	}
	vecs, err := embedPassages(ctx, choice, ps)
	if err != nil {
		if ctx.Err() != nil {
			return Document{}, ctx.Err()
		}
		l.log().Warn("embedding a document", "document", d.Name, "model", choice.Model, "err", err)
		d.Note = joinNote(d.Note, fmt.Sprintf("Not embedded with %s: %s It is searched by its words only.", choice.Model, errorText(err)))
		return l.Store.AddDocument(ctx, d, ps)
	}
	d.EmbedModel = choice.Model
	return vs.AddDocumentVectors(ctx, d, ps, vecs)
}

// Results are a search's hits and how they were ranked.
type Results struct {
	Mode Mode  `json:"mode"`
	Hits []Hit `json:"hits"`
}

// Search finds the passages of a place that best answer query: hybrid
// when an embedding model is picked, the place has vectors of it and the
// query could be embedded; lexical otherwise. Mode says which.
func (l *Library) Search(ctx context.Context, sc Place, query string, limit int) (Results, error) {
	if vs, ok := l.Store.(VectorStore); ok && limit > 0 {
		if res, ok, err := l.hybrid(ctx, vs, sc, query, limit); ok || err != nil {
			return res, err
		}
	}
	hits, err := l.Store.SearchPassages(ctx, sc, query, limit)
	if err != nil {
		return Results{}, fmt.Errorf("searching documents: %w", err)
	}
	return Results{Mode: Lexical, Hits: hits}, nil
}

// hybrid is Search by both lists; ok false when it cannot be (no model,
// no vectors, the query not embedded), and the search is lexical.
func (l *Library) hybrid(ctx context.Context, vs VectorStore, sc Place, query string, limit int) (Results, bool, error) {
	choice := l.choice(ctx)
	if choice.Model == "" {
		return Results{}, false, nil
	}
	docs, err := l.Store.ListDocuments(ctx, sc)
	if err != nil {
		return Results{}, false, fmt.Errorf("searching documents: %w", err)
	}
	key, has := cacheKey(sc, choice.Model, docs)
	if !has {
		return Results{}, false, nil
	}
	qv, err := choice.Embedder.Embed(ctx, choice.Model, []string{query})
	if err != nil || len(qv) != 1 {
		if ctx.Err() != nil {
			return Results{}, false, ctx.Err()
		}
		l.log().Warn("embedding a query: searching by words only", "model", choice.Model, "err", err)
		return Results{}, false, nil
	}
	vecs, err := l.cache.get(ctx, key, func(ctx context.Context) (Vectors, error) { return vs.PlaceVectors(ctx, sc, choice.Model) })
	if err != nil {
		return Results{}, false, fmt.Errorf("searching documents: %w", err)
	}
	// The two lists are made at once: the index query in SQLite, the
	// scan in Go.
	n := candidates(limit)
	var lexical []Hit
	lexDone := make(chan error, 1)
	go func() {
		var err error
		lexical, err = l.Store.SearchPassages(ctx, sc, query, n)
		lexDone <- err
	}()
	nearest := Nearest(vecs, Unit(qv[0]), n)
	if err := <-lexDone; err != nil {
		return Results{}, false, fmt.Errorf("searching documents: %w", err)
	}
	byID := make(map[int64]Hit, len(lexical))
	lexIDs := make([]int64, len(lexical))
	for i, h := range lexical {
		lexIDs[i], byID[h.ID] = h.ID, h
	}
	ids, score := Fuse(lexIDs, nearest)
	ids = ids[:min(limit, len(ids))]
	var missing []int64
	for _, id := range ids {
		if _, ok := byID[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		more, err := vs.PassageHits(ctx, missing)
		if err != nil {
			return Results{}, false, fmt.Errorf("searching documents: %w", err)
		}
		for _, h := range more {
			byID[h.ID] = h
		}
	}
	hits := make([]Hit, 0, len(ids))
	for _, id := range ids {
		if h, ok := byID[id]; ok {
			h.Score = score[id]
			hits = append(hits, h)
		}
	}
	return Results{Mode: Hybrid, Hits: hits}, true, nil
}

// choice is the embedding model picked; none when the setting cannot be
// read (logged: search goes on by words).
func (l *Library) choice(ctx context.Context) EmbeddingChoice {
	if l.Embedding == nil {
		return EmbeddingChoice{}
	}
	c, err := l.Embedding(ctx)
	if err != nil {
		l.log().Warn("reading the embedding model", "err", err)
		return EmbeddingChoice{}
	}
	if c.Embedder == nil {
		c.Model = ""
	}
	return c
}

func (l *Library) log() *slog.Logger {
	if l.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l.Logger
}

// joinNote adds a sentence to a document's note.
func joinNote(note, more string) string {
	if note == "" {
		return more
	}
	return note + " " + more
}

// errorText is an error's message for a person, as a sentence (an
// *llm.Error's says what to do).
func errorText(err error) string {
	msg := err.Error()
	var le *llm.Error
	if errors.As(err, &le) && le.Message != "" {
		msg = le.Message
	}
	msg = strings.TrimSpace(msg)
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}
