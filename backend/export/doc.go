// Package export is the session file: it writes one session as the
// lossless JSON document, a Markdown transcript for people or JSONL chat
// fine-tuning data (Write), and reads the JSON document back (Decode) for
// the store's Import. It holds no SQL: a Source (the store) reads the
// session's rows and hands them to a Sink a turn at a time, and this
// package says what the file looks like.
//
// Rules:
//
//   - A Source reads the session in one snapshot, so a turn finishing
//     meanwhile is either wholly in the file or not.
//   - The JSON document is written as the Source reads it (jsonWriter), so
//     an export holds one turn's rows, and of its events only the one being
//     written, however long the session; its JSON columns are copied as
//     stored, never parsed again. Markdown and JSONL need the session
//     whole (Collect).
//   - A document holds only the session's own rows, and its project's name
//     and defaults (version 6): never the app's settings, provider
//     definitions or keys, so an export cannot carry a credential.
//   - Write stamps the oldest version that reads the document whole
//     (versionOf), so a session that uses nothing newer stays readable by
//     an older Agentdeck, and one that does is refused by it rather than
//     imported with part of it silently dropped.
//   - Field names are the database's column names, and JSON columns are
//     carried raw, so nothing is lost to a decode and re-encode.
//   - Version is the newest document this build writes and reads. Decode
//     refuses a newer one, a file that is not an Agentdeck export, and one
//     over its size limit, with a message a person can act on; a value of
//     the wrong kind is named by its path in the file (turns[3].seq).
//   - Attachments are not exported: their content is in files beside the
//     database, not in it. Images sent with messages are: their bytes are
//     rows of the database, owned by their turn, and the JSON document
//     holds them (Document.Images); Markdown links them as files beside
//     it when asked (Options.ImageFile) and otherwise only names them.
//   - A session's own documents (knowledge; not its project's) are in the
//     JSON document with their passages' text (version 7), never their
//     embeddings, which are re-made from the text. The sources a turn was
//     given travel in its events as stored, a copy of what the model saw;
//     Markdown lists the documents and writes each turn's sources as
//     footnotes (SourceLine).
//   - A session's side-by-side groups and their votes are in the JSON
//     document (version 8), handed on with the Head since they are few and
//     the version depends on them; each turn names its group, column and
//     target. Markdown says which column a turn was, and keeps a blind
//     group's names hidden until it is voted on.
//   - A turn re-run from a step of another names that turn, the step and
//     the kind of edit (version 9); the recordings it used travel as its
//     own, so it replays offline. Markdown says so in the turn's heading
//     ("Re-run of turn #3 from tool result 2, edited tool result").
//   - Artifacts (HTML pages, SVG images) and code runs are events of their
//     turn and travel as events do (version 10). Markdown writes an
//     artifact a tool made as its source in a fenced block under its title
//     (one from a block of the answer is already in the answer), and a
//     code run as its code and what it printed, returned or stopped with.
package export
