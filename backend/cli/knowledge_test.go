package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/store"
)

// knowledgeDB is a database file with the project "Research" and a
// session in it, and the files report.md and notes.txt.
func knowledgeDB(t *testing.T) (dbPath, sessionID, dir string) {
	t.Helper()
	ctx := context.Background()
	dbPath = filepath.Join(t.TempDir(), "a.db")
	db, err := store.Open(ctx, dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, err := db.CreateProject(ctx, store.Project{Name: "Research"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := db.CreateSession(ctx, store.Session{Title: "reading", ProjectID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	for name, text := range map[string]string{
		"report.md": "Revenue of quinces rose by a third.\n",
		"notes.txt": "Ask the grower about quinces and frost.\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dbPath, s.ID, dir
}

func TestKnowledgeAddListSearchRemove(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dbPath, sid, dir := knowledgeDB(t)
	report, notes := filepath.Join(dir, "report.md"), filepath.Join(dir, "notes.txt")

	r := runMain(t, home, "knowledge", "add", report, "--session", sid, "--db", dbPath)
	if r.code != ExitOK || len(strings.Fields(r.stdout)) != 1 || !strings.Contains(r.stderr, "added report.md: 1 page, 1 passage") {
		t.Fatalf("add: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	reportID := strings.TrimSpace(r.stdout)

	// To the project, as JSON; a missing file is said, the other added.
	var added struct {
		Added  []knowledge.Document `json:"added"`
		Failed []addFailure         `json:"failed"`
	}
	r = runMain(t, home, "knowledge", "add", notes, filepath.Join(dir, "missing.pdf"), "--project", "research", "--json", "--db", dbPath)
	if err := json.Unmarshal([]byte(r.stdout), &added); err != nil || r.code != ExitFailed {
		t.Fatalf("add --json: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if len(added.Added) != 1 || added.Added[0].Name != "notes.txt" || added.Added[0].ProjectID == "" ||
		len(added.Failed) != 1 || added.Failed[0].Code != apperr.NotFound || !strings.Contains(added.Failed[0].Message, "missing.pdf") {
		t.Fatalf("add --json = %+v", added)
	}
	// The same file again is refused, naming it.
	r = runMain(t, home, "knowledge", "add", report, "--session", sid, "--db", dbPath)
	if r.code != ExitFailed || !strings.Contains(r.stderr, "already here") {
		t.Fatalf("the same file again: exit %d, %s", r.code, r.stderr)
	}

	// The session's list holds its own document and its project's.
	r = runMain(t, home, "knowledge", "list", "--session", sid, "--db", dbPath)
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, "ID ") || !strings.Contains(r.stdout, "PASSAGES") ||
		!strings.Contains(r.stdout, "report.md") || !strings.Contains(r.stdout, "notes.txt") || !strings.Contains(r.stdout, "project") {
		t.Fatalf("list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var listed struct {
		Documents []knowledge.Document `json:"documents"`
	}
	r = runMain(t, home, "knowledge", "list", "--project", "Research", "--json", "--db", dbPath)
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil || len(listed.Documents) != 1 || listed.Documents[0].Name != "notes.txt" {
		t.Fatalf("list --project --json: %q, %v", r.stdout, err)
	}

	r = runMain(t, home, "knowledge", "search", "quinces", "revenue", "--session", sid, "--db", dbPath)
	if r.code != ExitOK || !strings.Contains(r.stderr, "2 passages, searched by words (lexical)") ||
		!strings.Contains(r.stdout, "DOCUMENT") || !strings.Contains(r.stdout, `"Revenue of quinces rose by a third."`) {
		t.Fatalf("search: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if first := strings.Split(r.stdout, "\n")[1]; !strings.HasPrefix(first, "report.md") {
		t.Fatalf("the best hit is %q, want report.md's (two words)", first)
	}
	var res knowledge.Results
	r = runMain(t, home, "knowledge", "search", "quinces", "--session", sid, "--limit", "1", "--json", "--db", dbPath)
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Mode != knowledge.Lexical || len(res.Hits) != 1 || res.Hits[0].Page != 1 {
		t.Fatalf("search --json: %q, %v", r.stdout, err)
	}

	var removed struct {
		Removed knowledge.Document `json:"removed"`
	}
	r = runMain(t, home, "knowledge", "remove", reportID, "--json", "--db", dbPath)
	if err := json.Unmarshal([]byte(r.stdout), &removed); err != nil || removed.Removed.Name != "report.md" {
		t.Fatalf("remove --json: %q, %v (%s)", r.stdout, err, r.stderr)
	}
	r = runMain(t, home, "knowledge", "remove", reportID, "--db", dbPath)
	if r.code != ExitFailed || !strings.Contains(r.stderr, "There is no document") {
		t.Fatalf("remove twice: exit %d, %s", r.code, r.stderr)
	}
	r = runMain(t, home, "knowledge", "search", "revenue", "--session", sid, "--db", dbPath)
	if r.code != ExitOK || r.stdout != "" || !strings.Contains(r.stderr, "0 passages") {
		t.Fatalf("search after remove: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestKnowledgeRefuses(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dbPath, sid, dir := knowledgeDB(t)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no command", nil, ExitUsage, "agentdeck knowledge add FILE..."},
		{"unknown command", []string{"forget"}, ExitUsage, `unknown knowledge command "forget"`},
		{"add with no place", []string{"add", filepath.Join(dir, "notes.txt")}, ExitUsage, "usage"},
		{"add with both places", []string{"add", "x", "--session", sid, "--project", "Research"}, ExitUsage, "not both"},
		{"list with an argument", []string{"list", "x", "--session", sid}, ExitUsage, "usage"},
		{"search with no query", []string{"search", "--session", sid}, ExitUsage, "usage"},
		{"search with a limit of 0", []string{"search", "q", "--session", sid, "--limit", "0"}, ExitUsage, "usage"},
		{"remove with a place", []string{"remove", "d", "--session", sid}, ExitUsage, "usage"},
		{"an unknown session", []string{"list", "--session", "nope"}, ExitFailed, "nope"},
		{"an unknown project", []string{"list", "--project", "Nope"}, ExitFailed, `There is no project "Nope". The projects are: Research.`},
		{"a folder", []string{"add", dir, "--session", sid}, ExitFailed, "is a folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runMain(t, home, append(append([]string{"knowledge"}, tt.args...), "--db", dbPath)...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, want %d; stderr %q lacks %q", r.code, tt.code, r.stderr, tt.want)
			}
		})
	}
}
