package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// Salvage copies what is still readable of a damaged database into a new
// file. Each table is read row by row in key order (rowid, or for the
// WITHOUT ROWID tables their primary key); where a read meets an
// unreadable page, the walk looks for the first key past it that can be
// read and goes on from there, so one damaged page loses only the rows on
// it. The new file is made by Open, with the current schema; rows keep
// their ids. What refers to a lost row is handled so the copy is
// consistent:
//
//   - a turn whose session was lost gets a placeholder session titled
//     "Recovered session";
//   - a turn whose own row was lost but whose messages were read is made
//     again from them (its question, its answer, state failed, with a
//     note), at its place in the session when the gap in turn numbers
//     says where;
//   - any other row whose parent was lost (an event of a turn with
//     neither row nor messages, a recording link to a lost recording) is
//     dropped and counted.
//
// The search index is not copied: it is built again from the copied
// titles and messages.

// SalvageReport says what a salvage read, copied and lost.
type SalvageReport struct {
	Source string         `json:"source"`
	Out    string         `json:"out"`
	Tables []SalvageTable `json:"tables"`
	// PlaceholderSessions were made for turns whose session was lost.
	PlaceholderSessions int `json:"placeholder_sessions"`
	// RecoveredTurns were made again from their messages.
	RecoveredTurns int `json:"recovered_turns"`
	// SearchEntries is the size of the rebuilt search index.
	SearchEntries int64 `json:"search_entries"`
	// Complete: every row was read and copied; nothing was lost.
	Complete bool `json:"complete"`
}

// SalvageTable is one table's part of a salvage.
type SalvageTable struct {
	Name string `json:"name"`
	// Read rows of the source; Copied into the new file; Dropped: read but
	// not copied, because a row they refer to was lost.
	Read    int64 `json:"read"`
	Copied  int64 `json:"copied"`
	Dropped int64 `json:"dropped"`
	// Lost rows could not be read. LostCount says how sure the number is:
	// "exact" (an index of the table still counts its rows), "at_least"
	// (from the gaps in sequence numbers) or "unknown".
	Lost      int64  `json:"lost"`
	LostCount string `json:"lost_count"`
	// Unreadable is how many unreadable stretches the walk stepped over.
	Unreadable int `json:"unreadable_stretches"`
	// Affected lists, for a table keyed by turn (events), the turns some
	// or all of whose rows may have been lost.
	Affected []string `json:"affected_turns,omitempty"`
}

// Salvage copies everything readable of db into a new database at out,
// which must not exist. db is best opened with OpenReadOnly.
func (db *DB) Salvage(ctx context.Context, out string) (SalvageReport, error) {
	rep := SalvageReport{Source: db.path, Tables: []SalvageTable{}}
	if strings.TrimSpace(out) == "" {
		return rep, apperr.New(apperr.Invalid, "Choose a file to write the salvaged database to.")
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return rep, apperr.Wrap(err, apperr.Invalid, "The path %s is not usable.", out)
	}
	rep.Out = abs
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return rep, fileError(err, "creating the folder for "+abs)
	}
	// O_EXCL: never overwrite, not even a file made since a check.
	f, err := os.OpenFile(abs, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return rep, apperr.Wrap(err, apperr.Conflict,
			"%s already exists. Agentdeck never overwrites a file with a salvage: choose a new name or move the old file away.", abs)
	}
	if err != nil {
		return rep, fileError(err, "creating "+abs)
	}
	f.Close()
	dst, err := Open(ctx, abs, Options{})
	if err != nil {
		removeDB(abs)
		return rep, err
	}
	s := &salvager{src: db, dst: dst, rep: &rep, sessions: map[string]bool{}, turns: map[string]turnKey{}, orphanMsgs: map[string][][]any{}}
	err = s.run(ctx)
	if cerr := dst.Close(); err == nil && cerr != nil {
		err = writeError(cerr, "closing "+abs)
	}
	if err != nil {
		removeDB(abs)
		if ctx.Err() != nil {
			return rep, apperr.Wrap(err, apperr.Cancelled, "The salvage was cancelled; the partial file %s was removed.", abs)
		}
		return rep, err
	}
	rep.Complete = true
	for _, t := range rep.Tables {
		if t.Unreadable > 0 || t.Dropped > 0 || t.Lost != 0 {
			rep.Complete = false
		}
	}
	return rep, nil
}

// fileError names a file system failure: a full disk, a permission.
func fileError(err error, doing string) error {
	switch {
	case IsDiskFull(err):
		return apperr.Wrap(err, apperr.Unavailable, "%s failed: the disk is full. Free some space or choose another place", capitalize(doing))
	case errors.Is(err, fs.ErrPermission):
		return apperr.Wrap(err, apperr.Unavailable, "%s failed: permission denied. Choose a folder you can write to", capitalize(doing))
	}
	return apperr.Wrap(err, apperr.Unavailable, "%s failed: %v", capitalize(doing), err)
}

func removeDB(path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		_ = os.Remove(p)
	}
}

// salvageFirst are copied first, in this order, so parents come before
// the rows that refer to them; other tables follow by name.
var salvageFirst = []string{"app_meta", "settings", "providers", "projects", "sessions", "turns", "messages", "images", "events",
	"stages", "model_calls", "tool_calls", "recordings", "turn_calls", "attachments", "approvals", "eval_runs", "eval_results"}

// salvageSkip is not copied: the new file has its own migrations and
// AUTOINCREMENT counters, the search index is rebuilt, and the passages'
// index is filled by its triggers as the passages are copied.
func salvageSkip(name string) bool {
	return strings.HasPrefix(name, "sqlite_") || name == "schema_migrations" || name == "search" || strings.HasPrefix(name, "search_") ||
		strings.HasPrefix(name, "passages_fts")
}

type turnKey struct {
	session string
	seq     int64
}

type salvager struct {
	src *DB
	dst *DB
	rep *SalvageReport
	// sessions and turns are the rows copied so far (turns with their
	// session and number).
	sessions map[string]bool
	turns    map[string]turnKey
	// orphanMsgs are messages whose turn's row was lost, by turn.
	orphanMsgs map[string][][]any
	w          *batchWriter
}

type srcTable struct {
	name      string
	withoutID bool
}

func (s *salvager) run(ctx context.Context) error {
	tables, err := s.tables(ctx)
	if err != nil {
		return err
	}
	s.w = &batchWriter{db: s.dst}
	for _, t := range tables {
		if err := s.copyTable(ctx, t); err != nil {
			s.w.rollback()
			return err
		}
	}
	if err := s.w.commit(); err != nil {
		return err
	}
	// The copied counts were the old file's, and the triggers counted the
	// sessions again as they were copied: count what is here.
	if _, err := s.dst.writer.ExecContext(ctx, `UPDATE projects SET session_count = (SELECT COUNT(*) FROM sessions s WHERE s.project_id = projects.id)`); err != nil {
		return writeError(err, "counting the projects' sessions")
	}
	return s.rebuildSearch(ctx)
}

// tables lists the source's tables that the new file has too, parents
// first.
func (s *salvager) tables(ctx context.Context) ([]srcTable, error) {
	rows, err := s.src.reader.QueryContext(ctx, `SELECT name, COALESCE(sql, '') FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Damaged,
			"The list of tables of %s cannot be read: nothing in it can be salvaged. Restore a backup if you have one.", s.src.path)
	}
	defer rows.Close()
	var all []srcTable
	for rows.Next() {
		var t srcTable
		var ddl string
		if err := rows.Scan(&t.name, &ddl); err != nil {
			return nil, readError(err, "reading the list of tables")
		}
		t.withoutID = strings.Contains(strings.ToUpper(ddl), "WITHOUT ROWID")
		if !salvageSkip(t.name) {
			all = append(all, t)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, readError(err, "reading the list of tables")
	}
	rank := func(name string) int {
		if i := slices.Index(salvageFirst, name); i >= 0 {
			return i
		}
		return len(salvageFirst)
	}
	sort.Slice(all, func(i, j int) bool {
		ri, rj := rank(all[i].name), rank(all[j].name)
		if ri != rj {
			return ri < rj
		}
		return all[i].name < all[j].name
	})
	return all, nil
}

func (s *salvager) copyTable(ctx context.Context, t srcTable) error {
	cols, err := s.commonColumns(ctx, t.name)
	if err != nil {
		return err
	}
	if len(cols) == 0 {
		return nil // not a table of the current schema (an old one a migration dropped)
	}
	st := SalvageTable{Name: t.name, LostCount: "exact"}
	insert := fmt.Sprintf(`INSERT INTO %s (%s) VALUES (%s)`, quoteIdent(t.name), joinIdents(cols), strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", "))
	idx := func(name string) int { return slices.Index(cols, name) }
	row := func(vals []any) error {
		st.Read++
		ok, err := s.copyRow(ctx, t.name, insert, cols, idx, vals)
		if err != nil {
			return err
		}
		if ok {
			st.Copied++
		} else if t.name != "messages" || !s.bufferedOrphan(vals, idx) {
			st.Dropped++
		}
		return nil
	}
	w := walker{src: s.src, table: t.name, cols: cols, st: &st}
	switch {
	case !t.withoutID:
		err = w.byRowid(ctx, row)
	default:
		k1, k2, ok := s.pairKey(ctx, t.name)
		if !ok {
			err = w.scan(ctx, row)
			break
		}
		w.keys = [2]string{k1, k2}
		w.parents = s.turnIDs()
		if t.name == "events" {
			w.firstK2 = &eventsFirstSeq
		}
		err = w.byPair(ctx, row)
	}
	if err != nil {
		return err
	}
	if t.name == "messages" {
		if err := s.recoverTurns(ctx, insert, cols, idx, &st); err != nil {
			return err
		}
	}
	s.countLost(ctx, t, &st)
	s.rep.Tables = append(s.rep.Tables, st)
	return nil
}

// copyRow writes one row, making what it refers to when it was lost. It
// reports false for a row that is not copied.
func (s *salvager) copyRow(ctx context.Context, table, insert string, cols []string, idx func(string) int, vals []any) (bool, error) {
	switch table {
	case "sessions":
		ok, err := s.w.insert(ctx, insert, vals)
		if ok {
			s.sessions[str(vals[idx("id")])] = true
		}
		return ok, err
	case "turns":
		session := str(vals[idx("session_id")])
		if err := s.ensureSession(ctx, session, str(vals[idx("started_at")])); err != nil {
			return false, err
		}
		ok, err := s.w.insert(ctx, insert, vals)
		if ok {
			s.turns[str(vals[idx("id")])] = turnKey{session: session, seq: num(vals[idx("seq")])}
		}
		return ok, err
	case "messages":
		if _, ok := s.turns[str(vals[idx("turn_id")])]; !ok {
			return false, nil // kept aside for recoverTurns
		}
	}
	return s.w.insert(ctx, insert, vals)
}

// countLost compares what was read with what the table's indexes count.
func (s *salvager) countLost(ctx context.Context, t srcTable, st *SalvageTable) {
	if st.Unreadable == 0 {
		st.Lost, st.LostCount = 0, "exact"
		return
	}
	var n int64
	// COUNT(*) reads the smallest index of the table, whose pages are
	// not the damaged ones; with no index it reads the table and fails.
	if err := s.src.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+quoteIdent(t.name)).Scan(&n); err == nil && n >= st.Read {
		st.Lost, st.LostCount = n-st.Read, "exact"
		return
	}
	if st.LostCount != "at_least" {
		st.Lost, st.LostCount = 0, "unknown"
	}
}

// rebuildSearch fills the new file's search index from the copied
// session titles and messages, as CreateSession and FinishTurn do.
func (s *salvager) rebuildSearch(ctx context.Context) error {
	err := s.dst.tx(ctx, "rebuilding the search index", func(tx *sql.Tx) error {
		for _, q := range []string{
			`INSERT INTO search (text, kind, session_id, turn_id) SELECT title, 'title', id, '' FROM sessions`,
			`INSERT INTO search (text, kind, session_id, turn_id)
				SELECT content, CASE role WHEN 'tool' THEN 'tool_result' ELSE 'message' END, session_id, turn_id
				FROM messages WHERE content != '' AND role != 'system' ORDER BY id`,
			`INSERT INTO search (text, kind, session_id, turn_id)
				SELECT COALESCE(json_extract(tc.value, '$.name'), '') || ' ' || COALESCE(json_extract(tc.value, '$.arguments'), ''), 'tool_call', m.session_id, m.turn_id
				FROM messages m, json_each(CASE WHEN json_valid(m.extra) THEN m.extra ELSE '{}' END, '$.tool_calls') tc ORDER BY m.id`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM search`).Scan(&s.rep.SearchEntries)
	})
	return err
}

// eventsFirstSeq is the seq of a turn's first event (the Emitter counts
// from 1).
var eventsFirstSeq int64 = 1
