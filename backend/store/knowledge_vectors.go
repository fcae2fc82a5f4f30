package store

import (
	"context"
	"strings"

	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// Passages' embeddings (knowledge.VectorStore): little-endian float32s of
// unit length in passages.embedding, the model in documents.embed_model.
// They go with their passages: removing a document removes them.

// PlaceVectors reads the vectors of model of a place's documents, in
// passage id order. A vector of another length than the first, or one
// damaged, is left out (it cannot be compared).
func (db *DB) PlaceVectors(ctx context.Context, sc knowledge.Place, model string) (knowledge.Vectors, error) {
	where, args := scopeWhere(sc)
	rows, err := db.reader.QueryContext(ctx, `SELECT p.id, p.embedding FROM passages p JOIN documents d ON d.id = p.document_id
		WHERE `+where+` AND d.embed_model = ? AND p.embedding IS NOT NULL ORDER BY p.id`, append(args, model)...)
	if err != nil {
		return knowledge.Vectors{}, readError(err, "reading the documents' embeddings")
	}
	defer rows.Close()
	var vs knowledge.Vectors
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return knowledge.Vectors{}, readError(err, "reading the documents' embeddings")
		}
		// A damaged vector is left out: the passage is still found by
		// its words.
		if v, err := knowledge.DecodeVector(b); err == nil {
			vs.Add(id, v)
		}
	}
	if err := rows.Err(); err != nil {
		return knowledge.Vectors{}, readError(err, "reading the documents' embeddings")
	}
	return vs, nil
}

// PassageHits returns the passages with these ids as hits (score 0), in
// any order; ids that are gone are left out.
func (db *DB) PassageHits(ctx context.Context, ids []int64) ([]knowledge.Hit, error) {
	if len(ids) == 0 {
		return []knowledge.Hit{}, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	hits, err := appendRows(ctx, db.reader, []knowledge.Hit{}, scanHit, `
		SELECT p.id, p.document_id, p.ord, p.page, p.heading, p.text, d.name, d.version, d.kind, d.url, 0.0
		FROM passages p JOIN documents d ON d.id = p.document_id
		WHERE p.id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, readError(err, "loading passages")
	}
	return hits, nil
}
