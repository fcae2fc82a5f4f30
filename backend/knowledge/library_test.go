package knowledge_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/knowledge/extract"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/store"
)

// library is a Library over a real store, embedding with the scripted
// server when model is set.
func library(t *testing.T, srv *llmtest.Server, model string) (*knowledge.Library, knowledge.Place) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "agentdeck.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := db.CreateSession(ctx, store.Session{Title: "docs"})
	if err != nil {
		t.Fatal(err)
	}
	lib := &knowledge.Library{Store: db, Extract: extract.Read}
	if srv != nil {
		c := openai.NewClient(openai.Config{BaseURL: srv.URL(), MaxRetries: -1})
		lib.Embedding = func(context.Context) (knowledge.EmbeddingChoice, error) {
			return knowledge.EmbeddingChoice{Embedder: c, Model: model}, nil
		}
	}
	return lib, knowledge.Place{SessionID: s.ID}
}

const fruit = "# Quinces\n\nQuinces need frost and a long autumn.\n\n# Pears\n\nPears ripen off the tree.\n"

func TestSearchModes(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		model     string
		failAdd   bool // the server refuses embeddings when the document is added
		failQuery bool // ... when the query is
		mode      knowledge.Mode
		embedded  bool
	}{
		{"no model picked: lexical", "", false, false, knowledge.Lexical, false},
		{"model picked: hybrid", "embed-small", false, false, knowledge.Hybrid, true},
		{"document not embedded: lexical", "embed-small", true, false, knowledge.Lexical, false},
		{"query not embedded: lexical", "embed-small", false, true, knowledge.Lexical, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			lib, place := library(t, srv, tt.model)
			if tt.failAdd {
				srv.FailEmbeddings(http.StatusInternalServerError)
			}
			d, err := lib.Add(ctx, knowledge.File{Place: place, Name: "fruit.md", Bytes: []byte(fruit)})
			if err != nil {
				t.Fatal(err)
			}
			if got := d.EmbedModel != ""; got != tt.embedded {
				t.Errorf("EmbedModel = %q, want embedded %v", d.EmbedModel, tt.embedded)
			}
			if tt.failAdd && !strings.Contains(d.Note, "Not embedded with embed-small") {
				t.Errorf("Note = %q, want it to say the document was not embedded", d.Note)
			}
			srv.FailEmbeddings(0)
			if tt.failQuery {
				srv.FailEmbeddings(http.StatusBadGateway)
			}
			res, err := lib.Search(ctx, place, "when do quinces need frost", 5)
			if err != nil {
				t.Fatal(err)
			}
			if res.Mode != tt.mode {
				t.Errorf("Mode = %s, want %s", res.Mode, tt.mode)
			}
			if len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Text, "Quinces need frost") || res.Hits[0].Version != d.Version {
				t.Fatalf("hits = %+v, want the quince passage first", res.Hits)
			}
		})
	}
}

// Vectors find a passage that shares no word with the query, and the
// cache sees a document added after the first search.
func TestHybridFindsByMeaningAndSeesNewDocuments(t *testing.T) {
	ctx := context.Background()
	lib, place := library(t, nil, "")
	// An embedder that puts every text about fruit in one direction.
	lib.Embedding = func(context.Context) (knowledge.EmbeddingChoice, error) {
		return knowledge.EmbeddingChoice{Embedder: topicEmbedder{}, Model: "topics"}, nil
	}
	if _, err := lib.Add(ctx, knowledge.File{Place: place, Name: "cars.md", Bytes: []byte("# Cars\n\nEngines burn petrol.\n")}); err != nil {
		t.Fatal(err)
	}
	res, err := lib.Search(ctx, place, "orchard", 5)
	if err != nil || res.Mode != knowledge.Hybrid {
		t.Fatalf("Search = %+v, %v", res, err)
	}
	if _, err := lib.Add(ctx, knowledge.File{Place: place, Name: "fruit.md", Bytes: []byte(fruit)}); err != nil {
		t.Fatal(err)
	}
	res, err = lib.Search(ctx, place, "orchard", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].Document != "fruit.md" {
		t.Fatalf("hits = %+v, want a fruit passage found by its vector alone", res.Hits)
	}
}

// topicEmbedder gives fruit and orchards one direction, the rest another.
type topicEmbedder struct{}

func (topicEmbedder) Embed(_ context.Context, _ string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		s = strings.ToLower(s)
		if strings.Contains(s, "quince") || strings.Contains(s, "pear") || strings.Contains(s, "orchard") {
			out[i] = []float32{1, 0.1}
		} else {
			out[i] = []float32{0.1, 1}
		}
	}
	return out, nil
}
