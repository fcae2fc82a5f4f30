package recording

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// Replaying one turn: ReplayTurn serves the recordings of one recorded turn
// in call order, and nothing else. It never looks a request up by key among
// other turns' recordings: two turns that sent the same request and got
// different answers each replay to their own answer.
//
// The replayed request of call i is compared with the request recording i
// was made for. When they differ the replay reports a Divergence with a
// diff; in strict mode that fails the call, otherwise recording i is served
// anyway, so the replay goes on as the original did.

// TurnRecordings gives the recordings of one turn in call order.
type TurnRecordings interface {
	// TurnCall returns the recording of call i (from 0), or (nil, nil)
	// when the turn made no call i.
	TurnCall(ctx context.Context, i int) (*Capture, error)
}

// Linker records that an existing recording was used again, by the
// turn the linker belongs to, as its next call.
type Linker interface {
	LinkCapture(ctx context.Context, c *Capture) error
}

// Kinds of Divergence.
const (
	DivergedRequest   = "request"    // the replayed request differs from the recorded one
	DivergedExtraCall = "extra_call" // the replay made a call the original never made
)

// Divergence is where a replay stopped matching the turn it replays.
type Divergence struct {
	Call    int      `json:"call"` // from 1
	Kind    string   `json:"kind"`
	Message string   `json:"message"`
	Diffs   []string `json:"diffs,omitempty"`
}

// ReplayOptions configure ReplayTurn.
type ReplayOptions struct {
	Source TurnRecordings
	// Link, if set, links every served recording to the replaying turn.
	Link Linker
	// Strict fails a call whose request differs from its recording.
	Strict bool
	// Pace replays chunks at their recorded offsets.
	Pace bool
	Now  func() time.Time
	// OnDivergence hears of every divergence, on the calling goroutine,
	// before the call returns.
	OnDivergence func(Divergence)
}

// TurnReplay is a Client serving one turn's recordings; see ReplayTurn.
type TurnReplay struct {
	opts  ReplayOptions
	serve *captureClient

	mu   sync.Mutex
	next int
	// seen are the differences already reported: a changed message stays
	// changed in every later request, and is reported once.
	seen map[string]bool
}

// ReplayTurn returns a Client that serves opts.Source's recordings in call
// order and never calls a model.
func ReplayTurn(opts ReplayOptions) *TurnReplay {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &TurnReplay{opts: opts, serve: &captureClient{opts: Options{Pace: opts.Pace, Now: opts.Now}}, seen: map[string]bool{}}
}

// Calls is how many calls the replay has been asked for so far.
func (r *TurnReplay) Calls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.next
}

// Stream implements Client.
func (r *TurnReplay) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	r.mu.Lock()
	i := r.next
	r.next++
	r.mu.Unlock()
	start := r.opts.Now()
	rec, err := r.opts.Source.TurnCall(ctx, i)
	if err != nil {
		err = &llm.Error{Kind: llm.ErrCaptureStore, Message: "could not read the turn's recorded model calls", Err: err}
		return captureFailed(req, start, r.opts.Now(), err), err
	}
	if rec == nil {
		msg := fmt.Sprintf("replay: the original turn made %d model calls; this replay asked for call %d (model %q, last user message %s), which it never made. The replay ends here.",
			i, i+1, req.Model, captureLastUser(req))
		r.diverged(Divergence{Call: i + 1, Kind: DivergedExtraCall, Message: msg})
		err := &llm.Error{Kind: llm.ErrReplayMiss, Message: msg}
		return captureFailed(req, start, r.opts.Now(), err), err
	}
	canon := CanonicalRequest(req)
	if key := captureKeyOf(canon); key != rec.Key {
		d := Divergence{Call: i + 1, Kind: DivergedRequest, Diffs: r.newDiffs(requestDiffs(canon, rec.Request)),
			Message: fmt.Sprintf("call %d's request differs from the one the original turn recorded", i+1)}
		if r.opts.Strict {
			d.Message += "; the replay stops (strict)"
		} else {
			d.Message += "; the recorded answer is used anyway"
		}
		if len(d.Diffs) > 0 || r.opts.Strict {
			r.diverged(d)
		}
		if r.opts.Strict {
			err := &llm.Error{Kind: llm.ErrReplayDiverged, Message: "replay: " + d.Message + ": " + joinDiffs(d.Diffs)}
			return captureFailed(req, start, r.opts.Now(), err), err
		}
	}
	resp, err := r.serve.replay(ctx, rec, fn)
	if err != nil {
		return resp, err
	}
	if r.opts.Link != nil {
		if err := r.opts.Link.LinkCapture(ctx, rec); err != nil {
			err = &llm.Error{Kind: llm.ErrCaptureStore, Message: "the call was replayed but could not be linked to this turn", Err: err}
			return resp, err
		}
	}
	return resp, nil
}

func (r *TurnReplay) diverged(d Divergence) {
	if r.opts.OnDivergence != nil {
		r.opts.OnDivergence(d)
	}
}

// newDiffs drops the differences an earlier call already reported.
func (r *TurnReplay) newDiffs(d []string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, x := range d {
		if !r.seen[x] {
			r.seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// requestDiffs lists how the replayed request (canon) differs from the
// recorded one, this request first.
func requestDiffs(canon, recorded json.RawMessage) []string {
	var a, b CanonicalForm
	if json.Unmarshal(canon, &a) != nil || json.Unmarshal(recorded, &b) != nil {
		return []string{"the recorded request could not be read to compare"}
	}
	d := captureDiff(a, b)
	if len(d) == 0 {
		return []string{"in nothing the key covers; it was recorded under another key"}
	}
	return d
}

func joinDiffs(d []string) string {
	shown := d[:min(len(d), captureMaxDiffs)]
	s := ""
	for i, x := range shown {
		if i > 0 {
			s += "; "
		}
		s += x
	}
	if more := len(d) - len(shown); more > 0 {
		s += fmt.Sprintf("; and %d more", more)
	}
	return s
}
