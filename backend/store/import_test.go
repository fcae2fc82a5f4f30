package store

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/export/exporttest"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// TestExportImportRoundTrip: a session written through the real write path
// (events, stages, model and tool calls, an approval, a capture, an image),
// exported, holds what the store reads of it, and imported into a fresh
// database and exported again gives the same document; every turn reads
// back the same, events included.
func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	src := mustOpen(t)
	s := importRichSession(t, src)
	storeImageTurn(t, src, s.ID, s.ActiveTurnID, llm.Image{MIME: "image/png", Name: "cat.png", Width: 4, Height: 3, Data: catPNG})
	s, _ = src.GetSession(ctx, s.ID)
	first := importExport(t, src, s.ID, export.Options{Captures: true})
	importCheckStreamed(t, src, s.ID, first)

	dst := mustOpen(t)
	got, err := dst.Import(ctx, bytes.NewReader(first))
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != s.ID || got.Title != s.Title || got.Turns != 4 {
		t.Fatalf("imported %+v", got)
	}
	second := importExport(t, dst, s.ID, export.Options{Captures: true})
	if a, b := importDropExportedAt(first), importDropExportedAt(second); !bytes.Equal(a, b) {
		t.Fatalf("the second export differs from the first:\n%s\n---\n%s", a, b)
	}

	want, _ := src.GetSession(ctx, s.ID)
	have, err := dst.GetSession(ctx, s.ID)
	if err != nil || !reflect.DeepEqual(want, have) {
		t.Fatalf("session\n%+v\n%+v (%v)", want, have, err)
	}
	page, _ := src.ListTurns(ctx, s.ID, Page{})
	events := 0
	for _, tr := range page.Turns {
		a, err := src.GetTurn(ctx, tr.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		b, err := dst.GetTurn(ctx, tr.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		events += len(a.Events)
		if b.Copied != CopiedImport {
			t.Errorf("turn %d: imported, but marked copied %q", b.Seq, b.Copied)
		}
		a.Copied = CopiedImport // all else is kept
		if !reflect.DeepEqual(a.Events, b.Events) {
			t.Errorf("turn %d: events differ", a.Seq)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("turn %d differs:\n%+v\n%+v", a.Seq, a, b)
		}
	}
	if events < 15 {
		t.Fatalf("only %d events to compare", events)
	}
	h1, _ := src.History(ctx, s.ID, 0)
	h2, _ := dst.History(ctx, s.ID, 0)
	if !reflect.DeepEqual(h1, h2) {
		t.Errorf("history differs:\n%+v\n%+v", h1, h2)
	}
	if c, err := dst.Captures("").GetCapture(ctx, "cap-rich"); err != nil || c == nil || c.Model != "m" {
		t.Errorf("the capture did not come along: %+v %v", c, err)
	}
	for _, table := range []string{"recordings", "turn_calls", "images", "approvals", "tool_calls"} {
		if a, b := importCount(t, src, table), importCount(t, dst, table); a != b || a == 0 {
			t.Errorf("%s: %d rows imported, %d exported", table, b, a)
		}
	}
	if err := src.IndexPending(ctx); err != nil { // the search entries, written after each turn
		t.Fatal(err)
	}
	for _, table := range []string{"messages", "events", "stages", "model_calls", "search"} {
		if a, b := importCount(t, src, table), importCount(t, dst, table); a != b {
			t.Errorf("%s: %d rows imported, %d exported", table, b, a)
		}
	}
}

// importCheckStreamed checks that the JSON export b, written as the store
// read the session, holds what the store reads of it whole.
func importCheckStreamed(t *testing.T, db *DB, sessionID string, b []byte) {
	t.Helper()
	file, err := export.Decode(ctx, bytes.NewReader(b), MaxImportBytes)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := export.Collect(ctx, db, sessionID, export.Load{AllEvents: true, Captures: true, Images: true})
	if err != nil {
		t.Fatal(err)
	}
	// 6: the fixture's session has settings (export.Version 6).
	if file.Version != 6 || len(whole.Images) == 0 || len(whole.Captures) == 0 {
		t.Fatalf("version %d, %d images, %d captures: not what this test is about", file.Version, len(whole.Images), len(whole.Captures))
	}
	file.Format, file.Version, file.ExportedAt, file.AppVersion = "", 0, time.Time{}, ""
	if !reflect.DeepEqual(file, whole) {
		a, _ := json.Marshal(file)
		b, _ := json.Marshal(whole)
		t.Fatalf("the file holds\n%s\nthe store\n%s", a, b)
	}
}

// TestImportCopiesAnExistingSession: importing a session that is already
// here stores a copy with new ids, remapped consistently.
func TestImportCopiesAnExistingSession(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := importRichSession(t, db)
	orig := importExport(t, db, s.ID, export.Options{Captures: true})

	cp, err := db.Import(ctx, bytes.NewReader(orig))
	if err != nil {
		t.Fatal(err)
	}
	if cp.ID == s.ID || cp.Title != s.Title+" (imported)" || cp.Turns != 3 {
		t.Fatalf("copy %+v", cp)
	}
	copied := importExport(t, db, cp.ID, export.Options{Captures: true})

	// Map every id of the copy back to the original's, by position: what
	// is left must be the original document.
	var a, b export.Document
	if err := json.Unmarshal(orig, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(copied, &b); err != nil {
		t.Fatal(err)
	}
	old := map[string]bool{}
	var pairs []string
	pair := func(from, to string) {
		if from == to || old[from] {
			t.Fatalf("id %s was kept or reused in the copy", from)
		}
		pairs = append(pairs, from, to)
	}
	for _, id := range importIDs(a) {
		old[id] = true
	}
	pair(b.Session.ID, a.Session.ID)
	for i := range b.Turns {
		pair(b.Turns[i].ID, a.Turns[i].ID)
		for j := range b.Turns[i].Stages {
			if b.Turns[i].Stages[j].ID != b.Turns[i].ID {
				pair(b.Turns[i].Stages[j].ID, a.Turns[i].Stages[j].ID)
			}
		}
		for j := range b.Turns[i].Events {
			pair(b.Turns[i].Events[j].ID, a.Turns[i].Events[j].ID)
		}
	}
	back := strings.NewReplacer(pairs...).Replace(string(copied))
	back = strings.Replace(back, ` (imported)",`, `",`, 1) // the title
	if x, y := importDropExportedAt(orig), importDropExportedAt([]byte(back)); !bytes.Equal(x, y) {
		t.Fatalf("the copy is not the original with new ids:\n%s\n---\n%s", x, y)
	}

	importCheckLinks(t, db, cp.ID)
	if again := importExport(t, db, s.ID, export.Options{Captures: true}); !bytes.Equal(importDropExportedAt(again), importDropExportedAt(orig)) {
		t.Fatal("importing a copy changed the original")
	}
	if third, err := db.Import(ctx, bytes.NewReader(orig)); err != nil || third.ID == cp.ID || third.ID == s.ID {
		t.Fatalf("a second copy: %+v %v", third, err)
	}
}

// importCheckLinks checks that every event of a session names its turn,
// session, a stage of its turn and an event of its turn, and that results
// name the turn's stages.
func importCheckLinks(t *testing.T, db *DB, sessionID string) {
	t.Helper()
	page, _ := db.ListTurns(ctx, sessionID, Page{})
	for _, tr := range page.Turns {
		d, err := db.GetTurn(ctx, tr.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		stages, events := map[string]bool{"": true}, map[string]bool{"": true}
		for _, st := range d.Stages {
			stages[st.ID] = true
		}
		for _, e := range d.Events {
			events[e.ID] = true
		}
		for _, e := range d.Events {
			if e.TurnID != d.ID || e.SessionID != sessionID || !stages[e.StageID] || !events[e.ParentID] {
				t.Fatalf("turn %d: event %d has broken links: %+v", d.Seq, e.Seq, e)
			}
		}
		var res turn.Result
		_ = json.Unmarshal(d.Result, &res)
		for _, st := range res.Stages {
			if !stages[st.ID] {
				t.Fatalf("turn %d: the result names stage %s, which is not the copy's", d.Seq, st.ID)
			}
		}
	}
}

func TestImportRunningTurnBecomesInterrupted(t *testing.T) {
	t.Parallel()
	src := mustOpen(t)
	s := newSession(t, src, "live")
	storeTurn(t, src, s.ID, "first", "done")
	tr, err := src.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "second", Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	log := src.NewEventLog(tr.ID, EventLogOptions{})
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: s.ID, TurnID: tr.ID, Sinks: []turn.Sink{log}})
	em.Emit(turn.Draft{Data: turn.ThinkStartData{}})
	em.Emit(turn.Draft{Data: turn.TokenData{Text: "half "}})
	em.Emit(turn.Draft{Data: turn.TokenData{Text: "done"}})
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}

	dst := mustOpen(t)
	if _, err := dst.Import(ctx, bytes.NewReader(importExport(t, src, s.ID, export.Options{}))); err != nil {
		t.Fatal(err)
	}
	d, err := dst.GetTurn(ctx, tr.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	if d.State != StateInterrupted || d.FinalText != "half done" || d.Outcome != turn.OutcomeFailed ||
		d.Termination.Kind != turn.TermInterrupted || d.CompletedAt == nil || len(d.Events) != 3 {
		t.Fatalf("imported running turn %+v with %d events", d.Turn, len(d.Events))
	}
	if len(d.Messages) != 2 || d.Messages[0].Content != "second" || d.Messages[1].Content != "half done" {
		t.Fatalf("messages %+v", d.Messages)
	}
	if _, err := dst.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "third"}); err != nil {
		t.Fatalf("the imported session still has a running turn: %v", err)
	}
	if running := importCountWhere(t, dst, "turns", "state = 'running'"); running != 1 {
		t.Fatalf("%d running turns, want only the new one", running)
	}
}

func TestImportRefuses(t *testing.T) {
	t.Parallel()
	good := exporttest.JSON(t, exporttest.Fixture())
	tests := []struct {
		name  string
		in    string
		code  apperr.Code
		wants []string
	}{
		{"newer version", `{"format":"agentdeck-session","version":99,"turns":"zstd:abc","documents":{}}`, apperr.Unavailable,
			[]string{"exported by a newer Agentdeck (format 99)", "update Agentdeck to import it"}},
		{"other format", `{"format":"other-app","version":1,"session":{}}`, apperr.Invalid, []string{"not an Agentdeck session export", "other-app"}},
		{"no format", `{"version":1,"session":{"id":"x"},"turns":[]}`, apperr.Invalid, []string{"not an Agentdeck session export"}},
		{"unrelated JSON", `{"version":7,"turns":5}`, apperr.Invalid, []string{"not an Agentdeck session export"}},
		{"a JSON array", `[{"format":"agentdeck-session"}]`, apperr.Invalid, []string{"not an Agentdeck session export"}},
		{"a JSONL export", "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}\n{\"messages\":[]}\n", apperr.Invalid, []string{"not an Agentdeck session export"}},
		{"markdown", "# Sales\n\n### You\n\nhello\n", apperr.Invalid, []string{"not JSON"}},
		{"binary", "\x89PNG\r\n\x1a\n\x00\x00", apperr.Invalid, []string{"not JSON"}},
		{"empty", "", apperr.Invalid, []string{"empty"}},
		{"truncated", string(good[:len(good)/2]), apperr.Invalid, []string{"ends too early"}},
		{"cut after the brace", `{`, apperr.Invalid, []string{"ends too early"}},
		{"no version", `{"format":"agentdeck-session","session":{"id":"x"},"turns":[]}`, apperr.Invalid, []string{"does not say which export version"}},
		{"version zero", `{"format":"agentdeck-session","version":0}`, apperr.Invalid, []string{"export version 0 is not valid"}},
		{"more after the document", string(good) + `{"format":"agentdeck-session"}`, apperr.Invalid, []string{"more after the session"}},
		{"wrong kind of value", strings.Replace(string(good), `"seq":2,`, `"seq":"two",`, 1), apperr.Invalid, []string{"damaged", "turns[0].events[1].seq holds text where a whole number belongs", "Nothing was imported"}},
		{"turns as an object", `{"format":"agentdeck-session","version":2,"session":{"id":"x"},"turns":{"seq":1}}`, apperr.Invalid,
			[]string{"turns holds an object where a list belongs", "Nothing was imported"}},
		{"version as text", `{"format":"agentdeck-session","version":"2"}`, apperr.Invalid, []string{"version holds text where a whole number belongs"}},
		{"a turn's seq as text", `{"format":"agentdeck-session","version":2,"session":{"id":"x"},"turns":[{"id":"a","seq":1},{"id":"b","seq":"2"}]}`, apperr.Invalid,
			[]string{"turns[1].seq holds text where a whole number belongs"}},
		{"a message's content as a number", `{"format":"agentdeck-session","version":2,"session":{"id":"x"},"turns":[{"id":"a","seq":1,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":5}]}]}`, apperr.Invalid,
			[]string{"turns[0].messages[1].content holds a number where text belongs"}},
		{"invalid JSON inside", strings.Replace(string(good), `"seq": 2,`, `"seq": 2,,`, 1), apperr.Invalid, []string{"damaged", "valid JSON at byte"}},
		{"session without id", `{"format":"agentdeck-session","version":1,"session":{"title":"x"},"turns":[]}`, apperr.Invalid, []string{"session has no id"}},
		{"unknown turn state", strings.Replace(string(good), `"state": "failed"`, `"state": "paused"`, 1), apperr.Invalid, []string{"turn 3", `unknown state "paused"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t)
			before := importCounts(t, db)
			_, err := db.Import(ctx, strings.NewReader(tt.in))
			importCheckRefused(t, err, tt.code, tt.wants...)
			if after := importCounts(t, db); !reflect.DeepEqual(before, after) {
				t.Fatalf("a refused file left rows behind: %v -> %v", before, after)
			}
		})
	}
	t.Run("too large", func(t *testing.T) {
		db := mustOpen(t)
		_, err := db.importLimit(ctx, bytes.NewReader(good), 4096)
		importCheckRefused(t, err, apperr.Invalid, "larger than 4096 bytes")
		if n := importCount(t, db, "sessions"); n != 0 {
			t.Fatalf("%d sessions after a refused file", n)
		}
		if _, err := db.importLimit(ctx, bytes.NewReader(good), int64(len(good))); err != nil {
			t.Fatalf("a file of exactly the limit was refused: %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		db := mustOpen(t)
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		_, err := db.Import(cancelled, bytes.NewReader(good))
		importCheckRefused(t, err, apperr.Cancelled, "cancelled")
		if n := importCount(t, db, "sessions"); n != 0 {
			t.Fatalf("%d sessions after a cancelled import", n)
		}
	})
}

// TestImportIsAtomic: a file whose third turn is broken leaves nothing
// behind, though its first two turns were already written.
func TestImportIsAtomic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		brk   func(t *export.Turn)
		wants []string
	}{
		{"event without a type", func(t *export.Turn) { t.Events[1].Type = "" }, []string{"broken event (2)", "no type"}},
		{"events out of order", func(t *export.Turn) { t.Events[1].Seq = t.Events[0].Seq }, []string{"broken event (2)", "out of order"}},
		{"event of another turn", func(t *export.Turn) { t.Events[0].TurnID = "turn-1" }, []string{"broken event (1)", "another turn"}},
		{"event without an id", func(t *export.Turn) { t.Events[1].ID = "" }, []string{"broken event (2)", "no id"}},
		{"stage id of another turn", func(t *export.Turn) { t.Stages[0].ID = "stage-2a" }, []string{"repeats an id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t)
			s := newSession(t, db, "already here")
			storeTurn(t, db, s.ID, "q", "a")
			if err := db.IndexPending(ctx); err != nil { // the turn's search entries, written after it
				t.Fatal(err)
			}
			before := importCounts(t, db)
			doc := exporttest.Fixture()
			tt.brk(&doc.Turns[2])
			_, err := db.Import(ctx, bytes.NewReader(exporttest.JSON(t, doc)))
			importCheckRefused(t, err, apperr.Invalid, append(tt.wants, "turn 3", "Nothing was imported")...)
			if after := importCounts(t, db); !reflect.DeepEqual(before, after) {
				t.Fatalf("a broken file was half imported: %v -> %v", before, after)
			}
		})
	}
}

// importRichSession stores a session through the real write path: a plain
// turn, a two-stage workflow turn with a tool call, a plan, a chart, an
// approval and a capture, and a stopped turn.
func importRichSession(t *testing.T, db *DB) Session {
	t.Helper()
	s := newSession(t, db, `Round trip <&> "quoted"`)
	temp := 0.3
	s.Settings = turn.RunSettings{Sampling: turn.Sampling{Temperature: &temp}}
	s.Provider, s.Workspace = "local", "/tmp/ws"
	if err := db.UpdateSession(ctx, s); err != nil {
		t.Fatal(err)
	}
	storeTurn(t, db, s.ID, "What is WAL?", "Write-ahead logging.")
	rich := importStoreWorkflowTurn(t, db, s.ID)
	if _, err := db.writer.Exec(`INSERT INTO approvals (session_id, turn_id, call_id, tool, args, guard, answer, at) VALUES (?, ?, 'call_1', 'read_file', '{}', 'workspace', 'allow', ?)`,
		s.ID, rich.ID, fmtTime(time.Now())); err != nil {
		t.Fatal(err)
	}
	if err := db.Captures(rich.ID).PutCapture(ctx, &recording.Capture{Key: "cap-rich", Model: "m", Request: json.RawMessage(`{"model":"m"}`), RecordedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	stopped, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "Write more", Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.FinishTurn(ctx, stopped.ID, 0, turn.Result{Cancelled: true, FinalText: "Half", Outcome: turn.OutcomeCancelled,
		Termination: turn.Termination{Kind: turn.TermCancelled},
		Messages:    []llm.Message{{Role: llm.RoleUser, Content: "Write more"}, {Role: llm.RoleAssistant, Content: "Half"}}}); err != nil {
		t.Fatal(err)
	}
	s, err = db.GetSession(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func importStoreWorkflowTurn(t *testing.T, db *DB, sessionID string) Turn {
	t.Helper()
	tr, err := db.StartTurn(ctx, Turn{SessionID: sessionID, UserMessage: "Chart sales <by month>", Workflow: "research", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	log := db.NewEventLog(tr.ID, EventLogOptions{})
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: sessionID, TurnID: tr.ID, Sinks: []turn.Sink{log}})
	research, writer := turn.NewID(), turn.NewID()
	now := time.Now().UTC()
	plan := []turn.PlanStep{{Title: "Read", Status: "done"}, {Title: "Chart", Status: "done"}}
	args := `{"path":"sales.csv"}`
	res := turn.RunTurn(ctx, em, func(context.Context) turn.Result {
		em.Emit(turn.Draft{StageID: research, Data: turn.StageStartData{}})
		em.Emit(turn.Draft{StageID: research, Data: turn.PlanData{Steps: plan}})
		call := em.Emit(turn.Draft{StageID: research, Data: turn.ToolCallData{CallID: "call_1", Name: "read_file", Args: json.RawMessage(args)}})
		em.Emit(turn.Draft{StageID: research, ParentID: call.ID, Data: turn.ToolResultData{CallID: "call_1", Name: "read_file", Output: "month,sales\njan,3 & <4>", DurationMS: 7}})
		em.Emit(turn.Draft{StageID: research, Data: turn.StageEndData{}})
		em.Emit(turn.Draft{StageID: writer, Data: turn.StageStartData{}})
		em.Emit(turn.Draft{StageID: writer, Data: turn.ChartData{Title: "Sales", Spec: json.RawMessage(`{"mark":"bar"}`)}})
		em.Emit(turn.Draft{StageID: writer, Data: turn.TokenData{Text: "January: 3."}})
		em.Emit(turn.Draft{StageID: writer, Data: turn.StageEndData{}})
		diag := func(calls []turn.ToolCallDiagnostics) turn.StageDiagnostics {
			return turn.StageDiagnostics{StartedAt: turn.Time{Time: now}, CompletedAt: turn.Time{Time: now.Add(time.Second)}, DurationMS: 1000,
				Usage:      llm.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15},
				ModelCalls: []llm.CallDiagnostics{{Model: "m", StartedAt: now, CompletedAt: now.Add(time.Second), Duration: time.Second, TimeToFirstToken: 90 * time.Millisecond, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}, OK: true}},
				ToolCalls:  calls}
		}
		return turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, Termination: turn.Termination{Kind: turn.TermCompleted}, FinalText: "January: 3.", PlanSteps: plan,
			Messages: []llm.Message{
				{Role: llm.RoleUser, Content: "Chart sales <by month>"},
				{Role: llm.RoleAssistant, Reasoning: "need data", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read_file", Arguments: args}}},
				{Role: llm.RoleTool, ToolCallID: "call_1", Name: "read_file", Content: "month,sales\njan,3 & <4>"},
				{Role: llm.RoleAssistant, Content: "January: 3."},
			},
			Stages: []turn.StageResult{
				{ID: research, Name: "research", Agent: "researcher", Phase: "gather", Outcome: turn.OutcomeSucceeded,
					Termination: turn.Termination{Kind: turn.TermMaxIterations, Limit: 5, Used: 5},
					Diagnostics: diag([]turn.ToolCallDiagnostics{{CallID: "call_1", Name: "read_file", Arguments: args, ResultSize: 22, StartedAt: turn.Time{Time: now}, DurationMS: 7, OK: true}})},
				{ID: writer, Name: "writer", Agent: "writer", Response: &llm.Message{Role: llm.RoleAssistant, Content: "January: 3."}, Outcome: turn.OutcomeSucceeded,
					Termination: turn.Termination{Kind: turn.TermNaturalCompletion}, Diagnostics: diag(nil)},
			}}
	})
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishTurn(ctx, tr.ID, 0, res); err != nil {
		t.Fatal(err)
	}
	return tr
}

func importExport(t *testing.T, db *DB, sessionID string, opts export.Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := export.Write(ctx, db, sessionID, export.JSON, &buf, opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var importExportedAt = regexp.MustCompile(`(?m)^  "exported_at": "[^"]*",\n`)

func importDropExportedAt(b []byte) []byte {
	if !importExportedAt.Match(b) {
		panic("no exported_at in the export")
	}
	return importExportedAt.ReplaceAll(b, nil)
}

// importIDs lists the session, turn, stage and event ids of a document.
func importIDs(d export.Document) []string {
	ids := []string{d.Session.ID}
	for _, t := range d.Turns {
		ids = append(ids, t.ID)
		for _, s := range t.Stages {
			ids = append(ids, s.ID)
		}
		for _, e := range t.Events {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

func importCheckRefused(t *testing.T, err error, code apperr.Code, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("the file was imported")
	}
	msg := apperr.MessageOf(err)
	if apperr.CodeOf(err) != code {
		t.Fatalf("code %s, want %s (%q)", apperr.CodeOf(err), code, msg)
	}
	for _, w := range wants {
		if !strings.Contains(msg, w) {
			t.Fatalf("message %q lacks %q", msg, w)
		}
	}
}

var importTables = []string{"sessions", "turns", "messages", "events", "stages", "model_calls", "tool_calls", "approvals", "recordings", "turn_calls", "search", "images"}

func importCounts(t *testing.T, db *DB) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range importTables {
		out[table] = importCount(t, db, table)
	}
	return out
}

func importCount(t *testing.T, db *DB, table string) int {
	t.Helper()
	return importCountWhere(t, db, table, "1")
}

func importCountWhere(t *testing.T, db *DB, table, where string) int {
	t.Helper()
	count := "COUNT(*)"
	if table == "events" {
		count = "COALESCE(SUM(run_len), 0)" // events, not rows: a run of tokens is one row
	}
	var n int
	if err := db.reader.QueryRow(`SELECT ` + count + ` FROM ` + table + ` WHERE ` + where).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
