// Package promptfile reads and writes the prompt library as one YAML
// file (docs/PROMPTS.md):
//
//	version: 1
//	prompts:
//	  - name: Summarize
//	    description: A short summary   # optional
//	    project: Work                  # optional: the project's name; absent for a global prompt
//	    body: |
//	      Sum up {{text}} in {{words}} words.
//
// Rules:
//   - A file is read through yamlcheck: every problem is reported at its
//     file:line:col, and a file with any problem yields no prompts, so an
//     import of a broken file writes nothing.
//   - The steps are yamlcheck's: syntax, the schema (unknown fields,
//     wrong types, missing name or body), then meaning: a version this
//     Agentdeck reads, a name on one line, a body that is not blank, and
//     a name once per scope (ignoring case, as the library keeps them).
//   - Whether a named project exists is not the file's to say: the
//     store's import skips such a prompt and reports it.
//   - Write gives what Parse reads back unchanged; a body of several
//     lines is written as a literal block, so the file stays readable.
package promptfile
