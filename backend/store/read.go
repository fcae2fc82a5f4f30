package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// TurnDetail is everything needed to review a turn offline.
type TurnDetail struct {
	Turn
	Messages []llm.Message      `json:"messages"`
	Stages   []turn.StageResult `json:"stages"`
	Plan     []turn.PlanStep    `json:"plan"`
	Charts   []ChartRecord      `json:"charts"`
	// Sources are the passages and pages the turn's tools gave its model
	// to cite, in the order given (its sources events): a copy, true after
	// the documents changed or went.
	Sources []turn.Source   `json:"sources,omitempty"`
	Result  json.RawMessage `json:"result"`
	// Events is filled only when asked for (they can be many).
	Events []turn.Event `json:"events,omitempty"`
	// LastSeq is the newest stored event's seq.
	LastSeq int64 `json:"last_seq"`
	// Unreadable names the parts of the turn ReadTurn could not read from
	// a damaged file ("messages", "stages", "events"); their fields are
	// empty.
	Unreadable []string `json:"unreadable,omitempty"`
	// Settings is what the turn ran with (instructions, sampling, model)
	// and where each came from, as the runner stored it with the turn;
	// nil for a turn stored before turns kept it.
	Settings *turn.Resolved `json:"settings,omitempty"`
	// Agents says, per agent of the turn's workflow, what its file set
	// over Settings and whether it received the instructions.
	Agents map[string]AgentRun `json:"agents,omitempty"`
	// ImportedFrom names the app a turn imported from another app's
	// history ran in ("ChatGPT"); such a turn has no recorded model calls,
	// so it cannot be replayed, only re-run.
	ImportedFrom string `json:"imported_from,omitempty"`

	// partErr is the first part's error, for GetTurn.
	partErr error
}

// AgentRun is how one agent of a turn ran beside the turn's settings: the
// sampling its workflow file set (which wins over the turn's, for it), and
// whether it received the session's instructions.
type AgentRun struct {
	Sampling     turn.Sampling `json:"sampling"`
	Instructions bool          `json:"instructions"`
}

// ChartRecord is a chart a turn drew.
type ChartRecord struct {
	EventID string          `json:"event_id"`
	Seq     int64           `json:"seq"`
	Title   string          `json:"title"`
	Spec    json.RawMessage `json:"spec"`
}

const turnSelect = `SELECT id, session_id, seq, user_message, state, workflow, model, started_at, completed_at, final_text, outcome, termination, COALESCE(parent_turn_id, ''), continues, copied, COALESCE(group_id, ''), group_slot, target, COALESCE(from_turn_id, ''), from_step, from_edit FROM turns`

func scanTurn(r scanner) (Turn, error) {
	var t Turn
	var started string
	var completed sql.NullString
	var term string
	err := r.Scan(&t.ID, &t.SessionID, &t.Seq, &t.UserMessage, &t.State, &t.Workflow, &t.Model, &started, &completed, &t.FinalText, &t.Outcome, &term, &t.ParentTurnID, &t.Continues, &t.Copied, &t.GroupID, &t.GroupSlot, &t.Target, &t.FromTurnID, &t.FromStep, &t.FromEdit)
	t.StartedAt = parseTime(started)
	if completed.Valid {
		c := parseTime(completed.String)
		t.CompletedAt = &c
	}
	_ = json.Unmarshal([]byte(term), &t.Termination)
	return t, err
}

// GetTurn loads a turn for review. withEvents adds its full event log.
// Any part that cannot be read fails it; ReadTurn returns what it can.
func (db *DB) GetTurn(ctx context.Context, id string, withEvents bool) (TurnDetail, error) {
	d, err := db.ReadTurn(ctx, id, withEvents)
	if err == nil && d.partErr != nil {
		return d, d.partErr
	}
	return d, err
}

// ReadTurn is GetTurn for a file that may be damaged: the turn's row must
// be readable, and a part that is not (its messages, stages or events)
// is left empty and named in Unreadable instead of failing the turn.
func (db *DB) ReadTurn(ctx context.Context, id string, withEvents bool) (TurnDetail, error) {
	var d TurnDetail
	var result, run string
	row := db.reader.QueryRowContext(ctx, turnSelect+` WHERE id = ?`, id)
	t, err := scanTurn(row)
	if err == nil {
		err = db.reader.QueryRowContext(ctx, `SELECT result, run FROM turns WHERE id = ?`, id).Scan(&result, &run)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return d, apperr.New(apperr.NotFound, "There is no turn %s.", id)
	}
	if err != nil {
		return d, readError(err, "reading turn "+id)
	}
	d.Turn = t
	d.Result = json.RawMessage(result)
	var res struct {
		PlanSteps []turn.PlanStep `json:"plan_steps"`
	}
	_ = json.Unmarshal(d.Result, &res)
	d.Plan = res.PlanSteps
	var spec struct {
		Settings *turn.Resolved      `json:"settings"`
		Agents   map[string]AgentRun `json:"agents"`
		Imported string              `json:"imported_from"`
	}
	_ = json.Unmarshal([]byte(run), &spec)
	d.Settings, d.Agents, d.ImportedFrom = spec.Settings, spec.Agents, spec.Imported
	// Only damage is worked around; any other failure (cancelled, busy)
	// fails the turn.
	var fatal error
	part := func(name string, err error) {
		if err == nil {
			return
		}
		if apperr.CodeOf(err) != apperr.Damaged {
			fatal = cmp.Or(fatal, err)
			return
		}
		d.Unreadable = append(d.Unreadable, name)
		if d.partErr == nil {
			d.partErr = err
		}
	}
	d.Messages, err = db.turnMessages(ctx, id)
	part("messages", err)
	d.Stages, err = db.turnStages(ctx, id)
	part("stages", err)
	// The charts, the newest seq and the events all come from the events
	// table: one damaged page of it makes the three unreadable together,
	// and they are named as what failed, the turn's events.
	var events error
	if d.Charts, events = db.turnCharts(ctx, id); events == nil {
		d.Sources, events = db.turnSources(ctx, id)
	}
	if events == nil {
		if err := db.reader.QueryRowContext(ctx, lastSeqQuery, id).Scan(&d.LastSeq); err != nil {
			events = readError(err, "reading the events of turn "+id)
		}
	}
	if events == nil && withEvents {
		d.Events, events = db.EventsAfter(ctx, id, 0, 0)
	}
	if events != nil {
		d.Charts, d.Sources, d.Events = nil, nil, nil
	}
	part("events", events)
	if fatal != nil {
		return TurnDetail{}, fatal
	}
	if d.Plan == nil && t.State == StateRunning && events == nil {
		d.Plan = db.livePlan(ctx, id)
	}
	return d, nil
}

// turnMessagesQuery selects a turn's messages, in order.
const turnMessagesQuery = `SELECT role, content, extra FROM messages WHERE turn_id = ? ORDER BY idx`

func (db *DB) turnMessages(ctx context.Context, turnID string) ([]llm.Message, error) {
	return db.queryMessages(ctx, "reading the messages of turn "+turnID, turnMessagesQuery, turnID)
}

// queryMessages runs a query selecting (role, content, extra) rows.
func (db *DB) queryMessages(ctx context.Context, doing, q string, args ...any) ([]llm.Message, error) {
	return readMessages(ctx, db.reader, doing, q, args...)
}

// readMessages runs a query selecting (role, content, extra) rows on from,
// a pool or a transaction.
func readMessages(ctx context.Context, from querier, doing, q string, args ...any) ([]llm.Message, error) {
	out, err := appendRows(ctx, from, []llm.Message(nil), func(r scanner) (m llm.Message, err error) {
		var extra string
		err = r.Scan(&m.Role, &m.Content, &extra)
		return withExtra(m, extra), err
	}, q, args...)
	if err != nil {
		return nil, readError(err, doing)
	}
	return out, nil
}

func (db *DB) turnStages(ctx context.Context, turnID string) ([]turn.StageResult, error) {
	out, err := appendRows(ctx, db.reader, []turn.StageResult(nil), func(r scanner) (s turn.StageResult, err error) {
		var term, diag, resp string
		if err := r.Scan(&s.ID, &s.Name, &s.Agent, &s.Phase, &s.Outcome, &term, &diag, &resp); err != nil {
			return s, err
		}
		_ = json.Unmarshal([]byte(term), &s.Termination)
		_ = json.Unmarshal([]byte(diag), &s.Diagnostics)
		_ = json.Unmarshal([]byte(stageResponse(resp)), &s.Response)
		return s, nil
	}, `SELECT s.id, s.name, s.agent, s.phase, s.outcome, s.termination, s.diagnostics, `+stageResponseExpr+` FROM stages s WHERE s.turn_id = ? ORDER BY s.idx`, turnID)
	if err != nil {
		return nil, readError(err, "reading the stages of turn "+turnID)
	}
	return out, nil
}

func (db *DB) turnCharts(ctx context.Context, turnID string) ([]ChartRecord, error) {
	out, err := appendRows(ctx, db.reader, []ChartRecord(nil), func(r scanner) (c ChartRecord, err error) {
		var data string
		if err := r.Scan(&c.EventID, &c.Seq, &data); err != nil {
			return c, err
		}
		var d turn.ChartData
		_ = json.Unmarshal([]byte(data), &d)
		c.Title, c.Spec = d.Title, d.Spec
		return c, nil
	}, `SELECT id, seq, data FROM events WHERE turn_id = ? AND type = 'chart' ORDER BY seq`, turnID)
	if err != nil {
		return nil, readError(err, "reading the events of turn "+turnID)
	}
	return out, nil
}

// turnSources reads a turn's sources events, in order.
func (db *DB) turnSources(ctx context.Context, turnID string) ([]turn.Source, error) {
	lists, err := appendRows(ctx, db.reader, [][]turn.Source(nil), func(r scanner) ([]turn.Source, error) {
		var data string
		if err := r.Scan(&data); err != nil {
			return nil, err
		}
		var d turn.SourcesData
		_ = json.Unmarshal([]byte(data), &d)
		return d.Sources, nil
	}, `SELECT data FROM events WHERE turn_id = ? AND type = 'sources' ORDER BY seq`, turnID)
	if err != nil {
		return nil, readError(err, "reading the events of turn "+turnID)
	}
	var out []turn.Source
	for _, l := range lists {
		out = append(out, l...)
	}
	return out, nil
}

// livePlan rebuilds the plan of a running turn from its events: the last
// plan_generated, with the step_start and step_end events after it applied.
func (db *DB) livePlan(ctx context.Context, turnID string) []turn.PlanStep {
	rows, err := db.reader.QueryContext(ctx, `SELECT type, data FROM events WHERE turn_id = ? AND type IN ('plan_generated', 'step_start', 'step_end')
		AND seq >= COALESCE((SELECT MAX(seq) FROM events WHERE turn_id = ? AND type = 'plan_generated'), 0) ORDER BY seq`, turnID, turnID)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var steps []turn.PlanStep
	for rows.Next() {
		var typ, data string
		if rows.Scan(&typ, &data) != nil {
			return nil
		}
		turn.ApplyPlanEvent(&steps, turn.EventType(typ), []byte(data))
	}
	return steps
}

// EventsAfter returns a turn's events with seq > after, in order; limit 0
// means all.
func (db *DB) EventsAfter(ctx context.Context, turnID string, after int64, limit int) ([]turn.Event, error) {
	// The session is read apart from the events, so a damaged page of
	// either is named as what it is.
	var sessionID sql.NullString
	err := db.reader.QueryRowContext(ctx, `SELECT session_id FROM turns WHERE id = ?`, turnID).Scan(&sessionID)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, readError(err, "reading turn "+turnID)
	}
	doing := "reading the events of turn " + turnID
	// From the row that holds seq after + 1: a run (eventrun.go) may
	// start at or before after and go on beyond it. Each row holds at
	// least one event, so limit + 1 rows hold limit events past after.
	q := `SELECT ` + eventRowColumns + ` FROM events WHERE turn_id = ?1
		AND seq >= COALESCE((SELECT MAX(seq) FROM events WHERE turn_id = ?1 AND seq <= ?2), 0) ORDER BY seq`
	args := []any{turnID, after + 1}
	if limit > 0 {
		q += ` LIMIT ?3`
		args = append(args, limit+1)
	}
	rows, err := db.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, readError(err, doing)
	}
	defer rows.Close()
	var out []turn.Event
	for rows.Next() {
		var r eventRow
		if err := r.scan(rows); err != nil {
			return nil, readError(err, doing)
		}
		if out, err = r.expand(sessionID.String, turnID, after, out); err != nil {
			return nil, damagedRun(err, doing)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, readError(err, doing)
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// TurnPage is one page of a session's turns, newest first.
type TurnPage struct {
	Turns      []Turn `json:"turns"`
	NextCursor string `json:"next_cursor"`
}

// ListTurns pages through a session's turns, newest first; the cursor is
// the seq of the last turn of the previous page.
func (db *DB) ListTurns(ctx context.Context, sessionID string, p Page) (TurnPage, error) {
	limit := clampLimit(p.Limit, 50, 1000)
	q, args := turnSelect+` WHERE session_id = ?`, []any{sessionID}
	if p.Cursor != "" {
		seq, err := strconv.Atoi(p.Cursor)
		if err != nil {
			return TurnPage{}, apperr.New(apperr.Invalid, "The page cursor %q is not valid.", p.Cursor)
		}
		q += ` AND seq < ?`
		args = append(args, seq)
	}
	q += ` ORDER BY seq DESC LIMIT ?`
	args = append(args, limit+1)
	turns, err := appendRows(ctx, db.reader, []Turn(nil), scanTurn, q, args...)
	if err != nil {
		return TurnPage{}, readError(err, "listing the turns of session "+sessionID)
	}
	page := TurnPage{Turns: turns}
	if len(page.Turns) > limit {
		page.Turns = page.Turns[:limit]
		page.NextCursor = strconv.Itoa(page.Turns[limit-1].Seq)
	}
	return page, nil
}

// BranchPage is one page of a session's active branch, newest first.
type BranchPage struct {
	Turns      []Turn `json:"turns"`
	NextCursor string `json:"next_cursor"`
	// Versions lists, for each turn of the page that has other versions
	// (turns following the same turn: edits, regenerations), the ids of
	// all of them, oldest first. A turn with no other version is absent.
	Versions map[string][]string `json:"versions"`
}

// ListBranch pages through the session's active branch, newest first: the
// conversation as it reads now. The cursor is the seq of the last turn of
// the previous page. Each page says which of its turns have versions.
func (db *DB) ListBranch(ctx context.Context, sessionID string, p Page) (BranchPage, error) {
	doing := "listing the turns of session " + sessionID
	limit := clampLimit(p.Limit, 50, 1000)
	before := math.MaxInt
	if p.Cursor != "" {
		seq, err := strconv.Atoi(p.Cursor)
		if err != nil {
			return BranchPage{}, apperr.New(apperr.Invalid, "The page cursor %q is not valid.", p.Cursor)
		}
		before = seq
	}
	s, err := db.GetSession(ctx, sessionID)
	if err != nil {
		return BranchPage{}, err
	}
	page := BranchPage{Turns: []Turn{}, Versions: map[string][]string{}}
	if s.ActiveTurnID == "" {
		return page, nil
	}
	page.Turns, err = appendRows(ctx, db.reader, page.Turns, scanTurn,
		pathCTE+turnSelect+` WHERE id IN (SELECT id FROM path) AND seq < ? ORDER BY seq DESC LIMIT ?`, s.ActiveTurnID, before, limit+1)
	if err != nil {
		return BranchPage{}, readError(err, doing)
	}
	if len(page.Turns) > limit {
		page.Turns = page.Turns[:limit]
		page.NextCursor = strconv.Itoa(page.Turns[limit-1].Seq)
	}
	if page.Versions, err = db.versions(ctx, sessionID, page.Turns); err != nil {
		return BranchPage{}, readError(err, doing)
	}
	return page, nil
}

// versions groups the siblings of each of turns: the turns that follow the
// same turn and, like it, continue it or not. Only groups of two or more
// are kept.
func (db *DB) versions(ctx context.Context, sessionID string, turns []Turn) (map[string][]string, error) {
	out := map[string][]string{}
	parents, roots := []string{}, false
	for _, t := range turns {
		if t.ParentTurnID == "" {
			roots = true
		} else {
			parents = append(parents, t.ParentTurnID)
		}
	}
	list, _ := json.Marshal(parents)
	rows, err := db.reader.QueryContext(ctx, `
		SELECT id, parent_turn_id, continues, seq FROM turns WHERE parent_turn_id IN (SELECT value FROM json_each(?))
		UNION ALL
		SELECT id, '', continues, seq FROM turns WHERE session_id = ? AND parent_turn_id IS NULL AND ?
		ORDER BY 4`, string(list), sessionID, roots)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type group struct {
		parent    string
		continues bool
	}
	groups := map[group][]string{}
	for rows.Next() {
		var id, parent string
		var continues bool
		var seq int
		if err := rows.Scan(&id, &parent, &continues, &seq); err != nil {
			return nil, err
		}
		g := group{parent, continues}
		groups[g] = append(groups[g], id)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, t := range turns {
		if g := groups[group{t.ParentTurnID, t.Continues}]; len(g) > 1 {
			out[t.ID] = g
		}
	}
	return out, nil
}
