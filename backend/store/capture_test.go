package store

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
)

func recordedCall(key, answer string) *recording.Capture {
	return &recording.Capture{Key: key, Model: "m", Request: json.RawMessage(`{"model":"m"}`), RecordedAt: time.Now(),
		Chunks:   []recording.RecordedChunk{{Chunk: llm.Chunk{Content: answer}}},
		Response: llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: answer}}}
}

// The same request recorded by two turns with different answers keeps
// both: each turn replays to its own, and the key finds the newest.
func TestRecordingsAreNeverOverwritten(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "same question twice")
	older, _ := storeTurn(t, db, s.ID, "pick a number", "7")
	newer, _ := storeTurn(t, db, s.ID, "pick a number", "42")
	if err := db.Captures(older.ID).PutCapture(ctx, recordedCall("same-key", "7")); err != nil {
		t.Fatal(err)
	}
	if err := db.Captures(newer.ID).PutCapture(ctx, recordedCall("same-key", "42")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		turn, want string
	}{{older.ID, "7"}, {newer.ID, "42"}} {
		c, err := db.TurnRecordings(tc.turn).TurnCall(ctx, 0)
		if err != nil || c == nil || c.Response.Message.Content != tc.want {
			t.Fatalf("turn %s call 0: %+v %v, want the answer %q", tc.turn, c, err, tc.want)
		}
		if c.ID == "" {
			t.Fatal("a stored recording has an id")
		}
	}
	if c, _ := db.Captures("").GetCapture(ctx, "same-key"); c == nil || c.Response.Message.Content != "42" {
		t.Fatalf("a key look-up gives the newest recording: %+v", c)
	}
	if n, _ := db.TurnRecordings(older.ID).Count(ctx); n != 1 {
		t.Fatalf("the older turn has %d recorded calls, want 1", n)
	}
}

// TestRecordingInBlocksStoresAsOne: a recording given in blocks (as the
// recorder hands a long call over) is stored byte for byte as the same
// recording given whole, and reads back with every chunk in order; one
// with no chunks at all stores [] either way, and nil chunks stay null.
func TestRecordingInBlocksStoresAsOne(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "blocks")
	tr, _ := storeTurn(t, db, s.ID, "count", "1 2 3")
	var chunks []recording.RecordedChunk
	for i := range 10 {
		chunks = append(chunks, recording.RecordedChunk{At: time.Duration(i), Chunk: llm.Chunk{Content: strings.Repeat("é\"", i)}})
	}
	caps := db.Captures(tr.ID)
	for _, tc := range []struct {
		name   string
		whole  []recording.RecordedChunk
		blocks [][]recording.RecordedChunk
		want   string
	}{
		{"split", chunks, [][]recording.RecordedChunk{chunks[:3], {}, chunks[3:9], chunks[9:]}, ""},
		{"none", []recording.RecordedChunk{}, nil, "[]"},
		{"nil", nil, nil, "null"},
	} {
		whole, inBlocks := recordedCall("whole-"+tc.name, "x"), recordedCall("blocks-"+tc.name, "x")
		whole.Chunks, inBlocks.Chunks = tc.whole, nil
		if err := caps.PutCapture(ctx, whole); err != nil {
			t.Fatal(err)
		}
		var err error
		if tc.whole == nil {
			err = caps.PutCapture(ctx, inBlocks)
		} else {
			err = caps.PutCaptureBlocks(ctx, inBlocks, tc.blocks)
		}
		if err != nil {
			t.Fatal(err)
		}
		var a, b string
		if err := db.reader.QueryRow(`SELECT (SELECT chunks FROM recordings WHERE key = ?), (SELECT chunks FROM recordings WHERE key = ?)`, whole.Key, inBlocks.Key).Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		if a != b || (tc.want != "" && a != tc.want) {
			t.Fatalf("%s: stored whole %s, in blocks %s", tc.name, a, b)
		}
		back, err := caps.GetCapture(ctx, inBlocks.Key)
		if err != nil || back == nil || !reflect.DeepEqual(back.Chunks, tc.whole) {
			t.Fatalf("%s: read back %+v (%v), want %+v", tc.name, back, err, tc.whole)
		}
	}
}

// A turn's calls are numbered in the order they were made, whether
// recorded or served from a recording (a replay), and a replay's calls can
// be replayed in turn.
func TestTurnCallsAreInCallOrder(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "three calls")
	orig, _ := storeTurn(t, db, s.ID, "go", "done")
	caps := db.Captures(orig.ID)
	var recs []*recording.Capture
	for _, a := range []string{"first", "second", "third"} {
		r := recordedCall("k-"+a, a)
		if err := caps.PutCapture(ctx, r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	replay, _ := storeTurn(t, db, s.ID, "go", "done")
	for _, r := range recs {
		if err := db.Captures(replay.ID).LinkCapture(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, tr := range []string{orig.ID, replay.ID} {
		var got []string
		for i := 0; ; i++ {
			c, err := db.TurnRecordings(tr).TurnCall(ctx, i)
			if err != nil {
				t.Fatal(err)
			}
			if c == nil {
				break
			}
			got = append(got, c.Response.Message.Content)
		}
		if strings.Join(got, ",") != "first,second,third" {
			t.Fatalf("turn %s calls %v", tr, got)
		}
	}
	var rows int
	db.reader.QueryRow(`SELECT COUNT(*) FROM recordings`).Scan(&rows)
	if rows != 3 {
		t.Fatalf("%d recordings: linking must not copy them", rows)
	}
}

// A version 1 export names only the turns that used a capture; importing
// it numbers each turn's calls in the order the file lists the captures.
func TestImportVersion1Captures(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	const at = "2024-01-02T03:04:05Z"
	doc := `{"format":"agentdeck-session","version":1,"session":{"id":"v1-s","title":"old","created_at":"` + at + `","updated_at":"` + at + `","settings":{}},
	"turns":[{"id":"v1-t","seq":1,"user_message":"hi","state":"completed","started_at":"` + at + `","final_text":"b","outcome":"succeeded","termination":{"kind":"natural_completion"},"result":{},
	  "messages":[],"events":[],"stages":[],"model_calls":[],"tool_calls":[]}],
	"captures":[
	  {"key":"ka","model":"m","request":{"model":"m"},"chunks":[],"response":{"message":{"role":"assistant","content":"a"}},"recorded_at":"` + at + `","turns":["v1-t"]},
	  {"key":"kb","model":"m","request":{"model":"m"},"chunks":[],"response":{"message":{"role":"assistant","content":"b"}},"recorded_at":"` + at + `","turns":["v1-t"]}]}`
	s, err := db.Import(ctx, strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	page, err := db.ListTurns(ctx, s.ID, Page{})
	if err != nil || len(page.Turns) != 1 {
		t.Fatalf("turns %+v %v", page, err)
	}
	for i, want := range []string{"ka", "kb"} {
		c, err := db.TurnRecordings(page.Turns[0].ID).TurnCall(ctx, i)
		if err != nil || c == nil || c.Key != want {
			t.Fatalf("call %d: %+v %v, want key %s", i, c, err, want)
		}
	}
}
