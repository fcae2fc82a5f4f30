package store

import (
	"context"
	"testing"

	"github.com/agentdeck/agentdeck/backend/knowledge"
)

func TestDocumentVectorsRoundTripAndRemove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	s, err := db.CreateSession(ctx, Session{Title: "vectors"})
	if err != nil {
		t.Fatal(err)
	}
	place := knowledge.Place{SessionID: s.ID}
	ps := []knowledge.Passage{{Page: 1, Text: "quinces"}, {Page: 2, Text: "pears"}}
	vecs := [][]float32{knowledge.Unit([]float32{1, 2, 2}), knowledge.Unit([]float32{0, 3, 4})}
	d, err := db.AddDocumentVectors(ctx, knowledge.Document{SessionID: s.ID, Name: "a.md", Format: knowledge.FormatMarkdown, Version: "v1", EmbedModel: "m1"}, ps, vecs)
	if err != nil {
		t.Fatal(err)
	}
	if d.EmbedModel != "m1" {
		t.Errorf("EmbedModel = %q, want m1", d.EmbedModel)
	}
	// A document with no vectors beside it.
	mustAddDocument(t, db, knowledge.Document{SessionID: s.ID, Name: "b.md", Format: knowledge.FormatMarkdown, Version: "v2", EmbedModel: "ignored"}, "plums")

	got, err := db.PlaceVectors(ctx, place, "m1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Dims != 3 || len(got.IDs) != 2 || len(got.Flat) != 6 {
		t.Fatalf("PlaceVectors = %+v, want two of 3 dims", got)
	}
	for i, x := range got.Flat {
		if want := vecs[i/3][i%3]; x != want {
			t.Fatalf("Flat[%d] = %v, want %v (bit for bit)", i, x, want)
		}
	}
	if other, _ := db.PlaceVectors(ctx, place, "m2"); len(other.IDs) != 0 {
		t.Errorf("vectors of another model: %+v, want none", other)
	}
	docs, _ := db.ListDocuments(ctx, place)
	for _, x := range docs {
		if x.Name == "b.md" && x.EmbedModel != "" {
			t.Errorf("a document stored without vectors names model %q", x.EmbedModel)
		}
	}
	hits, err := db.PassageHits(ctx, []int64{got.IDs[1], 999999})
	if err != nil || len(hits) != 1 || hits[0].Text != "pears" || hits[0].Document != "a.md" || hits[0].Version != "v1" {
		t.Fatalf("PassageHits = %+v, %v", hits, err)
	}

	if _, err := db.AddDocumentVectors(ctx, knowledge.Document{SessionID: s.ID, Name: "c.md", Version: "v3", EmbedModel: "m1"}, ps, vecs[:1]); err == nil {
		t.Error("one vector for two passages was stored")
	}

	if err := db.RemoveDocument(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM passages WHERE embedding IS NOT NULL`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d embeddings left after the document was removed", left)
	}
	if got, _ := db.PlaceVectors(ctx, place, "m1"); len(got.IDs) != 0 {
		t.Errorf("vectors after remove: %+v", got)
	}
}
