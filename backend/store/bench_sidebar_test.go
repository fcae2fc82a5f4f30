package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkSidebar10k: opening the sidebar with 10,000 sessions in 200
// projects against today's flat list of 10,000 sessions, in the same run
// (docs/BENCHMARKS.md figure 8a; target ≤ 1.2×). "Opens" is what the UI
// calls to draw the sidebar: grouped, ListProjects, the first page of "No
// project" and the pinned sessions; flat, the first page of ListSessions
// (100, as the list read before projects) on a database of 10,000
// sessions in no project, none pinned, tagged or archived. Each database is made once (rows written
// directly, 3 turns a session); the two are timed alternately, so the
// ratio of their medians compares like with like on a shared machine.
//
// It runs once (make bench's ONCE list) and repeats inside:
// sidebarRounds of each.
func BenchmarkSidebar10k(b *testing.B) {
	ctx := context.Background()
	grouped := sidebarDB(b, 200)
	flat := sidebarDB(b, 0)
	// What the sidebar reads as it opens (stores/sessions.svelte.ts): the
	// projects (folded, so none of their sessions), the first page of "No
	// project" and the pinned sessions (a page of one carries them all);
	// today's flat list read its first page of 100.
	openGrouped := func() error {
		ps, err := grouped.ListProjects(ctx)
		if err != nil || len(ps) != 200 {
			return fmt.Errorf("%d projects, %v", len(ps), err)
		}
		none, err := grouped.ListSessions(ctx, Page{Project: NoProject, Limit: 100})
		if err != nil || len(none.Sessions) != 0 {
			return fmt.Errorf("%d sessions in no project, %v", len(none.Sessions), err)
		}
		page, err := grouped.ListSessions(ctx, Page{Limit: 1})
		if err != nil || len(page.Pinned) != sidebarPinned {
			return fmt.Errorf("%d pinned, %v", len(page.Pinned), err)
		}
		return nil
	}
	openFlat := func() error {
		page, err := flat.ListSessions(ctx, Page{Limit: 100})
		if err != nil || len(page.Sessions) != 100 {
			return fmt.Errorf("%d sessions, %v", len(page.Sessions), err)
		}
		return nil
	}
	// Warm both: the first read of each file pays for the page cache.
	for range 5 {
		if err := openGrouped(); err != nil {
			b.Fatal(err)
		}
		if err := openFlat(); err != nil {
			b.Fatal(err)
		}
	}
	var groupedTimes, flatTimes []time.Duration
	b.ResetTimer()
	for range b.N {
		for i := range sidebarRounds {
			// Alternate which goes first.
			ops := []struct {
				open  func() error
				times *[]time.Duration
			}{{openGrouped, &groupedTimes}, {openFlat, &flatTimes}}
			if i%2 == 1 {
				slices.Reverse(ops)
			}
			for _, op := range ops {
				start := time.Now()
				if err := op.open(); err != nil {
					b.Fatal(err)
				}
				*op.times = append(*op.times, time.Since(start))
			}
		}
	}
	b.StopTimer()
	g, f := medianDuration(groupedTimes), medianDuration(flatTimes)
	b.ReportMetric(float64(g.Nanoseconds())/1e3, "grouped-µs")
	b.ReportMetric(float64(f.Nanoseconds())/1e3, "flat-µs")
	b.ReportMetric(g.Seconds()/f.Seconds(), "grouped/flat")
}

const (
	sidebarSessions = 10_000
	sidebarRounds   = 200
	// sidebarPinned sessions are pinned in the grouped database.
	sidebarPinned = 5
)

// sidebarDB makes a database of sidebarSessions sessions, each with three
// turns, spread over projects (none: the flat list of today). With
// projects, half of which have settings of their own (a model,
// instructions, a temperature), one session in 40 is archived, one in 10
// tagged, and sidebarPinned are pinned.
func sidebarDB(b *testing.B, projects int) *DB {
	b.Helper()
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "sidebar.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err = db.tx(ctx, "generating the sidebar", func(tx *sql.Tx) error {
		for p := range projects {
			settings := `{}`
			if p%2 == 0 {
				settings = fmt.Sprintf(`{"model":"m%d","instructions":"You help with project %d: answer briefly, cite the file you used.","temperature":0.4}`, p%5, p)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO projects (id, name, created_at, updated_at, settings) VALUES (?, ?, ?, ?, ?)`,
				fmt.Sprintf("p%03d", p), fmt.Sprintf("Project %d", p), fmtTime(base), fmtTime(base), settings); err != nil {
				return err
			}
		}
		session, err := tx.PrepareContext(ctx, `INSERT INTO sessions (id, title, created_at, updated_at, provider, model, workflow, workspace, settings, kind, project_id, pinned_at, archived_at)
			VALUES (?, ?, ?, ?, 'local', 'm', 'chat', '', '{}', 'chat', ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer session.Close()
		trn, err := tx.PrepareContext(ctx, `INSERT INTO turns (id, session_id, seq, user_message, state, started_at) VALUES (?, ?, ?, 'hello', 'completed', ?)`)
		if err != nil {
			return err
		}
		defer trn.Close()
		for i := range sidebarSessions {
			id := fmt.Sprintf("s%05d", i)
			at := fmtTime(base.Add(time.Duration(i) * time.Minute))
			var project, pinned, archived any
			if projects > 0 {
				project = fmt.Sprintf("p%03d", i%projects)
				if i%40 == 7 {
					archived = at
				}
				if i%(sidebarSessions/sidebarPinned) == 3 {
					pinned = at
				}
			}
			if _, err := session.ExecContext(ctx, id, fmt.Sprintf("Session %d", i), at, at, project, pinned, archived); err != nil {
				return err
			}
			for seq := 1; seq <= 3; seq++ {
				if _, err := trn.ExecContext(ctx, fmt.Sprintf("%s-t%d", id, seq), id, seq, at); err != nil {
					return err
				}
			}
			if projects > 0 && i%10 == 0 {
				if _, err := tx.ExecContext(ctx, `INSERT INTO session_tags (session_id, tag) VALUES (?, ?)`, id, fmt.Sprintf("tag%d", i%17)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return db
}

func medianDuration(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
