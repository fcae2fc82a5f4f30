package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/vlq"
)

// Token runs. A streamed answer is tens of thousands of token events, and
// a row each made the store the slowest part of the token path. So the
// consecutive token (or reasoning) events of one stage that land in one
// write batch are stored as one row of events: a run. The row's seq is the
// run's first, run_len how many it holds; its id and at are the first
// event's, and its data is
//
//	{"ids": [every event's id], "at": [each one's time, in ms after the first], "data": [each one's data]}
//
// That was the first form. A run written since issue 48 keeps each text
// once and nothing it can derive:
//
//	{"v":2, "at": "<each event's time in ms after the one before>", "len": "<each text's length in bytes>", "text": "<the texts, one after another>"}
//
// with the two lists of numbers in VLQ (package vlq), about a byte each. An
// event's id is turn.StreamID(turn, seq) and its data turn.TextData(text),
// as the Emitter makes them; a run with any event that is not so (an
// imported one, an invalid UTF-8 text) is written in the first form. A
// 50,000-token answer's runs went from about 95 bytes a token to about 2
// and the token's text.
//
// Reading is lossless: eventRow.expand gives back exactly the events the
// live stream carried, with their seq, ids, times (to the millisecond, as
// the stream carries them), parents and data. Every reader of events goes
// through it; a row written before runs existed is a run of one.

// The end of a turn by reference. FinishTurn stores the turn's result and
// answer before its terminal events go out, and two of those events carry
// them again whole: turn_completed's data is the turns row's result, byte
// for byte, and final_answer's is {"text": final_text}. When that is so
// as the event is written (insertEvents compares), its data is stored as
// a reference to the column, and every reader gets the column's bytes
// back through eventRowColumns (or eventsInTurnOrder). Nothing changes
// those columns once a turn has ended, so the event reads as it was sent.
const (
	refResult    = `=result`     // turn_completed: turns.result
	refFinalText = `=final_text` // final_answer: {"text": turns.final_text}
)

// eventRowColumns are the columns an eventRow scans, in its order, with
// references resolved: a final_answer's comes back as "=" and the text,
// which expand encodes.
const eventRowColumns = `seq, run_len, id, stage_id, parent_id, at, type, phase, checkpoint,
	CASE data WHEN '` + refResult + `' THEN (SELECT result FROM turns WHERE turns.id = events.turn_id)
	WHEN '` + refFinalText + `' THEN '=' || (SELECT final_text FROM turns WHERE turns.id = events.turn_id) ELSE data END`

// terminalRef is the reference e's data is stored as, or "" to store it
// whole: see refResult. column reads the turn's final_text and result
// once a batch.
func terminalRef(e *turn.Event, column func() (finalText, result string, err error)) (string, error) {
	if e.Type != turn.EventTurnCompleted && e.Type != turn.EventFinalAnswer {
		return "", nil
	}
	finalText, result, err := column()
	if err != nil {
		return "", err
	}
	if e.Type == turn.EventTurnCompleted {
		if result != "{}" && string(e.Data) == result {
			return refResult, nil
		}
		return "", nil
	}
	if enc, err := json.Marshal(turn.FinalAnswerData{Text: finalText}); err == nil && bytes.Equal(enc, e.Data) && finalText != "" {
		return refFinalText, nil
	}
	return "", nil
}

// lastSeqQuery answers a turn's newest stored seq (0 for none): the last
// of its last row, which may be a run.
const lastSeqQuery = `SELECT COALESCE((SELECT seq + run_len - 1 FROM events WHERE turn_id = ? ORDER BY seq DESC LIMIT 1), 0)`

// eventRow is one stored row of events: one event, or a run of them.
type eventRow struct {
	seq, runLen                     int64
	id, stageID, parentID, at, data string
	typ, phase                      string
	checkpoint                      bool
}

// scan reads the row's eventRowColumns, after any columns in before.
func (r *eventRow) scan(s scanner, before ...any) error {
	return s.Scan(append(before, &r.seq, &r.runLen, &r.id, &r.stageID, &r.parentID, &r.at, &r.typ, &r.phase, &r.checkpoint, &r.data)...)
}

// runData is the data of a run's row.
type runData struct {
	IDs  []string          `json:"ids"`
	At   []int64           `json:"at"`
	Data []json.RawMessage `json:"data"`
}

// expand appends the row's events with seq > after to out. A run whose
// data does not hold run_len events is damaged, and says so.
func (r *eventRow) expand(sessionID, turnID string, after int64, out []turn.Event) ([]turn.Event, error) {
	first := turn.Event{
		SessionID: sessionID, TurnID: turnID, StageID: r.stageID, ParentID: r.parentID,
		Seq: r.seq, ID: r.id, Type: turn.EventType(r.typ), Phase: turn.Phase(r.phase), Checkpoint: r.checkpoint,
	}
	_ = first.At.UnmarshalJSON([]byte(strconv.Quote(r.at)))
	if r.runLen <= 1 {
		if r.seq > after {
			first.Data = json.RawMessage(r.data)
			if text, ok := strings.CutPrefix(r.data, "="); ok { // a final_answer by reference
				first.Data, _ = json.Marshal(turn.FinalAnswerData{Text: text})
			}
			out = append(out, first)
		}
		return out, nil
	}
	if strings.HasPrefix(r.data, runTextPrefix) {
		return r.expandText(turnID, first, after, out)
	}
	var run runData
	if err := json.Unmarshal([]byte(r.data), &run); err != nil {
		return out, fmt.Errorf("the run of %d events from seq %d does not read: %w", r.runLen, r.seq, err)
	}
	if n := int(r.runLen); len(run.IDs) != n || len(run.At) != n || len(run.Data) != n {
		return out, fmt.Errorf("the run of %d events from seq %d holds %d ids, %d times and %d data", r.runLen, r.seq, len(run.IDs), len(run.At), len(run.Data))
	}
	for i := range run.IDs {
		e := first
		e.Seq = r.seq + int64(i)
		if e.Seq <= after {
			continue
		}
		e.ID, e.Data = run.IDs[i], run.Data[i]
		e.At = turn.Time{Time: first.At.Add(time.Duration(run.At[i]) * time.Millisecond)}
		out = append(out, e)
	}
	return out, nil
}

// runTextPrefix starts the data of a run in the second form.
const runTextPrefix = `{"v":2,`

// runText is the data of a run in the second form.
type runText struct {
	At   string `json:"at"`
	Len  string `json:"len"`
	Text string `json:"text"`
}

// expandText is expand for a run in the second form.
func (r *eventRow) expandText(turnID string, first turn.Event, after int64, out []turn.Event) ([]turn.Event, error) {
	var run runText
	if err := json.Unmarshal([]byte(r.data), &run); err != nil {
		return out, fmt.Errorf("the run of %d events from seq %d does not read: %w", r.runLen, r.seq, err)
	}
	at, lens := vlq.NewReader(run.At), vlq.NewReader(run.Len)
	t, off := first.At.Time, 0
	for i := range r.runLen {
		step, err := at.Next()
		n, lerr := lens.Next()
		if err != nil || lerr != nil || n < 0 || int64(off)+n > int64(len(run.Text)) {
			return out, fmt.Errorf("the run of %d events from seq %d is damaged at its event %d", r.runLen, r.seq, i)
		}
		t = t.Add(time.Duration(step) * time.Millisecond)
		text := run.Text[off : off+int(n)]
		off += int(n)
		if e := first; r.seq+i > after {
			e.Seq = r.seq + i
			e.ID, e.At, e.Data = turn.StreamID(turnID, e.Seq), turn.Time{Time: t}, turn.TextData(text)
			out = append(out, e)
		}
	}
	if at.More() || lens.More() || off != len(run.Text) {
		return out, fmt.Errorf("the run of %d events from seq %d holds more than its events", r.runLen, r.seq)
	}
	return out, nil
}

// textRun reports whether run can be written in the second form: every
// event's id and data are what the Emitter derives from its turn, seq and
// text. scratch is a buffer to reuse.
func textRun(turnID string, run []turn.Event, scratch []byte) ([]byte, bool) {
	for i := range run {
		e := &run[i]
		// e.ID == turn.StreamID(turnID, e.Seq), without making the string
		id, ok := strings.CutPrefix(e.ID, turnID)
		if !ok || len(id) < 2 || id[0] != '.' {
			return scratch, false
		}
		if scratch = strconv.AppendInt(scratch[:0], e.Seq, 10); id[1:] != string(scratch) {
			return scratch, false
		}
		scratch = turn.AppendTextData(scratch[:0], e.StreamedText())
		if !bytes.Equal(scratch, e.Data) {
			return scratch, false
		}
	}
	return scratch, true
}

// writeRunText writes the data column of a run in the second form.
func writeRunText(b *strings.Builder, run []turn.Event, num []byte) []byte {
	b.WriteString(runTextPrefix + `"at":"`)
	prev := run[0].At.UnixMilli()
	for i := range run {
		ms := run[i].At.UnixMilli()
		num = vlq.Append(num[:0], ms-prev)
		b.Write(num)
		prev = ms
	}
	b.WriteString(`","len":"`)
	for i := range run {
		num = vlq.Append(num[:0], int64(len(run[i].StreamedText())))
		b.Write(num)
	}
	b.WriteString(`","text":"`)
	for i := range run {
		writeJSONStringBody(b, run[i].StreamedText())
	}
	b.WriteString(`"}`)
	return num
}

// joinsRun reports whether e continues the run that ends with last: both
// streamed pieces (token or reasoning) of one type, stage, parent and
// phase, with no event between them.
func joinsRun(last, e *turn.Event) bool {
	return (e.Type == turn.EventToken || e.Type == turn.EventReasoning) &&
		e.Type == last.Type && e.Seq == last.Seq+1 && e.StageID == last.StageID &&
		e.ParentID == last.ParentID && e.Phase == last.Phase && !e.Checkpoint && !last.Checkpoint
}

// runLength is how many events from batch[0] make one row.
func runLength(batch []turn.Event) int {
	n := 1
	for n < len(batch) && joinsRun(&batch[n-1], &batch[n]) {
		n++
	}
	return n
}

// writeRunData writes the data column of a run of events to b.
func writeRunData(b *strings.Builder, run []turn.Event) {
	b.WriteString(`{"ids":[`)
	for i := range run {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, run[i].ID)
	}
	b.WriteString(`],"at":[`)
	start := run[0].At.UnixMilli()
	var num [20]byte
	for i := range run {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(strconv.AppendInt(num[:0], run[i].At.UnixMilli()-start, 10))
	}
	b.WriteString(`],"data":[`)
	for i := range run {
		if i > 0 {
			b.WriteByte(',')
		}
		if len(run[i].Data) == 0 {
			b.WriteString("{}")
		} else {
			b.Write(run[i].Data)
		}
	}
	b.WriteString("]}")
}

// runDataSize is what writeRunData or writeRunText writes for the runs
// in batch, all together, when no id or text needs escaping (an id never
// does but an imported one might, and a text with a quote does; then the
// builder grows).
func runDataSize(turnID string, batch []turn.Event) int {
	size := 0
	var scratch []byte
	for len(batch) > 0 {
		n := runLength(batch)
		var text bool
		if n > 1 {
			scratch, text = textRun(turnID, batch[:n], scratch)
		}
		switch {
		case text:
			size += len(runTextPrefix + `"at":"","len":"","text":""}`)
			prev := batch[0].At.UnixMilli()
			for i := range n {
				e := &batch[i]
				ms, t := e.At.UnixMilli(), e.StreamedText()
				size += vlq.Len(ms-prev) + vlq.Len(int64(len(t))) + len(t)
				prev = ms
			}
		case n > 1:
			size += len(`{"ids":[],"at":[],"data":[]}`) + 3*(n-1)
			start := batch[0].At.UnixMilli()
			for i := range n {
				e := &batch[i]
				size += len(e.ID) + 2 + max(len(e.Data), 2) + digits(e.At.UnixMilli()-start)
			}
		}
		batch = batch[n:]
	}
	return size
}

// digits is how many characters strconv.AppendInt writes for v.
func digits(v int64) int {
	n := 1
	if v < 0 {
		n++
		v = -v
	}
	for ; v >= 10; v /= 10 {
		n++
	}
	return n
}

// writeJSONStringBody writes s as the inside of a JSON string (without
// its quotes).
func writeJSONStringBody(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			q, _ := json.Marshal(s)
			b.Write(q[1 : len(q)-1])
			return
		}
	}
	b.WriteString(s)
}

// writeJSONString writes s as a JSON string: as it is when it needs no
// escaping (an id always), else as encoding/json writes it.
func writeJSONString(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			q, _ := json.Marshal(s)
			b.Write(q)
			return
		}
	}
	b.WriteByte('"')
	b.WriteString(s)
	b.WriteByte('"')
}

// damagedRun is the error of a run whose data does not read: the file's
// pages are sound, but what one row holds is not what was written.
func damagedRun(err error, doing string) error {
	return apperr.Wrap(err, apperr.Damaged, "%s failed: a stored run of streamed tokens is damaged. The other events read; `agentdeck db check` looks at the whole file.", doing)
}
