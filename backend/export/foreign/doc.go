// Package foreign reads the chat histories other apps export and turns
// each conversation into our own session document (export.Document), so
// the store imports it as it imports one of ours. It reads:
//
//   - a ChatGPT data export (conversations.json): a message tree per
//     conversation (mapping, current_node);
//   - an Open WebUI chat export: one chat or a list, each a message tree
//     (history.messages, currentId);
//   - an LM Studio conversation file (*.conversation.json): a list of
//     messages, each with its versions and the one selected;
//   - plain OpenAI-format messages: a JSON list of {role, content}, an
//     object {"messages": [...]}, JSONL of messages (one conversation) or
//     JSONL of {"messages": [...]} (one conversation a line).
//
// Rules:
//
//   - The format is told by the content (Detect), never by the file's
//     name. Our own export is Ours: Read leaves it to export.Decode.
//   - Every branch the source keeps is kept. A turn is a user message and
//     what followed it up to the next user message; messages under one
//     parent that answer the same user message differently are versions
//     (turns with the same parent). The active turn is the one ending at
//     the message the source had selected (current_node, currentId, the
//     selected versions).
//   - Models and times are kept where the source has them. Text is kept;
//     what is not text (images, audio, files, code interpreter outputs,
//     browsing results, reasoning) is left out and counted in the Report,
//     and an attachment the file only names is named in the message as
//     missing.
//   - Tool messages are kept where the file pairs them with their call
//     (OpenAI format: tool_calls and tool_call_id), so a model given the
//     history later finds each result's call. ChatGPT's tool messages
//     (code interpreter, browsing) answer no call the file keeps: they are
//     left out and counted.
//   - A conversation with no message with text makes no session (the
//     report names it); a file with none is refused.
//   - A file that cannot be read is refused whole, naming the place
//     (conversations[3].mapping.abc.message.content, or file:line:col);
//     nothing of it is imported.
//   - Each turn records where it came from (Turn.Run's imported_from,
//     ImportedFrom), so Replay can say why it has no recordings.
package foreign
