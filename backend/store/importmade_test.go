package store

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// madeEvents are a session's artifact and code_run events, in order, as
// type and data (ids differ after an import).
func madeEvents(t *testing.T, db *DB, sessionID string) []string {
	t.Helper()
	page, err := db.ListTurns(ctx, sessionID, Page{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tr := range page.Turns {
		d, err := db.GetTurn(ctx, tr.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range d.Events {
			if e.Type == turn.EventArtifact || e.Type == turn.EventCodeRun {
				out = append(out, string(e.Type)+" "+string(e.Data))
			}
		}
	}
	return out
}

func exportVersioned(t *testing.T, db *DB, sessionID string) ([]byte, int) {
	t.Helper()
	var buf bytes.Buffer
	if err := export.Write(ctx, db, sessionID, export.JSON, &buf, export.Options{}); err != nil {
		t.Fatal(err)
	}
	var head struct{ Version int }
	if err := json.Unmarshal(buf.Bytes(), &head); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), head.Version
}

// A session with artifacts and code runs exports as version 10; its
// import holds the same events, found by search as in the original.
func TestArtifactsRoundTrip(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "Garden")
	storeTurn(t, db, s.ID, "hello", "hi")
	artifactTurn(t, db, s.ID, "lupin")
	want := madeEvents(t, db, s.ID)
	if len(want) != 3 {
		t.Fatalf("%d artifact and code run events stored, want 3", len(want))
	}
	b, v := exportVersioned(t, db, s.ID)
	if v != 10 {
		t.Fatalf("exported as version %d, want 10", v)
	}
	other := mustOpen(t)
	imp, err := other.Import(ctx, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	got := madeEvents(t, other, imp.ID)
	if len(got) != len(want) {
		t.Fatalf("imported %d events, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d imported as\n%s\nwant\n%s", i, got[i], want[i])
		}
	}
	hits, err := other.Search(ctx, "lupin", 10)
	if err != nil || len(hits) != 1 || hits[0].Kind != HitArtifact || hits[0].SessionID != imp.ID {
		t.Fatalf("search of the import: %+v, %v", hits, err)
	}
	if _, v := exportVersioned(t, other, imp.ID); v != 10 {
		t.Fatalf("the import exports as version %d", v)
	}
	// A session without them keeps its older version.
	plain := newSession(t, db, "plain")
	storeTurn(t, db, plain.ID, "hello", "hi")
	if _, v := exportVersioned(t, db, plain.ID); v >= 10 {
		t.Fatalf("a session without artifacts exports as version %d", v)
	}
}

// Files written before artifacts existed still import, with none.
func TestOlderFilesImportWithoutArtifacts(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	for _, name := range []string{"session-v5-f1a3a69.json", "session-v6-562ba66.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		s, err := db.Import(ctx, bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := madeEvents(t, db, s.ID); len(got) != 0 {
			t.Fatalf("%s: %v", name, got)
		}
		if _, v := exportVersioned(t, db, s.ID); v >= 10 {
			t.Fatalf("%s exported again as version %d", name, v)
		}
	}
}
