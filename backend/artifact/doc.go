// Package artifact is what an artifact is to the engine: an HTML page or
// an SVG image shown in a sealed frame beside the chat (the UI draws it;
// docs/SECURITY.md says what the frame allows). It holds the
// create_artifact tool, the reading of an answer's ```html and ```svg
// blocks as artifacts (Blocks), and the numbering of versions (Versions).
//
// Rules:
//
//   - Everything here is a pure function of its input: no I/O, no clock,
//     no randomness. A replay or a re-run runs the tool again and reads
//     the answer's blocks again, and gets the same events.
//   - An artifact's Key names it across a session: versions of one
//     artifact share it. A create_artifact call names it (or its title
//     does, made into a key by KeyOf); a block of the answer takes its
//     kind, "html" or "svg", so successive pages of a conversation are
//     versions of one artifact.
//   - Content is checked before it is shown (Check): at most MaxContent
//     bytes, and an SVG must be well-formed XML with one <svg> root. A
//     call that fails gets an error the model can act on; a block that
//     fails is left a code block (no artifact).
//   - Blocks reads the answer with a CommonMark parser (goldmark): ```
//     and ~~~ fences, fences indented or inside lists and quotes, a fence
//     shown inside a longer one (not an artifact); an unterminated fence
//     is no artifact (an answer cut off mid-page).
package artifact
