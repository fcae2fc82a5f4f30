// Package chart checks the Vega-Lite specs a model sends through the
// render_chart tool before they reach the UI.
//
// A Validator compiles the official Vega-Lite v6 JSON Schema, embedded in
// this package as vega-lite-v6.schema.json, once, when the first spec
// reaches the schema rule: construct one at start-up (that costs nothing)
// and share it, it is safe for concurrent use. The compile takes a sixth of
// a second of CPU or so and allocates about 55 MB; the garbage goes back to
// the OS right after it, so only the compiled schema (about 8 MB) stays,
// and only in a process that drew a chart. Validate either returns a
// spec the UI can hand straight to vega-embed, or an *apperr.Error with code
// Invalid whose message is written for the model: short, specific, and
// naming the JSON pointer of what to fix, so it can correct the spec and
// call the tool again. The first rule a spec breaks is the one reported.
// Any other error is the app's fault (rows from Datasets that JSON cannot
// encode, a schema that does not compile) and is not for the model.
//
// Rules, in the order they are checked:
//
//   - Title: a plain string of at most 200 characters. Line breaks and tabs
//     become spaces; other control characters and bidirectional overrides
//     are removed; whitespace runs collapse. It is not HTML-escaped: it is
//     text, and escaping is the renderer's job.
//   - Size: the spec is at most 2 MB as sent, and again after named
//     datasets are inlined.
//   - Shape: the spec is a JSON object. Models often send the object
//     encoded as a JSON string; such a string is decoded once.
//   - No remote content: the UI must never load or link to anything outside
//     the app. An object key named "url" (data.url, lookup data, the image
//     mark's url channel or property) or "href" (clickable links) is refused
//     at any depth, including as a column of inline rows, and so is
//     "usermeta", which vega-embed reads as embed options. URL-looking
//     strings elsewhere are left alone: they are text, and with those keys
//     gone nothing can load them.
//   - Data: every data object holds inline rows (values), a generator
//     (sequence, graticule, sphere) or the name of a dataset. A name
//     resolves first against the spec's own top-level "datasets", then
//     against the Datasets the app passes; a name neither knows is an error
//     that lists the names available. Resolved datasets are copied into
//     the top-level "datasets" of the returned spec, so the UI needs
//     nothing else. Rows the app supplies are inlined as they are: they are
//     the app's data, not the model's spec, and are inert without url and
//     href channels.
//   - Rows: the chart carries at most 5,000 rows in all, counting inline
//     values, the spec's datasets and inlined named datasets; beyond that
//     the model is told to aggregate in the query first.
//   - Schema: the spec validates against the Vega-Lite v6 schema (draft-07).
//     Of the nested anyOf/oneOf error tree, the branch that got deepest
//     into the spec is taken as the one meant, and at most three of its
//     leaf errors are reported, deepest first, each with its location.
//
// The returned spec's "$schema" is always the Vega-Lite v6 URL, replacing
// whatever the model wrote: vega-embed picks Vega or Vega-Lite mode from it,
// and the spec must be rendered as what it was checked as. Nothing is ever
// fetched: the schema compiler's loader serves only the embedded file, and
// the draft-07 metaschema comes built into the jsonschema library.
package chart
