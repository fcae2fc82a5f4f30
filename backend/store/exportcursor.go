package store

import (
	"database/sql"
	"encoding/json"
	"iter"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// cursor reads one query's rows in the turns' order: cur is the row read
// last and not yet handed on, and turn the turn it belongs to ("" once
// the rows are done). A cursor never opened has no rows.
type cursor[T any] struct {
	rows *sql.Rows
	scan func(*sql.Rows, *T) (turnID string, err error)
	cur  T
	turn string
	err  error
}

func (q *cursor[T]) open(r *sessionReader, query string, args ...any) error {
	rows, err := r.tx.QueryContext(r.ctx, query, append([]any{r.sessionID}, args...)...)
	if err != nil {
		return err
	}
	q.rows = rows
	q.advance()
	return q.err
}

func (q *cursor[T]) advance() {
	q.turn = ""
	if q.rows.Next() {
		q.turn, q.err = q.scan(q.rows, &q.cur)
	} else {
		q.err = q.rows.Err()
	}
}

// at reports whether the next row is one of turn id's.
func (q *cursor[T]) at(id string) bool { return q.rows != nil && q.err == nil && q.turn == id }

// take appends the rows of turn id, the turn being read, to out.
func (q *cursor[T]) take(id string, out []T) ([]T, error) {
	for ; q.at(id); q.advance() {
		out = append(out, q.cur)
	}
	return out, q.err
}

// skip passes over the rows of turn id that were not read.
func (q *cursor[T]) skip(id string) error {
	for ; q.at(id); q.advance() {
	}
	return q.err
}

func (q *cursor[T]) close() {
	if q.rows != nil {
		q.rows.Close()
	}
}

// eventsOf gives the events of turn id, the turn being read, as the
// cursor reads them, a row at a time.
func eventsOf(q *cursor[[]turn.Event], id string) iter.Seq[turn.Event] {
	return func(yield func(turn.Event) bool) {
		for ; q.at(id); q.advance() {
			for _, e := range q.cur {
				if !yield(e) {
					return
				}
			}
		}
	}
}

func scanMessage(rows *sql.Rows, m *llm.Message) (string, error) {
	var turnID, extra string
	*m = llm.Message{}
	if err := rows.Scan(&turnID, &m.Role, &m.Content, &extra); err != nil {
		return "", err
	}
	if extra != "{}" {
		*m = withExtra(*m, extra)
	}
	return turnID, nil
}

func scanStage(rows *sql.Rows, s *export.Stage) (string, error) {
	var turnID, term, diag, resp string
	if err := rows.Scan(&turnID, &s.ID, &s.Name, &s.Agent, &s.Phase, &s.Outcome, &term, &diag, &resp); err != nil {
		return "", err
	}
	s.Termination, s.Diagnostics, s.Response = rawColumn(term, `{}`), rawColumn(diag, `{}`), rawColumn(stageResponse(resp), `null`)
	return turnID, nil
}

func scanModelCall(rows *sql.Rows, c *export.ModelCall) (string, error) {
	var turnID, started, price string
	var cost sql.NullFloat64
	if err := rows.Scan(&turnID, &c.StageID, &c.Idx, &c.Model, &started, &c.DurationMS, &c.TTFTMS, &c.InputTokens, &c.OutputTokens,
		&c.CachedTokens, &c.ReasoningTokens, &c.Estimated, &c.OK, &c.Error, &c.Provider, &c.Capture, &price, &cost); err != nil {
		return "", err
	}
	c.StartedAt = parseTime(started)
	c.Price, c.CostUSD = nil, nil
	if price != "" {
		c.Price = json.RawMessage(price)
	}
	if cost.Valid {
		v := cost.Float64
		c.CostUSD = &v
	}
	return turnID, nil
}

func scanToolCall(rows *sql.Rows, c *export.ToolCall) (string, error) {
	var turnID, started string
	if err := rows.Scan(&turnID, &c.StageID, &c.CallID, &c.Name, &c.Arguments, &c.ResultSize, &started, &c.DurationMS, &c.OK, &c.Error); err != nil {
		return "", err
	}
	c.StartedAt = parseTime(started)
	return turnID, nil
}

func scanApproval(rows *sql.Rows, a *export.Approval) (string, error) {
	var turnID, at string
	if err := rows.Scan(&turnID, &a.CallID, &a.Tool, &a.Args, &a.Guard, &a.Answer, &at); err != nil {
		return "", err
	}
	a.At = parseTime(at)
	return turnID, nil
}

func scanExportReview(rows *sql.Rows, r *turn.Review) (string, error) {
	var turnID string
	v, err := scanReview(scanFunc(func(dest ...any) error { return rows.Scan(append([]any{&turnID}, dest...)...) }))
	*r = v
	return turnID, err
}

// scanFunc is a Scan method of its own.
type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// scanEventRow reads one row of eventsInTurnOrder into evs (replacing
// what it held) as the events it stores, and returns its turn: one event,
// or each event of a run (eventrun.go). It is the one place an export
// turns an events row into events.
func scanEventRow(rows *sql.Rows, sessionID string, evs *[]turn.Event) (string, error) {
	var r eventRow
	var turnID string
	if err := r.scan(rows, &turnID); err != nil {
		return "", err
	}
	out, err := r.expand(sessionID, turnID, 0, (*evs)[:0])
	if err != nil {
		return "", damagedRun(err, "exporting the events of turn "+turnID)
	}
	for i := range out {
		// An object passes as it is; anything else as rawColumn makes it JSON.
		if d := out[i].Data; len(d) < 2 || d[0] != '{' || d[len(d)-1] != '}' {
			out[i].Data = rawColumn(string(d), `{}`)
		}
	}
	*evs = out
	return turnID, nil
}

// eventFilter is the condition on eventsInTurnOrder that reads what load
// asks for (none for all of them), with its arguments.
func eventFilter(load export.Load) (string, []any) {
	if load.AllEvents {
		return "", nil
	}
	var or []string
	var args []any
	if n := len(load.EventTypes); n > 0 {
		or = append(or, `e.type IN (`+strings.TrimSuffix(strings.Repeat("?, ", n), ", ")+`)`)
		for _, t := range load.EventTypes {
			args = append(args, string(t))
		}
	}
	if load.PartialAnswers {
		or = append(or, `(e.type IN ('think_start', 'token') AND t.state = 'running')`)
	}
	return ` AND (` + strings.Join(or, " OR ") + `)`, args
}

// captures hands on the recordings the session's turns used, each with
// the calls that used it, one at a time.
func (r *sessionReader) captures() error {
	rows, err := r.tx.QueryContext(r.ctx, `SELECT r.id, r.key, r.model, r.request, r.chunks, r.response, r.recorded_at, tc.turn_id, tc.idx
		FROM recordings r JOIN turn_calls tc ON tc.recording_id = r.id JOIN turns t ON t.id = tc.turn_id
		WHERE t.session_id = ? ORDER BY r.id, t.seq, tc.idx`, r.sessionID)
	if err != nil {
		return err
	}
	defer rows.Close()
	var c *export.Capture
	last := int64(-1)
	for rows.Next() {
		var id int64
		var key, model, req, chunks, resp, at string
		var call export.Call
		if err := rows.Scan(&id, &key, &model, &req, &chunks, &resp, &at, &call.Turn, &call.Index); err != nil {
			return err
		}
		if id == last {
			c.Calls = append(c.Calls, call)
			continue
		}
		if c != nil {
			if err := sinkErr(r.to.Capture(c)); err != nil {
				return err
			}
		}
		last = id
		if chunks, resp, err = capturedFirstForm(chunks, resp); err != nil {
			return apperr.Wrap(err, apperr.Damaged, "The recording of model call %d of turn %s is damaged: it cannot be exported. `agentdeck db check` looks at the whole file.", call.Index, call.Turn)
		}
		c = &export.Capture{Key: key, Model: model, Request: rawColumn(req, `null`), Chunks: rawColumn(chunks, `[]`), Response: rawColumn(resp, `{}`),
			RecordedAt: parseTime(at), Calls: []export.Call{call}}
	}
	if err := rows.Err(); err != nil || c == nil {
		return err
	}
	return sinkErr(r.to.Capture(c))
}

// capturedFirstForm is a recording's chunks and response columns in the
// form an export carries (recording.ChunksFirstForm, ResponseFirstForm).
func capturedFirstForm(chunksCol, respCol string) (string, string, error) {
	if !strings.HasPrefix(respCol, "=") {
		chunks, err := recording.ChunksFirstForm(chunksCol)
		return chunks, respCol, err
	}
	chunks, err := recording.DecodeChunks(chunksCol)
	if err != nil {
		return "", "", err
	}
	first, err := recording.ChunksJSON(chunks)
	if err != nil {
		return "", "", err
	}
	resp, err := recording.ResponseFirstForm(respCol, chunks)
	return first, resp, err
}

// rawColumn carries a JSON column into an export as it is stored: every
// writer stores what encoding/json wrote, so it is not parsed again (most
// of an export is such columns). An empty value is def; one that cannot
// be a JSON object, list or string by its first and last bytes (text put
// there by hand, say) is checked in full, and if it is not JSON, exported
// as a JSON string of its text, so the file stays JSON.
func rawColumn(s, def string) json.RawMessage {
	if s == "" {
		return json.RawMessage(def)
	}
	switch first, last := s[0], s[len(s)-1]; {
	case first == '{' && last == '}', first == '[' && last == ']', first == '"' && last == '"' && len(s) > 1:
		return json.RawMessage(s)
	case !json.Valid([]byte(s)):
		b, _ := json.Marshal(s)
		return b
	}
	return json.RawMessage(s)
}
