package knowledge

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
)

// Embeddings: a passage's vector comes from the embedding model the user
// picked (on a provider serving /v1/embeddings), is scaled to unit length
// and stored as little-endian float32s; the document names the model.
// Only vectors of the model a query is embedded with are compared with it.

// Embedder turns texts into vectors: one request, one vector per text in
// order (the OpenAI-compatible client's Embed).
type Embedder interface {
	Embed(ctx context.Context, model string, texts []string) ([][]float32, error)
}

// EmbeddingChoice is the embedder and model the user picked; Model is ""
// when none (search is lexical).
type EmbeddingChoice struct {
	Embedder Embedder
	Model    string
}

// VectorStore is what a Store needs for embeddings (the store has it; a
// Store without it makes search lexical only).
type VectorStore interface {
	// AddDocumentVectors is AddDocument with one unit vector per passage
	// (vecs nil: none), stored in the same transaction, and d.EmbedModel.
	AddDocumentVectors(ctx context.Context, d Document, ps []Passage, vecs [][]float32) (Document, error)
	// PlaceVectors are the vectors of model of a place's documents.
	PlaceVectors(ctx context.Context, sc Place, model string) (Vectors, error)
	// PassageHits are the passages with these ids, as hits (any order;
	// ids gone are left out).
	PassageHits(ctx context.Context, ids []int64) ([]Hit, error)
}

// Vectors are passages' unit vectors, Dims float32s each, laid end to
// end in Flat (IDs[i]'s vector is Flat[i*Dims:(i+1)*Dims]).
type Vectors struct {
	IDs  []int64
	Flat []float32
	Dims int
}

// Add appends one passage's vector; a vector of another length is
// skipped (it came from another model) and reported false.
func (v *Vectors) Add(id int64, vec []float32) bool {
	if v.Dims == 0 {
		v.Dims = len(vec)
	}
	if len(vec) != v.Dims || len(vec) == 0 {
		return false
	}
	v.IDs = append(v.IDs, id)
	v.Flat = append(v.Flat, vec...)
	return true
}

// Unit scales v to length 1 in place; a zero vector stays zero.
func Unit(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// EncodeVector is v as stored: little-endian float32s.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector reads a stored vector.
func DecodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("a stored embedding has %d bytes, not a multiple of 4", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// embedBatch is how many passages go in one embeddings request.
const embedBatch = 64

// embedPassages embeds passages (heading and text) in batches, honouring
// ctx, and returns unit vectors.
func embedPassages(ctx context.Context, c EmbeddingChoice, ps []Passage) ([][]float32, error) {
	out := make([][]float32, 0, len(ps))
	for start := 0; start < len(ps); start += embedBatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch := ps[start:min(start+embedBatch, len(ps))]
		texts := make([]string, len(batch))
		for i, p := range batch {
			texts[i] = passageText(p)
		}
		vs, err := c.Embedder.Embed(ctx, c.Model, texts)
		if err != nil {
			return nil, err
		}
		if len(vs) != len(texts) {
			return nil, fmt.Errorf("the server gave %d embeddings for %d passages", len(vs), len(texts))
		}
		for _, v := range vs {
			if len(v) == 0 || (len(out) > 0 && len(v) != len(out[0])) {
				return nil, fmt.Errorf("the server gave embeddings of different lengths")
			}
			out = append(out, Unit(v))
		}
	}
	return out, nil
}

// passageText is what is embedded of a passage: its heading, then its text.
func passageText(p Passage) string {
	if p.Heading == "" {
		return p.Text
	}
	return p.Heading + "\n" + p.Text
}
