package store

import (
	"bytes"
	"errors"
	"maps"
	"path/filepath"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/export/exporttest"
)

// FuzzImport feeds arbitrary bytes to Import. It must never panic; a file
// it refuses must leave every table exactly as it was (no partial session)
// and say why with an *apperr.Error that is not an internal error (a bad
// file is the user's to fix); a file it accepts must give a session that
// exports, and whose export imports again.
//
// The seeds are real exports (the rich fixture of export_test.go) and
// exports damaged so that the failure comes late: after turns were already
// written inside the transaction.
func FuzzImport(f *testing.F) {
	db, err := Open(ctx, filepath.Join(f.TempDir(), "fuzz.db"), Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })

	for _, mutate := range []func(*export.Document){
		func(*export.Document) {},
		func(d *export.Document) { d.Turns[2].Seq = d.Turns[0].Seq },                      // a repeated turn number, found at turn 3
		func(d *export.Document) { d.Turns[3].ID = d.Turns[1].ID },                        // a repeated turn id, found at turn 4
		func(d *export.Document) { d.Turns[2].Messages[0].Role = "robot" },                // an unknown role, found at turn 3
		func(d *export.Document) { d.Turns[3].Events[1].Seq = d.Turns[3].Events[0].Seq },  // events out of order in the last turn
		func(d *export.Document) { d.Turns[1].Stages[1].ID = d.Turns[1].Stages[0].ID },    // a repeated stage id
		func(d *export.Document) { d.Turns[0].Events[0].TurnID = "someone-else" },         // an event of another turn
		func(d *export.Document) { d.Captures = []export.Capture{{Key: "", Model: "m"}} }, // a capture with no key, after every turn
		func(d *export.Document) {
			d.Captures = []export.Capture{{Key: "k", Turns: []string{"turn-1", "turn-1"}}}
		},
		func(d *export.Document) { d.Version = export.Version + 1 },
		func(d *export.Document) { d.Session.ID = "" },
		func(d *export.Document) { d.Turns[0].State = export.StateRunning; d.Turns[0].CompletedAt = nil },
	} {
		doc := exporttest.Fixture()
		mutate(&doc)
		var buf bytes.Buffer
		if err := export.Encode(&buf, &doc); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
		if b := buf.Bytes(); len(b) > 2000 {
			f.Add(b[:len(b)/2]) // cut short
		}
	}
	for _, s := range []string{"", "{}", "[]", "null", `{"format":"agentdeck-session"}`, `{"format":"agentdeck-session","version":1}`,
		`{"format":"agentdeck-session","version":1,"session":{"id":"s"},"turns":[{"id":"t","seq":1,"state":"completed"}]}`,
		`{"format":"agentdeck-session","version":1,"session":{"id":"s"},"turns":[{"id":"t","seq":1,"state":"completed"},{"id":"t","seq":2,"state":"completed"}]}`,
		`{"format":"agentdeck-session","version":1,"session":{"id":"s2"},"turns":[],"captures":[{"key":"k","request":{"a":1},"chunks":"x"}]}`,
		`{"format":"agentdeck-session","version":1,"session":{"id":"s3","settings":[1,2]},"turns":[{"id":"t3","seq":1,"state":"failed","termination":"x","result":7}]}`,
		`{"version":2,"format":"other"}`, `{"format":"agentdeck-session","version":1} {}`,
	} {
		f.Add([]byte(s))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		before := fuzzRowCounts(t, db)
		s, err := db.Import(ctx, bytes.NewReader(data))
		if err != nil {
			if after := fuzzRowCounts(t, db); !maps.Equal(before, after) {
				t.Fatalf("a refused import (%v) changed the database:\nbefore %v\nafter  %v", err, before, after)
			}
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Message == "" || ae.Code == apperr.Internal {
				t.Fatalf("a refused import must say why, as the user's problem: %T %v (code %s)", err, err, apperr.CodeOf(err))
			}
			return
		}
		if _, err := db.GetSession(ctx, s.ID); err != nil {
			t.Fatalf("the imported session %s cannot be read: %v", s.ID, err)
		}
		var out bytes.Buffer
		if err := export.Write(ctx, db, s.ID, export.JSON, &out, export.Options{Captures: true}); err != nil {
			t.Fatalf("the imported session cannot be exported: %v", err)
		}
		if _, err := db.Import(ctx, bytes.NewReader(out.Bytes())); err != nil {
			t.Fatalf("the export of an imported session does not import again: %v\ninput  %q\nexport %s", err, data, out.Bytes())
		}
	})
}

// fuzzRowCounts counts the rows of every table, the search index's
// internal tables included.
func fuzzRowCounts(t *testing.T, db *DB) map[string]int {
	t.Helper()
	rows, err := db.reader.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	out := map[string]int{}
	for _, name := range tables {
		var n int
		if err := db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM "`+name+`"`).Scan(&n); err != nil {
			t.Fatalf("counting %s: %v", name, err)
		}
		out[name] = n
	}
	return out
}
