package store

import (
	"context"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/recall"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// storeSearchTurn stores one finished turn holding exactly msgs.
func storeSearchTurn(t *testing.T, db *DB, sessionID string, msgs ...llm.Message) Turn {
	t.Helper()
	tr, err := db.StartTurn(ctx, Turn{SessionID: sessionID, UserMessage: msgs[0].Content})
	if err != nil {
		t.Fatal(err)
	}
	res := turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, Messages: msgs}
	if err := db.FinishTurn(ctx, tr.ID, 0, res); err != nil {
		t.Fatal(err)
	}
	return tr
}

// searchFixture holds one session with a text of every kind.
type searchFixture struct {
	db      *DB
	session Session
	turn    Turn
}

func newSearchFixture(t *testing.T) searchFixture {
	t.Helper()
	db := mustOpen(t)
	s := newSession(t, db, "Quarterly budget review")
	storeTurn(t, db, s.ID, "Where does the flamingo spend the winter?", "The flamingo spends the winter near warm lagoons.")
	tr := storeSearchTurn(t, db, s.ID,
		llm.Message{Role: llm.RoleUser, Content: "Sum the invoices"},
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"invoices/kumquat_2024.csv"}`}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "c1", Name: "read_file", Content: "total: 4711 narwhals"},
		llm.Message{Role: llm.RoleAssistant, Content: "The total is 4711."},
	)
	return searchFixture{db: db, session: s, turn: tr}
}

func TestSearchFindsEveryKind(t *testing.T) {
	t.Parallel()
	f := newSearchFixture(t)
	tests := []struct {
		name, query, kind, highlighted string
		seq                            int
	}{
		{"session title", "quarterly", HitTitle, "Quarterly", 0},
		{"user message", "where flamingo", HitMessage, "flamingo", 1},
		{"assistant message", "lagoons", HitMessage, "lagoons", 1},
		{"tool call arguments", "kumquat", HitToolCall, "kumquat", 2},
		{"tool call name", "read_file", HitToolCall, "read", 2},
		{"tool result", "narwhals", HitToolResult, "narwhals", 2},
		{"prefix of the last word", "narwh", HitToolResult, "narwhals", 2},
		{"case and accents ignored", "NÁRWHALS", HitToolResult, "narwhals", 2},
		{"path as a phrase", "kumquat_2024.csv", HitToolCall, "kumquat", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := f.db.Search(ctx, tt.query, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 {
				t.Fatalf("no hits for %q", tt.query)
			}
			h := hits[0]
			if h.Kind != tt.kind || h.SessionID != f.session.ID || h.SessionTitle != f.session.Title || h.TurnSeq != tt.seq || h.At.IsZero() {
				t.Fatalf("hit %+v", h)
			}
			if (tt.seq == 0) != (h.TurnID == "") {
				t.Fatalf("turn id %q for a %s hit", h.TurnID, h.Kind)
			}
			if tt.seq == 2 && h.TurnID != f.turn.ID {
				t.Fatalf("turn id %q, want %q", h.TurnID, f.turn.ID)
			}
			if !strings.Contains(h.Snippet, HighlightStart+tt.highlighted) {
				t.Fatalf("snippet %q does not highlight %q", h.Snippet, tt.highlighted)
			}
		})
	}
}

func TestSearchRanksByBM25(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "animals")
	storeTurn(t, db, s.ID, "tell me a long story", "Once upon a time there was a cat, a dog, a horse, a cow, a goat, a hen and, at the very end of a long road, an ocelot.")
	storeTurn(t, db, s.ID, "ocelot ocelot", "Ocelot: an ocelot is a wild cat.")
	storeTurn(t, db, s.ID, "and an ocelot", "yes, one ocelot here among many other words that dilute it")

	hits, err := db.Search(ctx, "ocelot", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 5 {
		t.Fatalf("%d hits, want 5", len(hits))
	}
	if want := HighlightStart + "ocelot" + HighlightEnd + " " + HighlightStart + "ocelot" + HighlightEnd; hits[0].Snippet != want || hits[0].TurnSeq != 2 {
		t.Fatalf("the densest text should rank first, got %+v", hits[0])
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Rank < hits[i-1].Rank {
			t.Fatalf("hits not sorted by rank: %v then %v", hits[i-1].Rank, hits[i].Rank)
		}
	}
	if hits[0].Rank >= 0 {
		t.Fatalf("bm25 rank %v should be negative", hits[0].Rank)
	}
	if few, _ := db.Search(ctx, "ocelot", 2); len(few) != 2 || few[0] != hits[0] {
		t.Fatalf("limit 2 gave %+v", few)
	}
}

func TestSearchHostileQueries(t *testing.T) {
	t.Parallel()
	f := newSearchFixture(t)
	tests := []struct {
		name, query string
		wantHit     bool // false: any result is fine, as long as there is no error
	}{
		{"empty", "", false},
		{"blanks", " \t\n ", false},
		{"lone quote", `"`, false},
		{"three quotes", `"""`, false},
		{"unbalanced quote", `"flamingo`, true},
		{"trailing quote", `flamingo"`, true},
		{"quote inside", `flam"ingo`, false},
		{"balanced quotes", `"flamingo winter"`, true},
		{"single quotes", `'flamingo'`, true},
		{"AND", "AND", false},
		{"OR", "OR", false},
		{"NOT", "NOT", false},
		{"dangling AND", "flamingo AND", false}, // AND is a word to find, like any other
		{"leading NOT", "NOT flamingo", false},
		{"OR between words", "flamingo OR zzz", false},
		{"NEAR", "NEAR(flamingo winter, 3)", false},
		{"NEAR slash", "flamingo NEAR/2 winter", false},
		{"star alone", "*", false},
		{"star prefix", "flamingo*", true},
		{"leading star", "*flamingo", true},
		{"caret", "^flamingo", true},
		{"caret alone", "^", false},
		{"column filter", "text:flamingo", false},
		{"unknown column", "nope:flamingo", false},
		{"column set", "{text kind}: flamingo", false},
		{"colon alone", ":", false},
		{"parens", "(flamingo)", true},
		{"open paren", "((flamingo", true},
		{"close paren", "flamingo))", true},
		{"minus", "-flamingo", true},
		{"plus", "+flamingo", true},
		{"backslash", `\flamingo\`, true},
		{"sql injection", "'; DROP TABLE sessions; --", false},
		{"like wildcards", "%_%", false},
		{"nul byte", "flamingo\x00winter", true},
		{"control chars", "\x01\x02\x03\x1b[31m", false},
		{"invalid utf-8", "\xff\xfe flamingo \xc3", true},
		{"combining mark alone", "\u0301", false},
		{"zero-width joiner", "\u200d", false},
		{"right-to-left override", "\u202eognimalf", false},
		{"emoji", "🦩 flamingo", true},
		{"cjk", "中文字符", false},
		{"long word", strings.Repeat("a", 100_000), false},
		{"many words", strings.Repeat("flamingo ", 10_000), true},
		{"many operators", strings.Repeat("AND OR NOT ( ) * ^ : \" ", 2_000), false},
		{"many quotes", strings.Repeat(`"`, 5_000), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := f.db.Search(ctx, tt.query, 10)
			if err != nil {
				t.Fatalf("Search(%q): %v", searchShort(tt.query), err)
			}
			if hits == nil {
				t.Fatal("Search returned nil hits")
			}
			if tt.wantHit && len(hits) == 0 {
				t.Fatalf("Search(%q) found nothing", searchShort(tt.query))
			}
			if _, err := f.db.SearchMemory(ctx, tt.query, 5); err != nil {
				t.Fatalf("SearchMemory(%q): %v", searchShort(tt.query), err)
			}
		})
	}
	if _, err := f.db.GetSession(ctx, f.session.ID); err != nil {
		t.Fatalf("the sessions are gone after the hostile queries: %v", err)
	}
}

func searchShort(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func TestFTSQuery(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"  ", ""},
		{"hello", `"hello"*`},
		{"hello world", `"hello" "world"*`},
		{`say "hi"`, `"say" """hi"""*`},
		{"a AND b", `"a" "AND" "b"*`},
		{"NEAR(a b)", `"NEAR(a" "b)"*`},
		{"*** ^ : ()", ""},
		{"x\x00y", `"x" "y"*`},
		{strings.Repeat("w ", 100), strings.Repeat(`"w" `, maxQueryWords-1) + `"w"*`},
	}
	for _, tt := range tests {
		t.Run(searchShort(tt.in), func(t *testing.T) {
			if got := ftsQuery(tt.in); got != tt.want {
				t.Fatalf("ftsQuery(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestBalanceHighlights(t *testing.T) {
	t.Parallel()
	const s, e = HighlightStart, HighlightEnd
	tests := []struct{ name, in, want string }{
		{"plain", "abc", "abc"},
		{"one mark", "a" + s + "b" + e + "c", "a" + s + "b" + e + "c"},
		{"stray end", "a" + e + s + "b" + e, "a" + s + "b" + e},
		{"nested start", s + "a" + s + "b" + e, s + "ab" + e},
		{"unclosed", "a" + s + "b", "a" + s + "b" + e},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := balanceHighlights(tt.in); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSearchFollowsRenameAndDelete(t *testing.T) {
	t.Parallel()
	f := newSearchFixture(t)
	if err := f.db.RenameSession(ctx, f.session.ID, "Pelican plans"); err != nil {
		t.Fatal(err)
	}
	if hits, _ := f.db.Search(ctx, "quarterly", 10); len(hits) != 0 {
		t.Fatalf("the old title is still found: %+v", hits)
	}
	if hits, _ := f.db.Search(ctx, "pelican", 10); len(hits) != 1 || hits[0].SessionTitle != "Pelican plans" {
		t.Fatalf("the new title is not found: %+v", hits)
	}
	if hits, _ := f.db.Search(ctx, "flamingo", 10); len(hits) == 0 || hits[0].SessionTitle != "Pelican plans" {
		t.Fatalf("message hits should carry the new title: %+v", hits)
	}
	if err := f.db.DeleteSession(ctx, f.session.ID); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"pelican", "flamingo", "kumquat", "narwhals"} {
		if hits, err := f.db.Search(ctx, q, 10); err != nil || len(hits) != 0 {
			t.Fatalf("%q after delete: %+v %v", q, hits, err)
		}
	}
}

// TestSearchMarksForks: a fork holds its original's text word for word, so
// its hits name the session it came from, renamed or not; the original's
// do not.
func TestSearchMarksForks(t *testing.T) {
	t.Parallel()
	f := newSearchFixture(t)
	fork, err := f.db.ForkSession(ctx, f.turn.ID)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, rename string
	}{
		{"as forked", ""},
		{"renamed", "Winter birds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rename != "" {
				if err := f.db.RenameSession(ctx, fork.ID, tt.rename); err != nil {
					t.Fatal(err)
				}
			}
			hits, err := f.db.Search(ctx, "flamingo", 10)
			if err != nil {
				t.Fatal(err)
			}
			from := map[string]string{}
			for _, h := range hits {
				from[h.SessionID] = h.ForkedFrom
			}
			if len(from) != 2 || from[fork.ID] != f.session.ID || from[f.session.ID] != "" {
				t.Fatalf("hits %+v: want the fork's marked as from %s, the original's not", hits, f.session.ID)
			}
		})
	}
}

func TestSearchMemoryFindsMessagesOnly(t *testing.T) {
	t.Parallel()
	f := newSearchFixture(t)
	var searcher recall.Searcher = f.db
	tests := []struct {
		name, query string
		want        int
	}{
		{"message", "flamingo", 2},
		{"tool result is not a memory", "narwhals", 0},
		{"tool call is not a memory", "kumquat", 0},
		{"title is not a memory", "quarterly", 0},
		{"no words", `" * (`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mems, err := searcher.SearchMemory(ctx, tt.query, 5)
			if err != nil {
				t.Fatal(err)
			}
			if len(mems) != tt.want {
				t.Fatalf("%d memories, want %d: %+v", len(mems), tt.want, mems)
			}
			for _, m := range mems {
				if m.SessionID != f.session.ID || m.SessionTitle != f.session.Title || m.At.IsZero() {
					t.Fatalf("memory %+v", m)
				}
				if strings.ContainsAny(m.Excerpt, HighlightStart+HighlightEnd) || !strings.Contains(m.Excerpt, "flamingo") {
					t.Fatalf("excerpt %q", m.Excerpt)
				}
			}
		})
	}
}

func TestSearchCancelled(t *testing.T) {
	t.Parallel()
	f := newSearchFixture(t)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.db.Search(cctx, "flamingo", 10); apperr.CodeOf(err) != apperr.Cancelled {
		t.Fatalf("a cancelled search gave %v", err)
	}
}

// FuzzSearch checks that no text makes Search fail. The seeds run with
// every go test; go test -fuzz=FuzzSearch explores further.
func FuzzSearch(f *testing.F) {
	db, err := Open(ctx, f.TempDir()+"/fuzz.db", Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	if _, err := db.CreateSession(ctx, Session{Title: "fuzzing flamingo"}); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"", `"`, "a OR b", "NEAR(a b, 2)", "x*", "^x", "text:x", "(((", `"a" "b"`, "\x00", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if _, err := db.Search(ctx, q, 5); err != nil {
			t.Fatalf("Search(%q): %v", q, err)
		}
	})
}
