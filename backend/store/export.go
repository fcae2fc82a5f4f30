package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// ReadSession reads a session for an export and hands it to `to` as it
// reads (it makes DB an export.Source): the session's row, then each turn
// with its messages, stages, model and tool calls, approvals and the
// events load asks for, then the images the messages name, the session's
// documents and the recordings load asks for.
//
// It reads in one read transaction, so every table is seen at the same
// moment and a turn finishing meanwhile is either wholly in the export or
// not. Each table is one query whose rows come in the turns' order (joined
// to turns, ordered by seq), read alongside the query of the turns, so
// only the turn being handed on is in memory, and of its events only the
// one being written. Only the session's own rows are read, and its
// project's name and settings (its defaults: instructions, sampling, no
// secret): never the app's settings or provider definitions, and the
// store holds no keys, so an export cannot carry a credential.
func (db *DB) ReadSession(ctx context.Context, sessionID string, load export.Load, to export.Sink) error {
	tx, err := db.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return readError(err, "exporting the session")
	}
	defer tx.Rollback()
	r := &sessionReader{ctx: ctx, tx: tx, sessionID: sessionID, load: load, to: to}
	err = r.read()
	var se sinkError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return se.err
	case errors.As(err, new(*apperr.Error)):
		return err
	}
	return readError(err, "exporting the session")
}

// sinkError is an error of the Sink, returned as it is rather than as a
// failure to read.
type sinkError struct{ err error }

func (e sinkError) Error() string { return e.err.Error() }

func sinkErr(err error) error {
	if err != nil {
		return sinkError{err}
	}
	return nil
}

// sessionReader reads one session for ReadSession.
type sessionReader struct {
	ctx       context.Context
	tx        *sql.Tx
	sessionID string
	load      export.Load
	to        export.Sink
	// images are the ids of the images the messages name, in the order
	// the turns first name them, and first the turn that first names
	// each.
	images []string
	first  map[string]string
	// refs are the images as the messages name them, by id.
	refs map[string]llm.Image
}

func (r *sessionReader) read() error {
	var h export.Head
	if err := r.session(&h.Session); err != nil {
		return err
	}
	if r.load.Images {
		var err error
		if h.Images, err = r.namedImages(); err != nil {
			return err
		}
	}
	if r.load.Documents {
		if err := r.tx.QueryRowContext(r.ctx, `SELECT COUNT(*) FROM documents WHERE session_id = ?`, r.sessionID).Scan(&h.Documents); err != nil {
			return err
		}
	}
	var err error
	if h.Groups, err = r.groups(); err != nil {
		return err
	}
	if err := r.tx.QueryRowContext(r.ctx, `SELECT COUNT(*) FROM turns WHERE session_id = ? AND from_step != ''`, r.sessionID).Scan(&h.Reruns); err != nil {
		return err
	}
	// The JSON document's version depends on the artifacts and code runs
	// it carries, which it does only with every event.
	if r.load.AllEvents {
		if err := r.tx.QueryRowContext(r.ctx, `SELECT COUNT(*) FROM events e JOIN turns t ON t.id = e.turn_id WHERE t.session_id = ? AND e.type IN (?, ?)`,
			r.sessionID, string(turn.EventArtifact), string(turn.EventCodeRun)).Scan(&h.Made); err != nil {
			return err
		}
	}
	if err := r.tx.QueryRowContext(r.ctx, `SELECT COUNT(*) FROM reviews v JOIN turns t ON t.id = v.turn_id WHERE t.session_id = ?`, r.sessionID).Scan(&h.Reviews); err != nil {
		return err
	}
	if err := sinkErr(r.to.Head(&h)); err != nil {
		return err
	}
	if err := r.turns(); err != nil {
		return err
	}
	if h.Images > 0 {
		if err := r.imageData(); err != nil {
			return err
		}
	}
	if h.Documents > 0 {
		if err := r.documents(); err != nil {
			return err
		}
	}
	if r.load.Captures {
		return r.captures()
	}
	return nil
}

// session reads the session's row, with its project (by name, with the
// project's settings), tags, pin and archive (export.Version 6).
func (r *sessionReader) session(s *export.Session) error {
	var created, updated, settings, pinned, archived, tags string
	var projectName, projectSettings sql.NullString
	err := r.tx.QueryRowContext(r.ctx, `SELECT s.id, s.title, s.created_at, s.updated_at, s.provider, s.model, s.workflow, s.workspace, s.settings, COALESCE(s.active_turn_id, ''),
			CASE s.kind WHEN 'chat' THEN '' ELSE s.kind END, p.name, p.settings, COALESCE(s.pinned_at, ''), COALESCE(s.archived_at, ''),
			COALESCE((SELECT json_group_array(tag) FROM (SELECT g.tag FROM session_tags g WHERE g.session_id = s.id ORDER BY g.tag COLLATE NOCASE)), '[]'),
			COALESCE(s.open_group_id, '')
			FROM sessions s LEFT JOIN projects p ON p.id = s.project_id WHERE s.id = ?`, r.sessionID).
		Scan(&s.ID, &s.Title, &created, &updated, &s.Provider, &s.Model, &s.Workflow, &s.Workspace, &settings, &s.ActiveTurnID, &s.Kind,
			&projectName, &projectSettings, &pinned, &archived, &tags, &s.OpenGroupID)
	if errors.Is(err, sql.ErrNoRows) {
		return apperr.New(apperr.NotFound, "There is no session %s. It may have been deleted.", r.sessionID)
	}
	s.CreatedAt, s.UpdatedAt, s.Settings = parseTime(created), parseTime(updated), rawColumn(settings, `{}`)
	if projectName.Valid {
		s.Project = &export.Project{Name: projectName.String, Settings: rawColumn(projectSettings.String, `{}`)}
	}
	s.PinnedAt, s.ArchivedAt = optTime(pinned), optTime(archived)
	if tags != "[]" { // none stays nil, as a file without tags decodes
		_ = json.Unmarshal([]byte(tags), &s.Tags)
	}
	return err
}

// The queries of a turn's rows: each joins the session's turns and orders
// by their seq first, so its rows come a turn at a time in the order the
// turns do (the indexes give that order without sorting).
const (
	messagesInTurnOrder = `SELECT m.turn_id, m.role, m.content, m.extra
		FROM turns t JOIN messages m ON m.turn_id = t.id WHERE t.session_id = ? ORDER BY t.seq, m.idx`
	stagesInTurnOrder = `SELECT s.turn_id, s.id, s.name, s.agent, s.phase, s.outcome, s.termination, s.diagnostics, ` + stageResponseExpr + `
		FROM turns t JOIN stages s ON s.turn_id = t.id WHERE t.session_id = ? ORDER BY t.seq, s.idx`
	modelCallsInTurnOrder = `SELECT c.turn_id, c.stage_id, c.idx, c.model, c.started_at, c.duration_ms, c.ttft_ms, c.input_tokens, c.output_tokens, c.cached_tokens, c.reasoning_tokens, c.estimated, c.ok, c.error, c.provider, c.capture, c.price, c.cost_usd
		FROM turns t JOIN model_calls c ON c.turn_id = t.id WHERE t.session_id = ? ORDER BY t.seq, c.rowid`
	toolCallsInTurnOrder = `SELECT c.turn_id, c.stage_id, c.call_id, c.name, c.arguments, c.result_size, c.started_at, c.duration_ms, c.ok, c.error
		FROM turns t JOIN tool_calls c ON c.turn_id = t.id WHERE t.session_id = ? ORDER BY t.seq, c.rowid`
	approvalsInTurnOrder = `SELECT a.turn_id, a.call_id, a.tool, a.args, a.guard, a.answer, a.at
		FROM turns t JOIN approvals a ON a.turn_id = t.id WHERE t.session_id = ? ORDER BY t.seq, a.id`
	reviewsInTurnOrder = `SELECT v.turn_id, v.id, v.turn_id, v.step, v.thumb, v.score, v.labels, v.note, v.created_at, v.updated_at
		FROM turns t JOIN reviews v ON v.turn_id = t.id WHERE t.session_id = ? ORDER BY t.seq, v.step`
	eventsInTurnOrder = `SELECT e.turn_id, e.seq, e.run_len, e.id, e.stage_id, e.parent_id, e.at, e.type, e.phase, e.checkpoint,
		CASE e.data WHEN '` + refResult + `' THEN t.result WHEN '` + refFinalText + `' THEN '=' || t.final_text ELSE e.data END
		FROM turns t JOIN events e ON e.turn_id = t.id WHERE t.session_id = ?`
)

// turns hands on each turn with its rows, reading every table's query
// alongside the turns'.
func (r *sessionReader) turns() error {
	rows, err := r.tx.QueryContext(r.ctx, `SELECT id, seq, user_message, state, workflow, model, started_at, completed_at, final_text, outcome, termination, result, run, COALESCE(parent_turn_id, ''), continues,
		COALESCE(group_id, ''), group_slot, target, COALESCE(from_turn_id, ''), from_step, from_edit
		FROM turns WHERE session_id = ? ORDER BY seq`, r.sessionID)
	if err != nil {
		return err
	}
	defer rows.Close()
	var c turnCursors
	defer c.close()
	if err := c.open(r); err != nil {
		return err
	}
	for rows.Next() {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		t, err := scanExportTurn(rows)
		if err != nil {
			return err
		}
		if err := c.fill(t); err != nil {
			return err
		}
		if err := sinkErr(r.to.Turn(t, eventsOf(&c.events, t.ID))); err != nil {
			return err
		}
		if err := c.events.skip(t.ID); err != nil {
			return err
		}
	}
	return rows.Err()
}

// turnCursors are the queries of the turns' rows, each a turn ahead at
// most.
type turnCursors struct {
	messages   cursor[llm.Message]
	stages     cursor[export.Stage]
	modelCalls cursor[export.ModelCall]
	toolCalls  cursor[export.ToolCall]
	approvals  cursor[export.Approval]
	reviews    cursor[turn.Review]
	events     cursor[[]turn.Event]
}

func (c *turnCursors) open(r *sessionReader) error {
	c.messages.scan, c.stages.scan, c.modelCalls.scan, c.toolCalls.scan, c.approvals.scan, c.reviews.scan = scanMessage, scanStage, scanModelCall, scanToolCall, scanApproval, scanExportReview
	c.events.scan = func(rows *sql.Rows, evs *[]turn.Event) (string, error) { return scanEventRow(rows, r.sessionID, evs) }
	for _, q := range []struct {
		c interface {
			open(*sessionReader, string, ...any) error
		}
		query string
	}{
		{&c.messages, messagesInTurnOrder},
		{&c.stages, stagesInTurnOrder},
		{&c.modelCalls, modelCallsInTurnOrder},
		{&c.toolCalls, toolCallsInTurnOrder},
		{&c.approvals, approvalsInTurnOrder},
		{&c.reviews, reviewsInTurnOrder},
	} {
		if err := q.c.open(r, q.query); err != nil {
			return err
		}
	}
	if r.load.AllEvents || len(r.load.EventTypes) > 0 || r.load.PartialAnswers {
		filter, args := eventFilter(r.load)
		return c.events.open(r, eventsInTurnOrder+filter+` ORDER BY t.seq, e.seq`, args...)
	}
	return nil
}

// fill reads the rows of t in every table but events.
func (c *turnCursors) fill(t *export.Turn) error {
	var err error
	if t.Messages, err = c.messages.take(t.ID, t.Messages); err != nil {
		return err
	}
	if t.Stages, err = c.stages.take(t.ID, t.Stages); err != nil {
		return err
	}
	if t.ModelCalls, err = c.modelCalls.take(t.ID, t.ModelCalls); err != nil {
		return err
	}
	if t.ToolCalls, err = c.toolCalls.take(t.ID, t.ToolCalls); err != nil {
		return err
	}
	if t.Approvals, err = c.approvals.take(t.ID, t.Approvals); err != nil {
		return err
	}
	t.Reviews, err = c.reviews.take(t.ID, t.Reviews)
	return err
}

func (c *turnCursors) close() {
	for _, q := range []interface{ close() }{&c.messages, &c.stages, &c.modelCalls, &c.toolCalls, &c.approvals, &c.reviews, &c.events} {
		q.close()
	}
}

func scanExportTurn(rows *sql.Rows) (*export.Turn, error) {
	t := &export.Turn{Messages: []llm.Message{}, Events: []turn.Event{}, Stages: []export.Stage{}, ModelCalls: []export.ModelCall{}, ToolCalls: []export.ToolCall{}}
	var started, term, result, run string
	var completed sql.NullString
	if err := rows.Scan(&t.ID, &t.Seq, &t.UserMessage, &t.State, &t.Workflow, &t.Model, &started, &completed, &t.FinalText, &t.Outcome, &term, &result, &run, &t.ParentTurnID, &t.Continues,
		&t.GroupID, &t.GroupSlot, &t.Target, &t.FromTurnID, &t.FromStep, &t.FromEdit); err != nil {
		return nil, err
	}
	t.StartedAt, t.Termination, t.Result, t.Run = parseTime(started), rawColumn(term, `{}`), rawColumn(result, `{}`), rawColumn(run, `{}`)
	if completed.Valid {
		c := parseTime(completed.String)
		t.CompletedAt = &c
	}
	return t, nil
}
