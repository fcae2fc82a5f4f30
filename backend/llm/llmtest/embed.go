package llmtest

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"strings"
	"unicode"
)

// EmbeddingDims is the length of the vectors POST /v1/embeddings serves.
const EmbeddingDims = 16

// Embedding is the vector the server gives text: deterministic, a bag of
// its lowercased words hashed into EmbeddingDims buckets, so texts that
// share words are near each other (cosine) and a test can reason about
// rank. It is not of unit length; an empty text is all zeros but one.
func Embedding(text string) []float32 {
	v := make([]float32, EmbeddingDims)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		h := fnv.New32a()
		_, _ = h.Write([]byte(w))
		v[h.Sum32()%EmbeddingDims]++
	}
	if len(words) == 0 {
		v[0] = 1
	}
	return v
}

// FailEmbeddings makes POST /v1/embeddings answer status (with an
// OpenAI-style error) from now on; 0 serves vectors again.
func (s *Server) FailEmbeddings(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedFail = status
}

// EmbeddingRequests is the number of POST /v1/embeddings requests so far.
func (s *Server) EmbeddingRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embedRequests
}

// serveEmbeddings answers {model, input: string | [string]} with one
// Embedding per input, in order.
func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.embedRequests++
	fail := s.embedFail
	s.mu.Unlock()
	if fail != 0 {
		writeError(w, fail, "embeddings_failed", "llmtest: embeddings fail on cue")
		return
	}
	var in struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "llmtest: the body is not JSON: "+err.Error())
		return
	}
	var texts []string
	if err := json.Unmarshal(in.Input, &texts); err != nil {
		var one string
		if err := json.Unmarshal(in.Input, &one); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request", "llmtest: input must be a string or an array of strings")
			return
		}
		texts = []string{one}
	}
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string  `json:"object"`
		Model  string  `json:"model"`
		Data   []datum `json:"data"`
	}{Object: "list", Model: in.Model, Data: make([]datum, len(texts))}
	for i, t := range texts {
		out.Data[i] = datum{Object: "embedding", Index: i, Embedding: Embedding(t)}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
