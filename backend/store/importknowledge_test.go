package store

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// knowledgeSession is a session in a project with two documents of its
// own, one of the project's, and a turn that was given a passage of each
// to cite (its sources event).
func knowledgeSession(t *testing.T, db *DB) (Session, []knowledge.Document) {
	t.Helper()
	p := mustProject(t, db, "Research", turn.RunSettings{})
	s, err := db.CreateSession(ctx, Session{Title: "with documents", Model: "m", ProjectID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	report := mustAddDocument(t, db, knowledge.Document{SessionID: s.ID, Name: "report.pdf", Format: knowledge.FormatPDF, Version: "v-report", Size: 2048, Pages: 2, Note: "scanned: no text layer on page 3"},
		"Revenue of quinces rose by a third.", "Costs stayed flat.")
	notes := mustAddDocument(t, db, knowledge.Document{SessionID: s.ID, Name: "notes.md", Format: knowledge.FormatMarkdown, Version: "v-notes", Size: 10},
		"Ask about pears.")
	mustAddDocument(t, db, knowledge.Document{ProjectID: p.ID, Name: "handbook.txt", Format: knowledge.FormatText, Version: "v-handbook"}, "The project's own.")
	ps, _ := db.DocumentPassages(ctx, report.ID)
	storeSourcesTurn(t, db, s.ID, []turn.Source{
		{N: 1, Kind: turn.SourcePassage, DocumentID: report.ID, PassageID: ps[0].ID, Version: report.Version, Document: report.Name, Page: 1, Heading: "Part A", Text: ps[0].Text},
	}, "Revenue rose by a third [1].")
	return s, []knowledge.Document{report, notes}
}

// storeSourcesTurn stores a turn that was given sources to cite.
func storeSourcesTurn(t *testing.T, db *DB, sessionID string, sources []turn.Source, answer string) {
	t.Helper()
	tr, err := db.StartTurn(ctx, Turn{SessionID: sessionID, UserMessage: "What does the report say?", Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	log := db.NewEventLog(tr.ID, EventLogOptions{})
	rec := &turntest.Recorder{}
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: sessionID, TurnID: tr.ID, Sinks: []turn.Sink{log, rec}})
	turn.RunTurn(ctx, em, func(context.Context) turn.Result {
		em.Emit(turn.Draft{Data: turn.SourcesData{CallID: "c1", Sources: sources}})
		em.Emit(turn.Draft{Data: turn.ThinkStartData{}})
		em.Emit(turn.Draft{Data: turn.TokenData{Text: answer}})
		em.Emit(turn.Draft{Data: turn.ThinkEndData{}})
		return turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, Termination: turn.Termination{Kind: turn.TermNaturalCompletion}, FinalText: answer,
			Messages: []llm.Message{{Role: llm.RoleUser, Content: "What does the report say?"}, {Role: llm.RoleAssistant, Content: answer}}}
	}, func(res turn.Result) {
		if err := db.FinishTurn(ctx, tr.ID, 0, res); err != nil {
			t.Error(err)
		}
	})
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
}

// sourcesOf are the sources events of a session's turns, as stored.
func sourcesOf(t *testing.T, db *DB, sessionID string) []turn.Source {
	t.Helper()
	doc, err := export.Collect(ctx, db, sessionID, export.Load{EventTypes: []turn.EventType{turn.EventSources}})
	if err != nil {
		t.Fatal(err)
	}
	var out []turn.Source
	for _, tr := range doc.Turns {
		for _, e := range tr.Events {
			var d turn.SourcesData
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatal(err)
			}
			out = append(out, d.Sources...)
		}
	}
	return out
}

// A session's own documents go through an export (version 7) and an
// import: under new ids, with their passages' text, pages and headings,
// searchable again; the project's document stays out of the file, the
// embeddings too, and the turn's sources come back as they were.
func TestExportImportCarriesDocuments(t *testing.T) {
	t.Parallel()
	src := mustOpen(t)
	s, docs := knowledgeSession(t, src)
	if _, err := src.writer.Exec(`UPDATE passages SET embedding = ? WHERE document_id = ?`, []byte("EMBEDDING-BYTES-8812"), docs[0].ID); err != nil {
		t.Fatal(err)
	}
	file := importExport(t, src, s.ID, export.Options{})
	if v := fileVersion(t, file); v != 7 {
		t.Fatalf("version %d, want 7", v)
	}
	for _, absent := range []string{"handbook.txt", "The project's own", "EMBEDDING-BYTES", "embed"} {
		if bytes.Contains(file, []byte(absent)) {
			t.Fatalf("the file holds %q", absent)
		}
	}
	for _, line := range []string{`        {"id":` + jsonInt(t, src, docs[0].ID) + `,"page":1,"heading":"Part A","text":"Revenue of quinces rose by a third."},`} {
		if !strings.Contains(string(file), line) {
			t.Fatalf("no line %q (a passage to a line) in\n%s", line, file)
		}
	}

	dst := mustOpen(t)
	got, err := dst.Import(ctx, bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	have, err := dst.ListDocuments(ctx, knowledge.Place{SessionID: got.ID})
	if err != nil || len(have) != 2 {
		t.Fatalf("imported documents %+v, %v", have, err)
	}
	byName := map[string]knowledge.Document{}
	for _, d := range have {
		byName[d.Name] = d
	}
	r, orig := byName["report.pdf"], docs[0]
	if r.ID == orig.ID || r.SessionID != got.ID || r.Version != orig.Version || r.Format != orig.Format || r.Size != orig.Size ||
		r.Pages != orig.Pages || r.Note != orig.Note || r.Passages != 2 || r.EmbedModel != "" || !r.CreatedAt.Equal(orig.CreatedAt) {
		t.Fatalf("imported\n%+v\nfrom\n%+v", r, orig)
	}
	ps, _ := dst.DocumentPassages(ctx, r.ID)
	if len(ps) != 2 || ps[1].Text != "Costs stayed flat." || ps[1].Page != 2 || ps[1].Heading != "Part B" || ps[1].Ord != 1 {
		t.Fatalf("passages %+v", ps)
	}
	var embedded int
	dst.reader.QueryRow(`SELECT COUNT(*) FROM passages WHERE embedding IS NOT NULL`).Scan(&embedded)
	if embedded != 0 {
		t.Fatalf("%d passages have an embedding after the import", embedded)
	}
	if hits, err := dst.SearchPassages(ctx, knowledge.Place{SessionID: got.ID}, "quinces", 5); err != nil || len(hits) != 1 || hits[0].DocumentID != r.ID {
		t.Fatalf("search after the import: %+v, %v", hits, err)
	}
	// The sources are what the model saw: the exporting database's ids.
	if a, b := sourcesOf(t, src, s.ID), sourcesOf(t, dst, got.ID); len(b) != 1 || b[0] != a[0] || b[0].DocumentID != orig.ID {
		t.Fatalf("sources after the import %+v, want %+v", b, a)
	}

	// Imported again, as a copy: the documents come again, in the copy.
	again, err := dst.Import(ctx, bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if ds, _ := dst.ListDocuments(ctx, knowledge.Place{SessionID: again.ID}); len(ds) != 2 {
		t.Fatalf("the copy's documents %+v", ds)
	}
	if a, b := sourcesOf(t, src, s.ID), sourcesOf(t, dst, again.ID); len(b) != 1 || b[0] != a[0] {
		t.Fatalf("the copy's sources %+v, want %+v", b, a)
	}
}

// jsonInt is a passage's id as the file writes it: the first passage of
// the document.
func jsonInt(t *testing.T, db *DB, docID string) string {
	t.Helper()
	ps, err := db.DocumentPassages(ctx, docID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(ps[0].ID)
	return string(b)
}

// A session whose only documents are its project's is not written as
// version 7: it holds none.
func TestExportVersionWithTheProjectsDocumentsOnly(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	p := mustProject(t, db, "P", turn.RunSettings{})
	s, _ := db.CreateSession(ctx, Session{Title: "s", ProjectID: p.ID})
	mustAddDocument(t, db, knowledge.Document{ProjectID: p.ID, Name: "a.txt", Format: knowledge.FormatText, Version: "v"}, "x")
	file := importExport(t, db, s.ID, export.Options{})
	if v := fileVersion(t, file); v != 6 || bytes.Contains(file, []byte(`"documents"`)) {
		t.Fatalf("version %d:\n%s", v, file)
	}
}

// A file written by Agentdeck before version 7 (by the tree of commit
// 562ba66: a session in a project, tagged, pinned, archived, with a
// turn: testdata/session-v6-562ba66.json) still imports, with no
// documents.
func TestImportVersion6File(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "session-v6-562ba66.json"))
	if err != nil {
		t.Fatal(err)
	}
	if v := fileVersion(t, b); v != 6 {
		t.Fatalf("the fixture is version %d", v)
	}
	db := mustOpen(t)
	s, err := db.Import(ctx, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	have, _ := db.GetSession(ctx, s.ID)
	if have.ProjectID == "" || len(have.Tags) != 2 || have.PinnedAt == nil || have.Turns != 1 {
		t.Fatalf("imported %+v", have)
	}
	if ds, _ := db.ListDocuments(ctx, knowledge.Place{SessionID: s.ID}); len(ds) != 0 {
		t.Fatalf("documents %+v", ds)
	}
}

// A file whose documents the store could not hold is refused, naming the
// document, and nothing is written.
func TestImportRefusesBadDocuments(t *testing.T) {
	t.Parallel()
	src := mustOpen(t)
	s, _ := knowledgeSession(t, src)
	good := string(importExport(t, src, s.ID, export.Options{}))
	tests := []struct {
		name, in string
		wants    []string
	}{
		{"documents in a version 6 file", strings.Replace(good, `"version": 7,`, `"version": 6,`, 1), []string{"version 6", "holds no documents", "lists 2"}},
		{"no name", strings.Replace(good, `"name": "report.pdf"`, `"name": " "`, 1), []string{"document 1 (documents[0]) has no name"}},
		{"no version", strings.Replace(good, `"version": "v-notes"`, `"version": ""`, 1), []string{"document 2", "notes.md has no version"}},
		{"the same version twice", strings.Replace(good, `"version": "v-notes"`, `"version": "v-report"`, 1), []string{"notes.md has the same version as document 1"}},
		{"a negative size", strings.Replace(good, `"size": 10,`, `"size": -1,`, 1), []string{"notes.md has a negative size"}},
		{"a passage's page as text", strings.Replace(good, `"page":2`, `"page":"2"`, 1), []string{"documents[0].passages[1].page holds text where a whole number belongs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.in == good {
				t.Fatal("the test changed nothing")
			}
			db := mustOpen(t)
			_, err := db.Import(ctx, strings.NewReader(tt.in))
			importCheckRefused(t, err, apperr.Invalid, tt.wants...)
			if n := importCount(t, db, "sessions") + importCount(t, db, "documents") + importCount(t, db, "passages"); n != 0 {
				t.Fatalf("%d rows left behind", n)
			}
		})
	}
}

// A fork keeps the session's documents (its later turns search them),
// under new ids.
func TestForkKeepsDocuments(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s, _ := knowledgeSession(t, db)
	page, _ := db.ListTurns(ctx, s.ID, Page{})
	f, err := db.ForkSession(ctx, page.Turns[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := db.ListDocuments(ctx, knowledge.Place{SessionID: f.ID})
	own := 0
	for _, d := range ds {
		if d.SessionID == f.ID {
			own++
		}
	}
	if own != 2 || len(ds) != 3 {
		t.Fatalf("the fork's documents %+v", ds)
	}
}
