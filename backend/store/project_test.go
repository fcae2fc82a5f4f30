package store

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/turn"
)

func ptr[T any](v T) *T { return &v }

func mustProject(t *testing.T, db *DB, name string, s turn.RunSettings) Project {
	t.Helper()
	p, err := db.CreateProject(context.Background(), Project{Name: name, Settings: s})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// mustSessions makes sessions titled as given, the first the oldest, in
// project (none for "").
func mustSessions(t *testing.T, db *DB, project string, titles ...string) []string {
	t.Helper()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []string
	for _, title := range titles {
		n, _ := db.ListSessions(context.Background(), Page{Archived: true, Limit: 500})
		at := base.Add(time.Duration(len(n.Sessions)+len(n.Pinned)) * time.Minute)
		s, err := db.CreateSession(context.Background(), Session{Title: title, Model: "m", ProjectID: project, CreatedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	return ids
}

func titles(ss []Session) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Title)
	}
	return strings.Join(out, ",")
}

// Settings resolve app → project → session → turn, each field from the
// highest layer that sets it, and say which layer that was.
func TestSettingsResolveAppProjectSessionTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	if err := db.SaveAppSettings(ctx, AppSettings{DefaultModel: "app-model", Defaults: turn.RunSettings{
		Instructions: ptr("Be kind."), Sampling: turn.Sampling{Temperature: ptr(0.1), MaxTokens: ptr(100), Seed: ptr(int64(1))}}}); err != nil {
		t.Fatal(err)
	}
	p := mustProject(t, db, "Research", turn.RunSettings{Instructions: ptr("Cite sources."), Sampling: turn.Sampling{Temperature: ptr(0.5), Stop: []string{"END"}}})
	s, err := db.CreateSession(ctx, Session{Title: "s", Model: "session-model", ProjectID: p.ID,
		Settings: turn.RunSettings{Sampling: turn.Sampling{TopP: ptr(0.9), Seed: ptr(int64(2))}}})
	if err != nil {
		t.Fatal(err)
	}
	layers, err := db.SettingsFor(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range layers {
		names = append(names, l.Name)
	}
	if strings.Join(names, ",") != "app,project,session" {
		t.Fatalf("layers %v", names)
	}
	r := turn.Resolve(append(layers, turn.Layer{Name: turn.LayerTurn, Settings: turn.RunSettings{Sampling: turn.Sampling{Seed: ptr(int64(3))}}})...)
	got := r.Settings
	if got.InstructionsText() != "Cite sources." || *got.Temperature != 0.5 || *got.TopP != 0.9 || *got.MaxTokens != 100 ||
		*got.Seed != 3 || got.Model != "session-model" || !slices.Equal(got.Stop, []string{"END"}) {
		t.Fatalf("resolved %+v", got)
	}
	want := map[string]string{"instructions": "project", "temperature": "project", "stop": "project", "top_p": "session",
		"max_tokens": "app", "seed": "turn", "model": "session", "workflow": "session"}
	for f, layer := range want {
		if r.From[f] != layer {
			t.Errorf("%s from %q, want %q", f, r.From[f], layer)
		}
	}

	// A session that says "no instructions" wins over its project's.
	s.Settings.Instructions = ptr("")
	if err := db.UpdateSession(ctx, s); err != nil {
		t.Fatal(err)
	}
	layers, _ = db.SettingsFor(ctx, s.ID)
	if r := turn.Resolve(layers...); r.Settings.Instructions == nil || *r.Settings.Instructions != "" || r.From["instructions"] != "session" {
		t.Fatalf("instructions %v from %s", r.Settings.Instructions, r.From["instructions"])
	}

	// A session in no project has no project layer.
	other := mustSessions(t, db, "", "loose")[0]
	layers, _ = db.SettingsFor(ctx, other)
	if len(layers) != 2 || turn.Resolve(layers...).From["temperature"] != "app" {
		t.Fatalf("layers of a session in no project: %+v", layers)
	}
}

// A turn keeps how it ran: its stored run does not follow its project's
// defaults when they change, nor the session when it moves.
func TestTurnKeepsHowItRanAfterItsProjectChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	p := mustProject(t, db, "Work", turn.RunSettings{Instructions: ptr("Be brief."), Sampling: turn.Sampling{Temperature: ptr(0.2)}})
	other := mustProject(t, db, "Play", turn.RunSettings{Sampling: turn.Sampling{Temperature: ptr(1.5)}})
	sid := mustSessions(t, db, p.ID, "s")[0]
	tr, err := db.StartTurn(ctx, Turn{SessionID: sid, UserMessage: "hi", Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	layers, _ := db.SettingsFor(ctx, sid)
	run, _ := json.Marshal(turn.Resolve(layers...))
	if err := db.SetTurnRun(ctx, tr.ID, run); err != nil {
		t.Fatal(err)
	}

	p.Settings = turn.RunSettings{Instructions: ptr("Be thorough."), Sampling: turn.Sampling{Temperature: ptr(0.9)}}
	if err := db.UpdateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	stored, err := db.TurnRun(ctx, tr.ID)
	if err != nil || !bytes.Equal(stored, run) {
		t.Fatalf("after the project changed the turn's run is %s (%v), was %s", stored, err, run)
	}
	var ran turn.Resolved
	if err := json.Unmarshal(stored, &ran); err != nil || ran.Settings.InstructionsText() != "Be brief." || *ran.Settings.Temperature != 0.2 {
		t.Fatalf("stored run %s", stored)
	}
	// The next turn resolves with the new defaults.
	layers, _ = db.SettingsFor(ctx, sid)
	if r := turn.Resolve(layers...); r.Settings.InstructionsText() != "Be thorough." || *r.Settings.Temperature != 0.9 {
		t.Fatalf("next turn resolves to %+v", r.Settings)
	}

	if err := db.MoveSession(ctx, sid, other.ID); err != nil {
		t.Fatal(err)
	}
	if stored, _ := db.TurnRun(ctx, tr.ID); !bytes.Equal(stored, run) {
		t.Fatalf("after a move the turn's run is %s", stored)
	}
	layers, _ = db.SettingsFor(ctx, sid)
	if r := turn.Resolve(layers...); *r.Settings.Temperature != 1.5 || r.Settings.Instructions != nil {
		t.Fatalf("after the move the next turn resolves to %+v", r.Settings)
	}
	if err := db.MoveSession(ctx, sid, "no-such-project"); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("move to an unknown project: %v", err)
	}
}

func TestDeleteProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	setup := func(t *testing.T) (*DB, Project, []string) {
		db := mustOpen(t)
		p := mustProject(t, db, "Work", turn.RunSettings{})
		ids := mustSessions(t, db, p.ID, "first", "second")
		mustSessions(t, db, "", "elsewhere")
		if _, err := db.StartTurn(ctx, Turn{SessionID: ids[0], UserMessage: "find the needle", Workflow: "chat", Model: "m"}); err != nil {
			t.Fatal(err)
		}
		// A file of the session's own, as an upload leaves.
		dir := SessionDir(db.path, ids[0])
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "upload.txt"), []byte("secret"), 0o600); err != nil {
			t.Fatal(err)
		}
		return db, p, ids
	}

	t.Run("without a choice it refuses, counting the sessions", func(t *testing.T) {
		db, p, ids := setup(t)
		_, err := db.DeleteProject(ctx, p.ID, "")
		if apperr.CodeOf(err) != apperr.Conflict || !strings.Contains(apperr.MessageOf(err), "2 sessions") {
			t.Fatalf("got %v", err)
		}
		if _, err := db.DeleteProject(ctx, p.ID, "maybe"); apperr.CodeOf(err) != apperr.Invalid {
			t.Fatalf("an unknown choice: %v", err)
		}
		if got, _ := db.GetProject(ctx, "work"); got.Sessions != 2 {
			t.Fatalf("the project changed: %+v", got)
		}
		if s, _ := db.GetSession(ctx, ids[0]); s.ProjectID != p.ID {
			t.Fatal("a session moved")
		}
	})
	t.Run("keep moves the sessions to no project", func(t *testing.T) {
		db, p, ids := setup(t)
		deleted, err := db.DeleteProject(ctx, "WORK", KeepSessions)
		if err != nil || len(deleted) != 0 {
			t.Fatalf("deleted %v, %v", deleted, err)
		}
		if _, err := db.GetProject(ctx, p.ID); apperr.CodeOf(err) != apperr.NotFound {
			t.Fatalf("the project is still there: %v", err)
		}
		page, _ := db.ListSessions(ctx, Page{Project: NoProject})
		if titles(page.Sessions) != "first,elsewhere,second" { // first has a turn: the newest activity
			t.Fatalf("in no project: %s", titles(page.Sessions))
		}
		if _, err := os.Stat(SessionDir(db.path, ids[0])); err != nil {
			t.Fatalf("a kept session lost its folder: %v", err)
		}
	})
	t.Run("delete deletes the sessions, their turns and folders", func(t *testing.T) {
		db, p, ids := setup(t)
		deleted, err := db.DeleteProject(ctx, p.ID, DeleteSessions)
		slices.Sort(ids)
		if err != nil || !slices.Equal(deleted, ids) {
			t.Fatalf("deleted %v (want %v), %v", deleted, ids, err)
		}
		for _, id := range ids {
			if _, err := db.GetSession(ctx, id); apperr.CodeOf(err) != apperr.NotFound {
				t.Fatalf("session %s: %v", id, err)
			}
			if _, err := os.Stat(SessionDir(db.path, id)); !os.IsNotExist(err) {
				t.Fatalf("the folder of %s is still there: %v", id, err)
			}
		}
		var turns int
		db.reader.QueryRow(`SELECT COUNT(*) FROM turns`).Scan(&turns)
		if hits, _ := db.Search(ctx, "needle", 10); turns != 0 || len(hits) != 0 {
			t.Fatalf("%d turns and %d search hits left", turns, len(hits))
		}
		page, _ := db.ListSessions(ctx, Page{})
		if titles(page.Sessions) != "elsewhere" {
			t.Fatalf("left: %s", titles(page.Sessions))
		}
	})
	t.Run("an empty project needs no choice", func(t *testing.T) {
		db := mustOpen(t)
		p := mustProject(t, db, "Empty", turn.RunSettings{})
		if _, err := db.DeleteProject(ctx, p.Name, ""); err != nil {
			t.Fatal(err)
		}
	})
}

// Pinned sessions come first, most recently pinned first, on the first
// page only; Sessions never holds one.
func TestPinnedListFirstOnTheFirstPage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	ids := mustSessions(t, db, "", "a", "b", "c", "d", "e")
	for n, i := range []int{1, 3} {
		if err := db.PinSession(ctx, ids[i], true); err != nil {
			t.Fatal(err)
		}
		// Distinct pin times, the order under test, without waiting.
		at := time.Date(2026, 2, 1, 0, n, 0, 0, time.UTC)
		if _, err := db.writer.ExecContext(ctx, `UPDATE sessions SET pinned_at = ? WHERE id = ?`, fmtTime(at), ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	first, err := db.ListSessions(ctx, Page{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if titles(first.Pinned) != "d,b" || titles(first.Sessions) != "e,c" || first.NextCursor == "" {
		t.Fatalf("first page: pinned %s, sessions %s", titles(first.Pinned), titles(first.Sessions))
	}
	next, _ := db.ListSessions(ctx, Page{Limit: 2, Cursor: first.NextCursor})
	if len(next.Pinned) != 0 || titles(next.Sessions) != "a" || next.NextCursor != "" {
		t.Fatalf("second page: pinned %s, sessions %s", titles(next.Pinned), titles(next.Sessions))
	}
	// Pinning again keeps the first pin time; unpinning puts it back in order.
	s, _ := db.GetSession(ctx, ids[1])
	db.PinSession(ctx, ids[1], true)
	if again, _ := db.GetSession(ctx, ids[1]); !again.PinnedAt.Equal(*s.PinnedAt) {
		t.Fatalf("pinned again at %v, first %v", again.PinnedAt, s.PinnedAt)
	}
	db.PinSession(ctx, ids[3], false)
	if page, _ := db.ListSessions(ctx, Page{}); titles(page.Pinned) != "b" || titles(page.Sessions) != "e,d,c,a" {
		t.Fatalf("after unpinning: pinned %s, sessions %s", titles(page.Pinned), titles(page.Sessions))
	}
	if err := db.PinSession(ctx, "nope", true); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("pin an unknown session: %v", err)
	}
}

func TestTagsAndArchiveFilterTheList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	ids := mustSessions(t, db, "", "a", "b", "c")
	if err := db.SetTags(ctx, ids[0], []string{"Work", " #urgent ", "work", ""}); err != nil {
		t.Fatal(err)
	}
	if s, _ := db.GetSession(ctx, ids[0]); strings.Join(s.Tags, ",") != "urgent,Work" {
		t.Fatalf("tags %v", s.Tags)
	}
	db.SetTags(ctx, ids[1], []string{"WORK"})
	if err := db.SetTags(ctx, ids[2], []string{"bad\ntag"}); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("a two-line tag: %v", err)
	}
	if err := db.SetTags(ctx, "nope", []string{"x"}); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("tag an unknown session: %v", err)
	}
	tags, _ := db.ListTags(ctx)
	if len(tags) != 2 || !strings.EqualFold(tags[0].Tag, "work") || tags[0].Sessions != 2 || tags[1].Tag != "urgent" {
		t.Fatalf("tags %+v", tags)
	}
	if err := db.ArchiveSession(ctx, ids[1], true); err != nil {
		t.Fatal(err)
	}
	if err := db.PinSession(ctx, ids[1], true); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		page Page
		want string
	}{
		{"archived hidden", Page{}, "c,a"},
		{"archived too", Page{Archived: true}, "b|c,a"},
		{"archived only", Page{ArchivedOnly: true}, "b|"},
		{"tag, any case", Page{Tag: "wOrK"}, "a"},
		{"tag with #", Page{Tag: "#work", Archived: true}, "b|a"},
		{"unknown tag", Page{Tag: "none"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			page, err := db.ListSessions(ctx, c.page)
			if err != nil {
				t.Fatal(err)
			}
			got := titles(page.Sessions)
			if len(page.Pinned) > 0 {
				got = titles(page.Pinned) + "|" + got
			}
			if got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
	// Archiving never deletes: the session and its tags are all there.
	if s, err := db.GetSession(ctx, ids[1]); err != nil || s.ArchivedAt == nil || len(s.Tags) != 1 {
		t.Fatalf("the archived session: %+v, %v", s, err)
	}
	db.ArchiveSession(ctx, ids[1], false)
	if page, _ := db.ListSessions(ctx, Page{}); titles(page.Pinned) != "b" {
		t.Fatalf("unarchived, pinned: %s", titles(page.Pinned))
	}
}

func TestSearchInProjectOrTag(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	p := mustProject(t, db, "Garden", turn.RunSettings{})
	in := mustSessions(t, db, p.ID, "tomato plan")
	out := mustSessions(t, db, "", "tomato soup", "tomato sauce")
	db.SetTags(ctx, out[1], []string{"Kitchen"})
	db.ArchiveSession(ctx, out[1], true)
	hitIDs := func(sc Scope) string {
		t.Helper()
		hits, err := db.SearchIn(ctx, "tomato", 20, sc)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.SessionID)
		}
		slices.Sort(ids)
		return strings.Join(ids, ",")
	}
	sorted := func(ids ...string) string { slices.Sort(ids); return strings.Join(ids, ",") }
	for _, c := range []struct {
		name string
		sc   Scope
		want string
	}{
		{"everywhere, archived too", Scope{}, sorted(in[0], out[0], out[1])},
		{"a project", Scope{Project: p.ID}, in[0]},
		{"no project", Scope{Project: NoProject}, sorted(out...)},
		{"a tag, any case", Scope{Tag: "kitchen"}, out[1]},
		{"a project and a tag", Scope{Project: p.ID, Tag: "kitchen"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := hitIDs(c.sc); got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestProjectNames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	work := mustProject(t, db, "  Work  ", turn.RunSettings{})
	if work.Name != "Work" {
		t.Fatalf("name %q", work.Name)
	}
	home := mustProject(t, db, "Home", turn.RunSettings{})
	for _, c := range []struct {
		name string
		do   func() error
		code apperr.Code
	}{
		{"the same name in another case", func() error { _, err := db.CreateProject(ctx, Project{Name: "WORK"}); return err }, apperr.Conflict},
		{"a rename onto another", func() error { home.Name = "work"; return db.UpdateProject(ctx, home) }, apperr.Conflict},
		{"no name", func() error { _, err := db.CreateProject(ctx, Project{Name: "  "}); return err }, apperr.Invalid},
		{"too long", func() error {
			_, err := db.CreateProject(ctx, Project{Name: strings.Repeat("x", MaxNameLen+1)})
			return err
		}, apperr.Invalid},
		{"bad settings", func() error {
			_, err := db.CreateProject(ctx, Project{Name: "Hot", Settings: turn.RunSettings{Sampling: turn.Sampling{Temperature: ptr(5.0)}}})
			return err
		}, apperr.Invalid},
		{"an unknown project", func() error { return db.UpdateProject(ctx, Project{ID: "nope", Name: "x"}) }, apperr.NotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.do(); apperr.CodeOf(err) != c.code {
				t.Fatalf("got %v, want %s", err, c.code)
			}
		})
	}
	// A rename to its own name in another case is not a conflict.
	work.Name = "WORK"
	if err := db.UpdateProject(ctx, work); err != nil {
		t.Fatal(err)
	}
	if p, err := db.GetProject(ctx, "work"); err != nil || p.ID != work.ID || p.Name != "WORK" {
		t.Fatalf("by name: %+v, %v", p, err)
	}
	ps, _ := db.ListProjects(ctx)
	if len(ps) != 2 || ps[0].Name != "Home" {
		t.Fatalf("projects %+v", ps)
	}
}

// A project's count of sessions, kept by triggers, follows every way a
// session comes, goes or moves, and a salvage recounts it.
func TestProjectSessionCounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t)
	a := mustProject(t, db, "A", turn.RunSettings{})
	b := mustProject(t, db, "B", turn.RunSettings{})
	counts := func() string {
		t.Helper()
		ps, err := db.ListProjects(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range ps {
			var n int
			db.reader.QueryRow(`SELECT COUNT(*) FROM sessions WHERE project_id = ?`, p.ID).Scan(&n)
			if n != p.Sessions {
				t.Fatalf("%s says %d sessions, has %d", p.Name, p.Sessions, n)
			}
			out = append(out, p.Name+"="+strconv.Itoa(p.Sessions))
		}
		return strings.Join(out, " ")
	}
	ids := mustSessions(t, db, a.ID, "1", "2", "3")
	mustSessions(t, db, "", "loose")
	db.MoveSession(ctx, ids[0], b.ID)
	db.MoveSession(ctx, ids[0], b.ID) // again: no change
	db.ArchiveSession(ctx, ids[1], true)
	if got := counts(); got != "A=2 B=1" {
		t.Fatalf("after a move: %s", got)
	}
	db.DeleteSession(ctx, ids[2])
	db.MoveSession(ctx, ids[0], "")
	if got := counts(); got != "A=1 B=0" {
		t.Fatalf("after a delete and a move out: %s", got)
	}
	var file bytes.Buffer
	if err := export.Write(ctx, db, ids[1], export.JSON, &file, export.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Import(ctx, &file); err != nil { // a copy, into A
		t.Fatal(err)
	}
	if got := counts(); got != "A=2 B=0" {
		t.Fatalf("after an import: %s", got)
	}

	out := filepath.Join(t.TempDir(), "salvaged.db")
	if _, err := db.Salvage(ctx, out); err != nil {
		t.Fatal(err)
	}
	db2, err := Open(ctx, out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	ps, _ := db2.ListProjects(ctx)
	if len(ps) != 2 || ps[0].Sessions != 2 || ps[1].Sessions != 0 {
		t.Fatalf("salvaged projects %+v", ps)
	}
	if s, _ := db2.GetSession(ctx, ids[1]); s.ProjectID != a.ID || s.ArchivedAt == nil {
		t.Fatalf("salvaged session %+v", s)
	}

	if _, err := db.DeleteProject(ctx, a.ID, KeepSessions); err != nil {
		t.Fatal(err)
	}
	if got := counts(); got != "B=0" {
		t.Fatalf("after deleting A: %s", got)
	}
}
