package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/store"
)

// promptsDB is a database file with the project "Work" in it.
func promptsDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.db")
	db, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateProject(context.Background(), store.Project{Name: "Work"}); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPromptsAddListExportImport(t *testing.T) {
	t.Parallel()
	home, dbPath := t.TempDir(), promptsDB(t)
	body := filepath.Join(t.TempDir(), "review.txt")
	if err := os.WriteFile(body, []byte("Review {{diff}}\nfor {{ focus }}.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"prompts", "add", "Summarize", "--body", "Sum up {{text}}", "--description", "short"},
		{"prompts", "add", "Review", "--file", body, "--project", "work"},
	} {
		if r := runMain(t, home, append(args, "--db", dbPath)...); r.code != ExitOK || r.stdout == "" {
			t.Fatalf("%q: exit %d, %s", args, r.code, r.stderr)
		}
	}
	r := runMain(t, home, "prompts", "add", "summarize", "--body", "x", "--db", dbPath)
	if r.code != ExitFailed || !strings.Contains(r.stderr, `already a prompt named "summarize"`) {
		t.Errorf("a taken name: exit %d, %q", r.code, r.stderr)
	}

	r = runMain(t, home, "prompts", "list", "--db", dbPath)
	if r.code != ExitOK || !strings.Contains(r.stdout, "Review") || !strings.Contains(r.stdout, "diff, focus") || !strings.Contains(r.stdout, "(global)") {
		t.Errorf("list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var listed []store.Prompt
	r = runMain(t, home, "prompts", "list", "--json", "--db", dbPath)
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil || len(listed) != 2 {
		t.Errorf("list --json = %q, %v", r.stdout, err)
	}

	out := filepath.Join(t.TempDir(), "prompts.yaml")
	if r := runMain(t, home, "prompts", "export", "-o", out, "--db", dbPath); r.code != ExitOK {
		t.Fatalf("export: exit %d, %s", r.code, r.stderr)
	}
	if r := runMain(t, home, "prompts", "export", "-o", out, "--db", dbPath); r.code != ExitFailed {
		t.Errorf("export over an existing file: exit %d, want %d", r.code, ExitFailed)
	}
	onlyWork := runMain(t, home, "prompts", "export", "--project", "Work", "--db", dbPath)
	if !strings.Contains(onlyWork.stdout, "project: Work") {
		t.Errorf("export --project Work:\n%s", onlyWork.stdout)
	}

	// Into another database, which has the project too.
	other := promptsDB(t)
	var rep store.PromptImport
	r = runMain(t, home, "prompts", "import", out, "--json", "--db", other)
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Created) != 2 {
		t.Fatalf("import --json: exit %d, %q, %v (%s)", r.code, r.stdout, err, r.stderr)
	}
	r = runMain(t, home, "prompts", "import", out, "--db", other)
	if r.code != ExitOK || !strings.Contains(r.stdout, "skipped  Review (Work): unchanged") || !strings.Contains(r.stderr, "0 created, 0 updated, 2 skipped") {
		t.Errorf("import again: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestPromptsImportOfABrokenFileWritesNothing(t *testing.T) {
	t.Parallel()
	home, dbPath := t.TempDir(), promptsDB(t)
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nprompts:\n  - name: Fine\n    body: x\n  - name: Broken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runMain(t, home, "prompts", "import", bad, "--db", dbPath)
	if r.code != ExitFailed || !strings.Contains(r.stderr, bad+":5:5:") || !strings.Contains(r.stderr, "nothing was written") {
		t.Errorf("import of a broken file: exit %d, %q", r.code, r.stderr)
	}
	if r := runMain(t, home, "prompts", "list", "--json", "--db", dbPath); strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("a broken file wrote prompts: %s", r.stdout)
	}
}

func TestPromptsUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"prompts"}, {"prompts", "frob"}, {"prompts", "add"}, {"prompts", "add", "x"},
		{"prompts", "add", "x", "--body", "a", "--file", "f"}, {"prompts", "import"},
	} {
		if r := runMain(t, t.TempDir(), args...); r.code != ExitUsage || r.stderr == "" {
			t.Errorf("%q: exit %d, %q", args, r.code, r.stderr)
		}
	}
	r := runMain(t, t.TempDir(), "prompts", "list", "--project", "Nope", "--db", promptsDB(t))
	if r.code != ExitFailed || !strings.Contains(r.stderr, "no project Nope") {
		t.Errorf("an unknown project: exit %d, %q", r.code, r.stderr)
	}
}
