package store

import (
	"github.com/agentdeck/agentdeck/backend/export"
)

// documents hands on the session's own documents (not its project's:
// they belong to the project), oldest first, each with its passages in
// order when load asks for them. Their embeddings stay here: an import
// re-makes them from the text (export.Version 7).
func (r *sessionReader) documents() error {
	ds, err := appendRows(r.ctx, r.tx, []export.KnowledgeDocument{}, scanExportDocument,
		`SELECT id, name, kind, url, version, size, pages, note, created_at FROM documents WHERE session_id = ? ORDER BY created_at, id`, r.sessionID)
	if err != nil {
		return err
	}
	for i := range ds {
		d := &ds[i]
		d.Passages = []export.KnowledgePassage{}
		if r.load.Passages {
			if d.Passages, err = appendRows(r.ctx, r.tx, d.Passages, scanExportPassage,
				`SELECT id, page, heading, text FROM passages WHERE document_id = ? ORDER BY ord`, d.ID); err != nil {
				return err
			}
		}
		if err := sinkErr(r.to.Document(d)); err != nil {
			return err
		}
		d.Passages = nil // handed on: not held while the next is read
	}
	return nil
}

func scanExportDocument(r scanner) (export.KnowledgeDocument, error) {
	var d export.KnowledgeDocument
	var created string
	err := r.Scan(&d.ID, &d.Name, &d.Format, &d.URL, &d.Version, &d.Size, &d.Pages, &d.Note, &created)
	d.CreatedAt = parseTime(created)
	return d, err
}

func scanExportPassage(r scanner) (export.KnowledgePassage, error) {
	var p export.KnowledgePassage
	err := r.Scan(&p.ID, &p.Page, &p.Heading, &p.Text)
	return p, err
}
