package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
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
var salvageFirst = []string{"app_meta", "settings", "providers", "sessions", "turns", "messages", "events",
	"stages", "model_calls", "tool_calls", "recordings", "turn_calls", "attachments", "approvals"}

// salvageSkip is not copied: the new file has its own migrations and
// AUTOINCREMENT counters, and the search index is rebuilt.
func salvageSkip(name string) bool {
	return strings.HasPrefix(name, "sqlite_") || name == "schema_migrations" || name == "search" || strings.HasPrefix(name, "search_")
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

// bufferedOrphan keeps a message whose turn's row was lost, for
// recoverTurns; it is counted when that turn is made.
func (s *salvager) bufferedOrphan(vals []any, idx func(string) int) bool {
	if idx("turn_id") < 0 || idx("session_id") < 0 {
		return false
	}
	tr := str(vals[idx("turn_id")])
	s.orphanMsgs[tr] = append(s.orphanMsgs[tr], slices.Clone(vals))
	return true
}

// ensureSession makes a placeholder for a session whose row was lost.
func (s *salvager) ensureSession(ctx context.Context, id, at string) error {
	if s.sessions[id] {
		return nil
	}
	if at == "" {
		at = fmtTime(time.Now())
	}
	ok, err := s.w.insert(ctx, `INSERT INTO sessions (id, title, created_at, updated_at, workflow, settings) VALUES (?, 'Recovered session', ?, ?, 'chat', '{}')`,
		[]any{id, at, at})
	if err != nil {
		return err
	}
	if ok {
		s.sessions[id] = true
		s.rep.PlaceholderSessions++
	}
	return nil
}

// recoverTurns makes again the turns whose row was lost but whose
// messages were read, then copies those messages.
func (s *salvager) recoverTurns(ctx context.Context, insert string, cols []string, idx func(string) int, st *SalvageTable) error {
	ids := make([]string, 0, len(s.orphanMsgs))
	for id := range s.orphanMsgs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		msgs := s.orphanMsgs[id]
		sort.SliceStable(msgs, func(i, j int) bool { return num(msgs[i][idx("idx")]) < num(msgs[j][idx("idx")]) })
		session := str(msgs[0][idx("session_id")])
		var user, answer string
		for _, m := range msgs {
			switch llm.Role(str(m[idx("role")])) {
			case llm.RoleUser:
				if user == "" {
					user = str(m[idx("content")])
				}
			case llm.RoleAssistant:
				if c := str(m[idx("content")]); strings.TrimSpace(c) != "" {
					answer = c
				}
			}
		}
		at := idTime(id)
		if err := s.ensureSession(ctx, session, fmtTime(at)); err != nil {
			return err
		}
		seq := s.seqFor(session, id)
		res := turn.Result{FinalText: answer, Outcome: turn.OutcomeFailed,
			Error: "This turn's record was lost to damage in the database; db salvage made it again from its messages."}
		result, _ := json.Marshal(turn.TurnCompletedData{Result: res})
		ok, err := s.w.insert(ctx, `INSERT INTO turns (id, session_id, seq, user_message, state, started_at, completed_at, final_text, outcome, result)
			VALUES (?, ?, ?, ?, 'failed', ?, ?, ?, 'failed', ?)`, []any{id, session, seq, user, fmtTime(at), fmtTime(at), answer, string(result)})
		if err != nil {
			return err
		}
		if !ok {
			st.Dropped += int64(len(msgs))
			continue
		}
		s.turns[id] = turnKey{session: session, seq: seq}
		s.rep.RecoveredTurns++
		for _, m := range msgs {
			ok, err := s.w.insert(ctx, insert, m)
			if err != nil {
				return err
			}
			if ok {
				st.Copied++
			} else {
				st.Dropped++
			}
		}
	}
	return nil
}

// seqFor numbers a remade turn: turn ids grow with time, so the gap in
// the session's numbers between the copied turns before and after it is
// where it was; without one, it goes last.
func (s *salvager) seqFor(session, id string) int64 {
	var before, after int64 = 0, math.MaxInt64
	used := map[int64]bool{}
	var top int64
	for tid, k := range s.turns {
		if k.session != session {
			continue
		}
		used[k.seq] = true
		top = max(top, k.seq)
		switch {
		case tid < id && k.seq > before:
			before = k.seq
		case tid > id && k.seq < after:
			after = k.seq
		}
	}
	for seq := before + 1; seq < after && seq <= top; seq++ {
		if !used[seq] {
			return seq
		}
	}
	return top + 1
}

// turnIDs lists the copied turns, sorted: where a walk of a table keyed
// by turn can go on after an unreadable page (rows of other turns could
// not be kept anyway).
func (s *salvager) turnIDs() []string {
	ids := make([]string, 0, len(s.turns))
	for id := range s.turns {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
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

// commonColumns are the columns of table in the new file that the source
// has too, in the new file's order.
func (s *salvager) commonColumns(ctx context.Context, table string) ([]string, error) {
	dst, err := tableColumns(ctx, s.dst.reader, table)
	if err != nil {
		return nil, readError(err, "reading the new file's schema")
	}
	src, err := tableColumns(ctx, s.src.reader, table)
	if err != nil {
		return nil, readError(err, "reading the columns of table "+table)
	}
	var out []string
	for _, c := range dst {
		if slices.Contains(src, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

func tableColumns(ctx context.Context, q *sql.DB, table string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// pairKey returns a WITHOUT ROWID table's primary key when it is a text
// and an integer column (events, turn_calls: turn_id and a number).
func (s *salvager) pairKey(ctx context.Context, table string) (string, string, bool) {
	rows, err := s.src.reader.QueryContext(ctx, `SELECT name, type FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk`, table)
	if err != nil {
		return "", "", false
	}
	defer rows.Close()
	var names, types []string
	for rows.Next() {
		var n, t string
		if rows.Scan(&n, &t) != nil {
			return "", "", false
		}
		names, types = append(names, n), append(types, strings.ToUpper(t))
	}
	if len(names) != 2 || types[0] != "TEXT" || types[1] != "INTEGER" {
		return "", "", false
	}
	return names[0], names[1], true
}

// batchWriter inserts into the new file in transactions of a few thousand
// rows.
type batchWriter struct {
	db    *DB
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	n     int
}

const salvageBatch = 2000

// eventsFirstSeq is the seq of a turn's first event (the Emitter counts
// from 1).
var eventsFirstSeq int64 = 1

// insert writes one row and reports whether it was written: false for a
// row a constraint refuses (it refers to a lost row).
func (b *batchWriter) insert(ctx context.Context, q string, args []any) (bool, error) {
	if b.tx == nil {
		tx, err := b.db.writer.BeginTx(ctx, nil)
		if err != nil {
			return false, writeError(err, "writing the salvaged database")
		}
		b.tx, b.stmts = tx, map[string]*sql.Stmt{}
	}
	st := b.stmts[q]
	if st == nil {
		var err error
		if st, err = b.tx.PrepareContext(ctx, q); err != nil {
			return false, writeError(err, "writing the salvaged database")
		}
		b.stmts[q] = st
	}
	if _, err := st.ExecContext(ctx, args...); err != nil {
		if isConstraint(err) {
			return false, nil
		}
		return false, writeError(err, "writing the salvaged database")
	}
	if b.n++; b.n >= salvageBatch {
		return true, b.commit()
	}
	return true, nil
}

func (b *batchWriter) commit() error {
	if b.tx == nil {
		return nil
	}
	tx := b.tx
	b.tx, b.stmts, b.n = nil, nil, 0
	if err := tx.Commit(); err != nil {
		return writeError(err, "writing the salvaged database")
	}
	return nil
}

func (b *batchWriter) rollback() {
	if b.tx != nil {
		_ = b.tx.Rollback()
		b.tx, b.stmts, b.n = nil, nil, 0
	}
}

func isConstraint(err error) bool {
	return err != nil && strings.Contains(err.Error(), "constraint failed")
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func joinIdents(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = quoteIdent(c)
	}
	return strings.Join(q, ", ")
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func num(v any) int64 {
	n, _ := v.(int64)
	return n
}

// idTime is when an id made by turn.NewID (a UUIDv7) was made: its first
// 48 bits are milliseconds since 1970. Other ids give the present.
func idTime(id string) time.Time {
	h := strings.ReplaceAll(id, "-", "")
	if len(h) != 32 || h[12] != '7' {
		return time.Now().UTC()
	}
	b, err := hex.DecodeString(h[:12])
	if err != nil {
		return time.Now().UTC()
	}
	var ms int64
	for _, c := range b {
		ms = ms<<8 | int64(c)
	}
	return time.UnixMilli(ms).UTC()
}
