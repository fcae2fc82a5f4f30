package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/knowledge"
)

func mustAddDocument(t *testing.T, db *DB, d knowledge.Document, texts ...string) knowledge.Document {
	t.Helper()
	ps := make([]knowledge.Passage, len(texts))
	for i, s := range texts {
		ps[i] = knowledge.Passage{Page: i + 1, Heading: "Part " + string(rune('A'+i)), Text: s}
	}
	d, err := db.AddDocument(context.Background(), d, ps)
	if err != nil {
		t.Fatalf("AddDocument(%s): %v", d.Name, err)
	}
	return d
}

func TestDocumentsScopesSearchAndRemove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	p, err := db.CreateProject(ctx, Project{Name: "Research"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := db.CreateSession(ctx, Session{Title: "in the project", ProjectID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	out, err := db.CreateSession(ctx, Session{Title: "elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	shared := mustAddDocument(t, db, knowledge.Document{ProjectID: p.ID, Name: "plan.pdf", Format: knowledge.FormatPDF, Version: "v1", Pages: 2},
		"The harvest of quinces doubled.", "Pears stayed flat.")
	own := mustAddDocument(t, db, knowledge.Document{SessionID: in.ID, Name: "notes.md", Format: knowledge.FormatMarkdown, Version: "v2"},
		"Quinces need frost.")
	mustAddDocument(t, db, knowledge.Document{SessionID: out.ID, Name: "other.txt", Format: knowledge.FormatText, Version: "v3"},
		"Quinces elsewhere.")

	docs, err := db.ListDocuments(ctx, knowledge.Place{SessionID: in.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].ID != own.ID || docs[1].ID != shared.ID || docs[1].Passages != 2 {
		t.Fatalf("the session's documents = %+v, want its own and its project's", docs)
	}

	// The same bytes twice in one place are refused; in another place not.
	_, err = db.AddDocument(ctx, knowledge.Document{ProjectID: p.ID, Name: "plan copy.pdf", Format: knowledge.FormatPDF, Version: "v1"}, nil)
	if apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("the same version again: %v, want a Conflict", err)
	}
	mustAddDocument(t, db, knowledge.Document{SessionID: out.ID, Name: "plan.pdf", Format: knowledge.FormatPDF, Version: "v1"}, "x")

	hits, err := db.SearchPassages(ctx, knowledge.Place{SessionID: in.ID}, "quince harvest", 10)
	if err != nil {
		t.Fatal(err)
	}
	// "quince" is not "quinces": only the passage with "harvest" matches.
	if len(hits) != 1 || hits[0].Document != "plan.pdf" || hits[0].Page != 1 || hits[0].Heading != "Part A" {
		t.Fatalf("hits = %+v", hits)
	}
	hits, err = db.SearchPassages(ctx, knowledge.Place{SessionID: in.ID}, `quinces "frost" OR (`, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Document != "notes.md" {
		t.Fatalf("hits = %+v, want notes.md (two words) before plan.pdf, and not the other session's", hits)
	}

	if err := db.RemoveDocument(ctx, shared.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DocumentPassages(ctx, shared.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("passages of a removed document: %v", err)
	}
	hits, err = db.SearchPassages(ctx, knowledge.Place{SessionID: in.ID}, "harvest", 10)
	if err != nil || len(hits) != 0 {
		t.Fatalf("a removed document is still found: %+v %v", hits, err)
	}
	if err := db.RemoveDocument(ctx, shared.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("removing it twice: %v", err)
	}

	// Deleting the session deletes its documents.
	if err := db.DeleteSession(ctx, in.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.GetDocument(ctx, own.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("a deleted session's document: %v", err)
	}
}

// A salvaged file keeps the documents, and their index is rebuilt from
// the copied passages.
func TestDocumentsSurviveSalvage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	s, err := db.CreateSession(ctx, Session{Title: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	d := mustAddDocument(t, db, knowledge.Document{SessionID: s.ID, Name: "notes.md", Format: knowledge.FormatMarkdown, Version: "v1"}, "Quinces need frost.")
	out := filepath.Join(t.TempDir(), "copy.db")
	if _, err := db.Salvage(ctx, out); err != nil {
		t.Fatal(err)
	}
	cp, err := Open(ctx, out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	hits, err := cp.SearchPassages(ctx, knowledge.Place{SessionID: s.ID}, "frost", 5)
	if err != nil || len(hits) != 1 || hits[0].DocumentID != d.ID {
		t.Fatalf("search in the salvaged copy: %+v %v", hits, err)
	}
}
