package store

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/buildinfo"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// ExportFormat is the kind of file Export writes.
type ExportFormat string

const (
	// ExportJSON is the lossless document Import reads back.
	ExportJSON ExportFormat = "json"
	// ExportMarkdown is a transcript for people.
	ExportMarkdown ExportFormat = "md"
	// ExportJSONL is chat fine-tuning data in OpenAI's format.
	ExportJSONL ExportFormat = "jsonl"
)

// ExportVersion is the version of the JSON export document this build
// writes and the newest it imports. Raise it when a change would make an
// older Agentdeck misread a file.
//
// Version 2: recordings are no longer shared by key; each capture lists the
// calls (turn and call index) that used it. Version 1 files still import.
const ExportVersion = 2

// MaxImportBytes is the largest file Import reads.
const MaxImportBytes = 512 << 20

// exportFormatName marks a JSON document as ours.
const exportFormatName = "agentdeck-session"

// ParseExportFormat reads a format name as a person or a file extension
// gives it: "json", "md" (or "markdown"), "jsonl"; case and a leading dot
// are ignored.
func ParseExportFormat(s string) (ExportFormat, error) {
	switch strings.ToLower(strings.TrimPrefix(strings.TrimSpace(s), ".")) {
	case "json":
		return ExportJSON, nil
	case "md", "markdown":
		return ExportMarkdown, nil
	case "jsonl":
		return ExportJSONL, nil
	}
	return "", apperr.New(apperr.Invalid, "Unknown export format %q; use json, md or jsonl.", s)
}

// Extension returns the file extension for the format, with its dot.
func (f ExportFormat) Extension() string { return "." + string(f) }

// ExportOptions tune Export. The zero value suits every format.
type ExportOptions struct {
	// Captures adds the recorded model calls the session's turns use to a
	// JSON export, so the file can replay them elsewhere. Ignored by the
	// other formats.
	Captures bool
}

// Export writes one session to w.
//
// JSON is lossless: the session, and for every turn its messages, every
// event exactly as stored, stages with diagnostics, model and tool calls,
// and approvals; Import reads it back. Attachments are not exported: their
// content is in files beside the database, not in it. Markdown is a transcript for people;
// JSONL is fine-tuning data (see writeJSONL).
//
// An export holds only the session's own rows, read in one snapshot, so a
// turn finishing meanwhile is either wholly in it or not. Settings and
// provider definitions are never read, and the store holds no keys, so an
// export cannot carry a credential.
func (db *DB) Export(ctx context.Context, sessionID string, format ExportFormat, w io.Writer, opts ExportOptions) error {
	lo := loadOptions{}
	switch format {
	case ExportJSON:
		lo = loadOptions{events: eventsAll, captures: opts.Captures}
	case ExportMarkdown:
		lo = loadOptions{events: eventsForMarkdown}
	case ExportJSONL:
		lo = loadOptions{events: eventsNone}
	default:
		return apperr.New(apperr.Invalid, "Unknown export format %q; use json, md or jsonl.", string(format))
	}
	doc, err := db.loadExport(ctx, sessionID, lo)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	switch format {
	case ExportJSON:
		err = writeJSON(bw, &doc)
	case ExportMarkdown:
		err = writeMarkdown(ctx, bw, &doc)
	case ExportJSONL:
		err = writeJSONL(ctx, bw, &doc)
	}
	if err == nil {
		err = bw.Flush()
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return apperr.Wrap(err, apperr.Cancelled, "The export was cancelled; the file is incomplete.")
	case apperr.CodeOf(err) != apperr.Internal:
		return err
	}
	return apperr.Wrap(err, apperr.Unavailable, "Writing the export failed; check that the disk has space and the destination is writable.")
}

// The export document. Field names are the database's column names; JSON
// columns are carried raw so nothing is lost to a decode and re-encode.
type (
	exportDoc struct {
		Format     string          `json:"format"`
		Version    int             `json:"version"`
		ExportedAt time.Time       `json:"exported_at"`
		AppVersion string          `json:"app_version,omitempty"`
		Session    exportSession   `json:"session"`
		Turns      []exportTurn    `json:"turns"`
		Captures   []exportCapture `json:"captures,omitempty"`
	}
	exportSession struct {
		ID        string          `json:"id"`
		Title     string          `json:"title"`
		CreatedAt time.Time       `json:"created_at"`
		UpdatedAt time.Time       `json:"updated_at"`
		Provider  string          `json:"provider"`
		Model     string          `json:"model"`
		Workflow  string          `json:"workflow"`
		Workspace string          `json:"workspace"`
		Settings  json.RawMessage `json:"settings"`
	}
	exportTurn struct {
		ID          string          `json:"id"`
		Seq         int             `json:"seq"`
		UserMessage string          `json:"user_message"`
		State       TurnState       `json:"state"`
		Workflow    string          `json:"workflow"`
		Model       string          `json:"model"`
		StartedAt   time.Time       `json:"started_at"`
		CompletedAt *time.Time      `json:"completed_at"`
		FinalText   string          `json:"final_text"`
		Outcome     turn.Outcome    `json:"outcome"`
		Termination json.RawMessage `json:"termination"`
		Result      json.RawMessage `json:"result"`
		// Run is how the turn was run (limits, workflow); version 2.
		Run        json.RawMessage   `json:"run,omitempty"`
		Messages   []llm.Message     `json:"messages"`
		Events     []turn.Event      `json:"events"`
		Stages     []exportStage     `json:"stages"`
		ModelCalls []exportModelCall `json:"model_calls"`
		ToolCalls  []exportToolCall  `json:"tool_calls"`
		Approvals  []exportApproval  `json:"approvals,omitempty"`
	}
	exportStage struct {
		ID          string          `json:"id"`
		Name        string          `json:"name"`
		Agent       string          `json:"agent"`
		Phase       string          `json:"phase"`
		Outcome     turn.Outcome    `json:"outcome"`
		Termination json.RawMessage `json:"termination"`
		Diagnostics json.RawMessage `json:"diagnostics"`
		Response    json.RawMessage `json:"response"`
	}
	exportModelCall struct {
		StageID         string    `json:"stage_id"`
		Idx             int       `json:"idx"`
		Model           string    `json:"model"`
		StartedAt       time.Time `json:"started_at"`
		DurationMS      int64     `json:"duration_ms"`
		TTFTMS          int64     `json:"ttft_ms"`
		InputTokens     int       `json:"input_tokens"`
		OutputTokens    int       `json:"output_tokens"`
		CachedTokens    int       `json:"cached_tokens"`
		ReasoningTokens int       `json:"reasoning_tokens"`
		Estimated       bool      `json:"estimated"`
		OK              bool      `json:"ok"`
		Error           string    `json:"error"`
	}
	exportToolCall struct {
		StageID    string    `json:"stage_id"`
		CallID     string    `json:"call_id"`
		Name       string    `json:"name"`
		Arguments  string    `json:"arguments"`
		ResultSize int       `json:"result_size"`
		StartedAt  time.Time `json:"started_at"`
		DurationMS int64     `json:"duration_ms"`
		OK         bool      `json:"ok"`
		Error      string    `json:"error"`
	}
	exportApproval struct {
		CallID string    `json:"call_id"`
		Tool   string    `json:"tool"`
		Args   string    `json:"args"`
		Guard  string    `json:"guard"`
		Answer string    `json:"answer"`
		At     time.Time `json:"at"`
	}
	exportCapture struct {
		Key        string          `json:"key"`
		Model      string          `json:"model"`
		Request    json.RawMessage `json:"request"`
		Chunks     json.RawMessage `json:"chunks"`
		Response   json.RawMessage `json:"response"`
		RecordedAt time.Time       `json:"recorded_at"`
		// Calls are the exported turns' calls that used this recording.
		Calls []exportCall `json:"calls,omitempty"`
		// Turns is version 1's link: the turns that used the capture,
		// with no call index.
		Turns []string `json:"turns,omitempty"`
	}
	exportCall struct {
		Turn  string `json:"turn"`
		Index int    `json:"index"`
	}
)

// Which events loadExport reads: all of them is the bulk of a session.
type eventSet int

const (
	eventsNone        eventSet = iota
	eventsForMarkdown          // charts, plus what a running turn's partial answer needs
	eventsAll
)

type loadOptions struct {
	events   eventSet
	captures bool
}

// loadExport reads a session in one read transaction, so every table is
// seen at the same moment.
func (db *DB) loadExport(ctx context.Context, sessionID string, o loadOptions) (exportDoc, error) {
	doc := exportDoc{Format: exportFormatName, Version: ExportVersion, ExportedAt: time.Now().UTC(), AppVersion: buildinfo.Version, Turns: []exportTurn{}}
	tx, err := db.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return doc, readError(err, "exporting the session")
	}
	defer tx.Rollback()
	l := exportLoader{ctx: ctx, tx: tx, sessionID: sessionID, doc: &doc, byID: map[string]int{}}
	steps := []func() error{l.session, l.turns, l.messages, l.stages, l.modelCalls, l.toolCalls, l.approvals}
	if o.events != eventsNone {
		steps = append(steps, func() error { return l.events(o.events) })
	}
	if o.captures {
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
	doc       *exportDoc
	byID      map[string]int
}

const sessionTurnIDs = `(SELECT id FROM turns WHERE session_id = ?)`

func (l *exportLoader) session() error {
	s := &l.doc.Session
	var created, updated, settings string
	err := l.tx.QueryRowContext(l.ctx, `SELECT id, title, created_at, updated_at, provider, model, workflow, workspace, settings FROM sessions WHERE id = ?`, l.sessionID).
		Scan(&s.ID, &s.Title, &created, &updated, &s.Provider, &s.Model, &s.Workflow, &s.Workspace, &settings)
	if errors.Is(err, sql.ErrNoRows) {
		return apperr.New(apperr.NotFound, "There is no session %s. It may have been deleted.", l.sessionID)
	}
	s.CreatedAt, s.UpdatedAt, s.Settings = parseTime(created), parseTime(updated), rawJSON(settings, `{}`)
	return err
}

func (l *exportLoader) turns() error {
	rows, err := l.tx.QueryContext(l.ctx, `SELECT id, seq, user_message, state, workflow, model, started_at, completed_at, final_text, outcome, termination, result, run
		FROM turns WHERE session_id = ? ORDER BY seq`, l.sessionID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		t := exportTurn{Messages: []llm.Message{}, Events: []turn.Event{}, Stages: []exportStage{}, ModelCalls: []exportModelCall{}, ToolCalls: []exportToolCall{}}
		var started, term, result, run string
		var completed sql.NullString
		if err := rows.Scan(&t.ID, &t.Seq, &t.UserMessage, &t.State, &t.Workflow, &t.Model, &started, &completed, &t.FinalText, &t.Outcome, &term, &result, &run); err != nil {
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
func (l *exportLoader) turn(id string) *exportTurn {
	if i, ok := l.byID[id]; ok {
		return &l.doc.Turns[i]
	}
	return &exportTurn{}
}

func (l *exportLoader) messages() error {
	return l.rows(`SELECT turn_id, role, content, extra FROM messages WHERE turn_id IN `+sessionTurnIDs+` ORDER BY turn_id, idx`,
		func(r *sql.Rows) error {
			var m llm.Message
			var turnID, extra string
			if err := r.Scan(&turnID, &m.Role, &m.Content, &extra); err != nil {
				return err
			}
			var x messageExtra
			_ = json.Unmarshal([]byte(extra), &x)
			m.ToolCalls, m.ToolCallID, m.Name, m.Reasoning = x.ToolCalls, x.ToolCallID, x.Name, x.Reasoning
			t := l.turn(turnID)
			t.Messages = append(t.Messages, m)
			return nil
		})
}

func (l *exportLoader) stages() error {
	return l.rows(`SELECT turn_id, id, name, agent, phase, outcome, termination, diagnostics, response FROM stages WHERE turn_id IN `+sessionTurnIDs+` ORDER BY turn_id, idx`,
		func(r *sql.Rows) error {
			var s exportStage
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
			var c exportModelCall
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
			var c exportToolCall
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
			var a exportApproval
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

func (l *exportLoader) events(set eventSet) error {
	filter := ""
	if set == eventsForMarkdown {
		// Charts; plans, for turns whose result has none; and the partial
		// answer of a running turn, which exists only as tokens.
		filter = ` AND (type IN ('chart', 'plan_generated', 'step_start', 'step_end') OR (type IN ('think_start', 'token') AND turn_id IN (SELECT id FROM turns WHERE session_id = ? AND state = 'running')))`
	}
	query := `SELECT turn_id, seq, id, stage_id, parent_id, at, type, phase, checkpoint, data FROM events WHERE turn_id IN ` + sessionTurnIDs + filter + ` ORDER BY turn_id, seq`
	args := []any{l.sessionID}
	if filter != "" {
		args = append(args, l.sessionID)
	}
	rows, err := l.tx.QueryContext(l.ctx, query, args...)
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
		var c exportCapture
		var id int64
		var req, chunks, resp, at string
		var call exportCall
		if err := rows.Scan(&id, &c.Key, &c.Model, &req, &chunks, &resp, &at, &call.Turn, &call.Index); err != nil {
			return err
		}
		if caps := l.doc.Captures; id == last {
			caps[len(caps)-1].Calls = append(caps[len(caps)-1].Calls, call)
			continue
		}
		last = id
		c.Request, c.Chunks, c.Response, c.RecordedAt = rawJSON(req, `null`), rawJSON(chunks, `[]`), rawJSON(resp, `{}`), parseTime(at)
		c.Calls = []exportCall{call}
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

// The decoded views Markdown and JSONL need.

// plan returns the turn's checklist: from its result, or for a turn that
// never finished (the result has none), from its events as livePlan does.
func (t *exportTurn) plan() []turn.PlanStep {
	var res struct {
		PlanSteps []turn.PlanStep `json:"plan_steps"`
	}
	_ = json.Unmarshal(t.Result, &res)
	if res.PlanSteps != nil {
		return res.PlanSteps
	}
	var steps []turn.PlanStep
	for _, e := range t.Events {
		applyPlanEvent(&steps, e.Type, e.Data)
	}
	return steps
}

// errorText is the error the turn's result reports, if any.
func (t *exportTurn) errorText() string {
	var res struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(t.Result, &res)
	return res.Error
}

// partialText joins the tokens streamed after the turn's last think_start:
// the answer so far of a turn that never finished (see RecoverInterrupted).
func (t *exportTurn) partialText() string {
	start := 0
	for i, e := range t.Events {
		if e.Type == turn.EventThinkStart {
			start = i + 1
		}
	}
	var b strings.Builder
	for _, e := range t.Events[start:] {
		if e.Type == turn.EventToken {
			var d turn.TokenData
			_ = json.Unmarshal(e.Data, &d)
			b.WriteString(d.Text)
		}
	}
	return b.String()
}
