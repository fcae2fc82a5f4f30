package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// Each benchmark times the store's path and the raw SQL floor it is built
// on in the same loop, alternating, on the same machine state, and reports
// medians (a GC pause or a WAL checkpoint in one iteration does not move
// them) and the ratio. The fixtures are built once, before b.Loop.

const (
	benchEvents = 20_000 // events written per iteration and path
	benchBatch  = 500    // a checkpoint event every benchBatch events
)

// BenchmarkEventLogWrite writes a turn's token events through the EventLog
// (a checkpoint every 500 events, as think_end or tool_result would give)
// and the same rows with a plain INSERT loop, one transaction per 500
// rows, into a second database with the same schema. Each event's data is
// about 120 bytes of JSON (a few words of text: heavier than a typical
// single token, so the rate is a conservative one). Target: 50,000 events/s
// or more through the EventLog.
//
// The two paths take turns batch by batch, not 20,000 events each: run in
// long stretches, two identical writers on two databases measured up to
// 1.6x apart (the same one slower every stretch, more so as the files
// grew), for reasons outside the code under test; interleaved batch by
// batch they measure the same.
func BenchmarkEventLogWrite(b *testing.B) {
	dir := b.TempDir()
	logged := openBenchDB(b, filepath.Join(dir, "eventlog.db"))
	floor := openBenchDB(b, filepath.Join(dir, "raw.db"))
	events := benchTokenEvents(benchEvents, benchBatch)
	rows := make([]benchEventRow, len(events))
	for i, e := range events {
		at, _ := e.At.MarshalJSON()
		rows[i] = benchEventRow{seq: e.Seq, id: e.ID, at: string(at[1 : len(at)-1]), typ: string(e.Type), phase: string(e.Phase), checkpoint: e.Checkpoint, data: string(e.Data)}
	}
	var logTimes, rawTimes []time.Duration
	iters := 0
	for b.Loop() {
		b.StopTimer()
		log := logged.NewEventLog(benchStartTurn(b, logged), EventLogOptions{})
		rawTurn := benchStartTurn(b, floor)
		b.StartTimer()
		var logTime, rawTime time.Duration
		for start := 0; start < len(events); start += benchBatch {
			end := min(start+benchBatch, len(events))
			runLog := func() { logTime += benchTimed(func() { benchEmit(b, log, events[start:end]) }) }
			runRaw := func() { rawTime += benchTimed(func() { benchInsertEvents(b, floor, rawTurn, rows[start:end]) }) }
			if start/benchBatch%2 == 0 {
				runLog()
				runRaw()
			} else {
				runRaw()
				runLog()
			}
		}
		logTime += benchTimed(func() {
			if err := log.Close(); err != nil {
				b.Fatal(err)
			}
		})
		logTimes, rawTimes = append(logTimes, logTime), append(rawTimes, rawTime)
		iters++
	}
	b.StopTimer()
	benchCheckEvents(b, logged, benchEvents*iters)
	benchCheckEvents(b, floor, benchEvents*iters)
	logMed, rawMed := benchMedian(logTimes), benchMedian(rawTimes)
	b.ReportMetric(benchEvents/logMed.Seconds(), "events/s")
	b.ReportMetric(benchEvents/rawMed.Seconds(), "raw-events/s")
	b.ReportMetric(rawMed.Seconds()/logMed.Seconds(), "store/raw")
}

// BenchmarkFirstPage5000Turns times the first page (50 turns) of a session
// with 5,000 turns through ListTurns and through the SQL query it wraps,
// scanned into plain values. Target: ListTurns/raw < 2.
func BenchmarkFirstPage5000Turns(b *testing.B) {
	const turns, pageSize, reps = 5000, 50, 100
	db := openBenchDB(b, filepath.Join(b.TempDir(), "turns.db"))
	sessionID := benchSeedTurns(b, db, turns)
	ctx := context.Background()
	q := turnSelect + ` WHERE session_id = ? ORDER BY seq DESC LIMIT ?`
	if page, err := db.ListTurns(ctx, sessionID, Page{Limit: pageSize}); err != nil || len(page.Turns) != pageSize || page.Turns[0].Seq != turns {
		b.Fatalf("ListTurns: %d turns, %v", len(page.Turns), err)
	}
	if n := benchRawFirstPage(b, db.reader, q, sessionID, pageSize+1); n != pageSize+1 {
		b.Fatalf("raw query: %d rows", n)
	}
	var listTimes, rawTimes []time.Duration
	for b.Loop() {
		for r := range reps {
			list := func() {
				listTimes = append(listTimes, benchTimed(func() {
					if _, err := db.ListTurns(ctx, sessionID, Page{Limit: pageSize}); err != nil {
						b.Fatal(err)
					}
				}))
			}
			raw := func() {
				rawTimes = append(rawTimes, benchTimed(func() { benchRawFirstPage(b, db.reader, q, sessionID, pageSize+1) }))
			}
			if r%2 == 0 {
				list()
				raw()
			} else {
				raw()
				list()
			}
		}
	}
	b.StopTimer()
	listMed, rawMed := benchMedian(listTimes), benchMedian(rawTimes)
	b.ReportMetric(float64(listMed.Nanoseconds())/1e3, "ListTurns-µs")
	b.ReportMetric(float64(rawMed.Nanoseconds())/1e3, "raw-µs")
	b.ReportMetric(listMed.Seconds()/rawMed.Seconds(), "ListTurns/raw")
}

// BenchmarkSearch100k times Search over 100,000 messages (1,000 sessions
// of 10 turns of 10 messages, Zipf-distributed words from a 3,000-word
// vocabulary) against the FTS query it is built on: the same MATCH
// expression, rank order, limit 20 and snippet(), without the joins for
// titles and turn numbers. The queries run from a very common word to a
// rare one, with a two-word query and a typed prefix. Target: Search/raw < 2.
func BenchmarkSearch100k(b *testing.B) {
	const reps = 3
	db := openBenchDB(b, filepath.Join(b.TempDir(), "search.db"))
	vocab := benchSeedSearch(b, db, 1000, 10, 10)
	ctx := context.Background()
	queries := []string{
		vocab[0],                    // the most frequent word
		vocab[20],                   // common
		vocab[300],                  // uncommon
		vocab[2500],                 // rare
		vocab[5] + " " + vocab[150], // two words, all must match
		vocab[40][:3],               // search-as-you-type: a prefix
	}
	const rawQ = `SELECT rowid, kind, session_id, turn_id, snippet(search, 0, ?, ?, '…', 16), rank
		FROM search WHERE search MATCH ? ORDER BY rank LIMIT 20`
	for _, q := range queries {
		hits, err := db.Search(ctx, q, 20)
		if err != nil {
			b.Fatal(err)
		}
		if n := benchRawSearch(b, db.reader, rawQ, ftsQuery(q)); n != len(hits) || n == 0 {
			b.Fatalf("query %q: Search gave %d hits, the raw query %d", q, len(hits), n)
		}
	}
	searchTimes := make([][]time.Duration, len(queries))
	rawTimes := make([][]time.Duration, len(queries))
	for b.Loop() {
		for r := range reps {
			for i, q := range queries {
				search := func() {
					searchTimes[i] = append(searchTimes[i], benchTimed(func() {
						if _, err := db.Search(ctx, q, 20); err != nil {
							b.Fatal(err)
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
	// Each query counts the same, whatever its cost: the summary is the
	// mean of the per-query medians and the geometric mean of their ratios.
	var searchMS, rawMS, logRatio float64
	for i, q := range queries {
		s, r := benchMedian(searchTimes[i]), benchMedian(rawTimes[i])
		b.Logf("%-24q Search %7.2f ms  raw %7.2f ms  ratio %.2f", q, benchMS(s), benchMS(r), s.Seconds()/r.Seconds())
		searchMS += benchMS(s)
		rawMS += benchMS(r)
		logRatio += math.Log(s.Seconds() / r.Seconds())
	}
	n := float64(len(queries))
	b.ReportMetric(searchMS/n, "Search-ms/query")
	b.ReportMetric(rawMS/n, "raw-ms/query")
	b.ReportMetric(math.Exp(logRatio/n), "Search/raw")
}

// Event log helpers.

type benchEventRow struct {
	seq                      int64
	id, at, typ, phase, data string
	checkpoint               bool
}

// benchTokenEvents stamps n token events with an Emitter, every batch-th
// one a checkpoint (think_end).
func benchTokenEvents(n, batch int) []turn.Event {
	words := benchVocabulary(400)
	rng := rand.New(rand.NewPCG(1, 2))
	events := make([]turn.Event, 0, n)
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: turn.NewID(), TurnID: turn.NewID(), Sinks: []turn.Sink{turn.SinkFunc(func(e turn.Event) error {
		events = append(events, e)
		return nil
	})}})
	var text strings.Builder
	for i := 1; i <= n; i++ {
		if i%batch == 0 {
			em.Emit(turn.Draft{Data: turn.ThinkEndData{PromptTokens: 1200, CompletionTokens: i}})
			continue
		}
		text.Reset()
		for text.Len() < 100 { // {"text":"…"} is then about 120 bytes
			text.WriteString(words[rng.IntN(len(words))])
			text.WriteByte(' ')
		}
		em.Emit(turn.Draft{Data: turn.TokenData{Text: text.String()}})
	}
	return events
}

// benchEmit hands events to the log; the last, a checkpoint, writes them.
func benchEmit(b *testing.B, l EventLog, events []turn.Event) {
	for _, e := range events {
		if err := l.Emit(e); err != nil {
			b.Fatal(err)
		}
	}
}

// benchInsertEvents inserts rows in one transaction.
func benchInsertEvents(b *testing.B, db *DB, turnID string, rows []benchEventRow) {
	ctx := context.Background()
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO events (turn_id, seq, id, stage_id, parent_id, at, type, phase, checkpoint, data) VALUES (?, ?, ?, '', '', ?, ?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	defer stmt.Close()
	for _, r := range rows {
		if _, err := stmt.ExecContext(ctx, turnID, r.seq, r.id, r.at, r.typ, r.phase, r.checkpoint, r.data); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

func benchStartTurn(b *testing.B, db *DB) string {
	ctx := context.Background()
	s, err := db.CreateSession(ctx, Session{Title: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	t, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "go"})
	if err != nil {
		b.Fatal(err)
	}
	return t.ID
}

func benchCheckEvents(b *testing.B, db *DB, want int) {
	var n int
	if err := db.reader.QueryRow(`SELECT COALESCE(SUM(run_len), 0) FROM events`).Scan(&n); err != nil || n != want { // a run of tokens is one row
		b.Fatalf("%d events stored, want %d (%v)", n, want, err)
	}
}

// Turn list helpers.

// benchSeedTurns stores one session with n finished turns in one transaction,
// straight into the tables.
func benchSeedTurns(b *testing.B, db *DB, n int) string {
	ctx := context.Background()
	s, err := db.CreateSession(ctx, Session{Title: "a long session", Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	words := benchVocabulary(500)
	rng := rand.New(rand.NewPCG(3, 4))
	term, _ := json.Marshal(turn.Termination{Kind: turn.TermNaturalCompletion})
	start := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)
	err = db.tx(ctx, "seeding turns", func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO turns (id, session_id, seq, user_message, state, workflow, model, started_at, completed_at,
			final_text, outcome, termination, result) VALUES (?, ?, ?, ?, 'completed', 'chat', 'm', ?, ?, ?, 'succeeded', ?, '{}')`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i := 1; i <= n; i++ {
			at := start.Add(time.Duration(i) * time.Minute)
			if _, err := stmt.ExecContext(ctx, turn.NewID(), s.ID, i, benchText(rng, words, 10+rng.IntN(20)),
				fmtTime(at), fmtTime(at.Add(20*time.Second)), benchText(rng, words, 40+rng.IntN(120)), string(term)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return s.ID
}

// benchRawFirstPage runs the query and scans every row into plain values.
func benchRawFirstPage(b *testing.B, q *sql.DB, query, sessionID string, limit int) int {
	rows, err := q.Query(query, sessionID, limit)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var id, session, user, state, workflow, model, started, final, outcome, term, parent, copied string
	var seq int
	var completed sql.NullString
	var continues bool
	n := 0
	for rows.Next() {
		if err := rows.Scan(&id, &session, &seq, &user, &state, &workflow, &model, &started, &completed, &final, &outcome, &term, &parent, &continues, &copied); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}

// Search helpers.

// benchSeedSearch stores sessions×turns turns of perTurn messages each, with
// their search entries, in one transaction, and returns the vocabulary by
// rank (vocab[0] is the most frequent word).
func benchSeedSearch(b *testing.B, db *DB, sessions, turns, perTurn int) []string {
	ctx := context.Background()
	vocab := benchVocabulary(3000)
	rng := rand.New(rand.NewPCG(5, 6))
	zipf := rand.NewZipf(rng, 1.07, 2, uint64(len(vocab)-1))
	text := func(n int) string {
		var sb strings.Builder
		for i := range n {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(vocab[zipf.Uint64()])
		}
		return sb.String()
	}
	start := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)
	err := db.tx(ctx, "seeding search", func(tx *sql.Tx) error {
		sessStmt, err := tx.PrepareContext(ctx, `INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer sessStmt.Close()
		turnStmt, err := tx.PrepareContext(ctx, `INSERT INTO turns (id, session_id, seq, user_message, state, started_at) VALUES (?, ?, ?, ?, 'completed', ?)`)
		if err != nil {
			return err
		}
		defer turnStmt.Close()
		ftsStmt, err := tx.PrepareContext(ctx, `INSERT INTO search (text, kind, session_id, turn_id) VALUES (?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ftsStmt.Close()
		for s := range sessions {
			sid := turn.NewID()
			title := text(3 + rng.IntN(4))
			at := fmtTime(start.Add(time.Duration(s) * time.Hour))
			if _, err := sessStmt.ExecContext(ctx, sid, title, at, at); err != nil {
				return err
			}
			if _, err := ftsStmt.ExecContext(ctx, title, HitTitle, sid, ""); err != nil {
				return err
			}
			for t := range turns {
				tid := turn.NewID()
				if _, err := turnStmt.ExecContext(ctx, tid, sid, t+1, "q", at); err != nil {
					return err
				}
				for m := range perTurn {
					kind := HitMessage
					if m%5 == 3 {
						kind = HitToolResult
					}
					if _, err := ftsStmt.ExecContext(ctx, text(8+rng.IntN(60)), kind, sid, tid); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return vocab
}

func benchRawSearch(b *testing.B, q *sql.DB, query, match string) int {
	rows, err := q.Query(query, HighlightStart, HighlightEnd, match)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var rowid int64
	var kind, session, tr, snip string
	var rank float64
	n := 0
	for rows.Next() {
		if err := rows.Scan(&rowid, &kind, &session, &tr, &snip, &rank); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}

// Shared helpers.

func openBenchDB(b *testing.B, path string) *DB {
	db, err := Open(context.Background(), path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// benchVocabulary returns n distinct made-up words of two to four
// syllables, the same every run.
func benchVocabulary(n int) []string {
	syllables := []string{"ka", "lo", "mi", "ten", "ra", "vo", "sul", "pe", "dri", "an", "qua", "zor", "bel", "nu", "fi", "ost"}
	rng := rand.New(rand.NewPCG(7, 8))
	seen := map[string]bool{}
	words := make([]string, 0, n)
	for len(words) < n {
		var w strings.Builder
		for range 2 + rng.IntN(3) {
			w.WriteString(syllables[rng.IntN(len(syllables))])
		}
		if !seen[w.String()] {
			seen[w.String()] = true
			words = append(words, w.String())
		}
	}
	return words
}

func benchText(rng *rand.Rand, words []string, n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = words[rng.IntN(len(words))]
	}
	return strings.Join(out, " ") + " (" + strconv.Itoa(n) + " words)"
}

func benchTimed(fn func()) time.Duration {
	start := time.Now()
	fn()
	return time.Since(start)
}

func benchMedian(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func benchMS(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
