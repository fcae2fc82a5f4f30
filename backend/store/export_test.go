package store

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/export/exporttest"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// TestExportHoldsNoSecrets: an export holds only the session's own rows,
// never settings, provider definitions or anything from the environment.
func TestExportHoldsNoSecrets(t *testing.T) {
	const (
		settingKey  = "sk-setting-5f1e8a7c0b3d4e2f9a6b"
		providerKey = "sk-provider-9c2d7e4a1b8f3c6d5e0a"
		envKey      = "sk-env-3a9f1c7e5b2d8a4c6e0f"
	)
	t.Setenv("OPENAI_API_KEY", envKey)
	t.Setenv("AGENTDECK_API_KEY", envKey)
	db := mustOpen(t)
	if _, err := db.writer.Exec(`INSERT INTO settings (key, value) VALUES ('provider.openai.api_key', ?)`, `"`+settingKey+`"`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.writer.Exec(`INSERT INTO providers (name, definition) VALUES ('openai', ?)`, `{"base_url":"https://api.openai.com/v1","api_key":"`+providerKey+`"}`); err != nil {
		t.Fatal(err)
	}
	s, err := db.Import(ctx, bytes.NewReader(exporttest.JSON(t, exporttest.Fixture())))
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := storeTurn(t, db, s.ID, "hello", "hi")
	if err := db.Captures(tr.ID).PutCapture(ctx, &recording.Capture{Key: "cap-1", Model: "m", Request: json.RawMessage(`{"model":"m"}`)}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []export.Format{export.JSON, export.Markdown, export.JSONL} {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := export.Write(ctx, db, s.ID, f, &buf, export.Options{Captures: true}); err != nil {
				t.Fatal(err)
			}
			for _, secret := range []string{settingKey, providerKey, envKey, "sk-"} {
				if bytes.Contains(buf.Bytes(), []byte(secret)) {
					t.Fatalf("the %s export contains %q", f, secret)
				}
			}
		})
	}
}

// TestExportHoldsOneTurnAtATime: the JSON export of a large session is
// written as it is read, so the memory it holds does not grow with the
// session. Each time the export hands the file a piece, the heap is
// collected and measured: what is live then (the export's own state and
// what the writer has not taken yet) must stay a small part of the file,
// where an export that built the document first would hold all of it.
// The heap after a full collection counts only what is reachable, so the
// measure is the same on every run.
func TestExportHoldsOneTurnAtATime(t *testing.T) {
	// Not parallel: it measures the heap, which tests beside it would grow.
	const turns = 400 // 20 events each; about 5 MB of JSON
	db := mustOpen(t)
	sessionID := exportBigSession(t, db, turns)

	w := &heapWriter{}
	runtime.GC()
	w.base = liveHeap()
	if err := export.Write(ctx, db, sessionID, export.JSON, w, export.Options{}); err != nil {
		t.Fatal(err)
	}
	if w.n < 4<<20 {
		t.Fatalf("the export is %d bytes: too small for this test", w.n)
	}
	if grew := w.peak - min(w.peak, w.base); grew > uint64(w.n)/8 {
		t.Fatalf("the live heap grew by %d bytes while writing %d bytes of export: it holds the session", grew, w.n)
	}
}

// exportBigSession writes a session of n turns straight into the tables,
// as the history benchmark does, and returns its id.
func exportBigSession(t *testing.T, db *DB, n int) string {
	t.Helper()
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	st, err := prepareHist(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	g := &histGen{vocab: benchVocabulary(3000), rng: rand.New(rand.NewPCG(1, 2)), at: time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)}
	g.zipf = rand.NewZipf(g.rng, 1.07, 2, uint64(len(g.vocab)-1))
	g.term, _ = json.Marshal(turn.Termination{Kind: turn.TermNaturalCompletion})
	sid := turn.NewID()
	if _, err := st.session.Exec(sid, "big", fmtTime(g.at), fmtTime(g.at)); err != nil {
		t.Fatal(err)
	}
	for seq := 1; seq <= n; seq++ {
		if err := g.turn(st, sid, seq); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return sid
}

// heapWriter takes an export, measuring the live heap at each write.
type heapWriter struct {
	n          int
	base, peak uint64
}

func (w *heapWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	runtime.GC()
	w.peak = max(w.peak, liveHeap())
	return len(p), nil
}

func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
