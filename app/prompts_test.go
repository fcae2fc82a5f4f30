package app

import (
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/store"
)

// Prompts go out as one YAML file and come back into another database as
// they were, scopes by project name; a broken file is refused at its line
// and column and writes nothing.
func TestPromptsExportAndImport(t *testing.T) {
	t.Parallel()
	from, to := newFixture(t), newFixture(t)
	for _, f := range []*fixture{from, to} {
		if _, err := f.api.CreateProject(store.Project{Name: "Work"}); err != nil {
			t.Fatal(err)
		}
	}
	work, _ := from.api.GetProject("Work")
	for _, p := range []store.Prompt{
		{Name: "Summarize", Description: "short", Body: "Sum up {{text}}.\nIn {{words}} words.\n"},
		{Name: "Review", ProjectID: work.ID, Body: "Review {{diff}}"},
	} {
		if _, err := from.api.SavePrompt(p); err != nil {
			t.Fatal(err)
		}
	}
	file, err := from.api.ExportPrompts(store.AllPrompts)
	if err != nil || file.Filename != "agentdeck-prompts.yaml" || !strings.Contains(file.Content, "project: Work") {
		t.Fatalf("ExportPrompts = %+v, %v", file, err)
	}

	_, err = to.api.ImportPrompts("version: 1\nprompts:\n  - name: Broken\n    bodyy: x\n")
	if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(apperr.MessageOf(err), "line 4, column 5") {
		t.Fatalf("ImportPrompts of a broken file = %v", err)
	}
	if ps, _ := to.api.ListPrompts(store.AllPrompts); len(ps) != 0 {
		t.Fatalf("a broken file wrote %d prompts", len(ps))
	}

	rep, err := to.api.ImportPrompts(file.Content)
	if err != nil || len(rep.Created) != 2 || len(rep.Updated)+len(rep.Skipped) != 0 {
		t.Fatalf("ImportPrompts = %+v, %v", rep, err)
	}
	again, err := to.api.ImportPrompts(file.Content)
	if err != nil || len(again.Skipped) != 2 {
		t.Fatalf("a second import = %+v, %v; want both skipped", again, err)
	}
	toWork, _ := to.api.GetProject("Work")
	ps, err := to.api.ListPrompts(toWork.ID)
	if err != nil || len(ps) != 2 || ps[0].Name != "Review" || ps[0].ProjectID != toWork.ID || strings.Join(ps[1].Variables, ",") != "text,words" {
		t.Fatalf("ListPrompts after import = %+v, %v", ps, err)
	}
	if _, err := to.api.DeletePrompt(ps[0].ID); err != nil {
		t.Fatal(err)
	}
	if ps, _ := to.api.ListPrompts(toWork.ID); len(ps) != 1 {
		t.Errorf("after DeletePrompt: %d prompts", len(ps))
	}
}
