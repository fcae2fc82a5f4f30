package recording_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
)

// Failure, cancellation and stop paths of the capture middleware.

func TestCaptureNotStored(t *testing.T) {
	stop := errors.New("enough")
	tests := []struct {
		name     string
		script   func(sc captureScript) captureScript
		fn       func(cancel context.CancelFunc) func(llm.Chunk) error
		wantErr  error
		wantKind llm.ErrorKind
	}{
		{
			name: "inner failed",
			script: func(sc captureScript) captureScript {
				sc.err = &llm.Error{Kind: llm.ErrServer, Status: 500, Message: "server error"}
				return sc
			},
			wantKind: llm.ErrServer,
		},
		{
			name: "cancelled mid-stream",
			fn: func(cancel context.CancelFunc) func(llm.Chunk) error {
				n := 0
				return func(llm.Chunk) error {
					if n++; n == 2 {
						cancel()
					}
					return nil
				}
			},
			wantKind: llm.ErrCancelled,
		},
		{
			name: "callback stopped the stream",
			fn: func(context.CancelFunc) func(llm.Chunk) error {
				return func(llm.Chunk) error { return stop }
			},
			wantErr: stop,
		},
		{
			name: "inner swallowed the callback error",
			script: func(sc captureScript) captureScript {
				sc.chunks = sc.chunks[:1]
				return sc
			},
			fn: func(context.CancelFunc) func(llm.Chunk) error {
				return func(llm.Chunk) error { return stop }
			},
			wantErr: stop,
		},
	}
	for _, tt := range tests {
		for _, mode := range []recording.Mode{recording.Record, recording.Auto} {
			t.Run(tt.name+"/"+string(mode), func(t *testing.T) {
				sc := captureWeatherScript(nil)
				if tt.script != nil {
					sc = tt.script(sc)
				}
				inner := captureFakeModel(sc, new(atomic.Int32))
				if tt.name == "inner swallowed the callback error" {
					swallowing := inner
					inner = llm.ClientFunc(func(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
						resp, _ := swallowing.Stream(ctx, req, fn)
						return resp, nil
					})
				}
				store := newCaptureMemStore()
				c := recording.WithCapture(inner, recording.Options{Mode: mode, Store: store})
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				fn := func(llm.Chunk) error { return nil }
				if tt.fn != nil {
					fn = tt.fn(cancel)
				}
				resp, err := c.Stream(ctx, captureReq("Weather in Oslo?"), fn)
				if err == nil {
					t.Fatal("Stream succeeded, want an error")
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Errorf("err = %v, want %v", err, tt.wantErr)
				}
				if tt.wantKind != "" && llm.KindOf(err) != tt.wantKind {
					t.Errorf("err kind = %q, want %q (%v)", llm.KindOf(err), tt.wantKind, err)
				}
				if store.len() != 0 {
					t.Errorf("the failed call was stored")
				}
				if resp.Diagnostics.Capture != "" {
					t.Errorf("Capture = %q for a call that was not recorded", resp.Diagnostics.Capture)
				}
			})
		}
	}
}

func TestCaptureStoreFailure(t *testing.T) {
	store := newCaptureMemStore()
	store.putErr = errors.New("disk full")
	c := recording.WithCapture(captureFakeModel(captureWeatherScript(nil), new(atomic.Int32)), recording.Options{Mode: recording.Record, Store: store})
	resp, err := c.Stream(context.Background(), captureReq("hi"), func(llm.Chunk) error { return nil })
	if llm.KindOf(err) != llm.ErrCaptureStore || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v, want kind %s naming the cause", err, llm.ErrCaptureStore)
	}
	if resp.Message.Content != "Let me check." || resp.Diagnostics.Capture != "" {
		t.Errorf("resp = %+v; want the model's answer, not marked recorded", resp)
	}
}

// captureRecordPaced records a script whose chunks arrive at 0, 40ms, 80ms and 10s.
func captureRecordPaced(t *testing.T) (recording.Store, llm.Request) {
	t.Helper()
	store := newCaptureMemStore()
	clock := newCaptureClock()
	sc := captureScript{
		clock:  clock,
		gaps:   []time.Duration{0, 40 * time.Millisecond, 40 * time.Millisecond, 10 * time.Second},
		chunks: []llm.Chunk{{Content: "a"}, {Content: "b"}, {Content: "c"}, {Content: "d", FinishReason: "stop"}},
		resp:   llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "abcd"}, FinishReason: "stop"},
	}
	c := recording.WithCapture(captureFakeModel(sc, new(atomic.Int32)), recording.Options{Mode: recording.Record, Store: store, Now: clock.Now})
	req := captureReq("pace me")
	if _, _, err := captureCollect(context.Background(), c, req); err != nil {
		t.Fatal(err)
	}
	return store, req
}

func TestCaptureReplayPaced(t *testing.T) {
	store, req := captureRecordPaced(t)
	play := recording.WithCapture(captureFailingModel(t), recording.Options{Mode: recording.Replay, Store: store, Pace: true})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	var got []string
	var at []time.Duration
	resp, err := play.Stream(ctx, req, func(ch llm.Chunk) error {
		got = append(got, ch.Content)
		at = append(at, time.Since(start))
		if ch.Content == "c" {
			// The next chunk is 10s away; cancelling must end the wait now.
			time.AfterFunc(20*time.Millisecond, cancel)
		}
		return nil
	})
	elapsed := time.Since(start)
	if llm.KindOf(err) != llm.ErrCancelled || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want a cancellation", err)
	}
	if elapsed > 5*time.Second {
		t.Errorf("paced replay took %v after cancel; the wait was not interrupted", elapsed)
	}
	if strings.Join(got, "") != "abc" || resp.Message.Content != "abc" {
		t.Errorf("delivered %q, partial message %q; want \"abc\" both", got, resp.Message.Content)
	}
	if at[1] < 40*time.Millisecond || at[2] < 80*time.Millisecond {
		t.Errorf("chunks delivered at %v, want no earlier than 0, 40ms, 80ms", at)
	}
	if resp.Diagnostics.OK || resp.Diagnostics.Capture != llm.CaptureReplayed || resp.Diagnostics.ErrorKind != llm.ErrCancelled {
		t.Errorf("diagnostics = %+v", resp.Diagnostics)
	}
}

func TestCaptureReplayStops(t *testing.T) {
	stop := errors.New("stop here")
	tests := []struct {
		name     string
		ctx      func() (context.Context, context.CancelFunc)
		fn       func(cancel context.CancelFunc) func(llm.Chunk) error
		wantErr  error
		wantKind llm.ErrorKind
		want     string
	}{
		{
			name: "cancelled before the call",
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, cancel
			},
			wantErr: context.Canceled, wantKind: llm.ErrCancelled, want: "",
		},
		{
			name: "deadline passed",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			},
			wantErr: context.DeadlineExceeded, wantKind: llm.ErrTimeout, want: "",
		},
		{
			name: "cancelled between chunks",
			fn: func(cancel context.CancelFunc) func(llm.Chunk) error {
				return func(ch llm.Chunk) error {
					if ch.Content == "b" {
						cancel()
					}
					return nil
				}
			},
			wantErr: context.Canceled, wantKind: llm.ErrCancelled, want: "ab",
		},
		{
			name: "callback error",
			fn: func(context.CancelFunc) func(llm.Chunk) error {
				return func(ch llm.Chunk) error {
					if ch.Content == "c" {
						return stop
					}
					return nil
				}
			},
			wantErr: stop, want: "abc",
		},
	}
	store, req := captureRecordPaced(t)
	play := recording.WithCapture(captureFailingModel(t), recording.Options{Mode: recording.Replay, Store: store})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			if tt.ctx != nil {
				ctx, cancel = tt.ctx()
			}
			defer cancel()
			fn := func(llm.Chunk) error { return nil }
			if tt.fn != nil {
				fn = tt.fn(cancel)
			}
			resp, err := play.Stream(ctx, req, fn)
			if !errors.Is(err, tt.wantErr) || llm.KindOf(err) != tt.wantKind {
				t.Errorf("err = %v (kind %q), want %v (kind %q)", err, llm.KindOf(err), tt.wantErr, tt.wantKind)
			}
			if resp.Message.Content != tt.want {
				t.Errorf("partial message %q, want %q", resp.Message.Content, tt.want)
			}
		})
	}
}
