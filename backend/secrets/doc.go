// Package secrets keeps API keys and other credentials.
//
// Rules:
//
//   - A key lives in the OS keyring (macOS Keychain, Windows Credential
//     Manager, the Secret Service on Linux) where one is available, else in
//     a JSON file readable only by the user: mode 0600 in a directory
//     created 0700. Open decides which, once, at start-up.
//   - A key is never written to the SQLite database, the logs, events,
//     captures or exports. Those hold a reference (a short name such as
//     "provider/work-openai") that Store resolves; to show a key, use Mask.
//   - The file store refuses to read a file that group or others can read,
//     rather than use a key that may already have leaked; the message says
//     to run chmod 600.
//   - Writes to the file are atomic (a temporary file renamed over the old
//     one), so a crash leaves either the old or the new content. A Store is
//     safe for concurrent use within one process.
//   - Keyring calls can hang (D-Bus with no secret service running), so each
//     call honours ctx, and Open probes the keyring under a short timeout.
//   - Error texts name references and paths, never secret values.
package secrets
