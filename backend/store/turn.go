package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// TurnState is where a turn is in its life.
type TurnState string

const (
	StateRunning     TurnState = "running"
	StateCompleted   TurnState = "completed"
	StateCancelled   TurnState = "cancelled"
	StateFailed      TurnState = "failed"
	StateInterrupted TurnState = "interrupted" // the process died mid-turn
)

// Copied is where a copied turn came from.
type Copied string

// Where a copied turn came from.
const (
	// CopiedFork is a turn of the branch a fork copied.
	CopiedFork Copied = "fork"
	// CopiedImport is a turn an import copied from its file.
	CopiedImport Copied = "import"
)

// Turn is one user message and what the workflow did with it.
type Turn struct {
	ID          string           `json:"id"`
	SessionID   string           `json:"session_id"`
	Seq         int              `json:"seq"`
	UserMessage string           `json:"user_message"`
	State       TurnState        `json:"state"`
	Workflow    string           `json:"workflow"`
	Model       string           `json:"model"`
	StartedAt   time.Time        `json:"started_at"`
	CompletedAt *time.Time       `json:"completed_at"`
	FinalText   string           `json:"final_text"`
	Outcome     turn.Outcome     `json:"outcome"`
	Termination turn.Termination `json:"termination"`
	// ParentTurnID is the turn this one follows on its branch, "" for a
	// first message. Turns with the same parent are versions of one
	// another (an edit, a regeneration).
	ParentTurnID string `json:"parent_turn_id"`
	// Continues is set on a turn that continues the answer of the turn it
	// follows (Continue after Stop or a limit): readers show the two as
	// one answer with a mark where it resumed.
	Continues bool `json:"continues"`
	// Copied says where a turn copied from elsewhere came from (CopiedFork,
	// CopiedImport), "" for a turn that ran here. A copy keeps its calls'
	// figures to show, but no sum of usage or cost counts them: they were
	// counted where they ran.
	Copied Copied `json:"copied,omitempty"`
	// GroupID names the side-by-side group the turn was sent in ("" for
	// none), GroupSlot its column there, from 0, and Target what the
	// column ran, as the user picked it (TargetLabel).
	GroupID   string `json:"group_id,omitempty"`
	GroupSlot int    `json:"group_slot,omitempty"`
	Target    string `json:"target,omitempty"`
	// FromTurnID, FromStep and FromEdit are set on a turn re-run from a
	// step of another turn (time travel): the turn ("" once it is
	// deleted), the step's timeline id, and the kind of edit made there
	// ("" for none).
	FromTurnID string `json:"from_turn_id,omitempty"`
	FromStep   string `json:"from_step,omitempty"`
	FromEdit   string `json:"from_edit,omitempty"`
	// Images are the user message's images, stored as the turn starts
	// (StartTurn gives them back with their ids), so a turn cut short by a
	// crash keeps them. Read them from the messages.
	Images []llm.Image `json:"-"`
}

// StartOptions change how StartTurn starts a turn.
type StartOptions struct {
	// Force writes the turn into a file known to be damaged (see
	// Damaged): the person was told and insisted.
	Force bool
	// Follows makes Turn.ParentTurnID the parent as given, "" for a new
	// first message; without it the turn follows the session's active
	// turn.
	Follows bool
	// Group starts the turn as a column of that side-by-side group
	// (CreateGroup), in column Slot, running Target. Turns of one group
	// may run together; the session's active turn becomes the one in
	// slot 0, and the session shows the group side by side.
	Group  string
	Slot   int
	Target string
}

// StartTurn records a new running turn owned by this process. The row is
// committed before the turn runs, so a crash leaves a turn to recover.
// One turn runs per session, or the turns of one group: a running turn of
// this process or of another live one is a Conflict, unless both are
// columns of the same group (StartOptions.Group); one whose process is
// gone is marked interrupted here, in the same transaction, and the new
// turn starts.
//
// A damaged file is not written unless opts say Force: StartTurn refuses
// (apperr.Damaged) when this process met damage before, or when the
// session's latest turn, which the new one continues, sits on a damaged
// page (its row and its events are read first).
func (db *DB) StartTurn(ctx context.Context, t Turn, opts ...StartOptions) (Turn, error) {
	var opt StartOptions
	if len(opts) > 0 {
		opt = opts[0]
	}
	force := opt.Force
	if t.ID == "" {
		t.ID = turn.NewID()
	}
	t.State = StateRunning
	t.StartedAt = time.Now().UTC()
	if met, _ := db.Damaged(); met && !force {
		return t, db.refuseDamaged(nil)
	}
	if err := db.probeLatestTurn(ctx, t.SessionID); err != nil && (!force || !isCorrupt(err)) {
		if isCorrupt(err) {
			return t, db.refuseDamaged(err)
		}
		return t, readError(err, "reading the session's latest turn")
	}
	var recovered []string
	err := db.tx(ctx, "starting the turn", func(tx *sql.Tx) error {
		recovered = recovered[:0]
		if err := db.claimSession(ctx, tx, t.SessionID, opt.Group, &recovered); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM turns WHERE session_id = ?`, t.SessionID).Scan(&t.Seq); err != nil {
			return err
		}
		parent, err := db.parentOf(ctx, tx, t, opt.Follows)
		if err != nil {
			return err
		}
		t.ParentTurnID = parent
		if opt.Group != "" {
			if err := checkGroup(ctx, tx, opt.Group, t.SessionID); err != nil {
				return err
			}
		}
		t.GroupID, t.GroupSlot, t.Target = opt.Group, opt.Slot, opt.Target
		_, err = tx.ExecContext(ctx, `INSERT INTO turns (id, session_id, seq, user_message, state, workflow, model, started_at, owner_pid, owner_start, heartbeat_at, parent_turn_id, continues, group_id, group_slot, target, from_turn_id, from_step, from_edit)
			VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, NULLIF(?, ''), ?, NULLIF(?, ''), ?, ?, NULLIF(?, ''), ?, ?)`,
			t.ID, t.SessionID, t.Seq, t.UserMessage, t.Workflow, t.Model, fmtTime(t.StartedAt), db.owner.PID, db.owner.Start, fmtTime(t.StartedAt), t.ParentTurnID, t.Continues,
			t.GroupID, t.GroupSlot, t.Target, t.FromTurnID, t.FromStep, t.FromEdit)
		if err != nil {
			if isForeignKey(err) {
				return apperr.New(apperr.NotFound, "There is no session %s.", t.SessionID)
			}
			return err
		}
		if len(t.Images) > 0 {
			if t.Images, err = saveImages(ctx, tx, t.SessionID, t.ID, t.Images); err != nil {
				return err
			}
		}
		if t.GroupID != "" {
			// The group's columns: the branch goes on in slot 0, and the
			// session shows the group side by side.
			if t.GroupSlot != 0 {
				_, err = tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ?, open_group_id = ? WHERE id = ?`, fmtTime(t.StartedAt), t.GroupID, t.SessionID)
				return err
			}
			_, err = tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ?, active_turn_id = ?, open_group_id = ? WHERE id = ?`, fmtTime(t.StartedAt), t.ID, t.GroupID, t.SessionID)
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ?, active_turn_id = ?, open_group_id = NULL WHERE id = ?`, fmtTime(t.StartedAt), t.ID, t.SessionID)
		return err
	})
	if err == nil {
		db.forgetEndings(recovered...)
	}
	return t, err
}

// parentOf is the turn t follows: the one it names when follows is set
// (which must be a turn of its session), else the session's active turn.
func (db *DB) parentOf(ctx context.Context, tx *sql.Tx, t Turn, follows bool) (string, error) {
	if !follows {
		var active string
		err := tx.QueryRowContext(ctx, `SELECT COALESCE(active_turn_id, '') FROM sessions WHERE id = ?`, t.SessionID).Scan(&active)
		if errors.Is(err, sql.ErrNoRows) {
			return "", apperr.New(apperr.NotFound, "There is no session %s.", t.SessionID)
		}
		return active, err
	}
	if t.ParentTurnID == "" {
		return "", nil
	}
	var session string
	err := tx.QueryRowContext(ctx, `SELECT session_id FROM turns WHERE id = ?`, t.ParentTurnID).Scan(&session)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", apperr.New(apperr.NotFound, "There is no turn %s to follow.", t.ParentTurnID)
	case err != nil:
		return "", err
	case session != t.SessionID:
		return "", apperr.New(apperr.Invalid, "Turn %s belongs to another session; a turn can only follow a turn of its own session.", t.ParentTurnID)
	}
	return t.ParentTurnID, nil
}

// probeLatestTurn reads the row of the session's latest turn and counts
// its events: what a new turn continues. Damage there is met before
// anything is written. It reads through the reader pool, outside the
// write transaction: a long turn's events take a few milliseconds.
func (db *DB) probeLatestTurn(ctx context.Context, sessionID string) error {
	var id, state string
	err := db.reader.QueryRowContext(ctx, `SELECT id, state FROM turns WHERE session_id = ? ORDER BY seq DESC LIMIT 1`, sessionID).Scan(&id, &state)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	var n int64
	return db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM events WHERE turn_id = ?`, id).Scan(&n)
}

// refuseDamaged is StartTurn's answer for a damaged file (RefuseWrite's,
// with how to insist in the window too). cause is the read that met the
// damage, if this call met it.
func (db *DB) refuseDamaged(cause error) error {
	return db.refusal(cause, "start the turn",
		"Send it again with force to write into the damaged file anyway (agentdeck run --force; in the window, confirm)")
}

// StateOf maps a turn result to the state it is stored with.
func StateOf(res turn.Result) TurnState {
	switch {
	case res.Cancelled:
		return StateCancelled
	case !res.OK:
		return StateFailed
	}
	return StateCompleted
}

// FinishTurn stores a turn's result: its state, messages, stages, model and
// tool calls, in one transaction. The turn's search entries follow once
// its event log closes, off the turn's path (indexer.go). The history passed to
// the turn is not stored again: from is the number of history messages
// (system prompts aside) at the start of res.Messages.
func (db *DB) FinishTurn(ctx context.Context, turnID string, from int, res turn.Result) error {
	state := StateOf(res)
	now := time.Now().UTC()
	resultJSON, err := json.Marshal(turn.TurnCompletedData{Result: res})
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not encode the turn result")
	}
	term, _ := json.Marshal(res.Termination)
	err = db.tx(ctx, "saving the turn", func(tx *sql.Tx) error {
		var sessionID string
		if err := tx.QueryRowContext(ctx, `SELECT session_id FROM turns WHERE id = ?`, turnID).Scan(&sessionID); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return apperr.New(apperr.NotFound, "There is no turn %s.", turnID)
			}
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE turns SET state = ?, completed_at = ?, final_text = ?, outcome = ?, termination = ?, result = ?, search_pending = 1 WHERE id = ?`,
			state, fmtTime(now), res.FinalText, res.Outcome, string(term), string(resultJSON), turnID); err != nil {
			return err
		}
		if err := insertMessages(ctx, tx, sessionID, turnID, from, res.Messages, false); err != nil {
			return err
		}
		if err := insertStages(ctx, tx, turnID, res); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ? WHERE id = ?`, fmtTime(now), sessionID)
		return err
	})
	if err == nil {
		db.forgetEndings(turnID) // a note NoteEnding kept while this ending found no room
	}
	return err
}

// messageExtra is what a message carries besides role and text.
type messageExtra struct {
	ToolCalls        []llm.ToolCall  `json:"tool_calls,omitempty"`
	ToolCallID       string          `json:"tool_call_id,omitempty"`
	Name             string          `json:"name,omitempty"`
	Reasoning        string          `json:"reasoning,omitempty"`
	ReasoningDetails json.RawMessage `json:"reasoning_details,omitempty"`
	// Images name the message's images (their bytes are in the images
	// table, images.go).
	Images []llm.Image `json:"images,omitempty"`
}

// extraOf is what of m goes in the extra column.
func extraOf(m llm.Message) []byte {
	b, _ := json.Marshal(messageExtra{ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, Name: m.Name, Reasoning: m.Reasoning, ReasoningDetails: m.ReasoningDetails, Images: m.Images})
	return b
}

// withExtra returns m with what the extra column holds (a column that does
// not decode adds nothing).
func withExtra(m llm.Message, extra string) llm.Message {
	var x messageExtra
	_ = json.Unmarshal([]byte(extra), &x)
	m.ToolCalls, m.ToolCallID, m.Name, m.Reasoning, m.ReasoningDetails, m.Images = x.ToolCalls, x.ToolCallID, x.Name, x.Reasoning, x.ReasoningDetails, x.Images
	return m
}

// insertMessages stores a turn's messages from the from'th on (system
// prompts aside). With index it also writes their search entries;
// FinishTurn leaves those to the indexer (indexer.go).
func insertMessages(ctx context.Context, tx *sql.Tx, sessionID, turnID string, from int, msgs []llm.Message, index bool) error {
	msgStmt, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO messages (session_id, turn_id, idx, role, content, extra) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer msgStmt.Close()
	var convo []llm.Message
	for _, m := range msgs {
		if m.Role != llm.RoleSystem {
			convo = append(convo, m)
		}
	}
	convo = convo[min(max(from, 0), len(convo)):]
	for i, m := range convo {
		if len(m.Images) > 0 {
			if m.Images, err = saveImages(ctx, tx, sessionID, turnID, m.Images); err != nil {
				return err
			}
		}
		if _, err := msgStmt.ExecContext(ctx, sessionID, turnID, i, string(m.Role), m.Content, string(extraOf(m))); err != nil {
			return err
		}
	}
	if !index {
		return nil
	}
	return indexMessages(ctx, tx, sessionID, turnID, convo)
}

func insertStages(ctx context.Context, tx *sql.Tx, turnID string, res turn.Result) error {
	stages := res.Stages
	if len(stages) == 0 {
		// A plain agent run: one implicit stage so the diagnostics views
		// have the same shape for every turn.
		stages = []turn.StageResult{{ID: turnID, Name: "chat", Agent: "assistant", Outcome: res.Outcome, Termination: res.Termination,
			Diagnostics: turn.StageDiagnostics{StartedAt: res.StartedAt, CompletedAt: res.CompletedAt, DurationMS: res.DurationMS, Usage: res.Usage, Cost: res.Cost, ModelCalls: res.ModelCalls, ToolCalls: res.ToolCalls}}}
	}
	for i, s := range stages {
		term, _ := json.Marshal(s.Termination)
		diag, _ := json.Marshal(s.Diagnostics)
		resp, _ := json.Marshal(s.Response)
		col, err := stageResponseColumn(ctx, tx, turnID, s.ID, resp)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO stages (id, turn_id, idx, name, agent, phase, outcome, termination, diagnostics, response) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			s.ID, turnID, i, s.Name, s.Agent, s.Phase, s.Outcome, string(term), string(diag), col); err != nil {
			return err
		}
		for j, c := range s.Diagnostics.ModelCalls {
			u := c.Usage
			price, cost := callPrice(c)
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO model_calls (turn_id, stage_id, idx, model, started_at, duration_ms, ttft_ms,
					input_tokens, output_tokens, cached_tokens, reasoning_tokens, estimated, ok, error, provider, capture, price, cost_usd)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				turnID, s.ID, j, c.Model, fmtTime(c.StartedAt), c.Duration.Milliseconds(), c.TimeToFirstToken.Milliseconds(),
				u.InputTokens, u.OutputTokens, u.CachedInputTokens, u.ReasoningTokens, u.Estimated, c.OK, c.Error,
				c.Provider, c.Capture, price, cost); err != nil {
				return err
			}
		}
		for _, c := range s.Diagnostics.ToolCalls {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO tool_calls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				turnID, s.ID, c.CallID, c.Name, c.Arguments, c.ResultSize, fmtTime(c.StartedAt.Time), c.DurationMS, c.OK, c.Error); err != nil {
				return err
			}
		}
	}
	return nil
}

// callPrice is a call's price as stored (” unknown) and its cost (nil:
// unknown, stored as NULL).
func callPrice(c llm.CallDiagnostics) (price string, cost any) {
	if c.Price != nil {
		if b, err := json.Marshal(c.Price); err == nil {
			price = string(b)
		}
	}
	if c.Cost != nil {
		cost = c.Cost.USD
	}
	return price, cost
}

func isForeignKey(err error) bool {
	return err != nil && strings.Contains(err.Error(), "FOREIGN KEY")
}
