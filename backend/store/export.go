package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// ExportDocument reads a session as the export package's document (it
// makes DB an export.Source): the session's row, its turns with their
// messages, stages, model and tool calls and approvals, and the events,
// images and recordings load asks for. It reads in one read transaction, so every
// table is seen at the same moment and a turn finishing meanwhile is
// either wholly in it or not. Only the session's own rows are read: never
// settings or provider definitions, and the store holds no keys, so an
// export cannot carry a credential.
func (db *DB) ExportDocument(ctx context.Context, sessionID string, load export.Load) (export.Document, error) {
	doc := export.Document{Turns: []export.Turn{}}
	tx, err := db.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return doc, readError(err, "exporting the session")
	}
	defer tx.Rollback()
	l := exportLoader{ctx: ctx, tx: tx, sessionID: sessionID, doc: &doc, byID: map[string]int{}}
	steps := []func() error{l.session, l.turns, l.messages, l.stages, l.modelCalls, l.toolCalls, l.approvals}
	if load.AllEvents || len(load.EventTypes) > 0 || load.PartialAnswers {
		steps = append(steps, func() error { return l.events(load) })
	}
	if load.Images {
		steps = append(steps, l.images)
	}
	if load.Captures {
		steps = append(steps, l.captures)
	}
	for _, step := range steps {
		if err := step(); err != nil {
			var ae *apperr.Error
			if errors.As(err, &ae) {
				return doc, err
			}
			return doc, readError(err, "exporting the session")
		}
	}
	return doc, nil
}

// exportLoader fills a document table by table; byID finds a turn's index.
type exportLoader struct {
	ctx       context.Context
	tx        *sql.Tx
	sessionID string
	doc       *export.Document
	byID      map[string]int
}

const sessionTurnIDs = `(SELECT id FROM turns WHERE session_id = ?)`

func (l *exportLoader) session() error {
	s := &l.doc.Session
	var created, updated, settings string
	err := l.tx.QueryRowContext(l.ctx, `SELECT id, title, created_at, updated_at, provider, model, workflow, workspace, settings, COALESCE(active_turn_id, '') FROM sessions WHERE id = ?`, l.sessionID).
		Scan(&s.ID, &s.Title, &created, &updated, &s.Provider, &s.Model, &s.Workflow, &s.Workspace, &settings, &s.ActiveTurnID)
	if errors.Is(err, sql.ErrNoRows) {
		return apperr.New(apperr.NotFound, "There is no session %s. It may have been deleted.", l.sessionID)
	}
	s.CreatedAt, s.UpdatedAt, s.Settings = parseTime(created), parseTime(updated), rawJSON(settings, `{}`)
	return err
}

func (l *exportLoader) turns() error {
	rows, err := l.tx.QueryContext(l.ctx, `SELECT id, seq, user_message, state, workflow, model, started_at, completed_at, final_text, outcome, termination, result, run, COALESCE(parent_turn_id, ''), continues
		FROM turns WHERE session_id = ? ORDER BY seq`, l.sessionID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		t := export.Turn{Messages: []llm.Message{}, Events: []turn.Event{}, Stages: []export.Stage{}, ModelCalls: []export.ModelCall{}, ToolCalls: []export.ToolCall{}}
		var started, term, result, run string
		var completed sql.NullString
		if err := rows.Scan(&t.ID, &t.Seq, &t.UserMessage, &t.State, &t.Workflow, &t.Model, &started, &completed, &t.FinalText, &t.Outcome, &term, &result, &run, &t.ParentTurnID, &t.Continues); err != nil {
			return err
		}
		t.StartedAt, t.Termination, t.Result, t.Run = parseTime(started), rawJSON(term, `{}`), rawJSON(result, `{}`), rawJSON(run, `{}`)
		if completed.Valid {
			c := parseTime(completed.String)
			t.CompletedAt = &c
		}
		l.byID[t.ID] = len(l.doc.Turns)
		l.doc.Turns = append(l.doc.Turns, t)
	}
	return rows.Err()
}

// rows runs query, whose only argument is the session id, and hands each
// row to scan.
func (l *exportLoader) rows(query string, scan func(*sql.Rows) error) error {
	rows, err := l.tx.QueryContext(l.ctx, query, l.sessionID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// turn returns the loaded turn with this id. Every query is limited to the
// session's turns in the same snapshot, so it is always found; the scratch
// turn only keeps a bug from becoming a panic.
func (l *exportLoader) turn(id string) *export.Turn {
	if i, ok := l.byID[id]; ok {
		return &l.doc.Turns[i]
	}
	return &export.Turn{}
}

func (l *exportLoader) messages() error {
	return l.rows(`SELECT turn_id, role, content, extra FROM messages WHERE turn_id IN `+sessionTurnIDs+` ORDER BY turn_id, idx`,
		func(r *sql.Rows) error {
			var m llm.Message
			var turnID, extra string
			if err := r.Scan(&turnID, &m.Role, &m.Content, &extra); err != nil {
				return err
			}
			m = withExtra(m, extra)
			t := l.turn(turnID)
			t.Messages = append(t.Messages, m)
			return nil
		})
}

// images reads the images the messages name, with their bytes, in the
// order the turns first name them. They are read by id, not by session:
// a replay names the images of the turn it replayed, which may be in
// another session, and the file must hold them (keepImages).
func (l *exportLoader) images() error {
	var ids []string
	seen := map[string]bool{}
	for _, t := range l.doc.Turns {
		for _, m := range t.Messages {
			for _, im := range m.Images {
				if im.ID != "" && !seen[im.ID] {
					seen[im.ID] = true
					ids = append(ids, im.ID)
				}
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	list, _ := json.Marshal(ids)
	byID := map[string]export.Image{}
	rows, err := l.tx.QueryContext(l.ctx, `SELECT id, turn_id, mime, name, width, height, size, sha256, created_at, data FROM images WHERE id IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var im export.Image
		var created string
		if err := rows.Scan(&im.ID, &im.TurnID, &im.MIME, &im.Name, &im.Width, &im.Height, &im.Size, &im.SHA256, &created, &im.Data); err != nil {
			return err
		}
		im.CreatedAt = parseTime(created)
		byID[im.ID] = im
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range ids {
		if im, ok := byID[id]; ok {
			l.doc.Images = append(l.doc.Images, im)
		}
	}
	keepImages(l.doc)
	return nil
}

// keepImages keeps the images doc's turns name, each owned by a turn of
// doc: its own turn when that is in doc, else the first that names it (a
// replay's, when the turn it replayed is in another session or not on a
// forked branch). An image is deleted with its owner, so once imported it
// lives as long as a turn that uses it.
func keepImages(doc *export.Document) {
	in, first := map[string]bool{}, map[string]string{}
	for _, t := range doc.Turns {
		in[t.ID] = true
		for _, m := range t.Messages {
			for _, im := range m.Images {
				if _, ok := first[im.ID]; !ok && im.ID != "" {
					first[im.ID] = t.ID
				}
			}
		}
	}
	kept := doc.Images[:0:0]
	for _, im := range doc.Images {
		if first[im.ID] == "" {
			continue
		}
		if !in[im.TurnID] {
			im.TurnID = first[im.ID]
		}
		kept = append(kept, im)
	}
	doc.Images = kept
}

func (l *exportLoader) stages() error {
	return l.rows(`SELECT turn_id, id, name, agent, phase, outcome, termination, diagnostics, response FROM stages WHERE turn_id IN `+sessionTurnIDs+` ORDER BY turn_id, idx`,
		func(r *sql.Rows) error {
			var s export.Stage
			var turnID, term, diag, resp string
			if err := r.Scan(&turnID, &s.ID, &s.Name, &s.Agent, &s.Phase, &s.Outcome, &term, &diag, &resp); err != nil {
				return err
			}
			s.Termination, s.Diagnostics, s.Response = rawJSON(term, `{}`), rawJSON(diag, `{}`), rawJSON(resp, `null`)
			t := l.turn(turnID)
			t.Stages = append(t.Stages, s)
			return nil
		})
}

func (l *exportLoader) modelCalls() error {
	return l.rows(`SELECT turn_id, stage_id, idx, model, started_at, duration_ms, ttft_ms, input_tokens, output_tokens, cached_tokens, reasoning_tokens, estimated, ok, error
		FROM model_calls WHERE turn_id IN `+sessionTurnIDs+` ORDER BY turn_id, rowid`,
		func(r *sql.Rows) error {
			var c export.ModelCall
			var turnID, started string
			if err := r.Scan(&turnID, &c.StageID, &c.Idx, &c.Model, &started, &c.DurationMS, &c.TTFTMS, &c.InputTokens, &c.OutputTokens,
				&c.CachedTokens, &c.ReasoningTokens, &c.Estimated, &c.OK, &c.Error); err != nil {
				return err
			}
			c.StartedAt = parseTime(started)
			t := l.turn(turnID)
			t.ModelCalls = append(t.ModelCalls, c)
			return nil
		})
}

func (l *exportLoader) toolCalls() error {
	return l.rows(`SELECT turn_id, stage_id, call_id, name, arguments, result_size, started_at, duration_ms, ok, error
		FROM tool_calls WHERE turn_id IN `+sessionTurnIDs+` ORDER BY turn_id, rowid`,
		func(r *sql.Rows) error {
			var c export.ToolCall
			var turnID, started string
			if err := r.Scan(&turnID, &c.StageID, &c.CallID, &c.Name, &c.Arguments, &c.ResultSize, &started, &c.DurationMS, &c.OK, &c.Error); err != nil {
				return err
			}
			c.StartedAt = parseTime(started)
			t := l.turn(turnID)
			t.ToolCalls = append(t.ToolCalls, c)
			return nil
		})
}

func (l *exportLoader) approvals() error {
	return l.rows(`SELECT turn_id, call_id, tool, args, guard, answer, at FROM approvals WHERE turn_id IN `+sessionTurnIDs+` ORDER BY turn_id, id`,
		func(r *sql.Rows) error {
			var a export.Approval
			var turnID, at string
			if err := r.Scan(&turnID, &a.CallID, &a.Tool, &a.Args, &a.Guard, &a.Answer, &at); err != nil {
				return err
			}
			a.At = parseTime(at)
			t := l.turn(turnID)
			t.Approvals = append(t.Approvals, a)
			return nil
		})
}

func (l *exportLoader) events(load export.Load) error {
	filter, args := eventFilter(load, l.sessionID)
	query := `SELECT turn_id, seq, id, stage_id, parent_id, at, type, phase, checkpoint, data FROM events WHERE turn_id IN ` + sessionTurnIDs + filter + ` ORDER BY turn_id, seq`
	rows, err := l.tx.QueryContext(l.ctx, query, append([]any{l.sessionID}, args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e turn.Event
		var at, data string
		if err := rows.Scan(&e.TurnID, &e.Seq, &e.ID, &e.StageID, &e.ParentID, &at, &e.Type, &e.Phase, &e.Checkpoint, &data); err != nil {
			return err
		}
		_ = e.At.UnmarshalJSON([]byte(strconv.Quote(at)))
		e.SessionID, e.Data = l.sessionID, rawJSON(data, `{}`)
		t := l.turn(e.TurnID)
		t.Events = append(t.Events, e)
	}
	return rows.Err()
}

// eventFilter is the condition on events that reads what load asks for
// (none for all of them), with its arguments.
func eventFilter(load export.Load, sessionID string) (string, []any) {
	if load.AllEvents {
		return "", nil
	}
	var or []string
	var args []any
	if n := len(load.EventTypes); n > 0 {
		or = append(or, `type IN (`+strings.TrimSuffix(strings.Repeat("?, ", n), ", ")+`)`)
		for _, t := range load.EventTypes {
			args = append(args, string(t))
		}
	}
	if load.PartialAnswers {
		or = append(or, `(type IN ('think_start', 'token') AND turn_id IN (SELECT id FROM turns WHERE session_id = ? AND state = 'running'))`)
		args = append(args, sessionID)
	}
	return ` AND (` + strings.Join(or, " OR ") + `)`, args
}

func (l *exportLoader) captures() error {
	rows, err := l.tx.QueryContext(l.ctx, `SELECT r.id, r.key, r.model, r.request, r.chunks, r.response, r.recorded_at, tc.turn_id, tc.idx
		FROM recordings r JOIN turn_calls tc ON tc.recording_id = r.id JOIN turns t ON t.id = tc.turn_id
		WHERE t.session_id = ? ORDER BY r.id, t.seq, tc.idx`, l.sessionID)
	if err != nil {
		return err
	}
	defer rows.Close()
	last := int64(-1)
	for rows.Next() {
		var c export.Capture
		var id int64
		var req, chunks, resp, at string
		var call export.Call
		if err := rows.Scan(&id, &c.Key, &c.Model, &req, &chunks, &resp, &at, &call.Turn, &call.Index); err != nil {
			return err
		}
		if caps := l.doc.Captures; id == last {
			caps[len(caps)-1].Calls = append(caps[len(caps)-1].Calls, call)
			continue
		}
		last = id
		c.Request, c.Chunks, c.Response, c.RecordedAt = rawJSON(req, `null`), rawJSON(chunks, `[]`), rawJSON(resp, `{}`), parseTime(at)
		c.Calls = []export.Call{call}
		l.doc.Captures = append(l.doc.Captures, c)
	}
	return rows.Err()
}

// rawJSON carries a JSON column into the document. Every writer stores
// valid JSON; a damaged value is exported as a JSON string of its text
// rather than failing the whole export, and an empty one as def.
func rawJSON(s, def string) json.RawMessage {
	switch {
	case s == "":
		return json.RawMessage(def)
	case !json.Valid([]byte(s)):
		b, _ := json.Marshal(s)
		return b
	}
	return json.RawMessage(s)
}
