package store

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

func promptNames(ps []Prompt) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func mustSavePrompt(t *testing.T, db *DB, p Prompt) Prompt {
	t.Helper()
	saved, err := db.SavePrompt(context.Background(), p)
	if err != nil {
		t.Fatalf("SavePrompt(%q): %v", p.Name, err)
	}
	return saved
}

func TestPromptScopes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	work, err := db.CreateProject(ctx, Project{Name: "Work"})
	if err != nil {
		t.Fatal(err)
	}
	home, err := db.CreateProject(ctx, Project{Name: "Home"})
	if err != nil {
		t.Fatal(err)
	}
	mustSavePrompt(t, db, Prompt{Name: "summarize", Body: "Sum up {{text}} in {{ words }} words."})
	mustSavePrompt(t, db, Prompt{Name: "Review", ProjectID: work.ID, Body: "Review {{diff}}"})
	mustSavePrompt(t, db, Prompt{Name: "Shopping", ProjectID: home.ID, Body: "List"})
	// A project's prompt may share a global one's name.
	mustSavePrompt(t, db, Prompt{Name: "Summarize", ProjectID: work.ID, Body: "Work summary"})

	for _, c := range []struct {
		project string
		want    []string
	}{
		{"", []string{"summarize"}},
		{work.ID, []string{"Review", "summarize", "Summarize"}},
		{home.ID, []string{"Shopping", "summarize"}},
		{AllPrompts, []string{"Review", "Shopping", "summarize", "Summarize"}},
	} {
		ps, err := db.ListPrompts(ctx, c.project)
		if err != nil {
			t.Fatal(err)
		}
		if got := promptNames(ps); !slices.Equal(got, c.want) {
			t.Errorf("ListPrompts(%q) = %q, want %q", c.project, got, c.want)
		}
	}
	ps, _ := db.ListPrompts(ctx, "")
	if got := ps[0].Variables; !slices.Equal(got, []string{"text", "words"}) {
		t.Errorf("Variables = %q, want text, words", got)
	}
	// Deleting a project deletes its prompts.
	if _, err := db.DeleteProject(ctx, home.ID, KeepSessions); err != nil {
		t.Fatal(err)
	}
	if ps, _ := db.ListPrompts(ctx, AllPrompts); slices.Contains(promptNames(ps), "Shopping") {
		t.Error("a deleted project's prompt is still listed")
	}
}

func TestSavePromptRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	work, _ := db.CreateProject(ctx, Project{Name: "Work"})
	taken := mustSavePrompt(t, db, Prompt{Name: "Daily", Body: "x"})
	mustSavePrompt(t, db, Prompt{Name: "Other", Body: "y"})
	other, _ := db.ListPrompts(ctx, "")
	for _, c := range []struct {
		name string
		p    Prompt
		code apperr.Code
		says string
	}{
		{"no name", Prompt{Name: "  ", Body: "x"}, apperr.Invalid, "needs a name"},
		{"no body", Prompt{Name: "a", Body: " \n"}, apperr.Invalid, "no text"},
		{"body too long", Prompt{Name: "a", Body: strings.Repeat("x", MaxPromptBody+1)}, apperr.Invalid, "longer than"},
		{"two-line name", Prompt{Name: "a\nb", Body: "x"}, apperr.Invalid, "one line"},
		{"name taken, other case", Prompt{Name: "DAILY", Body: "z"}, apperr.Conflict, `"DAILY"`},
		{"renamed onto another", Prompt{ID: other[1].ID, Name: "daily", Body: "z"}, apperr.Conflict, "among the global prompts"},
		{"no such project", Prompt{Name: "b", ProjectID: "nope", Body: "x"}, apperr.NotFound, "no project"},
		{"no such prompt", Prompt{ID: "nope", Name: "b", Body: "x"}, apperr.NotFound, "no prompt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := db.SavePrompt(ctx, c.p)
			if apperr.CodeOf(err) != c.code || !strings.Contains(apperr.MessageOf(err), c.says) {
				t.Errorf("SavePrompt = %v (%s), want %s saying %q", err, apperr.CodeOf(err), c.code, c.says)
			}
		})
	}
	// The same name in a project is fine; the update keeps created_at.
	moved := taken
	moved.ProjectID, moved.Body = work.ID, "changed {{x}}"
	got := mustSavePrompt(t, db, moved)
	if !got.CreatedAt.Equal(taken.CreatedAt) || !slices.Equal(got.Variables, []string{"x"}) {
		t.Errorf("updated prompt = %+v", got)
	}
	back, err := db.GetPrompt(ctx, taken.ID)
	if err != nil || back.ProjectID != work.ID || back.Body != "changed {{x}}" {
		t.Errorf("GetPrompt = %+v, %v", back, err)
	}
	if err := db.DeletePrompt(ctx, taken.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.DeletePrompt(ctx, taken.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("second DeletePrompt = %v, want NotFound", err)
	}
	if _, err := db.GetPrompt(ctx, taken.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("GetPrompt of a deleted prompt = %v, want NotFound", err)
	}
}

func TestImportPrompts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	if _, err := db.CreateProject(ctx, Project{Name: "Work"}); err != nil {
		t.Fatal(err)
	}
	mustSavePrompt(t, db, Prompt{Name: "Same", Body: "same"})
	mustSavePrompt(t, db, Prompt{Name: "Changed", Body: "old"})
	rep, err := db.ImportPrompts(ctx, []PromptEntry{
		{Name: "same", Body: "same"},
		{Name: "changed", Body: "new {{x}}", Description: "now described"},
		{Name: "Fresh", Project: "work", Body: "fresh"},
		{Name: "Lost", Project: "Nowhere", Body: "lost"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := PromptImport{
		Created: []PromptImported{{Name: "Fresh", Project: "Work"}},
		Updated: []PromptImported{{Name: "changed"}},
		Skipped: []PromptImported{{Name: "same", Reason: SkipUnchanged}, {Name: "Lost", Project: "Nowhere", Reason: SkipNoProject}},
	}
	if !slices.Equal(rep.Created, want.Created) || !slices.Equal(rep.Updated, want.Updated) || !slices.Equal(rep.Skipped, want.Skipped) {
		t.Errorf("report = %+v\nwant %+v", rep, want)
	}
	entries, err := db.PromptEntries(ctx, AllPrompts)
	if err != nil {
		t.Fatal(err)
	}
	wantEntries := []PromptEntry{
		{Name: "changed", Description: "now described", Body: "new {{x}}"},
		{Name: "Fresh", Project: "Work", Body: "fresh"},
		{Name: "Same", Body: "same"},
	}
	if !slices.Equal(entries, wantEntries) {
		t.Errorf("entries = %+v\nwant %+v", entries, wantEntries)
	}

	// A prompt that is not valid fails the import and nothing is written.
	_, err = db.ImportPrompts(ctx, []PromptEntry{{Name: "Another", Body: "x"}, {Name: "Empty", Body: ""}})
	if apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("import with an empty prompt = %v, want Invalid", err)
	}
	if ps, _ := db.ListPrompts(ctx, AllPrompts); len(ps) != 3 {
		t.Errorf("a refused import wrote: %q", promptNames(ps))
	}
}
