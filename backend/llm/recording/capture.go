package recording

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// Capture is one recorded call.
type Capture struct {
	// ID is the store's identity of this recording ("" where a store has
	// none). Two recordings may share a Key; they never share an ID.
	ID  string `json:"id,omitempty"`
	Key string `json:"key"`
	// Request is CanonicalRequest of the recorded request, for "nearest
	// miss" explanations and review. Decode it into a CanonicalForm.
	Request json.RawMessage `json:"request"`
	// Model is the requested model (Request.Model), not the one the server
	// reported.
	Model      string          `json:"model"`
	Chunks     []RecordedChunk `json:"chunks"`
	Response   llm.Response    `json:"response"`
	RecordedAt time.Time       `json:"recorded_at"`
}

// RecordedChunk is one delta and when it arrived, as an offset from the
// start of the call.
type RecordedChunk struct {
	At    time.Duration `json:"at_ns"`
	Chunk llm.Chunk     `json:"chunk"`
}

// Store keeps recordings by key. Implementations must be safe for
// concurrent use.
type Store interface {
	// GetCapture returns the newest recording of key, (nil, nil) when
	// there is none.
	GetCapture(ctx context.Context, key string) (*Capture, error)
	// PutCapture adds c. A recording is never overwritten: an earlier
	// recording of the same key stays, so every turn keeps its own answer
	// (a store that keeps only one per key, like capturefile, says so).
	// A store that gives recordings an identity sets c.ID.
	PutCapture(ctx context.Context, c *Capture) error
}

// BlocksPutter is an optional Store extension:
// PutCaptureBlocks adds c, whose Chunks are nil, with its chunks given in
// blocks, in order. The recorder gathers a call's chunks in blocks
// (chunkBuf) and hands them to a store that has it as they are: joining a
// long answer's tens of thousands of chunks into one slice, only to encode
// them, cost as much as writing them.
type BlocksPutter interface {
	PutCaptureBlocks(ctx context.Context, c *Capture, blocks [][]RecordedChunk) error
}

// Lister is an optional Store extension used to explain replay
// misses. CaptureRequests returns up to limit captures of model ("" means
// any model; limit <= 0 means no limit), newest first. Only Key, Request,
// Model and RecordedAt need to be filled in; a lister may leave Chunks and
// Response empty to stay cheap.
type Lister interface {
	CaptureRequests(ctx context.Context, model string, limit int) ([]Capture, error)
}

// Mode says what WithCapture does.
type Mode string

const (
	// Off passes every call through untouched.
	Off Mode = "off"
	// Record calls the model and stores each successful call.
	Record Mode = "record"
	// Replay never calls the model: it replays recorded calls and
	// fails with ErrReplayMiss when there is none.
	Replay Mode = "replay"
	// Auto replays a recorded call when there is one, and otherwise
	// calls the model and records the call.
	Auto Mode = "auto"
)

// ParseMode parses "off", "record", "replay" or "auto", ignoring case
// and surrounding space. The empty string is Off.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "", Off:
		return Off, nil
	case Record, Replay, Auto:
		return m, nil
	}
	return "", fmt.Errorf("unknown capture mode %q: use off, record, replay or auto", s)
}

// Options configure WithCapture.
type Options struct {
	Mode  Mode
	Store Store
	// Pace replays chunks at their recorded offsets instead of as fast as
	// possible.
	Pace bool
	// Now stamps RecordedAt, the recorded chunk offsets and the replayed
	// diagnostics' times. Nil means time.Now.
	Now func() time.Time
}

// captureMissCandidates bounds how many recordings a replay miss compares
// against when explaining itself.
const captureMissCandidates = 200

// WithCapture wraps inner with record/replay; see Mode.
//
// In Off (or the zero mode) it returns inner itself.
//
// A replayed call delivers the recorded chunks in order and returns the
// recorded Response; only its Diagnostics' Capture ("replayed"), StartedAt,
// CompletedAt and Duration are new (TimeToFirstToken, Attempts and the rest
// describe the recorded call). Cancelling ctx stops a replay between chunks,
// and, with Pace, during the wait for the next chunk. A call is
// recorded only when it succeeded: a failed or cancelled call, or one whose
// callback returned an error, is not stored. A recording that cannot be
// stored fails the call with ErrCaptureStore (the Response is still
// returned), because a silently missing recording breaks replay later.
//
// WithCapture panics when Mode is unknown, or when Store is nil and Mode is
// not off: both are wiring mistakes, and user input should go through
// ParseMode.
func WithCapture(inner llm.Client, opts Options) llm.Client {
	switch opts.Mode {
	case "", Off:
		return inner
	case Record, Replay, Auto:
	default:
		panic(fmt.Sprintf("recording.WithCapture: unknown capture mode %q", opts.Mode))
	}
	if opts.Store == nil {
		panic("recording.WithCapture: nil Store in capture mode " + string(opts.Mode))
	}
	c := &captureClient{inner: inner, opts: opts}
	if opts.Now == nil {
		c.opts.Now = time.Now
		c.since = time.Since
	} else {
		c.since = func(t time.Time) time.Duration { return opts.Now().Sub(t) }
	}
	return c
}

type captureClient struct {
	inner llm.Client
	opts  Options
	// since measures chunk offsets. On the real clock it is time.Since,
	// which reads only the monotonic clock and so costs less than time.Now;
	// the clock read is most of the per-chunk cost of recording.
	since func(time.Time) time.Duration
}

func (c *captureClient) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	canon := CanonicalRequest(req)
	key := captureKeyOf(canon)
	if c.opts.Mode == Record {
		return c.record(ctx, req, key, canon, fn)
	}
	start := c.opts.Now()
	rec, err := c.opts.Store.GetCapture(ctx, key)
	if err != nil {
		err = &llm.Error{Kind: llm.ErrCaptureStore, Message: "could not read the capture store", Err: err}
		return captureFailed(req, start, c.opts.Now(), err), err
	}
	if rec != nil {
		return c.replay(ctx, rec, fn)
	}
	if c.opts.Mode == Auto {
		return c.record(ctx, req, key, canon, fn)
	}
	err = c.missError(ctx, req, key, canon)
	return captureFailed(req, start, c.opts.Now(), err), err
}

// record calls inner, buffering each chunk with its offset on its way to fn.
func (c *captureClient) record(ctx context.Context, req llm.Request, key string, canon []byte, fn func(llm.Chunk) error) (llm.Response, error) {
	since := c.since
	start := c.opts.Now()
	var buf chunkBuf
	var fnErr error
	resp, err := c.inner.Stream(ctx, req, func(ch llm.Chunk) error {
		buf.add(RecordedChunk{At: since(start), Chunk: captureOwnChunk(ch)})
		if err := fn(ch); err != nil {
			fnErr = err
			return err
		}
		return nil
	})
	if err != nil || fnErr != nil || ctx.Err() != nil {
		if err == nil {
			// The inner client swallowed a stop or a cancellation; report
			// it rather than pretend the call completed.
			err = fnErr
			if err == nil {
				err = captureCtxError(ctx.Err())
			}
		}
		return resp, err
	}
	resp.Diagnostics.Capture = llm.CaptureRecorded
	rec := &Capture{Key: key, Request: canon, Model: req.Model, Response: resp, RecordedAt: c.opts.Now().UTC()}
	if p, ok := c.opts.Store.(BlocksPutter); ok {
		err = p.PutCaptureBlocks(ctx, rec, buf.blocks())
	} else {
		rec.Chunks = buf.joined()
		err = c.opts.Store.PutCapture(ctx, rec)
	}
	if err != nil {
		resp.Diagnostics.Capture = ""
		err = &llm.Error{Kind: llm.ErrCaptureStore, Message: "the call succeeded but could not be recorded", Err: err}
		return resp, err
	}
	return resp, nil
}

// chunkBuf gathers a call's chunks in blocks and joins them once, at the
// end of the call. A long answer has tens of thousands of chunks of 112
// bytes each; one growing slice copied them again at every growth (by a
// quarter, once large) into fresh memory, five times the answer's size in
// all, which cost more than anything else in recording.
type chunkBuf struct {
	full [][]RecordedChunk // filled blocks, in order
	cur  []RecordedChunk
}

// chunkBlockMax is the largest block, in chunks (448 KB).
const chunkBlockMax = 4096

func (b *chunkBuf) add(rc RecordedChunk) {
	if len(b.cur) == cap(b.cur) {
		if b.cur != nil {
			b.full = append(b.full, b.cur)
		}
		b.cur = make([]RecordedChunk, 0, min(max(64, 2*cap(b.cur)), chunkBlockMax))
	}
	b.cur = append(b.cur, rc)
}

// blocks returns the blocks, in order; none for a call that sent nothing.
func (b *chunkBuf) blocks() [][]RecordedChunk {
	if b.cur == nil {
		return b.full
	}
	return append(b.full, b.cur)
}

// joined returns every chunk in order, in one slice no larger than twice
// what it holds.
func (b *chunkBuf) joined() []RecordedChunk {
	if len(b.full) == 0 {
		if b.cur == nil {
			return []RecordedChunk{} // a call that sent nothing recorded "[]", not null
		}
		return b.cur
	}
	n := len(b.cur)
	for _, f := range b.full {
		n += len(f)
	}
	out := make([]RecordedChunk, 0, n)
	for _, f := range b.full {
		out = append(out, f...)
	}
	return append(out, b.cur...)
}

// captureOwnChunk copies the parts of ch that share memory with the inner
// client, which may reuse its buffers. Only tool-call and usage chunks have
// any, and they are rare, so plain text deltas cost no allocation.
func captureOwnChunk(ch llm.Chunk) llm.Chunk {
	if len(ch.ToolCalls) > 0 {
		ch.ToolCalls = append([]llm.ToolCallDelta(nil), ch.ToolCalls...)
	}
	if ch.Usage != nil {
		u := *ch.Usage
		ch.Usage = &u
	}
	return ch
}

// captureFailed is the Response of a call that failed before any delta.
func captureFailed(req llm.Request, start, end time.Time, err error) llm.Response {
	return llm.Response{Diagnostics: llm.CallDiagnostics{
		Model:           req.Model,
		StartedAt:       start.UTC(),
		CompletedAt:     end.UTC(),
		Duration:        end.Sub(start),
		RequestMessages: len(req.Messages),
		ErrorKind:       llm.KindOf(err),
		Error:           err.Error(),
	}}
}

func captureCtxError(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &llm.Error{Kind: llm.ErrTimeout, Message: "the call ran out of time", Err: err}
	}
	return &llm.Error{Kind: llm.ErrCancelled, Message: "the call was cancelled", Err: err}
}
