// Package app is the bridge between the engine in backend/ and a user
// interface: the desktop window (Wails) and, later, the browser mode.
//
// Rules:
//
//   - app is the only package that imports the Wails runtime, and only
//     desktop.go does so. Everything else here is plain Go that tests drive
//     without a display.
//   - Every exported method of Service is bound to the frontend. Requests and
//     replies are plain structs with snake_case JSON. Errors leave as
//     *apperr.Error so the frontend can show the message and branch on the code.
package app
