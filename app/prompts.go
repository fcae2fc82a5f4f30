package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/promptfile"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

// The prompt library: the API's part. The prompts are the store's
// (store/prompts.go); their file is promptfile's.

// ListPrompts lists the global prompts and projectID's, by name ("" the
// global ones only, store.AllPrompts every prompt).
func (a *API) ListPrompts(projectID string) ([]store.Prompt, error) {
	return call(a, needDB, func(ctx context.Context) ([]store.Prompt, error) { return a.s.db.ListPrompts(ctx, projectID) })
}

// SavePrompt stores a new prompt (no id) or changes one; a name its scope
// already has, ignoring case, is refused.
func (a *API) SavePrompt(p store.Prompt) (store.Prompt, error) {
	return call(a, needDB, func(ctx context.Context) (store.Prompt, error) { return a.s.db.SavePrompt(ctx, p) })
}

// DeletePrompt deletes one prompt.
func (a *API) DeletePrompt(id string) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.db.DeletePrompt(ctx, id)) })
}

// ExportPrompts writes the prompts ListPrompts(projectID) lists as one
// YAML file.
func (a *API) ExportPrompts(projectID string) (ExportReply, error) {
	return call(a, needDB, func(ctx context.Context) (ExportReply, error) {
		entries, err := a.s.db.PromptEntries(ctx, projectID)
		if err != nil {
			return ExportReply{}, err
		}
		data, err := promptfile.Write(fileEntries(entries))
		if err != nil {
			return ExportReply{}, apperr.Wrap(err, apperr.Internal, "The prompts could not be written out.")
		}
		return ExportReply{Filename: "agentdeck-prompts.yaml", Content: string(data)}, nil
	})
}

// ImportPrompts reads a prompt file's content and stores its prompts,
// saying which it created, updated and skipped. A file with any problem
// is refused, each problem at its line and column, and nothing is
// written.
func (a *API) ImportPrompts(content string) (store.PromptImport, error) {
	return call(a, needDB, func(ctx context.Context) (store.PromptImport, error) {
		entries, err := promptfile.Parse("", []byte(content))
		if err != nil {
			return store.PromptImport{}, problemsError(err)
		}
		return a.s.db.ImportPrompts(ctx, storeEntries(entries))
	})
}

// storeEntries and fileEntries convert prompts between the file and the
// store, which keep the same fields.
func storeEntries(es []promptfile.Entry) []store.PromptEntry {
	out := make([]store.PromptEntry, len(es))
	for i, e := range es {
		out[i] = store.PromptEntry(e)
	}
	return out
}

func fileEntries(es []store.PromptEntry) []promptfile.Entry {
	out := make([]promptfile.Entry, len(es))
	for i, e := range es {
		out[i] = promptfile.Entry(e)
	}
	return out
}

// problemsError is a file's problems as one Invalid error whose message
// lists each at its line and column.
func problemsError(err error) error {
	var ps yamlcheck.Problems
	if !errors.As(err, &ps) {
		return err
	}
	lines := make([]string, len(ps))
	for i, p := range ps {
		switch {
		case p.Line > 0 && p.Column > 0:
			lines[i] = fmt.Sprintf("line %d, column %d: %s", p.Line, p.Column, p.Message)
		case p.Line > 0:
			lines[i] = fmt.Sprintf("line %d: %s", p.Line, p.Message)
		default:
			lines[i] = p.Message
		}
	}
	return apperr.Wrap(err, apperr.Invalid, "The file was not imported (nothing was written). Fix it and import it again:\n%s", strings.Join(lines, "\n"))
}
