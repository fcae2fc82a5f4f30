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
//     frontend's types of them, of the event envelope and its payloads are
//     generated from the Go types (frontend/typegen, `make types`).
//   - The app needs of the database only the methods of Store.
//   - app is the only package that imports the Wails runtime, and only
//     desktop.go does so. Everything else here is plain Go that tests drive
//     without a display.
package app
