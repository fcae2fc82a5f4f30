package store

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
)

// stepSeeds put a little data, in raw SQL, into the tables that migration
// number v creates. Every migration needs an entry (nil when it creates no
// table), so whoever adds one decides what data must survive the later
// ones.
var stepSeeds = map[int]func(t *testing.T, db *sql.DB){
	1: func(t *testing.T, db *sql.DB) {
		stepExec(t, db, `INSERT INTO app_meta (key, value) VALUES ('installed', '2024-01-02')`)
	},
	2: func(t *testing.T, db *sql.DB) {
		const at = "2024-01-02T03:04:05Z"
		for _, q := range []string{
			`INSERT INTO sessions (id, title, created_at, updated_at, model) VALUES ('step-s', 'Stepping stones', '` + at + `', '` + at + `', 'm')`,
			`INSERT INTO turns (id, session_id, seq, user_message, state, started_at, completed_at, final_text, outcome, result)
				VALUES ('step-t', 'step-s', 1, 'where is the stepword?', 'completed', '` + at + `', '` + at + `', 'here', 'succeeded', '{"plan_steps":[{"title":"look"}]}')`,
			`INSERT INTO messages (session_id, turn_id, idx, role, content) VALUES
				('step-s', 'step-t', 0, 'user', 'where is the stepword?'), ('step-s', 'step-t', 1, 'assistant', 'here')`,
			`INSERT INTO search (text, kind, session_id, turn_id) VALUES
				('where is the stepword?', 'message', 'step-s', 'step-t'), ('here', 'message', 'step-s', 'step-t'), ('Stepping stones', 'title', 'step-s', '')`,
			`INSERT INTO events (turn_id, seq, id, stage_id, parent_id, at, type, phase, checkpoint, data) VALUES
				('step-t', 1, 'e1', '', '', '` + at + `', 'turn_started', 'start', 1, '{}'),
				('step-t', 2, 'e2', '', '', '` + at + `', 'token', 'progress', 0, '{"text":"here"}')`,
			`INSERT INTO stages (id, turn_id, idx, name, agent, phase, outcome, termination, diagnostics) VALUES ('step-t', 'step-t', 0, 'chat', 'assistant', 'end', 'succeeded', '{}', '{}')`,
			`INSERT INTO model_calls (turn_id, stage_id, idx, model, started_at, duration_ms, ttft_ms, input_tokens, output_tokens, cached_tokens, reasoning_tokens, estimated, ok, error)
				VALUES ('step-t', 'step-t', 0, 'm', '` + at + `', 10, 5, 3, 4, 0, 0, 0, 1, '')`,
			`INSERT INTO tool_calls VALUES ('step-t', 'step-t', 'c1', 'read_file', '{}', 10, '` + at + `', 1, 1, '')`,
			`INSERT INTO captures VALUES ('k1', 'm', '{}', '[]', '{}', '` + at + `')`,
			`INSERT INTO capture_refs VALUES ('k1', 'step-t')`,
			`INSERT INTO attachments (id, session_id, name, path, size, sha256, created_at) VALUES ('step-a', 'step-s', 'a.csv', '', 1, '', '` + at + `')`,
			`INSERT INTO approvals (session_id, turn_id, call_id, tool, args, guard, answer, at) VALUES ('step-s', 'step-t', 'c1', 'write_file', '{}', 'side_effects', 'deny', '` + at + `')`,
			`INSERT INTO settings VALUES ('theme', '"dark"')`,
			`INSERT INTO providers VALUES ('ollama', '{"name":"ollama","kind":"ollama","base_url":"http://127.0.0.1:11434/v1","local":true,"needs_key":false}')`,
		} {
			if strings.Contains(q, " captures ") || strings.Contains(q, " capture_refs ") {
				// Gone from version 4 on (stepMoved): seeded only before it.
				var n int
				if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_schema WHERE name = 'captures'`).Scan(&n); err != nil || n == 0 {
					continue
				}
			}
			stepExec(t, db, q)
		}
	},
	3: nil, // indexes only
	4: func(t *testing.T, db *sql.DB) {
		const at = "2024-02-03T04:05:06Z"
		stepExec(t, db, `INSERT INTO recordings (key, model, request, chunks, response, recorded_at) VALUES ('k2', 'm', '{}', '[]', '{}', '`+at+`')`)
		stepExec(t, db, `INSERT INTO turn_calls (turn_id, idx, recording_id) SELECT 'step-t', 1, id FROM recordings WHERE key = 'k2'`)
	},
	5: func(t *testing.T, db *sql.DB) {
		// The version 2 turn, on the active branch it starts.
		stepExec(t, db, `UPDATE sessions SET active_turn_id = 'step-t' WHERE id = 'step-s'`)
	},
	6: nil, // a column only; the turns before it continue nothing
	7: func(t *testing.T, db *sql.DB) {
		const at = "2024-03-04T05:06:07Z"
		stepExec(t, db, `INSERT INTO images (id, session_id, turn_id, mime, size, sha256, data, created_at) VALUES ('step-i', 'step-s', 'step-t', 'image/png', 3, 'abc', X'89504E', '`+at+`')`)
	},
	8: nil, // a column only; the rows before it are runs of one event
	9: nil, // a column only; the turns before it are indexed already
	10: func(t *testing.T, db *sql.DB) {
		const at = "2024-04-05T06:07:08Z"
		stepExec(t, db, `UPDATE model_calls SET provider = 'work', price = '{"input_per_m":1,"output_per_m":2,"source":"user"}', cost_usd = 0.000011 WHERE turn_id = 'step-t'`)
		stepExec(t, db, `INSERT INTO model_info (provider, model, window_tokens, price, read_at) VALUES ('work', 'm', 32768, '', '`+at+`')`)
	},
	11: func(t *testing.T, db *sql.DB) {
		const at = "2024-05-06T07:08:09Z"
		stepExec(t, db, `INSERT INTO eval_runs (id, suite_name, suite, state, started_at, ended_at) VALUES ('step-r', 'smoke', '{"name":"smoke"}', 'completed', '`+at+`', '`+at+`')`)
		stepExec(t, db, `INSERT INTO eval_results (id, run_id, case_id, model, repeat, session_id, turn_id, state, score, outcomes, started_at, ended_at)
			VALUES ('step-er', 'step-r', 'case-1', 'work/m', 1, 'step-s', 'step-t', 'passed', 1, '[{"kind":"contains","passed":true,"score":1,"reason":""}]', '`+at+`', '`+at+`')`)
	},
	12: nil, // a column only; the one turn seeded before it is its own, not a copy
	13: func(t *testing.T, db *sql.DB) {
		const at = "2024-06-07T08:09:10Z"
		stepExec(t, db, `INSERT INTO projects (id, name, created_at, updated_at, settings) VALUES ('step-p', 'Research', '`+at+`', '`+at+`', '{"instructions":"Be brief."}')`)
		stepExec(t, db, `UPDATE sessions SET project_id = 'step-p', pinned_at = '`+at+`' WHERE id = 'step-s'`)
		stepExec(t, db, `INSERT INTO session_tags (session_id, tag) VALUES ('step-s', 'work')`)
		stepExec(t, db, `INSERT INTO prompts (id, project_id, name, body, created_at, updated_at) VALUES ('step-pr', 'step-p', 'summary', 'Sum up {{text}}', '`+at+`', '`+at+`')`)
	},
	14: func(t *testing.T, db *sql.DB) {
		const at = "2024-07-08T09:10:11Z"
		stepExec(t, db, `INSERT INTO documents (id, project_id, name, kind, version, size, pages, created_at) VALUES ('step-d', 'step-p', 'report.pdf', 'pdf', 'abc', 10, 2, '`+at+`')`)
		stepExec(t, db, `INSERT INTO passages (document_id, ord, page, heading, text) VALUES ('step-d', 0, 2, 'Results', 'Revenue grew.')`)
	},
	15: func(t *testing.T, db *sql.DB) {
		const at = "2024-08-09T10:11:12Z"
		stepExec(t, db, `INSERT INTO turn_groups (id, session_id, blind, created_at) VALUES ('step-g', 'step-s', 1, '`+at+`')`)
		stepExec(t, db, `UPDATE turns SET group_id = 'step-g', target = 'work · m' WHERE id = 'step-t'`)
		stepExec(t, db, `INSERT INTO votes (id, group_id, outcome, note, blind, created_at) VALUES ('step-v', 'step-g', 'tie', 'both fine', 1, '`+at+`')`)
	},
	16: func(t *testing.T, db *sql.DB) {
		stepExec(t, db, `UPDATE turns SET from_turn_id = 'step-t', from_step = 'tool1', from_edit = 'tool_result' WHERE id = 'step-t'`)
	},
	17: func(t *testing.T, db *sql.DB) {
		const at = "2024-09-10T11:12:13Z"
		stepExec(t, db, `INSERT INTO reviews (id, turn_id, step, thumb, score, labels, note, created_at, updated_at)
			VALUES ('step-r', 'step-t', 'tool1', -1, 2, '["wrong tool"]', 'asked twice', '`+at+`', '`+at+`')`)
		stepExec(t, db, `INSERT INTO review_labels (review_id, label) VALUES ('step-r', 'wrong tool')`)
	},
}

// stepMoved are tables a later migration replaced; the data in them is
// checked where it moved to (stepCheckThroughAPI), not row by row.
var stepMoved = map[string]int{"captures": 4, "capture_refs": 4}

func TestMigrationStepsKeepData(t *testing.T) {
	t.Parallel()
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if _, ok := stepSeeds[m.version]; !ok {
			t.Fatalf("stepSeeds has no entry for %s: add the data it must keep (or nil)", m.name)
		}
	}
	for k := 1; k < len(ms); k++ {
		t.Run(fmt.Sprintf("from version %d", k), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "old.db")
			old, err := sql.Open("sqlite", dsn(path, false))
			if err != nil {
				t.Fatal(err)
			}
			fsys := fstest.MapFS{}
			for _, m := range ms[:k] {
				fsys["migrations/"+m.name] = &fstest.MapFile{Data: []byte(m.sql)}
			}
			if err := migrate(ctx, old, fsys); err != nil {
				t.Fatal(err)
			}
			for v := 1; v <= k; v++ {
				if seed := stepSeeds[v]; seed != nil {
					seed(t, old)
				}
			}
			before := stepSnapshot(t, old, nil)
			cols := stepColumns(t, old, before)
			old.Close()

			db, err := Open(ctx, path, Options{})
			if err != nil {
				t.Fatalf("opening a version %d database: %v", k, err)
			}
			defer db.Close()
			if v, _ := db.SchemaVersion(ctx); v != len(ms) {
				t.Fatalf("version %d after Open, want %d", v, len(ms))
			}
			// Columns a later migration added are not part of the old data.
			after := stepSnapshotColumns(t, db.reader, cols)
			for table, rows := range before {
				if v, moved := stepMoved[table]; moved && v > k {
					continue
				}
				if !reflect.DeepEqual(rows, after[table]) {
					t.Errorf("table %s changed:\nbefore %v\nafter  %v", table, rows, after[table])
				}
			}
			if k >= 2 {
				stepCheckThroughAPI(t, db, k)
			}
			if rep, err := db.Check(ctx); err != nil || !rep.OK {
				t.Fatalf("Check after migrating: %+v %v", rep, err)
			}
		})
	}
}

// stepCheckThroughAPI reads the version 2 seed back the way the app does,
// from a database that was at version k.
func stepCheckThroughAPI(t *testing.T, db *DB, k int) {
	t.Helper()
	if s, err := db.GetSession(ctx, "step-s"); err != nil || s.Title != "Stepping stones" || s.Turns != 1 {
		t.Fatalf("session %+v %v", s, err)
	}
	d, err := db.GetTurn(ctx, "step-t", true)
	if err != nil || len(d.Messages) != 2 || len(d.Events) != 2 || len(d.Stages) != 1 || len(d.Plan) != 1 {
		t.Fatalf("turn %+v %v", d, err)
	}
	if hits, err := db.Search(ctx, "stepword", 5); err != nil || len(hits) != 1 || hits[0].TurnSeq != 1 {
		t.Fatalf("search %+v %v", hits, err)
	}
	if ps, err := db.ListProviders(ctx); err != nil || len(ps) != 1 || ps[0].Name != "ollama" {
		t.Fatalf("providers %+v %v", ps, err)
	}
	var theme string
	if found, err := db.getSetting(ctx, "theme", &theme); !found || err != nil || theme != "dark" {
		t.Fatalf("setting %q %v %v", theme, found, err)
	}
	var attachments int
	if err := db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM attachments WHERE session_id = ?`, "step-s").Scan(&attachments); err != nil || attachments != 1 {
		t.Fatalf("attachments %d %v", attachments, err)
	}
	if as, err := db.ListApprovals(ctx, "step-t"); err != nil || len(as) != 1 || as[0].Answer != "deny" {
		t.Fatalf("approvals %+v %v", as, err)
	}
	// Version 2's capture is the turn's first recorded call (seeded only
	// before version 4 replaced captures).
	if c, err := db.TurnRecordings("step-t").TurnCall(ctx, 0); k < 4 && (err != nil || c == nil || c.Key != "k1") {
		t.Fatalf("the turn's first recorded call: %+v %v", c, err)
	}
	// Version 5: the session's one turn is its first message and its
	// active turn.
	if s, _ := db.GetSession(ctx, "step-s"); s.ActiveTurnID != "step-t" {
		t.Fatalf("active turn %q, want step-t", s.ActiveTurnID)
	}
	if d, _ := db.GetTurn(ctx, "step-t", false); d.ParentTurnID != "" {
		t.Fatalf("the first turn follows %q", d.ParentTurnID)
	}
}

func TestReopenAtLatestVersionChangesNothing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "latest.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, db, "settled")
	storeTurn(t, db, s.ID, "question", "answer")
	db.setSetting(ctx, "theme", "dark")
	if err := db.IndexPending(ctx); err != nil { // the turn's search entries, written after it
		t.Fatal(err)
	}
	before := stepSnapshot(t, db.reader, nil)
	db.Close()
	fileBefore := readDBFile(t, path)

	for i := range 2 {
		db, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatalf("reopen #%d: %v", i+1, err)
		}
		after := stepSnapshot(t, db.reader, nil)
		db.Close()
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("reopen #%d changed the data:\nbefore %v\nafter  %v", i+1, before, after)
		}
		if !bytes.Equal(fileBefore, readDBFile(t, path)) {
			t.Fatalf("reopen #%d changed the file", i+1)
		}
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		if b := readDBFile(t, path+"-wal"); len(b) > 0 {
			t.Fatalf("a %d-byte write-ahead log was left behind", len(b))
		}
	}
}

// stepSnapshot returns every row of every table (schema_migrations, the
// SQLite internals and the search index's shadow tables aside), each row
// formatted and the rows sorted. With only set, it reads just those tables.
func stepSnapshot(t *testing.T, db *sql.DB, only map[string][]string) map[string][]string {
	t.Helper()
	rows, err := db.Query(`SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'virtual')
		AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		rows.Scan(&name)
		if _, ok := only[name]; ok || only == nil {
			tables = append(tables, name)
		}
	}
	rows.Close()
	out := map[string][]string{}
	for _, table := range tables {
		out[table] = stepRows(t, db, table)
	}
	return out
}

// stepColumns returns the columns of each table of snap.
func stepColumns(t *testing.T, db *sql.DB, snap map[string][]string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table := range snap {
		rows, err := db.Query(`SELECT * FROM "` + table + `" LIMIT 0`)
		if err != nil {
			t.Fatal(err)
		}
		out[table], _ = rows.Columns()
		rows.Close()
	}
	return out
}

// stepSnapshotColumns is stepSnapshot of just these tables and columns;
// a table that is gone reads as missing.
func stepSnapshotColumns(t *testing.T, db *sql.DB, cols map[string][]string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table, cs := range cols {
		if _, moved := stepMoved[table]; moved {
			var n int
			db.QueryRow(`SELECT COUNT(*) FROM pragma_table_list WHERE name = ?`, table).Scan(&n)
			if n == 0 {
				continue
			}
		}
		q := `SELECT "` + strings.Join(cs, `", "`) + `" FROM "` + table + `"`
		out[table] = stepQueryRows(t, db, q)
	}
	return out
}

func stepRows(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	return stepQueryRows(t, db, `SELECT * FROM "`+table+`"`)
}

func stepQueryRows(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	out := []string{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		out = append(out, fmt.Sprintf("%#v", vals))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func stepExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}
