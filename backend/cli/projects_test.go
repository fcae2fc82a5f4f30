package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/store"
)

// ordered makes a database with three sessions for the projects and
// sessions order commands.
func ordered(t *testing.T) (path string, ids []string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "a.db")
	ctx := context.Background()
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, title := range []string{"alpha notes", "beta notes", "gamma notes"} {
		s, err := db.CreateSession(ctx, store.Session{Title: title, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	return path, ids
}

func cliJSON[T any](t *testing.T, path string, args ...string) T {
	t.Helper()
	r := agentdeck(t, path, "", nil, nil, append(args, "--json")...)
	var v T
	if r.code != ExitOK {
		t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
	}
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("%v: %v: %s", args, err, r.stdout)
	}
	return v
}

func TestProjectsCommands(t *testing.T) {
	t.Parallel()
	path, ids := ordered(t)
	p := cliJSON[store.Project](t, path, "projects", "create", "Work", "--system", "Be brief.", "--temperature", "0.3", "--model", "m2")
	if p.Name != "Work" || p.Settings.InstructionsText() != "Be brief." || *p.Settings.Temperature != 0.3 || p.Settings.Model != "m2" {
		t.Fatalf("created %+v", p)
	}
	if r := agentdeck(t, path, "", nil, nil, "projects", "create", "work"); r.code == ExitOK || !strings.Contains(r.stderr, "already a project") {
		t.Fatalf("a second Work: exit %d %s", r.code, r.stderr)
	}
	if r := agentdeck(t, path, "", nil, nil, "projects", "create", "Hot", "--temperature", "3"); r.code != ExitUsage || !strings.Contains(r.stderr, "temperature") {
		t.Fatalf("temperature 3: exit %d %s", r.code, r.stderr)
	}
	// A value is read as sessions set reads it, and refused in its words.
	if r := agentdeck(t, path, "", nil, nil, "projects", "create", "Odd", "--top-p", "high"); r.code != ExitUsage ||
		!strings.Contains(r.stderr, `--top-p: "high" is not valid; it must be a number above 0 and at most 1.`) {
		t.Fatalf("top-p high: exit %d %s", r.code, r.stderr)
	}
	// edit: rename, unset one key, set another; the rest stays.
	p = cliJSON[store.Project](t, path, "projects", "edit", "WORK", "--name", "Job", "--temperature=", "--seed", "7")
	if p.Name != "Job" || p.Settings.Temperature != nil || *p.Settings.Seed != 7 || p.Settings.InstructionsText() != "Be brief." {
		t.Fatalf("edited %+v", p.Settings)
	}
	// An unknown project is named, with the list.
	r := agentdeck(t, path, "", nil, nil, "sessions", "move", ids[0], "Nope")
	if r.code != ExitFailed || !strings.Contains(r.stderr, `no project "Nope"`) || !strings.Contains(r.stderr, "Job") {
		t.Fatalf("move to Nope: exit %d %s", r.code, r.stderr)
	}
	for _, id := range ids[:2] {
		if s := cliJSON[store.Session](t, path, "sessions", "move", id, "job"); s.ProjectID != p.ID {
			t.Fatalf("moved %+v", s)
		}
	}
	list := cliJSON[struct{ Projects []store.Project }](t, path, "projects", "list")
	if len(list.Projects) != 1 || list.Projects[0].Sessions != 2 {
		t.Fatalf("projects %+v", list.Projects)
	}
	if r := agentdeck(t, path, "", nil, nil, "projects", "show", "Job"); !strings.Contains(r.stdout, "2 sessions") || !strings.Contains(r.stdout, `instructions: "Be brief."`) {
		t.Fatalf("show: %s", r.stdout)
	}
	// Deleting a project with sessions needs the choice, and counts them.
	r = agentdeck(t, path, "", nil, nil, "projects", "delete", "Job")
	if r.code == ExitOK || !strings.Contains(r.stderr, "2 sessions") || !strings.Contains(r.stderr, "--keep-sessions") {
		t.Fatalf("delete without a choice: exit %d %s", r.code, r.stderr)
	}
	del := cliJSON[struct {
		Deleted []string `json:"deleted_sessions"`
	}](t, path, "projects", "delete", "Job", "--delete-sessions")
	if len(del.Deleted) != 2 {
		t.Fatalf("deleted %v", del.Deleted)
	}
	left := cliJSON[struct{ Sessions []store.Session }](t, path, "sessions", "list")
	if len(left.Sessions) != 1 || left.Sessions[0].ID != ids[2] {
		t.Fatalf("left %+v", left.Sessions)
	}
}

func TestSessionsOrderCommands(t *testing.T) {
	t.Parallel()
	path, ids := ordered(t)
	cliJSON[store.Project](t, path, "projects", "create", "Home")
	cliJSON[store.Session](t, path, "sessions", "move", ids[0], "Home")
	if s := cliJSON[store.Session](t, path, "sessions", "pin", ids[2]); s.PinnedAt == nil {
		t.Fatal("not pinned")
	}
	if s := cliJSON[store.Session](t, path, "sessions", "tag", ids[1], "Red", "blue", "#red"); strings.Join(s.Tags, ",") != "blue,Red" {
		t.Fatalf("tags %v", s.Tags)
	}
	if s := cliJSON[store.Session](t, path, "sessions", "tag", ids[1], "green", "--remove", "RED"); strings.Join(s.Tags, ",") != "blue,green" {
		t.Fatalf("tags %v", s.Tags)
	}
	cliJSON[store.Session](t, path, "sessions", "tag", ids[0], "red")
	cliJSON[store.Session](t, path, "sessions", "archive", ids[0])

	listed := func(args ...string) string {
		t.Helper()
		v := cliJSON[struct{ Sessions []store.Session }](t, path, append([]string{"sessions", "list"}, args...)...)
		var got []string
		for _, s := range v.Sessions {
			got = append(got, strings.Fields(s.Title)[0])
		}
		return strings.Join(got, ",")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "gamma,beta"}, // pinned first, archived hidden
		{[]string{"--archived"}, "gamma,beta,alpha"},
		{[]string{"--archived-only"}, "alpha"},
		{[]string{"--project", "HOME", "--archived"}, "alpha"},
		{[]string{"--no-project"}, "gamma,beta"},
		{[]string{"--tag", "BLUE"}, "beta"},
	} {
		if got := listed(c.args...); got != c.want {
			t.Errorf("sessions list %v: %s, want %s", c.args, got, c.want)
		}
	}
	text := agentdeck(t, path, "", nil, nil, "sessions", "list", "--archived")
	for _, want := range []string{"* -", "#blue  #green", "Home", "(archived)"} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("the list lacks %q:\n%s", want, text.stdout)
		}
	}
	hits := cliJSON[struct{ Hits []store.SearchHit }](t, path, "sessions", "search", "notes", "--project", "home")
	if len(hits.Hits) != 1 || hits.Hits[0].SessionID != ids[0] {
		t.Fatalf("search in Home: %+v", hits.Hits)
	}
	hits = cliJSON[struct{ Hits []store.SearchHit }](t, path, "sessions", "search", "notes", "--tag", "green")
	if len(hits.Hits) != 1 || hits.Hits[0].SessionID != ids[1] {
		t.Fatalf("search tagged green: %+v", hits.Hits)
	}
	// Undo each.
	if s := cliJSON[store.Session](t, path, "sessions", "move", ids[0], "--none"); s.ProjectID != "" {
		t.Fatal("still in Home")
	}
	if s := cliJSON[store.Session](t, path, "sessions", "archive", ids[0], "--off"); s.ArchivedAt != nil {
		t.Fatal("still archived")
	}
	if s := cliJSON[store.Session](t, path, "sessions", "pin", ids[2], "--off"); s.PinnedAt != nil {
		t.Fatal("still pinned")
	}
	if s := cliJSON[store.Session](t, path, "sessions", "tag", ids[1], "--clear"); len(s.Tags) != 0 {
		t.Fatalf("tags %v", s.Tags)
	}
	for _, args := range [][]string{{"move", ids[0]}, {"tag", ids[0]}, {"pin"}, {"list", "--project", "x", "--no-project"}} {
		if r := agentdeck(t, path, "", nil, nil, append([]string{"sessions"}, args...)...); r.code != ExitUsage {
			t.Errorf("sessions %v: exit %d, want a usage error", args, r.code)
		}
	}
}
