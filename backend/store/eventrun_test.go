package store

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// TestTokenRunsReadBackLosslessly is the property of token runs: for
// random streams (tokens and reasoning of several stages and parents,
// between other events, with odd texts, times that go back, ids of any
// shape) written through the EventLog in random batches, every reader
// gives back exactly the events the stream carried: EventsAfter from any
// seq and with any limit, the newest seq, and the partial answer. And
// runs did form: the table holds fewer rows than events.
func TestTokenRunsReadBackLosslessly(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	rows, events := 0, 0
	for seed := range uint64(40) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 22))
			s := newSession(t, db, "runs")
			tr, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "stream " + strconv.Itoa(int(seed)), Workflow: "chat", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			emitted := randomStream(r, s.ID, tr.ID)
			n := writeAndReadBack(t, db, tr.ID, emitted, func() bool { return r.IntN(40) == 0 })
			for range 25 {
				after, limit := r.Int64N(int64(len(emitted))+2), r.IntN(len(emitted)+3)
				got, err := db.EventsAfter(ctx, tr.ID, after, limit)
				if err != nil {
					t.Fatal(err)
				}
				want := emitted[min(int(after), len(emitted)):]
				if limit > 0 && len(want) > limit {
					want = want[:limit]
				}
				sameEvents(t, fmt.Sprintf("after %d, limit %d", after, limit), got, want)
			}
			d, err := db.GetTurn(ctx, tr.ID, false)
			if err != nil || d.LastSeq != int64(len(emitted)) {
				t.Errorf("last seq %d (%v), want %d", d.LastSeq, err, len(emitted))
			}
			if stored, err := db.storedAnswer(ctx, tr.ID); err != nil || stored != partialOf(emitted) {
				t.Errorf("stored answer %q (%v), want %q", stored, err, partialOf(emitted))
			}
			rows, events = rows+n, events+len(emitted)
		})
	}
	var texts int
	if err := db.reader.QueryRow(`SELECT COUNT(*) FROM events WHERE data LIKE '{"v":2,%'`).Scan(&texts); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d events in %d rows, %d of them runs in the second form", events, rows, texts)
	if texts == 0 || texts == rows {
		t.Errorf("%d of %d rows in the second form: both forms should be written and read", texts, rows)
	}
	if rows*2 > events {
		t.Errorf("%d rows for %d events: the tokens were not stored as runs", rows, events)
	}
}

// TestTokenRunAcrossBufferBlocks writes one batch longer than several of
// the EventLog's buffer blocks: the run splits at the blocks' edges into a
// few rows, and reads back as the one stream it was.
func TestTokenRunAcrossBufferBlocks(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "long")
	tr, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "long", Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3*eventBlock + 5
	at := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	events := make([]turn.Event, n)
	for i := range events {
		data, _ := json.Marshal(turn.TokenData{Text: "t" + strconv.Itoa(i) + " "})
		events[i] = turn.Event{ID: turn.NewID(), SessionID: s.ID, TurnID: tr.ID, Seq: int64(i + 1), At: turn.Time{Time: at.Add(time.Duration(i))},
			Type: turn.EventToken, Phase: turn.PhaseThinking, Data: data}
	}
	if rows := writeAndReadBack(t, db, tr.ID, events, func() bool { return false }); rows != 4 {
		t.Errorf("%d tokens in one batch took %d rows, want one a block (4)", n, rows)
	}
}

// TestRunDataSizeIsExact: insertEvents sizes its one buffer of run data
// with runDataSize; for ids that need no escaping (every id the Emitter
// makes) it is exactly what writeRunData writes, clocks going back
// included, so the buffer never grows.
func TestRunDataSizeIsExact(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 22))
	for i := range 40 {
		batch := randomStream(r, "s", "t")
		derived := i%2 == 1 // ids as the Emitter makes them: the second form
		for i := range batch {
			batch[i].ID = turn.NewID()
			if derived && turn.Streamed(batch[i].Type) {
				batch[i].ID = turn.StreamID("t", batch[i].Seq)
				text := strings.Map(func(r rune) rune { // no escaping: the size is exact
					if r < 0x20 || r == '"' || r == '\\' || r >= 0x7f {
						return 'x'
					}
					return r
				}, batch[i].StreamedText())
				batch[i].SetStreamedText(text)
			}
		}
		var b strings.Builder
		runs, texts := 0, 0
		for rest := batch; len(rest) > 0; {
			n := runLength(rest)
			if n > 1 {
				if _, ok := textRun("t", rest[:n], nil); ok {
					writeRunText(&b, rest[:n], nil)
					texts++
				} else {
					writeRunData(&b, rest[:n])
				}
				runs++
			}
			rest = rest[n:]
		}
		if want := runDataSize("t", batch); b.Len() != want || runs == 0 {
			t.Fatalf("%d runs wrote %d bytes; runDataSize says %d", runs, b.Len(), want)
		}
		if derived != (texts > 0) {
			t.Fatalf("derived ids %v, but %d of %d runs in the second form", derived, texts, runs)
		}
	}
}

// TestDamagedTextRunSaysSo: a run in the second form whose numbers and
// text do not agree reads as damaged, never as other events or a panic.
func TestDamagedTextRunSaysSo(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, data string }{
		{"text too short", `{"v":2,"at":"AA","len":"GG","text":"abc"}`},
		{"text too long", `{"v":2,"at":"AA","len":"CC","text":"abcdef"}`},
		{"a length missing", `{"v":2,"at":"AA","len":"C","text":"a"}`},
		{"a time missing", `{"v":2,"at":"A","len":"CC","text":"ab"}`},
		{"a number that does not read", `{"v":2,"at":"A!","len":"CC","text":"ab"}`},
		{"a negative length", `{"v":2,"at":"AA","len":"DC","text":"ab"}`},
		{"not JSON", `{"v":2,"at":`},
	}
	db := mustOpen(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t, db, tt.name)
			tr, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "x", Workflow: "chat", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			at := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
			events := []turn.Event{
				{ID: turn.StreamID(tr.ID, 1), SessionID: s.ID, TurnID: tr.ID, Seq: 1, At: turn.Time{Time: at}, Type: turn.EventToken, Phase: turn.PhaseThinking, Data: turn.TextData("a")},
				{ID: turn.StreamID(tr.ID, 2), SessionID: s.ID, TurnID: tr.ID, Seq: 2, At: turn.Time{Time: at}, Type: turn.EventToken, Phase: turn.PhaseThinking, Data: turn.TextData("b")},
			}
			writeAndReadBack(t, db, tr.ID, events, func() bool { return false })
			if _, err := db.writer.Exec(`UPDATE events SET data = ? WHERE turn_id = ?`, tt.data, tr.ID); err != nil {
				t.Fatal(err)
			}
			got, err := db.EventsAfter(ctx, tr.ID, 0, 0)
			if err == nil || !strings.Contains(err.Error(), "damaged") {
				t.Fatalf("read %d events, error %v; want a damaged run", len(got), err)
			}
		})
	}
}

// writeAndReadBack writes events through the turn's EventLog, ending a
// batch wherever flush says (and at checkpoints), checks that they read
// back exactly, and answers how many rows they took.
func writeAndReadBack(t *testing.T, db *DB, turnID string, events []turn.Event, flush func() bool) int {
	t.Helper()
	log := db.NewEventLog(turnID, EventLogOptions{FlushEvery: time.Hour}) // batches end where the test says
	for _, e := range events {
		if err := log.Emit(e); err != nil {
			t.Fatal(err)
		}
		if flush() {
			if err := log.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := db.EventsAfter(ctx, turnID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	sameEvents(t, "all", got, events)
	var rows int
	if err := db.reader.QueryRow(`SELECT COUNT(*) FROM events WHERE turn_id = ?`, turnID).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// randomStream is a turn's events as an Emitter would stamp them.
func randomStream(r *rand.Rand, sessionID, turnID string) []turn.Event {
	texts := []string{"a", " word", "", "\n", `"quoted"`, `back\slash`, "naïve ✓", "\u2028", "<b>", "{}", " [1,2]"}
	stages, parents := []string{"", "stage-1", "stage-2"}, []string{"", "call-1"}
	ids := func(i int, streamed bool) string {
		switch r.IntN(6) {
		case 0:
			return fmt.Sprintf(`imported "id" %d\`, i) // an id of another shape, from an import
		case 1:
			return turn.NewID() // a streamed event's id before issue 48
		default:
			if streamed {
				return turn.StreamID(turnID, int64(i+1)) // as the Emitter makes it
			}
			return turn.NewID()
		}
	}
	at := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	n := 50 + r.IntN(400)
	out := make([]turn.Event, 0, n)
	stage, parent := stages[0], parents[0]
	kind := 0
	for i := range n {
		at = at.Add(time.Duration(r.IntN(40)-5) * time.Millisecond / 4) // sometimes backwards
		e := turn.Event{SessionID: sessionID, TurnID: turnID, Seq: int64(i + 1), At: turn.Time{Time: at}}
		if r.IntN(8) == 0 { // streams come in bursts of one kind
			kind = r.IntN(20)
		}
		switch k := kind; {
		case k < 12:
			e.Type, e.Phase = turn.EventToken, turn.PhaseThinking
			e.Data, _ = json.Marshal(turn.TokenData{Text: texts[r.IntN(len(texts))]})
		case k < 15:
			e.Type, e.Phase = turn.EventReasoning, turn.PhaseThinking
			e.Data, _ = json.Marshal(map[string]string{"text": texts[r.IntN(len(texts))]})
		case k < 16:
			e.Type, e.Phase, e.Data = turn.EventThinkStart, turn.PhaseThinking, json.RawMessage(`{}`)
		case k < 17:
			e.Type, e.Phase, e.Checkpoint, e.Data = turn.EventThinkEnd, turn.PhaseThinking, true, json.RawMessage(`{}`)
		case k < 18:
			stage = stages[r.IntN(len(stages))]
			e.Type, e.Phase, e.Data = turn.EventStageStart, turn.PhaseStage, json.RawMessage(`{"name": "spaced  json"}`)
		default:
			parent = parents[r.IntN(len(parents))]
			e.Type, e.Phase, e.Data = turn.EventToolCall, turn.PhaseActing, json.RawMessage(`{"name":"plan"}`)
		}
		if k := kind; k >= 15 {
			kind = r.IntN(15) // one such event, then tokens again
		}
		e.StageID, e.ParentID = stage, parent
		e.ID = ids(i, turn.Streamed(e.Type))
		out = append(out, e)
	}
	return out
}

// partialOf is the text of the tokens after the last think_start.
func partialOf(events []turn.Event) string {
	var b bytes.Buffer
	for _, e := range events {
		switch e.Type {
		case turn.EventThinkStart:
			b.Reset()
		case turn.EventToken:
			var d turn.TokenData
			_ = json.Unmarshal(e.Data, &d)
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

// sameEvents compares events as the stream carries them: their JSON.
func sameEvents(t *testing.T, what string, got, want []turn.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d", what, len(got), len(want))
	}
	for i := range want {
		g, _ := json.Marshal(got[i])
		w, _ := json.Marshal(want[i])
		if !bytes.Equal(g, w) {
			t.Fatalf("%s: event %d is\n%s\nwant\n%s", what, i, g, w)
		}
	}
}

// TestTokenRunsMigrationOfMainE7df445 opens the database main made at
// e7df445, the release before token runs (testdata/main-e7df445.db: five
// turns, one with reasoning, one stopped mid-answer, every token a row),
// and checks that every turn's events read back as they were stored, row
// by row, and that a new turn of a migrated session stores its tokens as
// runs beside them, in the form of issue 48.
func TestTokenRunsMigrationOfMainE7df445(t *testing.T) {
	t.Parallel()
	path := copyTestdata(t, "main-e7df445.db")
	before := oldEvents(t, path)
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("opening main's database: %v", err)
	}
	defer db.Close()
	turns, tokens := 0, 0
	for turnID, want := range before {
		got, err := db.EventsAfter(ctx, turnID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		sameEvents(t, "turn "+turnID, got, want)
		for _, e := range want {
			if e.Type == turn.EventToken || e.Type == turn.EventReasoning {
				tokens++
			}
		}
		turns++
	}
	if turns != 5 || tokens < 100 {
		t.Fatalf("%d turns with %d tokens and reasoning read; the file holds 5 turns with more than 100", turns, tokens)
	}

	// A new turn in a migrated session: its tokens go in as runs.
	var sessionID string
	for _, evs := range before {
		sessionID = evs[0].SessionID
		break
	}
	tr, err := db.StartTurn(ctx, Turn{SessionID: sessionID, UserMessage: "and now?", Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	emitted := randomStream(rand.New(rand.NewPCG(7, 22)), sessionID, tr.ID)
	if rows := writeAndReadBack(t, db, tr.ID, emitted, func() bool { return false }); rows*2 > len(emitted) {
		t.Errorf("the new turn's %d events take %d rows: not stored as runs", len(emitted), rows)
	}
	var second int // issue 48: its runs keep their texts once, beside the old rows
	if err := db.reader.QueryRow(`SELECT COUNT(*) FROM events WHERE turn_id = ? AND data LIKE '{"v":2,%'`, tr.ID).Scan(&second); err != nil || second == 0 {
		t.Errorf("the new turn has %d runs in the second form (%v)", second, err)
	}
	if rep, err := db.Check(ctx); err != nil || !rep.OK {
		t.Fatalf("check after migrating: %+v %v", rep, err)
	}
}

// copyTestdata copies a database of testdata/ into a temp dir, to be
// opened (and migrated) there.
func copyTestdata(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "agentdeck.db")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// oldEvents reads every turn's events from a database of before token
// runs, with the columns it has, each row one event.
func oldEvents(t *testing.T, path string) map[string][]turn.Event {
	t.Helper()
	old, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	rows, err := old.Query(`SELECT t.session_id, e.turn_id, e.seq, e.id, e.stage_id, e.parent_id, e.at, e.type, e.phase, e.checkpoint, e.data
		FROM events e JOIN turns t ON t.id = e.turn_id ORDER BY e.turn_id, e.seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]turn.Event{}
	for rows.Next() {
		var e turn.Event
		var at, data string
		if err := rows.Scan(&e.SessionID, &e.TurnID, &e.Seq, &e.ID, &e.StageID, &e.ParentID, &at, &e.Type, &e.Phase, &e.Checkpoint, &data); err != nil {
			t.Fatal(err)
		}
		_ = e.At.UnmarshalJSON([]byte(strconv.Quote(at)))
		e.Data = json.RawMessage(data)
		out[e.TurnID] = append(out[e.TurnID], e)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
