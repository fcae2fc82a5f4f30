// Package cite is the model's side of knowledge: the search_knowledge
// tool, which gives the model passages numbered for citing, and Citations,
// which reads the [n] an answer cites and says which were given.
//
// The rules:
//   - Numbers come from the turn's knowledge.Numbers, shared with every
//     tool that gives sources (fetch_url), so [n] is unique in the turn.
//   - The tool emits the passages it gave as a sources event (turn.Source
//     per passage, a copy: document id, name and version, passage id,
//     page, heading, text). Its output carries all of it, so a replay
//     rebuilds the same sources from the recorded output alone
//     (Replayed), with no document and no embeddings server.
//   - It is read-only and Recorded: a replay gives back what the original
//     turn was given, never searches again.
//   - A citation is verified when a source with its number was given in
//     the turn; any other [n] is unverified, never silently dropped.
package cite
