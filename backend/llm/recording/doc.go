// Package recording records model calls and replays them without the
// model, for deterministic evaluation and offline review. WithCapture wraps
// an llm.Client so that calls are recorded to a Store and later replayed
// from it; a call is looked up by Key(req), the SHA-256 of its canonical
// form (see CanonicalForm for what the key covers). ReplayTurn replays one
// recorded turn strictly, call by call, and says where a run diverges.
//
// Rules:
//
//   - It imports only package llm: it wraps any Client, whatever speaks to
//     the model.
//   - The middleware starts no goroutines: chunks are delivered on the
//     caller's goroutine, in order, as the Client contract requires.
//   - A replayed call never reaches the model; a miss in Replay mode is an
//     llm.ErrReplayMiss error that names the nearest recording and how it
//     differs.
//   - What is stored (Capture, RecordedChunk, the canonical form and
//     CanonicalVersion) is a file and database format: changing it changes
//     every key, so CanonicalVersion must change with it.
//   - Stores are small interfaces (Store, Lister, BlocksPutter) kept by the
//     database (backend/store) or a folder (capturefile).
package recording
