package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/export/foreign"
)

// foreignFile is a file of export/foreign's testdata (sources and
// licences in its SOURCES.md).
func foreignFile(name string) string {
	return filepath.Join("..", "export", "foreign", "testdata", name)
}

// TestSessionsImportForeign: `sessions import` takes another app's
// history, says what it took and left out (--json: the report), refuses a
// broken file naming the place with nothing written, and Replay of an
// imported turn says why it cannot run.
func TestSessionsImportForeign(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "agentdeck.db")
	e := agentdeck(t, db, "", nil, nil, "sessions", "import", foreignFile("chatgpt_edge.json"))
	if e.code != ExitOK || !strings.Contains(e.stdout, "imported 1 conversation from ChatGPT (3 turns, 2 branches)") ||
		!strings.Contains(e.stdout, "left out: 1 browsing result, 1 code interpreter output, 1 image not in the file, 1 reasoning block") {
		t.Fatalf("exit %d\n%s%s", e.code, e.stdout, e.stderr)
	}

	e = agentdeck(t, db, "", nil, nil, "sessions", "import", foreignFile("openai_cookbook_toy_chat.jsonl"), "--json")
	var rep foreign.FileReport
	if err := json.Unmarshal([]byte(e.stdout), &rep); err != nil || e.code != ExitOK {
		t.Fatalf("exit %d, %v\n%s%s", e.code, err, e.stdout, e.stderr)
	}
	if rep.App != foreign.OpenAI || len(rep.Conversations) != 4 || rep.Conversations[1].Turns != 4 || rep.Conversations[1].SessionID == "" {
		t.Fatalf("report %+v", rep)
	}

	before := sessionCount(t, db)
	e = agentdeck(t, db, "", nil, nil, "sessions", "import", foreignFile("chatgpt_broken_parts.json"))
	if e.code != ExitUsage || !strings.Contains(e.stderr, "chatgpt_broken_parts.json[1].mapping.y.message.content.parts is a number") ||
		!strings.Contains(e.stderr, "Nothing was imported") {
		t.Fatalf("broken file: exit %d\n%s%s", e.code, e.stdout, e.stderr)
	}
	if after := sessionCount(t, db); after != before || before != 5 {
		t.Fatalf("%d sessions after the refused import, %d before (want 5)", after, before)
	}

	show := agentdeck(t, db, "", nil, nil, "sessions", "show", rep.Conversations[0].SessionID, "--json")
	var out struct {
		Session struct {
			ActiveTurnID string `json:"active_turn_id"`
		} `json:"session"`
	}
	sess := &out.Session
	if err := json.Unmarshal([]byte(show.stdout), &out); err != nil || sess.ActiveTurnID == "" {
		t.Fatalf("show: %v\n%s%s", err, show.stdout, show.stderr)
	}
	e = agentdeck(t, db, "", nil, nil, "replay", sess.ActiveTurnID)
	if e.code == ExitOK || !strings.Contains(e.stderr, "was imported from OpenAI messages: it has no recorded model calls to replay") {
		t.Fatalf("replay of an imported turn: exit %d\n%s%s", e.code, e.stdout, e.stderr)
	}
}

func sessionCount(t *testing.T, db string) int {
	t.Helper()
	e := agentdeck(t, db, "", nil, nil, "sessions", "list", "--json")
	var list struct {
		Sessions []json.RawMessage `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(e.stdout), &list); err != nil {
		t.Fatalf("sessions list: %v\n%s%s", err, e.stdout, e.stderr)
	}
	return len(list.Sessions)
}
