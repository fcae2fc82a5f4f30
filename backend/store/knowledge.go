package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Documents and their passages (package knowledge has the rules). They
// are rows of this file, not of a session's data.db, so a project's
// documents serve every session in it; a session searches its own and
// its project's.

// MaxDocumentPassages caps one document's passages (about 40 MB of text).
const MaxDocumentPassages = 100_000

// AddDocument stores a new document with its passages, in one
// transaction, and returns it with its id. The same bytes (Version)
// already in that session or project are a Conflict naming the document.
func (db *DB) AddDocument(ctx context.Context, d knowledge.Document, ps []knowledge.Passage) (knowledge.Document, error) {
	d.EmbedModel = ""
	return db.AddDocumentVectors(ctx, d, ps, nil)
}

// AddDocumentVectors is AddDocument with each passage's unit vector of
// d.EmbedModel (knowledge.VectorStore); vecs nil stores none.
func (db *DB) AddDocumentVectors(ctx context.Context, d knowledge.Document, ps []knowledge.Passage, vecs [][]float32) (knowledge.Document, error) {
	if vecs != nil && (len(vecs) != len(ps) || d.EmbedModel == "") {
		return knowledge.Document{}, apperr.New(apperr.Internal, "%s has %d passages and %d embeddings (model %q).", d.Name, len(ps), len(vecs), d.EmbedModel)
	}
	if vecs == nil {
		d.EmbedModel = ""
	}
	if (d.SessionID == "") == (d.ProjectID == "") {
		return knowledge.Document{}, apperr.New(apperr.Invalid, "A document belongs to one session or one project.")
	}
	if strings.TrimSpace(d.Name) == "" || d.Version == "" {
		return knowledge.Document{}, apperr.New(apperr.Invalid, "A document needs a name and a version.")
	}
	if len(ps) > MaxDocumentPassages {
		return knowledge.Document{}, apperr.New(apperr.Invalid, "%s has %d passages, more than the %d one document may have. Split it into smaller files.", d.Name, len(ps), MaxDocumentPassages)
	}
	d.ID, d.CreatedAt, d.Passages = turn.NewID(), time.Now().UTC(), len(ps)
	if d.Pages < 1 {
		d.Pages = 1
	}
	err := db.tx(ctx, "adding the document", func(tx *sql.Tx) error {
		if err := checkDocumentPlace(ctx, tx, d); err != nil {
			return err
		}
		var same string
		err := tx.QueryRowContext(ctx, `SELECT name FROM documents WHERE COALESCE(session_id, '') = ? AND COALESCE(project_id, '') = ? AND version = ?`,
			d.SessionID, d.ProjectID, d.Version).Scan(&same)
		if err == nil {
			return apperr.New(apperr.Conflict, "%s is already here, as %q: the same file was added before.", d.Name, same)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO documents (id, session_id, project_id, name, kind, url, version, size, pages, note, embed_model, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			d.ID, nullable(d.SessionID), nullable(d.ProjectID), d.Name, string(d.Format), d.URL, d.Version, d.Size, d.Pages, d.Note, d.EmbedModel, fmtTime(d.CreatedAt)); err != nil {
			return err
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO passages (document_id, ord, page, heading, text, embedding) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for i, p := range ps {
			var emb any
			if vecs != nil {
				emb = knowledge.EncodeVector(vecs[i])
			}
			if _, err := ins.ExecContext(ctx, d.ID, i, max(p.Page, 1), p.Heading, p.Text, emb); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return knowledge.Document{}, err
	}
	return d, nil
}

// checkDocumentPlace refuses a session or project that does not exist.
func checkDocumentPlace(ctx context.Context, tx *sql.Tx, d knowledge.Document) error {
	if d.ProjectID != "" {
		return checkProject(ctx, tx, d.ProjectID)
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions WHERE id = ?`, d.SessionID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return apperr.New(apperr.NotFound, "There is no session %s.", d.SessionID)
	}
	return nil
}

// ListDocuments lists the documents of a scope, newest first: a
// session's own and its project's, or a project's.
func (db *DB) ListDocuments(ctx context.Context, sc knowledge.Place) ([]knowledge.Document, error) {
	where, args := scopeWhere(sc)
	ds, err := appendRows(ctx, db.reader, []knowledge.Document{}, scanDocument,
		documentSelect+` WHERE `+where+` ORDER BY created_at DESC, id DESC`, args...)
	if err != nil {
		return nil, readError(err, "listing documents")
	}
	return ds, nil
}

// scopeWhere selects the documents of a scope (columns of documents).
func scopeWhere(sc knowledge.Place) (string, []any) {
	if sc.SessionID != "" {
		return `(session_id = ? OR project_id = (SELECT project_id FROM sessions WHERE id = ?))`, []any{sc.SessionID, sc.SessionID}
	}
	return `project_id = ?`, []any{sc.ProjectID}
}

// GetDocument returns one document.
func (db *DB) GetDocument(ctx context.Context, id string) (knowledge.Document, error) {
	d, err := scanDocument(db.reader.QueryRowContext(ctx, documentSelect+` WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return knowledge.Document{}, noDocument(id)
	}
	if err != nil {
		return knowledge.Document{}, readError(err, "loading the document")
	}
	return d, nil
}

// DocumentPassages returns a document's passages in order.
func (db *DB) DocumentPassages(ctx context.Context, id string) ([]knowledge.Passage, error) {
	if _, err := db.GetDocument(ctx, id); err != nil {
		return nil, err
	}
	ps, err := appendRows(ctx, db.reader, []knowledge.Passage{}, scanPassage,
		`SELECT id, document_id, ord, page, heading, text FROM passages WHERE document_id = ? ORDER BY ord`, id)
	if err != nil {
		return nil, readError(err, "loading the document's passages")
	}
	return ps, nil
}

// RemoveDocument deletes a document, its passages, their index entries
// and embeddings, and compacts the file so their bytes are gone from it.
func (db *DB) RemoveDocument(ctx context.Context, id string) error {
	err := db.tx(ctx, "removing the document", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return noDocument(id)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return db.Compact(ctx)
}

// SearchPassages finds the passages of a scope's documents that match
// query, best first by BM25 (headings weigh twice the text). Any word may
// match; a query with no word finds nothing.
func (db *DB) SearchPassages(ctx context.Context, sc knowledge.Place, query string, limit int) ([]knowledge.Hit, error) {
	q := ftsAnyQuery(query)
	if q == "" || limit <= 0 {
		return []knowledge.Hit{}, nil
	}
	where, args := scopeWhere(sc)
	// The index is searched first, then its matches are kept to the
	// scope: given "rowid IN (the scope's passages)", SQLite looked each
	// of the scope's passages up in the index, seconds for 100,000.
	hits, err := appendRows(ctx, db.reader, []knowledge.Hit{}, scanHit, `
		WITH f AS MATERIALIZED (SELECT rowid, rank FROM passages_fts WHERE passages_fts MATCH ? AND rank MATCH 'bm25(1.0, 2.0)')
		SELECT p.id, p.document_id, p.ord, p.page, p.heading, p.text, d.name, d.version, d.kind, d.url, -f.rank
		FROM f
		JOIN passages p ON p.id = f.rowid
		JOIN documents d ON d.id = p.document_id
		WHERE `+where+`
		ORDER BY f.rank LIMIT ?`, append(append([]any{q}, args...), limit)...)
	if err != nil {
		return nil, readError(err, "searching documents")
	}
	return hits, nil
}

const documentSelect = `SELECT id, COALESCE(session_id, ''), COALESCE(project_id, ''), name, kind, url, version, size, pages,
	(SELECT COUNT(*) FROM passages WHERE document_id = documents.id), note, embed_model, created_at FROM documents`

func scanDocument(r scanner) (knowledge.Document, error) {
	var d knowledge.Document
	var created string
	err := r.Scan(&d.ID, &d.SessionID, &d.ProjectID, &d.Name, &d.Format, &d.URL, &d.Version, &d.Size, &d.Pages, &d.Passages, &d.Note, &d.EmbedModel, &created)
	d.CreatedAt = parseTime(created)
	return d, err
}

func scanPassage(r scanner) (knowledge.Passage, error) {
	var p knowledge.Passage
	err := r.Scan(&p.ID, &p.DocumentID, &p.Ord, &p.Page, &p.Heading, &p.Text)
	return p, err
}

func scanHit(r scanner) (knowledge.Hit, error) {
	var h knowledge.Hit
	err := r.Scan(&h.ID, &h.DocumentID, &h.Ord, &h.Page, &h.Heading, &h.Text, &h.Document, &h.Version, &h.Format, &h.URL, &h.Score)
	return h, err
}

func noDocument(id string) error {
	return apperr.New(apperr.NotFound, "There is no document %s. It may have been removed.", id)
}
