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
// store's reserve gives back; if even that fails, the turn stays running
// and the next start marks it interrupted with the same stored answer.

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
// ending. It first makes room (the reserve, the write-ahead log) and
// stores the events still kept, then takes the answer as far as it is
// stored: that is the final text, and what the message counts.
func (r *Runner) diskFullEnding(h *Handle, t turnRun, res turn.Result) turn.Result {
	ctx := context.Background()
	var db diskStore = r.cfg.DB
	db.ReleaseReserve(ctx)
	if err := t.evlog.Flush(); err != nil {
		r.log.Warn("events still not stored after making room", "turn", h.TurnID, "err", err)
	}
	stored, streamed, err := t.evlog.Answer(ctx)
	if err != nil {
		r.log.Error("reading the stored answer", "turn", h.TurnID, "err", err)
		stored, streamed = "", res.FinalText
	}
	n, m := len(strings.Fields(stored)), len(strings.Fields(streamed))
	msg := diskFullMessage(n, m, diskFullNeed(streamed), filepath.Dir(db.Path()))
	r.log.Error("the disk is full: turn stopped", "turn", h.TurnID, "stored_words", n, "streamed_words", m,
		"stored_bytes", len(stored), "streamed_bytes", len(streamed), "db", db.Path())
	res.OK, res.Cancelled = false, false
	res.Outcome = turn.OutcomeFailed
	res.Termination = turn.Termination{Kind: turn.TermDiskFull, Used: int64(n), Limit: int64(m), Error: msg}
	res.Error, res.ErrorSource = msg, "storage"
	res.FinalText, res.FinalNote = stored, ""
	res.Messages = withStoredAnswer(res.Messages, stored)
	return res
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

// diskFullNeed is how much free space to ask for: the reserve made again,
// room for the write-ahead log, and about 1 KB a streamed word for an
// answer as long again (each streamed piece is stored as an event with its
// time and order, several hundred bytes), at least 10 MB.
func diskFullNeed(streamed string) int64 {
	const mb = 1 << 20
	need := int64(store.ReserveSize) + 2*mb + int64(len(strings.Fields(streamed)))<<10
	need = max(need, 10*mb)
	return (need + mb - 1) / mb * mb
}

// diskFullMessage is the one message a person gets: the disk is full, how
// much of the answer is stored, and how much space to free.
func diskFullMessage(stored, streamed int, need int64, dir string) string {
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
	return fmt.Sprintf("The disk is full: %s Free at least %d MB on the disk that holds %s "+
		"(room for the next answers, and %d MB Agentdeck keeps aside so that a turn stopped like this one is still saved), then send again.",
		what, need>>20, dir, store.ReserveSize>>20)
}

func words(n int) string {
	if n == 1 {
		return "1 word"
	}
	return fmt.Sprintf("%d words", n)
}
