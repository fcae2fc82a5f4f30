package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// A turn whose events can no longer be stored, the disk being full, is
// stopped at once: the person must not watch an answer stream that is not
// being saved. Its ending says so in one message (how much of the answer
// is stored, how much space to free) and is stored with the room the
// store's reserve gives back. If even that fails, the message says the
// ending could not be saved; the runner keeps it (pending.go) and stores
// it once there is room, at the next send, and a note beside the database
// (store.NoteEnding) lets the next start end the turn with the same cause
// if this process ends first.

// errDiskFull is the cause of a turn's context when a full disk stopped it.
var errDiskFull = errors.New("the disk is full")

// diskFullWatch stops the turn when a model call fails because its
// recording could not be stored for a full disk. It stops it before the
// error reaches the agent, so the agent ends the run as stopped.
type diskFullWatch struct {
	inner llm.Client
	full  func(error)
}

func (c diskFullWatch) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	resp, err := c.inner.Stream(ctx, req, fn)
	if store.IsDiskFull(err) {
		c.full(err)
	}
	return resp, err
}

// stoppedForDiskFull reports whether a full disk stopped the turn of ctx.
func stoppedForDiskFull(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errDiskFull)
}

// diskFullEnding turns the result of a run stopped by a full disk into its
// ending, and stores it. It first makes room (the reserve, the write-ahead
// log) and stores the events still kept, then takes the answer as far as
// it is stored: that is the final text, and what the message counts. An
// ending that cannot be stored is kept for later, and the message returned
// (what the person sees) says so. stored reports whether it was stored.
func (r *Runner) diskFullEnding(h *Handle, t turnRun, res turn.Result) (_ turn.Result, stored bool) {
	ctx := context.Background()
	var db diskStore = r.cfg.DB
	db.ReleaseReserve(ctx)
	if err := t.evlog.Flush(); err != nil {
		r.log.Warn("events still not stored after making room", "turn", h.TurnID, "err", err)
	}
	kept, streamed, err := t.evlog.Answer(ctx)
	if err != nil {
		r.log.Error("reading the stored answer", "turn", h.TurnID, "err", err)
		kept, streamed = "", res.FinalText
	}
	n, m := len(strings.Fields(kept)), len(strings.Fields(streamed))
	need, dir := diskFullNeed(streamed), filepath.Dir(db.Path())
	msg := diskFullMessage(n, m, need, dir, true)
	r.log.Error("the disk is full: turn stopped", "turn", h.TurnID, "stored_words", n, "streamed_words", m,
		"stored_bytes", len(kept), "streamed_bytes", len(streamed), "db", db.Path())
	res.OK, res.Cancelled = false, false
	res.Outcome = turn.OutcomeFailed
	res.Termination = turn.Termination{Kind: turn.TermDiskFull, Used: int64(n), Limit: int64(m), Error: msg}
	res.Error, res.ErrorSource = msg, "storage"
	res.FinalText, res.FinalNote = kept, ""
	res.Messages = withStoredAnswer(res.Messages, kept)

	// The note first, while the reserve's room is free: if the ending
	// does not fit and this process ends, the next start still knows why.
	if err := db.NoteEnding(h.TurnID, res); err != nil {
		r.log.Warn("keeping the turn's ending beside the database", "turn", h.TurnID, "err", err)
	}
	if err := r.finishTurn(h, t, res); err != nil {
		r.log.Error("storing the ending of a turn stopped by a full disk", "turn", h.TurnID, "err", err)
		r.keepPending(h, len(t.history), res)
		unsaved := diskFullMessage(n, m, need, dir, false)
		res.Error, res.Termination.Error = unsaved, unsaved
		return res, false
	}
	return res, true
}

// withStoredAnswer makes the turn's last reply, the one being streamed,
// the part of it that is stored, so the conversation goes on from what
// was saved. A reply with tool calls, or a last message that is not a
// reply, is left alone.
func withStoredAnswer(msgs []llm.Message, stored string) []llm.Message {
	n := len(msgs)
	if n == 0 || msgs[n-1].Role != llm.RoleAssistant || len(msgs[n-1].ToolCalls) > 0 {
		return msgs
	}
	msgs = append([]llm.Message(nil), msgs...)
	if strings.TrimSpace(stored) == "" {
		return msgs[:n-1]
	}
	msgs[n-1].Content = stored
	return msgs
}

// diskFullNeed is how much free space to ask for: about 1 KB a streamed
// word for an answer as long again (each streamed piece is stored as an
// event with its time and order, several hundred bytes), at least 2 MB,
// and the room the reserve is made in (store.ReserveRoom: the reserve
// and the headroom it leaves the turns).
func diskFullNeed(streamed string) int64 {
	const mb = 1 << 20
	answer := max(int64(len(strings.Fields(streamed)))<<10, 2*mb)
	need := store.ReserveRoom + answer
	return (need + mb - 1) / mb * mb
}

// diskFullMessage is the one message a person gets: the disk is full, how
// much of the answer is stored, whether the turn's ending is, and how much
// space to free and why.
func diskFullMessage(stored, streamed int, need int64, dir string, endingSaved bool) string {
	var what string
	switch {
	case streamed == 0:
		what = "the turn was stopped before any of the answer streamed."
	case stored == streamed:
		what = fmt.Sprintf("the turn was stopped at %s, and all %d are stored.", words(streamed), streamed)
	case stored == 0:
		what = fmt.Sprintf("the turn was stopped at 0 of the %s streamed, and none of it could be stored.", words(streamed))
	default:
		what = fmt.Sprintf("the turn was stopped at %d of the %s streamed, and those %s are stored.", stored, words(streamed), words(stored))
	}
	if !endingSaved {
		what = strings.TrimSuffix(what, ".") + ", but the turn's ending could not be saved: Agentdeck saves it, as stopped by the full disk, once there is room (when you send again, or at the next start)."
	}
	return fmt.Sprintf("The disk is full: %s Free at least %s on the disk that holds %s "+
		"(room for an answer as long as this one, and %s for Agentdeck to set %s aside so that a turn stopped like this one can still be saved), then send again.",
		what, store.MB(need), dir, store.MB(store.ReserveRoom), store.MB(store.ReserveSize))
}

func words(n int) string {
	if n == 1 {
		return "1 word"
	}
	return fmt.Sprintf("%d words", n)
}
