package store

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// placedSession is a session in a project, tagged, pinned and archived,
// with settings of its own.
func placedSession(t *testing.T, db *DB) (Session, Project) {
	t.Helper()
	p := mustProject(t, db, "Research", turn.RunSettings{Instructions: ptr("Cite sources."), Sampling: turn.Sampling{Temperature: ptr(0.4)}})
	s, err := db.CreateSession(ctx, Session{Title: "placed", Model: "m", ProjectID: p.ID,
		Settings: turn.RunSettings{Instructions: ptr("Be brief."), Sampling: turn.Sampling{Seed: ptr(int64(7)), Stop: []string{"END"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{db.SetTags(ctx, s.ID, []string{"Urgent", "alpha"}), db.PinSession(ctx, s.ID, true), db.ArchiveSession(ctx, s.ID, true)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	s, _ = db.GetSession(ctx, s.ID)
	return s, p
}

func fileVersion(t *testing.T, b []byte) int {
	t.Helper()
	var head struct{ Version int }
	if err := json.Unmarshal(b, &head); err != nil {
		t.Fatal(err)
	}
	return head.Version
}

// A session's project, tags, pin, archive and settings go through an
// export and an import; the project is made where it is missing, and
// found by name (ignoring case) where it is not, keeping its own settings.
func TestExportImportKeepsTheSessionsPlace(t *testing.T) {
	t.Parallel()
	src := mustOpen(t)
	s, p := placedSession(t, src)
	file := importExport(t, src, s.ID, export.Options{})
	if v := fileVersion(t, file); v != 6 {
		t.Fatalf("version %d, want 6", v)
	}

	dst := mustOpen(t)
	got, err := dst.Import(ctx, bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	have, _ := dst.GetSession(ctx, got.ID)
	made, err := dst.GetProject(ctx, "research")
	if err != nil || made.Name != "Research" || !reflect.DeepEqual(made.Settings, p.Settings) || made.Sessions != 1 {
		t.Fatalf("project %+v, %v", made, err)
	}
	if have.ProjectID != made.ID || got.ProjectID != made.ID || !reflect.DeepEqual(have.Tags, s.Tags) || !reflect.DeepEqual(got.Tags, s.Tags) ||
		!have.PinnedAt.Equal(*s.PinnedAt) || !have.ArchivedAt.Equal(*s.ArchivedAt) || !reflect.DeepEqual(have.Settings, s.Settings) {
		t.Fatalf("imported\n%+v\nfrom\n%+v", have, s)
	}
	if second := importExport(t, dst, got.ID, export.Options{}); !bytes.Equal(importDropExportedAt(second), importDropExportedAt(file)) {
		t.Fatalf("the second export differs:\n%s\n---\n%s", second, file)
	}

	// Into a database with a RESEARCH project of its own: that one is
	// used, its settings as they are.
	third := mustOpen(t)
	own := mustProject(t, third, "RESEARCH", turn.RunSettings{Sampling: turn.Sampling{Temperature: ptr(1.0)}})
	got, err = third.Import(ctx, bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	ps, _ := third.ListProjects(ctx)
	kept, _ := third.GetProject(ctx, own.ID)
	if got.ProjectID != own.ID || len(ps) != 1 || *kept.Settings.Temperature != 1.0 {
		t.Fatalf("imported into %s; projects %+v, %+v", got.ProjectID, ps, kept)
	}
}

// A session with nothing version 6 adds is still written as the oldest
// version that reads it whole, so an older Agentdeck reads it.
func TestExportVersionOfASessionWithoutPlace(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := mustSessions(t, db, "", "plain")[0]
	if v := fileVersion(t, importExport(t, db, s, export.Options{})); v != 3 {
		t.Fatalf("version %d, want 3", v)
	}
	p := mustProject(t, db, "P", turn.RunSettings{})
	for _, place := range []func() error{
		func() error { return db.MoveSession(ctx, s, p.ID) },
		func() error { return db.SetTags(ctx, s, []string{"x"}) },
		func() error { return db.PinSession(ctx, s, true) },
		func() error { return db.ArchiveSession(ctx, s, true) },
	} {
		db.MoveSession(ctx, s, "")
		db.SetTags(ctx, s, nil)
		db.PinSession(ctx, s, false)
		db.ArchiveSession(ctx, s, false)
		if err := place(); err != nil {
			t.Fatal(err)
		}
		if v := fileVersion(t, importExport(t, db, s, export.Options{})); v != 6 {
			t.Fatalf("version %d, want 6", v)
		}
	}
}

// A file written by Agentdeck before version 6 (by the tree of commit
// f1a3a69, with an image and settings: testdata/session-v5-f1a3a69.json)
// still imports: into no project, untagged, neither pinned nor archived,
// its settings read.
func TestImportVersion5File(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "session-v5-f1a3a69.json"))
	if err != nil {
		t.Fatal(err)
	}
	if v := fileVersion(t, b); v != 5 {
		t.Fatalf("the fixture is version %d", v)
	}
	db := mustOpen(t)
	s, err := db.Import(ctx, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	have, _ := db.GetSession(ctx, s.ID)
	if have.ProjectID != "" || len(have.Tags) != 0 || have.PinnedAt != nil || have.ArchivedAt != nil || have.Turns != 4 ||
		have.Settings.Temperature == nil || *have.Settings.Temperature != 0.2 {
		t.Fatalf("imported %+v", have)
	}
	if ps, _ := db.ListProjects(ctx); len(ps) != 0 {
		t.Fatalf("projects %+v", ps)
	}
}

// A version 6 file whose place the store would refuse is refused, naming
// where, and nothing is written.
func TestImportRefusesABadPlace(t *testing.T) {
	t.Parallel()
	src := mustOpen(t)
	s, _ := placedSession(t, src)
	good := string(importExport(t, src, s.ID, export.Options{}))
	for _, c := range []struct {
		name, from, to, want string
	}{
		{"a project with no name", `"name":"Research"`, `"name":"  "`, "session.project.name"},
		{"project settings out of range", `"temperature":0.4`, `"temperature":9`, "session.project.settings"},
		{"project settings of another shape", `"temperature":0.4`, `"temperature":"warm"`, "session.project.settings"},
		{"session settings with an unknown field", `"seed":7`, `"seed":7,"mood":"calm"`, "session.settings"},
		{"a tag on two lines", `"Urgent"`, `"Urg\nent"`, "session.tags"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := strings.Replace(good, c.from, c.to, 1)
			if in == good {
				t.Fatalf("%q is not in the file:\n%s", c.from, good)
			}
			db := mustOpen(t)
			before := importCounts(t, db)
			_, err := db.Import(ctx, strings.NewReader(in))
			if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(apperr.MessageOf(err), c.want) {
				t.Fatalf("got %v, want a refusal naming %s", err, c.want)
			}
			if after := importCounts(t, db); !reflect.DeepEqual(before, after) {
				t.Fatalf("a refused file left rows behind: %v -> %v", before, after)
			}
			if ps, _ := db.ListProjects(ctx); len(ps) != 0 {
				t.Fatalf("a refused file left a project: %+v", ps)
			}
		})
	}
}

// A fork stays in its session's project with its tags, but is new: not
// pinned, not archived.
func TestForkKeepsProjectAndTags(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s, p := placedSession(t, db)
	tr, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "hi", Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.FinishTurn(ctx, tr.ID, 0, turn.Result{Outcome: turn.OutcomeSucceeded, FinalText: "hello"}); err != nil {
		t.Fatal(err)
	}
	f, err := db.ForkSession(ctx, tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	have, _ := db.GetSession(ctx, f.ID)
	if have.ProjectID != p.ID || !reflect.DeepEqual(have.Tags, s.Tags) || have.PinnedAt != nil || have.ArchivedAt != nil {
		t.Fatalf("fork %+v", have)
	}
}
