package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// The history at scale: 1,000 sessions, 50,000 turns, 100,000 messages
// (a question and an answer per turn, each also in the search index) and
// 1,000,000 events (20 per turn: think_start, 16 tokens, think_end,
// final_answer, turn_completed), with a stage and a model call per turn.
// Session 0 has 5,000 turns and is the most recently active; session 1
// has 1,000; the other 998 share the rest.
const (
	histSessions      = 1000
	histTurns         = 50_000
	histBigTurns      = 5000
	histExportTurns   = 1000
	histEventsPerTurn = 20
	histTurnsPerTx    = 1000
)

// histDBEnv names a directory in which the generated database is kept for
// the rest of a `make bench` run (the desktop measurement opens it too);
// scripts/bench.sh sets it and removes the directory at the end. Unset, the
// database lives in the benchmark's temp dir.
const histDBEnv = "AGENTDECK_BENCH_DIR"

// BenchmarkHistoryAtScale times, over that database, what the UI does with
// a big history, each against the raw SQL it wraps (the same statements,
// scanned into plain values), alternating, medians:
//
//   - open: opening the 5,000-turn session (ListTurns' first page, then
//     GetTurn of the newest turn) vs its queries;
//   - search: Search over the 100,000 messages for six queries from a very
//     common word to a rare one vs the bare FTS query (summary: mean of the
//     per-query medians, geometric mean of the ratios);
//   - export: the JSON export of the 1,000-turn session (20,000 events)
//     vs its queries; then, untimed, the export's peak heap above where
//     it started and the bytes it allocated (medians of 3).
//
// Targets: open/raw ≤ 2, search/raw ≤ 2, export/raw ≤ 2 (an export must
// also write every row as JSON, which the raw floor does not).
func BenchmarkHistoryAtScale(b *testing.B) {
	dir := os.Getenv(histDBEnv)
	if dir == "" {
		dir = b.TempDir()
	}
	var path string
	b.Run("generate", func(b *testing.B) {
		var took time.Duration
		for b.Loop() {
			path, took = histDB(b, dir)
		}
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(took.Seconds(), "generate-s") // 0: reused from this run's cache
		b.ReportMetric(float64(fi.Size())/1e6, "db-MB")
	})
	if path == "" {
		b.Fatal("the database was not generated")
	}
	db := openBenchDB(b, path)
	ids := histIDs(b, db)
	b.Run("open", func(b *testing.B) { benchHistOpen(b, db, ids.big) })
	b.Run("search", func(b *testing.B) { benchHistSearch(b, db) })
	b.Run("export", func(b *testing.B) { benchHistExport(b, db, ids.export) })
}

func benchHistOpen(b *testing.B, db *DB, sessionID string) {
	const reps = 100
	ctx := context.Background()
	var apiTimes, rawTimes []time.Duration
	for b.Loop() {
		for r := range reps {
			api := func() {
				apiTimes = append(apiTimes, benchTimed(func() {
					page, err := db.ListTurns(ctx, sessionID, Page{Limit: 50})
					if err != nil || len(page.Turns) != 50 || page.Turns[0].Seq != histBigTurns {
						b.Fatalf("ListTurns: %d turns, %v", len(page.Turns), err)
					}
					if _, err := db.GetTurn(ctx, page.Turns[0].ID, false); err != nil {
						b.Fatal(err)
					}
				}))
			}
			raw := func() { rawTimes = append(rawTimes, benchTimed(func() { histRawOpen(b, db.reader, sessionID) })) }
			if r%2 == 0 {
				api()
				raw()
			} else {
				raw()
				api()
			}
		}
	}
	b.StopTimer()
	am, rm := benchMedian(apiTimes), benchMedian(rawTimes)
	b.ReportMetric(float64(am.Nanoseconds())/1e3, "open-µs")
	b.ReportMetric(float64(rm.Nanoseconds())/1e3, "raw-µs")
	b.ReportMetric(am.Seconds()/rm.Seconds(), "open/raw")
}

func benchHistSearch(b *testing.B, db *DB) {
	const reps = 3
	ctx := context.Background()
	vocab := benchVocabulary(3000)
	queries := []string{vocab[0], vocab[20], vocab[300], vocab[2500], vocab[5] + " " + vocab[150], vocab[40][:3]}
	const rawQ = `SELECT rowid, kind, session_id, turn_id, snippet(search, 0, ?, ?, '…', 16), rank
		FROM search WHERE search MATCH ? ORDER BY rank LIMIT 20`
	searchTimes := make([][]time.Duration, len(queries))
	rawTimes := make([][]time.Duration, len(queries))
	for b.Loop() {
		for r := range reps {
			for i, q := range queries {
				search := func() {
					searchTimes[i] = append(searchTimes[i], benchTimed(func() {
						hits, err := db.Search(ctx, q, 20)
						if err != nil || len(hits) == 0 {
							b.Fatalf("Search %q: %d hits, %v", q, len(hits), err)
						}
					}))
				}
				raw := func() {
					rawTimes[i] = append(rawTimes[i], benchTimed(func() { benchRawSearch(b, db.reader, rawQ, ftsQuery(q)) }))
				}
				if (r+i)%2 == 0 {
					search()
					raw()
				} else {
					raw()
					search()
				}
			}
		}
	}
	b.StopTimer()
	var searchMS, rawMS, logRatio float64
	for i, q := range queries {
		s, r := benchMedian(searchTimes[i]), benchMedian(rawTimes[i])
		b.Logf("%-24q Search %7.2f ms  raw %7.2f ms  ratio %.2f", q, benchMS(s), benchMS(r), s.Seconds()/r.Seconds())
		searchMS += benchMS(s)
		rawMS += benchMS(r)
		logRatio += math.Log(s.Seconds() / r.Seconds())
	}
	n := float64(len(queries))
	b.ReportMetric(searchMS/n, "search-ms/query")
	b.ReportMetric(rawMS/n, "raw-ms/query")
	b.ReportMetric(math.Exp(logRatio/n), "search/raw")
}

func benchHistExport(b *testing.B, db *DB, sessionID string) {
	const reps = 9
	ctx := context.Background()
	var exportTimes, rawTimes []time.Duration
	var size int64
	for b.Loop() {
		for r := range reps {
			export := func() {
				exportTimes = append(exportTimes, benchTimed(func() {
					w := &countingWriter{}
					if err := export.Write(ctx, db, sessionID, export.JSON, w, export.Options{}); err != nil {
						b.Fatal(err)
					}
					size = w.n
				}))
			}
			raw := func() { rawTimes = append(rawTimes, benchTimed(func() { histRawExport(b, db.reader, sessionID) })) }
			if r%2 == 0 {
				export()
				raw()
			} else {
				raw()
				export()
			}
		}
	}
	b.StopTimer()
	em, rm := benchMedian(exportTimes), benchMedian(rawTimes)
	b.ReportMetric(benchMS(em), "export-ms")
	b.ReportMetric(benchMS(rm), "raw-ms")
	b.ReportMetric(em.Seconds()/rm.Seconds(), "export/raw")
	b.ReportMetric(float64(size)/1e6, "export-MB")
	// Memory apart from the timing, so the sampler does not slow the
	// export it is compared on.
	var peaks, allocs []uint64
	for range 3 {
		peak, alloc := benchHeap(func() {
			if err := export.Write(ctx, db, sessionID, export.JSON, &countingWriter{}, export.Options{}); err != nil {
				b.Fatal(err)
			}
		})
		peaks, allocs = append(peaks, peak), append(allocs, alloc)
	}
	median := func(v []uint64) float64 { slices.Sort(v); return float64(v[len(v)/2]) }
	b.ReportMetric(median(peaks)/1e6, "export-peak-heap-MB")
	b.ReportMetric(median(allocs)/1e6, "export-alloc-MB")
}

// benchHeap runs fn after a GC and returns the peak of heap objects above
// the level it started at, sampled every millisecond through
// runtime/metrics (which does not stop the world; garbage not yet
// collected counts, as it holds memory too), and the bytes fn allocated.
func benchHeap(fn func()) (peak, alloc uint64) {
	heap := func() uint64 {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	base := heap()
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		hi := base
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				done <- max(hi, heap())
				return
			case <-t.C:
				hi = max(hi, heap())
			}
		}
	}()
	fn()
	close(stop)
	hi := <-done
	runtime.ReadMemStats(&after)
	return hi - base, after.TotalAlloc - before.TotalAlloc
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// histRawOpen runs the statements behind ListTurns' first page and GetTurn.
func histRawOpen(b *testing.B, q *sql.DB, sessionID string) {
	rows, err := q.Query(turnSelect+` WHERE session_id = ? ORDER BY seq DESC LIMIT ?`, sessionID, 51)
	if err != nil {
		b.Fatal(err)
	}
	var newest string
	histScanAll(b, rows, 0, func(v []any) {
		if newest == "" {
			newest = *v[0].(*string)
		}
	})
	histScanAll(b, histQuery(b, q, turnSelect+` WHERE id = ?`, newest), 0, nil)
	histScanAll(b, histQuery(b, q, `SELECT result FROM turns WHERE id = ?`, newest), 1, nil)
	histScanAll(b, histQuery(b, q, `SELECT role, content, extra FROM messages WHERE turn_id = ? ORDER BY idx`, newest), 3, nil)
	histScanAll(b, histQuery(b, q, `SELECT id, name, agent, phase, outcome, termination, diagnostics, response FROM stages WHERE turn_id = ? ORDER BY idx`, newest), 8, nil)
	histScanAll(b, histQuery(b, q, `SELECT id, seq, data FROM events WHERE turn_id = ? AND type = 'chart' ORDER BY seq`, newest), 3, nil)
	histScanAll(b, histQuery(b, q, lastSeqQuery, newest), 1, nil)
}

const sessionTurnIDs = `(SELECT id FROM turns WHERE session_id = ?)`

// histRawExport runs the statements behind a JSON export, in one read
// transaction as Export does: each table's rows of the session's turns.
// (The export reads the same rows in the turns' order, each table a query
// joined to turns; the floor stays the statements it was measured with.)
func histRawExport(b *testing.B, q *sql.DB, sessionID string) {
	tx, err := q.Begin()
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	queries := []struct {
		sql  string
		cols int
	}{
		{`SELECT id, title, created_at, updated_at, provider, model, workflow, workspace, settings FROM sessions WHERE id = ?`, 9},
		{`SELECT id, seq, user_message, state, workflow, model, started_at, completed_at, final_text, outcome, termination, result FROM turns WHERE session_id = ? ORDER BY seq`, 12},
		{`SELECT turn_id, role, content, extra FROM messages WHERE turn_id IN ` + sessionTurnIDs + ` ORDER BY turn_id, idx`, 4},
		{`SELECT turn_id, id, name, agent, phase, outcome, termination, diagnostics, response FROM stages WHERE turn_id IN ` + sessionTurnIDs + ` ORDER BY turn_id, idx`, 9},
		{`SELECT turn_id, stage_id, idx, model, started_at, duration_ms, ttft_ms, input_tokens, output_tokens, cached_tokens, reasoning_tokens, estimated, ok, error FROM model_calls WHERE turn_id IN ` + sessionTurnIDs + ` ORDER BY turn_id, rowid`, 14},
		{`SELECT turn_id, stage_id, call_id, name, arguments, result_size, started_at, duration_ms, ok, error FROM tool_calls WHERE turn_id IN ` + sessionTurnIDs + ` ORDER BY turn_id, rowid`, 10},
		{`SELECT turn_id, call_id, tool, args, guard, answer, at FROM approvals WHERE turn_id IN ` + sessionTurnIDs + ` ORDER BY turn_id, id`, 7},
		{`SELECT turn_id, seq, id, stage_id, parent_id, at, type, phase, checkpoint, data FROM events WHERE turn_id IN ` + sessionTurnIDs + ` ORDER BY turn_id, seq`, 10},
	}
	for _, qq := range queries {
		rows, err := tx.Query(qq.sql, sessionID)
		if err != nil {
			b.Fatal(err)
		}
		histScanAll(b, rows, qq.cols, nil)
	}
}

func histQuery(b *testing.B, q *sql.DB, query string, args ...any) *sql.Rows {
	rows, err := q.Query(query, args...)
	if err != nil {
		b.Fatal(err)
	}
	return rows
}

// histScanAll scans every row into cols nullable strings (SQLite converts
// numbers; 0 = as many as the query has: turnSelect grows with the
// features that add columns to turns) and closes rows.
func histScanAll(b *testing.B, rows *sql.Rows, cols int, each func([]any)) {
	defer rows.Close()
	if cols == 0 {
		names, err := rows.Columns()
		if err != nil {
			b.Fatal(err)
		}
		cols = len(names)
	}
	vals := make([]sql.NullString, cols)
	dest := make([]any, cols)
	strs := make([]any, cols)
	for i := range vals {
		dest[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			b.Fatal(err)
		}
		if each != nil {
			for i := range vals {
				s := vals[i].String
				strs[i] = &s
			}
			each(strs)
		}
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
}

// Generation.

type histSessionIDs struct{ big, export string }

// histIDs finds the 5,000-turn and the 1,000-turn sessions by their titles.
func histIDs(b *testing.B, db *DB) histSessionIDs {
	var ids histSessionIDs
	for title, dst := range map[string]*string{histTitle(0): &ids.big, histTitle(1): &ids.export} {
		if err := db.reader.QueryRow(`SELECT id FROM sessions WHERE title = ?`, title).Scan(dst); err != nil {
			b.Fatalf("session %q: %v", title, err)
		}
	}
	return ids
}

func histTitle(s int) string {
	switch s {
	case 0:
		return "History at scale: 5,000 turns"
	case 1:
		return "History at scale: 1,000 turns"
	}
	return fmt.Sprintf("Generated session %d", s)
}

// histDB returns the generated database, building it unless a complete one
// is already in $AGENTDECK_BENCH_DIR, and how long building took (0 when
// reused).
func histDB(b *testing.B, dir string) (string, time.Duration) {
	path := filepath.Join(dir, "history.db")
	done := path + ".complete"
	if _, err := os.Stat(done); err == nil {
		return path, 0
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(path + suffix)
	}
	start := time.Now()
	db, err := Open(context.Background(), path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	histGenerate(b, db)
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(done, nil, 0o600); err != nil {
		b.Fatal(err)
	}
	return path, time.Since(start)
}

// histTurnsOf spreads the turns: 5,000 and 1,000 for the first two
// sessions, 44 or 45 for the others.
func histTurnsOf(s int) int {
	switch s {
	case 0:
		return histBigTurns
	case 1:
		return histExportTurns
	}
	rest := histTurns - histBigTurns - histExportTurns
	per, extra := rest/(histSessions-2), rest%(histSessions-2)
	if s-2 < extra {
		return per + 1
	}
	return per
}

// histGenerate writes the rows straight into the tables, a transaction per
// 1,000 turns. Sessions are written oldest first, except that session 0 is
// the most recently updated, so it heads the session list.
func histGenerate(b *testing.B, db *DB) {
	ctx := context.Background()
	g := &histGen{
		vocab: benchVocabulary(3000),
		rng:   rand.New(rand.NewPCG(21, 22)),
		at:    time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC),
	}
	g.zipf = rand.NewZipf(g.rng, 1.07, 2, uint64(len(g.vocab)-1))
	g.term, _ = json.Marshal(turn.Termination{Kind: turn.TermNaturalCompletion})
	var tx *sql.Tx
	var st *histStmts
	pending := 0
	commit := func() {
		if tx == nil {
			return
		}
		st.close()
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		tx = nil
	}
	begin := func() {
		var err error
		if tx, err = db.writer.BeginTx(ctx, nil); err != nil {
			b.Fatal(err)
		}
		if st, err = prepareHist(ctx, tx); err != nil {
			b.Fatal(err)
		}
	}
	for s := histSessions - 1; s >= 0; s-- {
		if tx == nil {
			begin()
		}
		sid := turn.NewID()
		created := g.at
		n := histTurnsOf(s)
		for t := 1; t <= n; t++ {
			if pending >= histTurnsPerTx {
				commit()
				begin()
				pending = 0
			}
			if t == 1 {
				// The session row first (turns reference it); its
				// updated_at is the last turn's time, known in advance.
				updated := created.Add(time.Duration(n) * time.Minute)
				title := histTitle(s)
				if _, err := st.session.Exec(sid, title, fmtTime(created), fmtTime(updated)); err != nil {
					b.Fatal(err)
				}
				if _, err := st.search.Exec(title, HitTitle, sid, ""); err != nil {
					b.Fatal(err)
				}
			}
			if err := g.turn(st, sid, t); err != nil {
				b.Fatal(err)
			}
			pending++
		}
	}
	commit()
	var events, messages int
	if err := db.reader.QueryRow(`SELECT (SELECT COUNT(*) FROM events), (SELECT COUNT(*) FROM messages)`).Scan(&events, &messages); err != nil {
		b.Fatal(err)
	}
	if events != histTurns*histEventsPerTurn || messages != 2*histTurns {
		b.Fatalf("generated %d events and %d messages", events, messages)
	}
}

type histGen struct {
	vocab []string
	rng   *rand.Rand
	zipf  *rand.Zipf
	at    time.Time
	term  []byte
}

func (g *histGen) text(n int) string {
	var sb strings.Builder
	for i := range n {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(g.vocab[g.zipf.Uint64()])
	}
	return sb.String()
}

// turn writes one finished turn: the turn, its two messages with their
// search entries, a stage, a model call and 20 events.
func (g *histGen) turn(st *histStmts, sessionID string, seq int) error {
	g.at = g.at.Add(time.Minute)
	start, end := g.at, g.at.Add(12*time.Second)
	tid := turn.NewID()
	question := g.text(8 + g.rng.IntN(20))
	tokens := make([]string, 16)
	for i := range tokens {
		tokens[i] = g.text(1+g.rng.IntN(4)) + " "
	}
	answer := strings.Join(tokens, "") + g.text(g.rng.IntN(60))
	result := fmt.Sprintf(`{"result":{"final_text":%q,"outcome":"succeeded","usage":{"input_tokens":%d,"output_tokens":%d}}}`, answer, 400+seq%300, 80)
	if _, err := st.turn.Exec(tid, sessionID, seq, question, fmtTime(start), fmtTime(end), answer, string(g.term), result); err != nil {
		return err
	}
	for i, m := range [][2]string{{"user", question}, {"assistant", answer}} {
		if _, err := st.message.Exec(sessionID, tid, i, m[0], m[1]); err != nil {
			return err
		}
		if _, err := st.search.Exec(m[1], HitMessage, sessionID, tid); err != nil {
			return err
		}
	}
	diag := fmt.Sprintf(`{"started_at":%q,"completed_at":%q,"duration_ms":12000,"usage":{"input_tokens":400,"output_tokens":80}}`, fmtTime(start), fmtTime(end))
	if _, err := st.stage.Exec(tid, tid, string(g.term), diag); err != nil {
		return err
	}
	if _, err := st.modelCall.Exec(tid, tid, fmtTime(start)); err != nil {
		return err
	}
	ev := func(seq int, typ turn.EventType, data string) error {
		at := start.Add(time.Duration(seq) * 100 * time.Millisecond)
		_, err := st.event.Exec(tid, seq, turn.NewID(), tid, at.Format(time.RFC3339Nano), string(typ), string(turn.PhaseOf(typ)), turn.IsCheckpoint(typ), data)
		return err
	}
	if err := ev(1, turn.EventThinkStart, `{}`); err != nil {
		return err
	}
	for i, tok := range tokens {
		b, _ := json.Marshal(turn.TokenData{Text: tok})
		if err := ev(2+i, turn.EventToken, string(b)); err != nil {
			return err
		}
	}
	final, _ := json.Marshal(map[string]string{"text": answer})
	for i, e := range []struct {
		typ  turn.EventType
		data string
	}{
		{turn.EventThinkEnd, `{"prompt_tokens":400,"completion_tokens":80}`},
		{turn.EventFinalAnswer, string(final)},
		{turn.EventTurnCompleted, result},
	} {
		if err := ev(2+len(tokens)+i, e.typ, e.data); err != nil {
			return err
		}
	}
	return nil
}

type histStmts struct {
	session, turn, message, search, stage, modelCall, event *sql.Stmt
}

func prepareHist(ctx context.Context, tx *sql.Tx) (*histStmts, error) {
	var st histStmts
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&st.session, `INSERT INTO sessions (id, title, created_at, updated_at, model) VALUES (?, ?, ?, ?, 'bench-model')`},
		{&st.turn, `INSERT INTO turns (id, session_id, seq, user_message, state, workflow, model, started_at, completed_at, final_text, outcome, termination, result)
			VALUES (?, ?, ?, ?, 'completed', 'chat', 'bench-model', ?, ?, ?, 'succeeded', ?, ?)`},
		{&st.message, `INSERT INTO messages (session_id, turn_id, idx, role, content) VALUES (?, ?, ?, ?, ?)`},
		{&st.search, `INSERT INTO search (text, kind, session_id, turn_id) VALUES (?, ?, ?, ?)`},
		{&st.stage, `INSERT INTO stages (id, turn_id, idx, name, agent, phase, outcome, termination, diagnostics) VALUES (?, ?, 0, 'chat', 'assistant', '', 'succeeded', ?, ?)`},
		{&st.modelCall, `INSERT INTO model_calls (turn_id, stage_id, idx, model, started_at, duration_ms, ttft_ms, input_tokens, output_tokens, cached_tokens, reasoning_tokens, estimated, ok, error) VALUES (?, ?, 0, 'bench-model', ?, 12000, 300, 400, 80, 0, 0, 0, 1, '')`},
		{&st.event, `INSERT INTO events (turn_id, seq, id, stage_id, parent_id, at, type, phase, checkpoint, data) VALUES (?, ?, ?, ?, '', ?, ?, ?, ?, ?)`},
	} {
		s, err := tx.PrepareContext(ctx, p.sql)
		if err != nil {
			st.close()
			return nil, err
		}
		*p.dst = s
	}
	return &st, nil
}

func (st *histStmts) close() {
	for _, s := range []*sql.Stmt{st.session, st.turn, st.message, st.search, st.stage, st.modelCall, st.event} {
		if s != nil {
			s.Close()
		}
	}
}
