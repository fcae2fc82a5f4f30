// Package yamlcheck reads a YAML (or JSON) file that a person wrote and
// says everything wrong with it by file:line:col, in words a user can act
// on. workflow files and evaluation suites are read through it.
//
// Rules:
//   - A check never stops at the first problem: every problem a step finds
//     is returned together, as Problems, sorted by place, duplicates
//     dropped, at most 20 (then "... and N more problems").
//   - The steps run in order and the first one with problems ends the
//     read: syntax (Read), then the JSON Schema (Schema.Check), then the
//     caller's own checks of meaning. Each later step may rely on what an
//     earlier one accepted.
//   - A place is a path of JSON Pointer tokens ([]string{"cases", "0",
//     "assert"}), found in the YAML tree after the fact (Document.Problems),
//     through anchors, aliases and merge keys; a message starts with the
//     path written as a person would (cases[0].assert: ...).
//   - Reading is bounded: a file's size (Format.MaxSize), and the values
//     its aliases may expand to (MaxExpandedNodes), so a hostile file costs
//     little.
//   - Schemas are compiled offline: they may refer only to themselves.
//   - Nothing here knows a file format: the noun ("workflow", "suite") and
//     any wording a format wants for itself (an Explain hook) come from the
//     caller.
package yamlcheck
