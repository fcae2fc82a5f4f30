package store

import (
	"bytes"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// TestTerminalEventsByReference: a turn's final_answer and turn_completed,
// written after FinishTurn as the runner writes them, are stored as
// references to the turns row and read back, through every reader, byte
// for byte as they were sent; an answer event that says something else
// than the stored answer is kept whole.
func TestTerminalEventsByReference(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		answer    string // the final_answer event's text
		wantRefs  int
		wantWhole int
	}{
		{"the answer", "A <long> answer & \"more\" \u2028 ✓", 2, 0},
		{"another text", "not what was stored", 1, 1},
	}
	db := mustOpen(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t, db, tt.name)
			tr, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "q", Workflow: "chat", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			log := db.NewEventLog(tr.ID, EventLogOptions{FlushEvery: time.Hour})
			var sent []turn.Event
			em := turn.NewEmitter(turn.EmitterConfig{SessionID: s.ID, TurnID: tr.ID, Sinks: []turn.Sink{turn.SinkFunc(func(e turn.Event) error {
				sent = append(sent, e)
				return log.Emit(e)
			})}})
			const stored = "A <long> answer & \"more\" \u2028 ✓"
			stageID := turn.NewID()
			em.Emit(turn.Draft{StageID: stageID, Data: turn.TokenData{Text: stored}})
			stage := turn.StageResult{ID: stageID, Name: "write", Agent: "writer", Outcome: turn.OutcomeSucceeded,
				Response: &llm.Message{Role: llm.RoleAssistant, Content: stored}}
			em.Emit(turn.Draft{StageID: stageID, Data: turn.StageEndData(stage)})
			res := turn.Result{OK: true, FinalText: stored, Outcome: turn.OutcomeSucceeded, Stages: []turn.StageResult{stage},
				Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}, {Role: llm.RoleAssistant, Content: stored}}}
			if err := log.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := db.FinishTurn(ctx, tr.ID, 0, res); err != nil { // before the terminal events, as the runner does
				t.Fatal(err)
			}
			em.Emit(turn.Draft{Data: turn.FinalAnswerData{Text: tt.answer}})
			em.Emit(turn.Draft{Data: turn.TurnCompletedData{Result: res}})
			if err := log.Close(); err != nil {
				t.Fatal(err)
			}

			var refs, whole int
			if err := db.reader.QueryRow(`SELECT COUNT(*) FILTER (WHERE data LIKE '=%'), COUNT(*) FILTER (WHERE type IN ('final_answer', 'turn_completed') AND data NOT LIKE '=%') FROM events WHERE turn_id = ?`, tr.ID).Scan(&refs, &whole); err != nil {
				t.Fatal(err)
			}
			if refs != tt.wantRefs || whole != tt.wantWhole {
				t.Errorf("%d events by reference and %d whole, want %d and %d", refs, whole, tt.wantRefs, tt.wantWhole)
			}
			var col string
			if err := db.reader.QueryRow(`SELECT response FROM stages WHERE id = ?`, stageID).Scan(&col); err != nil || col != stageResponseRef {
				t.Errorf("the stage's response is stored as %.40q (%v), want the reference", col, err)
			}
			d, err := db.GetTurn(ctx, tr.ID, false)
			if err != nil || len(d.Stages) != 1 || d.Stages[0].Response == nil || d.Stages[0].Response.Content != stored {
				t.Fatalf("the stage reads back as %+v (%v)", d.Stages, err)
			}
			got, err := db.EventsAfter(ctx, tr.ID, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			sameEvents(t, "read back", got, sent)

			var buf bytes.Buffer
			if err := export.Write(ctx, db, s.ID, export.JSON, &buf, export.Options{}); err != nil {
				t.Fatal(err)
			}
			file, err := export.Decode(ctx, &buf, MaxImportBytes)
			if err != nil {
				t.Fatal(err)
			}
			sameEvents(t, "exported", file.Turns[0].Events, sent)
			if st := file.Turns[0].Stages; len(st) != 1 || !bytes.Contains(st[0].Response, []byte(`answer \u0026 \"more\"`)) {
				t.Errorf("the exported stage's response is %s", st[0].Response)
			}
		})
	}
}
