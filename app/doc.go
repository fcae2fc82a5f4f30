// Package app is the bridge between the engine in backend/ and a user
// interface: the desktop window (Wails) and the browser mode (serve.go).
//
// Rules:
//
//   - API (api.go) is the one list of what a UI may call. The window binds
//     it and the browser mode serves exactly its methods; nothing else of
//     the app is reachable from a page. Every method answers (T, error)
//     and goes through one wrapper: the database check for the methods
//     that need it, and the mapping of every error to *apperr.Error, a code
//     and a message safe to show (the cause is logged, never sent).
//   - Requests and replies are plain structs with snake_case JSON. The
//     frontend's types of them, of the event envelope and its payloads, and
//     of the bus's kinds and payloads are generated from the Go types
//     (frontend/typegen, `make types`).
//   - Everything the backend pushes to a UI goes out on the one Bus
//     (bus.go) as an Envelope {"kind", "data"}: turns' live events
//     (coalesced), approval requests, turn changes, evaluation progress,
//     resyncs. The window and the browser mode each subscribe once and
//     forward every envelope as it is (one Wails event, BusEvent; one
//     stream, GET /api/events); neither knows the kinds. A payload type
//     says its kind (Kind() MessageKind), so a payload cannot go out under
//     another kind's tag. The bus's ordering and back-pressure rules are
//     on Bus.
//   - A new kind of message touches three hand-written files: bus.go (its
//     MessageKind, the one place the kinds are listed in Go), the file that
//     publishes it (its payload type with its Kind method, and the
//     Publish), and frontend/src/lib/bus.ts (its member of BusMessage, its
//     handler and its case; bus_test.go fails while the kinds of the two
//     differ). Its payload type is added to frontend/typegen's roots and
//     `make types` run; then a store handles it through subscribe.
//   - The app needs of the database only the methods of setup.AppStore:
//     declared in setup, below the command line, so that cli can open the
//     database and main hand it to Open without either naming the SQLite
//     store (a second store, on PostgreSQL, is planned). Open builds an
//     engine only over a DB that opened: with OpenConfig.DBErr set the
//     Service reports the error, and the window shows it.
//   - app is the only package that imports the Wails runtime, and only
//     desktop.go does so. Everything else here is plain Go that tests drive
//     without a display.
package app
