// Package exchange is the folder a run's two sides share: the side that
// starts a run puts the run there for workers to read, and each worker
// puts there every cell it ends, with the sessions its turns are in and
// their recordings, for the starting side to collect into its database.
//
// Rules:
//   - Only the folder carries transcripts and recordings; a workflow
//     carries ids and scores (see evalflow).
//   - A cell appears whole or not at all: it is written in a hidden
//     folder and renamed into place, so a worker killed halfway leaves
//     nothing a collector reads.
//   - A cell may be put more than once (an activity can run twice, on the
//     same worker or on two): collecting keeps one result per case ×
//     model × repeat, the one the workflow chose when it names one.
//   - Collecting is idempotent: a session already in the database is not
//     imported again, and a result replaces its cell's other results.
//
// Layout, under the folder given:
//
//	runs/<run>/run.json                  the run, as stored where it started
//	runs/<run>/cells/<result>/cell.json  a cell's result and worker
//	runs/<run>/cells/<result>/<session>.json
//	                                     a session the cell's turns are in
//	                                     (an export, with recordings)
package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/atomicfile"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/store"
)

// Dir is a shared folder.
type Dir struct {
	root string
}

// New returns the shared folder at root, which must exist.
func New(root string) (*Dir, error) {
	fi, err := os.Stat(root)
	if err != nil || !fi.IsDir() {
		return nil, apperr.New(apperr.Invalid, "The shared folder %s does not exist; create it, and give every worker the same folder (--share).", root)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	return &Dir{root: abs}, nil
}

// Cell is a cell's result as a worker ended it.
type Cell struct {
	// Worker names the worker that ran it.
	Worker string           `json:"worker"`
	Result store.EvalResult `json:"result"`
	// Sessions are the ids of the sessions whose exports sit beside it:
	// the case's, and any judge's.
	Sessions []string `json:"sessions"`
}

// safeID is what a run, result or session id may be: our ids are UUIDs;
// nothing that could step out of the folder.
var safeID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`)

func checkID(what, id string) error {
	if !safeID.MatchString(id) {
		return apperr.New(apperr.Invalid, "%q is not a %s id.", id, what)
	}
	return nil
}

func (d *Dir) runDir(runID string) string { return filepath.Join(d.root, "runs", runID) }

// PutRun puts the run where workers read it.
func (d *Dir) PutRun(run store.EvalRun) error {
	if err := checkID("run", run.ID); err != nil {
		return err
	}
	b, err := json.Marshal(run)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(d.runDir(run.ID), "cells"), 0o755); err != nil {
		return unavailable(err, "making the run's folder")
	}
	if err := atomicfile.Write(filepath.Join(d.runDir(run.ID), "run.json"), b, 0o644); err != nil {
		return unavailable(err, "writing the run")
	}
	return nil
}

// Run reads a run PutRun put.
func (d *Dir) Run(runID string) (store.EvalRun, error) {
	if err := checkID("run", runID); err != nil {
		return store.EvalRun{}, err
	}
	b, err := os.ReadFile(filepath.Join(d.runDir(runID), "run.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return store.EvalRun{}, apperr.New(apperr.NotFound, "Run %s is not in the shared folder %s: is this worker given the same --share as the side that started it?", runID, d.root)
	}
	if err != nil {
		return store.EvalRun{}, unavailable(err, "reading the run")
	}
	var run store.EvalRun
	if err := json.Unmarshal(b, &run); err != nil {
		return store.EvalRun{}, apperr.Wrap(err, apperr.Invalid, "The run file of %s in the shared folder is damaged.", runID)
	}
	return run, nil
}

// Source is what putting a cell reads of a worker's database.
type Source interface {
	export.Source
	EvalResults(ctx context.Context, runID string) ([]store.EvalResult, error)
}

// PutCell puts the cell whose result is resultID, with its sessions and
// their recordings, read from db. A cell already put is left as it is.
func (d *Dir) PutCell(ctx context.Context, db Source, worker, runID, resultID string) error {
	if err := errors.Join(checkID("run", runID), checkID("result", resultID)); err != nil {
		return err
	}
	cells := filepath.Join(d.runDir(runID), "cells")
	final := filepath.Join(cells, resultID)
	if _, err := os.Stat(final); err == nil {
		return nil
	}
	res, err := resultOf(ctx, db, runID, resultID)
	if err != nil {
		return err
	}
	cell := Cell{Worker: worker, Result: res, Sessions: sessionsOf(res)}
	tmp, err := os.MkdirTemp(cells, ".put-")
	if err != nil {
		return unavailable(err, "making a cell's folder")
	}
	defer os.RemoveAll(tmp) // gone once renamed; left only on failure
	for _, sid := range cell.Sessions {
		if err := writeSession(ctx, db, sid, filepath.Join(tmp, sid+".json")); err != nil {
			return err
		}
	}
	b, err := json.Marshal(cell)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(tmp, "cell.json"), b, 0o644); err != nil {
		return unavailable(err, "writing a cell")
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, statErr := os.Stat(final); statErr == nil {
			return nil // put at the same time by another attempt
		}
		return unavailable(err, "putting a cell in place")
	}
	return nil
}

func resultOf(ctx context.Context, db Source, runID, resultID string) (store.EvalResult, error) {
	results, err := db.EvalResults(ctx, runID)
	if err != nil {
		return store.EvalResult{}, err
	}
	for _, r := range results {
		if r.ID == resultID {
			return r, nil
		}
	}
	return store.EvalResult{}, apperr.New(apperr.NotFound, "Run %s has no result %s.", runID, resultID)
}

// sessionsOf is the sessions a result's turns are in: its case's, and
// each judge's that ran as a turn.
func sessionsOf(r store.EvalResult) []string {
	seen := map[string]bool{}
	var ids []string
	add := func(id string) {
		if id != "" && !seen[id] && safeID.MatchString(id) {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	add(r.SessionID)
	var outcomes []eval.AssertOutcome
	if json.Unmarshal(r.Outcomes, &outcomes) == nil {
		for _, o := range outcomes {
			add(o.SessionID)
		}
	}
	return ids
}

func writeSession(ctx context.Context, db export.Source, sessionID, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return unavailable(err, "writing a session")
	}
	err = export.Write(ctx, db, sessionID, export.JSON, f, export.Options{Captures: true})
	if cerr := f.Close(); err == nil && cerr != nil {
		err = unavailable(cerr, "writing a session")
	}
	return err
}

// Target is what collecting writes to: the starting side's database.
type Target interface {
	GetSession(ctx context.Context, id string) (store.Session, error)
	ImportCollected(ctx context.Context, r io.Reader) (store.Session, error)
	PutEvalResult(ctx context.Context, r store.EvalResult) error
}

// Key names a cell of a run.
type Key struct {
	CaseID string
	Model  string
	Repeat int
}

// Collected says what collecting found.
type Collected struct {
	// Results is how many results were stored, one per cell found.
	Results int
	// Sessions is how many sessions were imported (ones already here are
	// not counted).
	Sessions int
	// Duplicates is how many cells were put more than once and had all but
	// one result left out.
	Duplicates int
}

// Collect stores in db every cell of the run put in the folder: the
// sessions first (keeping their ids), then one result per case × model ×
// repeat. chosen names, by cell, the result the workflow chose (the one
// whose activity completed); a cell it does not name keeps the result
// that ended last. A damaged cell is an error naming it, and what was
// collected before it stays collected.
func (d *Dir) Collect(ctx context.Context, db Target, runID string, chosen map[Key]string) (Collected, error) {
	var c Collected
	if err := checkID("run", runID); err != nil {
		return c, err
	}
	cells, err := d.cells(runID)
	if err != nil {
		return c, err
	}
	best := map[Key]Cell{}
	for _, cell := range cells {
		k := Key{cell.Result.CaseID, cell.Result.Model, cell.Result.Repeat}
		prev, seen := best[k]
		if seen {
			c.Duplicates++
		}
		if !seen || prefer(cell, prev, chosen[k]) {
			best[k] = cell
		}
	}
	keys := make([]Key, 0, len(best))
	for k := range best {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.CaseID != b.CaseID {
			return a.CaseID < b.CaseID
		}
		if a.Model != b.Model {
			return a.Model < b.Model
		}
		return a.Repeat < b.Repeat
	})
	for _, k := range keys {
		cell := best[k]
		n, err := d.importSessions(ctx, db, runID, cell)
		c.Sessions += n
		if err != nil {
			return c, err
		}
		if err := db.PutEvalResult(ctx, cell.Result); err != nil {
			return c, fmt.Errorf("storing the result of case %s on %s (repeat %d): %w", k.CaseID, k.Model, k.Repeat, err)
		}
		c.Results++
	}
	return c, nil
}

// prefer says whether cell should replace prev as its cell's result: the
// workflow's choice wins, else the one that ended last.
func prefer(cell, prev Cell, chosen string) bool {
	switch chosen {
	case cell.Result.ID:
		return true
	case prev.Result.ID:
		return false
	}
	return endOf(cell).After(endOf(prev))
}

func endOf(c Cell) time.Time {
	if c.Result.EndedAt != nil {
		return *c.Result.EndedAt
	}
	return c.Result.StartedAt
}

// CellsPut counts the cells put for the run so far (a cell put by two
// attempts counts twice): how far a run is, read from the folder.
func (d *Dir) CellsPut(runID string) (int, error) {
	if err := checkID("run", runID); err != nil {
		return 0, err
	}
	entries, err := os.ReadDir(filepath.Join(d.runDir(runID), "cells"))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, unavailable(err, "reading the run's cells")
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() && safeID.MatchString(e.Name()) {
			n++
		}
	}
	return n, nil
}

// cells reads every cell put for the run, in name order.
func (d *Dir) cells(runID string) ([]Cell, error) {
	dir := filepath.Join(d.runDir(runID), "cells")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable(err, "reading the run's cells")
	}
	var cells []Cell
	for _, e := range entries {
		if !e.IsDir() || !safeID.MatchString(e.Name()) {
			continue // a cell still being put, or not ours
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "cell.json"))
		if err != nil {
			return nil, unavailable(err, "reading cell "+e.Name())
		}
		var cell Cell
		if err := json.Unmarshal(b, &cell); err != nil || cell.Result.RunID != runID || cell.Result.ID != e.Name() {
			return nil, apperr.New(apperr.Invalid, "Cell %s of run %s in the shared folder is damaged; remove its folder and collect again.", e.Name(), runID)
		}
		cells = append(cells, cell)
	}
	return cells, nil
}

// importSessions imports the cell's sessions that are not in db yet.
func (d *Dir) importSessions(ctx context.Context, db Target, runID string, cell Cell) (int, error) {
	n := 0
	for _, sid := range cell.Sessions {
		if !safeID.MatchString(sid) {
			return n, apperr.New(apperr.Invalid, "Cell %s names a session %q that is not an id.", cell.Result.ID, sid)
		}
		if _, err := db.GetSession(ctx, sid); err == nil {
			continue
		} else if apperr.CodeOf(err) != apperr.NotFound {
			return n, err
		}
		f, err := os.Open(filepath.Join(d.runDir(runID), "cells", cell.Result.ID, sid+".json"))
		if err != nil {
			return n, unavailable(err, "reading a session of cell "+cell.Result.ID)
		}
		s, err := db.ImportCollected(ctx, f)
		f.Close()
		if err != nil {
			return n, fmt.Errorf("importing session %s of cell %s: %w", sid, cell.Result.ID, err)
		}
		if s.ID != sid {
			return n, apperr.New(apperr.Conflict, "Session %s of cell %s was imported as a copy (%s): one of its turns is here under another session.", sid, cell.Result.ID, s.ID)
		}
		n++
	}
	return n, nil
}

func unavailable(err error, doing string) error {
	return apperr.Wrap(err, apperr.Unavailable, "The shared folder failed while %s: %v. Check that it is mounted and has space.", doing, err)
}

// RunFolder is where a run's files are.
func (d *Dir) RunFolder(runID string) string { return d.runDir(runID) }
