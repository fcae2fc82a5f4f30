package store

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// documents stores the file's documents (export.Version 7) as the
// session's, each under a new id with its passages in the file's order.
// Their embeddings are not in the file: the documents are searched by
// their words until an embedding model re-makes them. The turns' sources
// events are left as they were, naming the exporting database's document
// and passage ids: they are a copy of what the model was given, and a
// source finds its restored document by its version.
//
// A file older than version 7 holds no documents; one that does was
// changed after it was written and is refused, as is a document with no
// name or version, two with the same version, and one over
// MaxDocumentPassages.
func (im *importer) documents() error {
	if len(im.doc.Documents) > 0 && im.doc.Version < 7 {
		return apperr.New(apperr.Invalid, "This file is damaged: it is an export of version %d, which holds no documents, yet it lists %d. Nothing was imported.",
			im.doc.Version, len(im.doc.Documents))
	}
	seen := map[string]int{}
	for i := range im.doc.Documents {
		d := &im.doc.Documents[i]
		if err := im.checkDocument(i, d, seen); err != nil {
			return err
		}
		if err := im.document(d); err != nil {
			return err
		}
	}
	return nil
}

// checkDocument refuses a document of the file the store could not hold
// or the app could not show; seen are the versions of those before it.
func (im *importer) checkDocument(i int, d *export.KnowledgeDocument, seen map[string]int) error {
	damaged := func(what string, args ...any) error {
		return apperr.New(apperr.Invalid, "This file is damaged: document %d (documents[%d]) %s. Nothing was imported.", i+1, i, fmt.Sprintf(what, args...))
	}
	switch {
	case strings.TrimSpace(d.Name) == "":
		return damaged("has no name")
	case d.Version == "":
		return damaged("%s has no version", d.Name)
	case d.Size < 0:
		return damaged("%s has a negative size", d.Name)
	case len(d.Passages) > MaxDocumentPassages:
		return damaged("%s has %d passages, more than the %d one document may have", d.Name, len(d.Passages), MaxDocumentPassages)
	}
	if j, ok := seen[d.Version]; ok {
		return damaged("%s has the same version as document %d", d.Name, j+1)
	}
	seen[d.Version] = i
	return nil
}

// document stores one document of the file and its passages.
func (im *importer) document(d *export.KnowledgeDocument) error {
	created := d.CreatedAt
	if created.IsZero() {
		created = time.Now().UTC()
	}
	format := d.Format
	if format == "" {
		format = string(knowledge.FormatText)
	}
	id := turn.NewID()
	if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO documents (id, session_id, name, kind, url, version, size, pages, note, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, im.sid, d.Name, format, d.URL, d.Version, d.Size, max(d.Pages, 1), d.Note, fmtTime(created)); err != nil {
		return err
	}
	ins, err := im.tx.PrepareContext(im.ctx, `INSERT INTO passages (document_id, ord, page, heading, text) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for i, p := range d.Passages {
		if _, err := ins.ExecContext(im.ctx, id, i, max(p.Page, 1), p.Heading, p.Text); err != nil {
			return err
		}
	}
	return nil
}
