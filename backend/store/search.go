package store

import (
	"context"
	"strings"
	"time"
	"unicode"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// Highlight markers around the matched words of SearchHit.Snippet. They
// are control characters, not markup, so a snippet is plain text: the UI
// escapes it as HTML first and only then turns each HighlightStart into
// <mark> and each HighlightEnd into </mark>. Search balances them, so every
// start has an end and marks never nest.
const (
	HighlightStart = "\x02"
	HighlightEnd   = "\x03"
)

// SearchHit kinds: what the matched text was.
const (
	HitMessage    = "message"     // a user or assistant message
	HitToolCall   = "tool_call"   // a tool's name and arguments
	HitToolResult = "tool_result" // what a tool returned
	HitTitle      = "title"       // a session title
	HitArtifact   = "artifact"    // an artifact's title and content
	HitCodeRun    = "code_run"    // a code run's code, output and result
)

// SearchHit is one match of a full-text search.
type SearchHit struct {
	SessionID    string `json:"session_id"`
	SessionTitle string `json:"session_title"`
	// TurnID and TurnSeq are empty for a title hit.
	TurnID  string `json:"turn_id"`
	TurnSeq int    `json:"turn_seq"`
	Kind    string `json:"kind"`
	// Snippet is an excerpt with the matches between HighlightStart and
	// HighlightEnd.
	Snippet string `json:"snippet"`
	// Rank is FTS5's bm25 score: lower (more negative) is a better match.
	Rank float64 `json:"rank"`
	// At is when the turn started, or for a title, the session's last
	// activity.
	At time.Time `json:"at"`
	// ForkedFrom names the session a forked session was copied from: a
	// fork holds the same text as its original, so its hits look the same
	// but for this (its title's " (fork)" is the first thing cut when a
	// title is shortened, and a renamed fork has none).
	ForkedFrom string `json:"forked_from,omitempty"`
}

// Search finds messages, tool calls, tool results, artifacts, code runs
// and session titles that contain every word of query, best match first.
// The last word also matches as a prefix, for search-as-you-type. Any
// text is a valid query: FTS5 operators and quotes in it are searched for
// as words, never interpreted. A query with no words gives no hits. The
// result is never nil.
func (db *DB) Search(ctx context.Context, query string, limit int) ([]SearchHit, error) {
	return db.SearchIn(ctx, query, limit, Scope{})
}

// Scope limits a search to one project's sessions (NoProject: those in
// none) or to those with a tag. Archived sessions are searched too.
type Scope struct {
	Project string `json:"project,omitempty"`
	Tag     string `json:"tag,omitempty"`
}

// SearchIn is Search within a scope.
func (db *DB) SearchIn(ctx context.Context, query string, limit int, sc Scope) ([]SearchHit, error) {
	// A turn that cannot be indexed now (a full disk) stays marked; search
	// what is indexed rather than fail.
	_ = db.IndexPending(ctx)
	hits, err := db.search(ctx, query, clampLimit(limit, 20, 200), "", sc)
	if err != nil {
		return nil, readError(err, "searching")
	}
	return hits, nil
}

// SearchMemory implements recall.Searcher: the best-matching messages
// of all sessions, with plain excerpts.
func (db *DB) SearchMemory(ctx context.Context, query string, limit int) ([]turn.Memory, error) {
	// A turn that cannot be indexed now (a full disk) stays marked; search
	// what is indexed rather than fail.
	_ = db.IndexPending(ctx)
	hits, err := db.search(ctx, query, clampLimit(limit, 5, 20), HitMessage, Scope{})
	if err != nil {
		return nil, readError(err, "searching earlier sessions")
	}
	out := make([]turn.Memory, 0, len(hits))
	for _, h := range hits {
		out = append(out, turn.Memory{SessionID: h.SessionID, SessionTitle: h.SessionTitle, At: h.At, Excerpt: stripHighlights(h.Snippet)})
	}
	return out, nil
}

// Limits on what ftsQuery reads of a query: enough for any real search,
// small enough that a pasted novel cannot make FTS5 work hard.
const (
	maxQueryBytes = 1024
	maxQueryWords = 16
)

// ftsQuery turns what a person typed into an FTS5 query that cannot fail
// to parse: each whitespace-separated word becomes a quoted string (inner
// quotes doubled), so FTS5 treats operators, parentheses, colons and
// carets as plain text and its tokenizer splits the word as it split the
// stored text ("report_2024.csv" becomes the phrase report 2024 csv).
// Words are joined by spaces (all must match); the last one gets a * to
// match as a prefix. Words without a letter or digit are dropped, since
// they hold no token. It returns "" when nothing is left to search for.
func ftsQuery(query string) string {
	words := ftsWords(query)
	if len(words) == 0 {
		return ""
	}
	words[len(words)-1] += "*"
	return strings.Join(words, " ")
}

// ftsAnyQuery is ftsQuery for a model's question over documents: any word
// may match (BM25 ranks passages with more of them first), none is a
// prefix.
func ftsAnyQuery(query string) string {
	return strings.Join(ftsWords(query), " OR ")
}

// ftsWords are the quoted words of ftsQuery.
func ftsWords(query string) []string {
	if len(query) > maxQueryBytes {
		query = query[:maxQueryBytes]
	}
	query = strings.ToValidUTF8(query, "")
	query = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, query)
	var words []string
	for _, w := range strings.Fields(query) {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) < 0 {
			continue
		}
		words = append(words, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
		if len(words) == maxQueryWords {
			break
		}
	}
	return words
}

// search runs the FTS query; kind "" means every kind. Evaluation
// sessions are never searched: they are test runs, not what a person or
// recall memory looks for. The FTS table is
// ranked and cut in a subquery, so the joins only see the hits returned.
func (db *DB) search(ctx context.Context, query string, limit int, kind string, sc Scope) ([]SearchHit, error) {
	hits := []SearchHit{}
	match := ftsQuery(query)
	if match == "" {
		return hits, nil
	}
	scope, scopeArgs := "", []any(nil)
	if sc != (Scope{}) {
		f, args := Page{Project: sc.Project, Tag: sc.Tag, Archived: true}.filter("s")
		scope, scopeArgs = ` AND session_id IN (SELECT s.id FROM sessions s WHERE 1`+f+`)`, args
	}
	args := append([]any{HighlightStart, HighlightEnd, match, kind, kind}, scopeArgs...)
	rows, err := db.reader.QueryContext(ctx, `SELECT f.kind, f.session_id, f.turn_id, f.snip, f.rank, s.title,
			COALESCE(t.seq, 0), COALESCE(t.started_at, s.updated_at), COALESCE(s.forked_from_session_id, '')
		FROM (SELECT rowid, kind, session_id, turn_id, snippet(search, 0, ?, ?, '…', 16) AS snip, rank
			FROM search WHERE search MATCH ? AND (? = '' OR kind = ?)
				AND session_id NOT IN (SELECT id FROM sessions WHERE kind = 'eval')`+scope+`
			ORDER BY rank LIMIT ?) f
		JOIN sessions s ON s.id = f.session_id
		LEFT JOIN turns t ON t.id = f.turn_id
		ORDER BY f.rank, f.rowid DESC`,
		append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var h SearchHit
		var at string
		if err := rows.Scan(&h.Kind, &h.SessionID, &h.TurnID, &h.Snippet, &h.Rank, &h.SessionTitle, &h.TurnSeq, &at, &h.ForkedFrom); err != nil {
			return nil, err
		}
		h.Snippet, h.At = balanceHighlights(h.Snippet), parseTime(at)
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// balanceHighlights drops markers that the stored text itself contained
// and would otherwise open a mark that never closes (or close one never
// opened).
func balanceHighlights(s string) string {
	if !strings.ContainsAny(s, HighlightStart+HighlightEnd) {
		return s
	}
	var b strings.Builder
	open := false
	for _, r := range s {
		switch string(r) {
		case HighlightStart:
			if open {
				continue
			}
			open = true
		case HighlightEnd:
			if !open {
				continue
			}
			open = false
		}
		b.WriteRune(r)
	}
	if open {
		b.WriteString(HighlightEnd)
	}
	return b.String()
}

func stripHighlights(s string) string {
	return strings.NewReplacer(HighlightStart, "", HighlightEnd, "").Replace(s)
}
