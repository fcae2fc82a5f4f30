package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
)

// Usage and cost, read from the model calls as they were stored: each call
// keeps the price it ran at and its cost (migration 10), so these sums
// never change when a price does. Replayed calls cost nothing and are left
// out, and so are the calls of copied turns (Turn.Copied: a fork's or an
// import's), which were counted where they ran. A call whose price was unknown counts its tokens and adds to
// Unpriced, never a guessed cost.

// Ways to group usage.
const (
	UsageByModel    = "model"
	UsageByProvider = "provider"
	UsageByWorkflow = "workflow"
	UsageByDay      = "day"
	// UsageByKind groups by the kind of session: chat or eval (the calls
	// of evaluation runs, their own category).
	UsageByKind = "kind"
)

// usageKeys are the SQL of each grouping, over model_calls c joined to
// turns t.
var usageKeys = map[string]string{
	UsageByModel:    `c.model`,
	UsageByProvider: `c.provider`,
	UsageByWorkflow: `t.workflow`,
	UsageByDay:      `substr(c.started_at, 1, 10)`,
	UsageByKind:     `s.kind`,
}

// UsageQuery says which calls to sum and how to group them.
type UsageQuery struct {
	// Since and Until bound when the calls started (zero: unbounded);
	// Until is exclusive.
	Since, Until time.Time
	// By is UsageByModel, UsageByProvider, UsageByWorkflow or UsageByDay
	// ("" is by model).
	By string
	// Top is how many of the costliest sessions and turns to list
	// (default 10).
	Top int
}

// UsageSum is what some model calls used and cost.
type UsageSum struct {
	Calls             int     `json:"calls"`
	InputTokens       int64   `json:"input_tokens"`
	OutputTokens      int64   `json:"output_tokens"`
	CachedInputTokens int64   `json:"cached_input_tokens"`
	ReasoningTokens   int64   `json:"reasoning_tokens"`
	CostUSD           float64 `json:"cost_usd"`
	// Unpriced counts calls whose price was unknown: CostUSD leaves them out.
	Unpriced int `json:"unpriced"`
	// Estimated is true when some tokens were estimated (the server
	// reported no usage), and so their cost.
	Estimated bool `json:"estimated"`
}

// UsageRow is one group's sum.
type UsageRow struct {
	// Key is the model, provider, workflow or day (YYYY-MM-DD); "" is a
	// call stored without it (a provider before issue 23).
	Key string `json:"key"`
	UsageSum
}

// UsagePoint is one day of one group, for charts over time.
type UsagePoint struct {
	Day string `json:"day"`
	Key string `json:"key"`
	UsageSum
}

// UsageItem is a session or a turn with its cost.
type UsageItem struct {
	SessionID string `json:"session_id"`
	Title     string `json:"title"`
	// TurnID and Seq are set for a turn.
	TurnID string `json:"turn_id,omitempty"`
	Seq    int    `json:"seq,omitempty"`
	// Message is the turn's user message; for a continuation (Continues),
	// the message of the turn whose answer it continues, not the
	// instruction the continuation sent.
	Message   string `json:"message,omitempty"`
	Continues bool   `json:"continues,omitempty"`
	UsageSum
}

// UsageReport is usage over a span of time.
type UsageReport struct {
	By    string   `json:"by"`
	Since string   `json:"since,omitempty"`
	Until string   `json:"until,omitempty"`
	Total UsageSum `json:"total"`
	// Evaluations is the part of Total that evaluation runs spent.
	Evaluations UsageSum `json:"evaluations"`
	// Rows are the groups, costliest first (by day: in order).
	Rows []UsageRow `json:"rows"`
	// Series is each day's use by the same grouping (by day: by model).
	Series      []UsagePoint `json:"series"`
	TopSessions []UsageItem  `json:"top_sessions"`
	TopTurns    []UsageItem  `json:"top_turns"`
}

// usageSums are the columns of a UsageSum, in its Scan order.
// The aliases order the groups: costliest first, then most tokens.
const usageSums = `COUNT(*), COALESCE(SUM(c.input_tokens), 0) AS sum_in, COALESCE(SUM(c.output_tokens), 0) AS sum_out,
	COALESCE(SUM(c.cached_tokens), 0), COALESCE(SUM(c.reasoning_tokens), 0), COALESCE(SUM(c.cost_usd), 0) AS sum_cost,
	COALESCE(SUM(c.cost_usd IS NULL), 0), COALESCE(MAX(c.estimated), 0)`

// costliest orders groups by usageSums' aliases.
const costliest = ` ORDER BY sum_cost DESC, sum_in + sum_out DESC`

func (s *UsageSum) dest() []any {
	return []any{&s.Calls, &s.InputTokens, &s.OutputTokens, &s.CachedInputTokens, &s.ReasoningTokens, &s.CostUSD, &s.Unpriced, &s.Estimated}
}

// Usage sums the model calls q asks for, in one read transaction.
func (db *DB) Usage(ctx context.Context, q UsageQuery) (UsageReport, error) {
	if q.By == "" {
		q.By = UsageByModel
	}
	key, ok := usageKeys[q.By]
	if !ok {
		return UsageReport{}, apperr.New(apperr.Invalid, "Usage can be grouped by model, provider, workflow, day or kind, not %q.", q.By)
	}
	if q.Top <= 0 {
		q.Top = 10
	}
	rep := UsageReport{By: q.By}
	if !q.Since.IsZero() {
		rep.Since = fmtTime(q.Since)
	}
	if !q.Until.IsZero() {
		rep.Until = fmtTime(q.Until)
	}
	seriesKey := key
	if q.By == UsageByDay {
		seriesKey = usageKeys[UsageByModel]
	}
	where, args := usageWhere(q)
	const calls = ` FROM model_calls c JOIN turns t ON t.id = c.turn_id JOIN sessions s ON s.id = t.session_id `
	tx, err := db.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err == nil {
		defer tx.Rollback()
		err = tx.QueryRowContext(ctx, `SELECT `+usageSums+calls+where, args...).Scan(rep.Total.dest()...)
	}
	if err == nil {
		err = tx.QueryRowContext(ctx, `SELECT `+usageSums+calls+where+` AND s.kind = 'eval'`, args...).Scan(rep.Evaluations.dest()...)
	}
	if err == nil {
		order := costliest + `, 1`
		if q.By == UsageByDay {
			order = ` ORDER BY 1` // a day at a time
		}
		rep.Rows, err = appendRows(ctx, tx, []UsageRow{}, scanInto(func(r *UsageRow) []any { return append([]any{&r.Key}, r.dest()...) }),
			`SELECT `+key+`, `+usageSums+calls+where+` GROUP BY 1`+order, args...)
	}
	if err == nil {
		rep.Series, err = appendRows(ctx, tx, []UsagePoint{}, scanInto(func(p *UsagePoint) []any { return append([]any{&p.Day, &p.Key}, p.dest()...) }),
			`SELECT `+usageKeys[UsageByDay]+`, `+seriesKey+`, `+usageSums+calls+where+` GROUP BY 1, 2 ORDER BY 1, 2`, args...)
	}
	item := func(it *UsageItem) []any {
		return append([]any{&it.SessionID, &it.Title, &it.TurnID, &it.Seq, &it.Message, &it.Continues}, it.dest()...)
	}
	top := costliest + fmt.Sprintf(` LIMIT %d`, q.Top)
	if err == nil {
		rep.TopSessions, err = appendRows(ctx, tx, []UsageItem{}, scanInto(item), `SELECT s.id, s.title, '', 0, '', 0, `+usageSums+calls+where+` GROUP BY s.id`+top, args...)
	}
	if err == nil {
		rep.TopTurns, err = appendRows(ctx, tx, []UsageItem{}, scanInto(item), `SELECT s.id, s.title, t.id, t.seq, t.user_message, t.continues, `+usageSums+calls+where+` GROUP BY t.id`+top, args...)
	}
	for i := range rep.TopTurns {
		if err == nil && rep.TopTurns[i].Continues {
			rep.TopTurns[i].Message, err = continuedMessage(ctx, tx, rep.TopTurns[i].TurnID)
		}
	}
	if err != nil {
		return UsageReport{}, readError(err, "reading usage")
	}
	return rep, nil
}

// continuedMessage is the user message a continuation continues the
// answer to: that of the nearest turn above it that is not itself a
// continuation ("" when that turn is gone).
func continuedMessage(ctx context.Context, tx *sql.Tx, turnID string) (string, error) {
	var msg string
	err := tx.QueryRowContext(ctx, `WITH RECURSIVE up (parent, continues, message, depth) AS (
			SELECT parent_turn_id, continues, user_message, 0 FROM turns WHERE id = ?
			UNION ALL
			SELECT p.parent_turn_id, p.continues, p.user_message, up.depth + 1 FROM turns p JOIN up ON p.id = up.parent
			WHERE up.continues = 1 AND up.depth < 10000)
		SELECT message FROM up WHERE continues = 0 LIMIT 1`, turnID).Scan(&msg)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return msg, err
}

// notCopied leaves out the calls of copied turns (turns t).
const notCopied = ` AND t.copied = ''`

// usageWhere is the WHERE clause of q's calls: in its span, not replayed,
// not a copied turn's.
func usageWhere(q UsageQuery) (string, []any) {
	where, args := `WHERE c.capture != ?`+notCopied, []any{llm.CaptureReplayed}
	if !q.Since.IsZero() {
		where += ` AND c.started_at >= ?`
		args = append(args, fmtTime(q.Since))
	}
	if !q.Until.IsZero() {
		where += ` AND c.started_at < ?`
		args = append(args, fmtTime(q.Until))
	}
	return where, args
}

// ProviderSpend is the cost of provider's calls since since, replays and
// copied turns left out: what its budget is measured against.
func (db *DB) ProviderSpend(ctx context.Context, provider string, since time.Time) (float64, error) {
	var usd float64
	err := db.reader.QueryRowContext(ctx, `SELECT COALESCE(SUM(c.cost_usd), 0) FROM model_calls c JOIN turns t ON t.id = c.turn_id
		WHERE c.provider = ? AND c.capture != ? AND c.started_at >= ?`+notCopied,
		provider, llm.CaptureReplayed, fmtTime(since)).Scan(&usd)
	if err != nil {
		return 0, readError(err, "reading what "+provider+" cost this month")
	}
	return usd, nil
}

// SessionUsage is what a session's calls used and cost, replays included
// at their cost (nothing), copied turns left out (a fork's copied branch
// was counted in the session it came from).
func (db *DB) SessionUsage(ctx context.Context, sessionID string) (UsageSum, error) {
	var s UsageSum
	err := db.reader.QueryRowContext(ctx, `SELECT `+usageSums+` FROM model_calls c JOIN turns t ON t.id = c.turn_id WHERE t.session_id = ?`+notCopied, sessionID).Scan(s.dest()...)
	if err != nil {
		return UsageSum{}, readError(err, "reading the session's usage")
	}
	return s, nil
}

// FirstCallInput is the prompt tokens of turnID's first model call, and
// whether they were estimated; ok is false when it made none.
func (db *DB) FirstCallInput(ctx context.Context, turnID string) (input int, estimated, ok bool, err error) {
	err = db.reader.QueryRowContext(ctx, `SELECT input_tokens, estimated FROM model_calls WHERE turn_id = ? ORDER BY started_at, rowid LIMIT 1`, turnID).Scan(&input, &estimated)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, false, nil
	}
	if err != nil {
		return 0, false, false, readError(err, "reading the turn's first model call")
	}
	return input, estimated, true, nil
}

// ModelInfo is what a provider's server said about a model, kept with the
// provider so it is asked once.
type ModelInfo struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Window is the context window in tokens the server gave (0: none).
	Window int `json:"window"`
	// Price is the price the server listed (nil: none).
	Price  *llm.Price `json:"price,omitempty"`
	ReadAt time.Time  `json:"read_at"`
}

// ModelInfo is what was kept about model on provider; ok is false when
// nothing was.
func (db *DB) ModelInfo(ctx context.Context, provider, model string) (info ModelInfo, ok bool, err error) {
	var price, readAt string
	err = db.reader.QueryRowContext(ctx, `SELECT window_tokens, price, read_at FROM model_info WHERE provider = ? AND model = ?`, provider, model).
		Scan(&info.Window, &price, &readAt)
	if errors.Is(err, sql.ErrNoRows) {
		return ModelInfo{}, false, nil
	}
	if err != nil {
		return ModelInfo{}, false, readError(err, "reading what is known of "+model)
	}
	info.Provider, info.Model, info.ReadAt = provider, model, parseTime(readAt)
	if price != "" {
		var p llm.Price
		if json.Unmarshal([]byte(price), &p) == nil {
			info.Price = &p
		}
	}
	return info, true, nil
}

// SaveModelInfo keeps what a server said about a model, replacing what
// was kept before. It is a cache, asked for by nobody: in a file this
// process has met damage in, it writes nothing (the server is asked again
// next time), since a damaged file is written only when a person agrees.
func (db *DB) SaveModelInfo(ctx context.Context, info ModelInfo) error {
	if met, _ := db.Damaged(); met {
		return nil
	}
	price := ""
	if info.Price != nil {
		b, err := json.Marshal(info.Price)
		if err != nil {
			return apperr.Wrap(err, apperr.Internal, "could not encode the price of %s", info.Model)
		}
		price = string(b)
	}
	return db.tx(ctx, "saving what is known of "+info.Model, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO model_info (provider, model, window_tokens, price, read_at) VALUES (?, ?, ?, ?, ?)`,
			info.Provider, info.Model, info.Window, price, fmtTime(info.ReadAt))
		return err
	})
}
