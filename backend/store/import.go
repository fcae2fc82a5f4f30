package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Import reads a JSON export (export.Decode) and stores it as a session. It
// all happens in one transaction: a file damaged anywhere leaves nothing
// behind.
//
// Ids are kept, so a session moved to another computer keeps its identity.
// If the session, or any of its turns, stages or images, is already here
// (the file was imported before, or came from this database), the file is
// stored as a copy with new ids for the session, turns, stages, images and
// events, remapped consistently (event turn, session, stage and parent
// links, the images messages name, and the ids inside results and event
// data), and the title gets " (imported)". Turns that were running when
// exported become interrupted, as RecoverInterrupted would leave them.
// Images are stored with the turn that owns them, each checked against
// its SHA-256 (importimages.go). The session's documents are stored with
// it under new ids, and the turns' sources left as they were
// (importknowledge.go). Side-by-side groups and their votes are stored
// under new ids, those whose turns the file lacks dropped
// (importgroups.go). A turn re-run from a step keeps its link to its
// source when the source is in the file, under its new id, and otherwise
// its step and edit alone (importrerun.go). Files of a newer export.Version, files
// that are not Agentdeck exports, and files over MaxImportBytes are
// refused with a message that says so.
//
// Every turn it stores is marked copied (Turn.Copied): its model calls
// were counted where they ran, so no sum here counts them again.
func (db *DB) Import(ctx context.Context, r io.Reader) (Session, error) {
	return db.importLimit(ctx, r, MaxImportBytes)
}

// ImportCollected is Import for a session this database's own evaluation
// run ran on another machine (scale/exchange): its turns are this
// database's work, not copies, and their calls count here.
func (db *DB) ImportCollected(ctx context.Context, r io.Reader) (Session, error) {
	return db.importAs(ctx, r, MaxImportBytes, "")
}

// MaxImportBytes is the largest file Import reads.
const MaxImportBytes = 512 << 20

func (db *DB) importLimit(ctx context.Context, r io.Reader, limit int64) (Session, error) {
	return db.importAs(ctx, r, limit, CopiedImport)
}

// importAs imports with each turn marked copied as given.
func (db *DB) importAs(ctx context.Context, r io.Reader, limit int64, copied Copied) (Session, error) {
	doc, err := export.Decode(ctx, r, limit)
	var s Session
	if err == nil {
		err = db.tx(ctx, "importing the session", func(tx *sql.Tx) error {
			im := &importer{ctx: ctx, tx: tx, doc: &doc, copied: copied}
			var err error
			s, err = im.run()
			return err
		})
	}
	if err != nil && ctx.Err() != nil {
		return Session{}, apperr.Wrap(err, apperr.Cancelled, "The import was cancelled; nothing was imported.")
	}
	if err != nil {
		return Session{}, err
	}
	return s, nil
}

// importer writes one decoded document inside a transaction.
type importer struct {
	ctx context.Context
	tx  *sql.Tx
	doc *export.Document
	sid string // the session's id as stored
	// ids maps old ids to new ones when the file is stored as a copy; nil
	// keeps every id.
	ids map[string]string
	// blob rewrites ids inside JSON values (results, event data) to match.
	blob *strings.Replacer
	// last is the stored id of the turn imported last: what the next turn
	// of a file older than version 3 follows.
	last string
	// fork is set when the document is a branch being forked
	// (ForkSession): its title is the fork's, not an import's.
	fork bool
	// copied marks every turn stored (Turn.Copied).
	copied Copied
	// images are the file's images by the turn that owns them, imageIDs
	// the ids of those it holds the bytes of, and goneIDs those it marks
	// gone (importimages.go).
	images            map[string][]*export.Image
	imageIDs, goneIDs map[string]bool
	// groups maps the file's side-by-side groups to their stored ids
	// (importgroups.go).
	groups map[string]string
}

// parentOf is the stored id of the turn t follows. A file older than
// version 3 is one line of turns in order; a newer one names the parent,
// which must be a turn of the file imported before t.
func (im *importer) parentOf(t *export.Turn) (string, error) {
	if im.doc.Version < 3 {
		return im.last, nil
	}
	if t.ParentTurnID == "" {
		return "", nil
	}
	var n int
	err := im.tx.QueryRowContext(im.ctx, `SELECT COUNT(*) FROM turns WHERE id = ? AND session_id = ?`, im.id(t.ParentTurnID), im.sid).Scan(&n)
	if err != nil {
		return "", err
	}
	if n == 0 {
		return "", broken("follows turn %s, which is not before it in the file", t.ParentTurnID)
	}
	return im.id(t.ParentTurnID), nil
}

// activeTurn stores and returns the session's active turn: the file's, or
// for an older file (or one naming a turn it lacks) the newest turn.
func (im *importer) activeTurn() (string, error) {
	active := ""
	if a := im.doc.Session.ActiveTurnID; a != "" && im.doc.Version >= 3 {
		for _, t := range im.doc.Turns {
			if t.ID == a {
				active = im.id(a)
			}
		}
	}
	if active == "" {
		best := -1
		for _, t := range im.doc.Turns {
			if t.Seq > best {
				best, active = t.Seq, im.id(t.ID)
			}
		}
	}
	if active == "" {
		return "", nil
	}
	_, err := im.tx.ExecContext(im.ctx, `UPDATE sessions SET active_turn_id = ? WHERE id = ?`, active, im.sid)
	return active, err
}

func (im *importer) run() (Session, error) {
	doc := im.doc
	if doc.Session.ID == "" {
		return Session{}, apperr.New(apperr.Invalid, "This file is damaged: the session has no id.")
	}
	copyOf, err := im.alreadyHere()
	if err != nil {
		return Session{}, err
	}
	if copyOf {
		im.remap()
	}
	if err := im.groupImages(); err != nil {
		return Session{}, err
	}
	settings, err := im.settings()
	if err != nil {
		return Session{}, err
	}
	s := im.session(copyOf)
	s.Settings = parseSettings(settings)
	im.sid = s.ID
	if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO sessions (id, title, created_at, updated_at, provider, model, workflow, workspace, settings, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.Title, fmtTime(s.CreatedAt), fmtTime(s.UpdatedAt), s.Provider, s.Model, s.Workflow, s.Workspace, settings, s.Kind); err != nil {
		return Session{}, err
	}
	if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO search (text, kind, session_id, turn_id) VALUES (?, 'title', ?, '')`, s.Title, s.ID); err != nil {
		return Session{}, err
	}
	if err := im.place(&s); err != nil {
		return Session{}, err
	}
	if err := im.storeGroups(); err != nil {
		return Session{}, err
	}
	for i := range doc.Turns {
		if err := im.ctx.Err(); err != nil {
			return Session{}, err
		}
		if err := im.turn(&doc.Turns[i]); err != nil {
			return Session{}, turnError(i+1, err)
		}
	}
	if s.ActiveTurnID, err = im.activeTurn(); err != nil {
		return Session{}, err
	}
	if s.OpenGroupID, err = im.finishGroups(); err != nil {
		return Session{}, err
	}
	if err := im.linkReruns(); err != nil {
		return Session{}, err
	}
	if err := im.documents(); err != nil {
		return Session{}, err
	}
	if err := im.captures(); err != nil {
		return Session{}, err
	}
	s.Turns = len(doc.Turns)
	return s, nil
}

// alreadyHere reports whether the session, or any turn, stage or image id
// of the file, is in the database.
func (im *importer) alreadyHere() (bool, error) {
	turns, stages, images := []string{}, []string{}, []string{}
	for _, t := range im.doc.Turns {
		turns = append(turns, t.ID)
		for _, s := range t.Stages {
			stages = append(stages, s.ID)
		}
	}
	for _, i := range im.doc.Images {
		if !i.Gone {
			images = append(images, i.ID)
		}
	}
	tj, _ := json.Marshal(turns)
	sj, _ := json.Marshal(stages)
	ij, _ := json.Marshal(images)
	var n int
	err := im.tx.QueryRowContext(im.ctx, `SELECT
		(SELECT COUNT(*) FROM sessions WHERE id = ?) +
		(SELECT COUNT(*) FROM turns WHERE id IN (SELECT value FROM json_each(?))) +
		(SELECT COUNT(*) FROM stages WHERE id IN (SELECT value FROM json_each(?))) +
		(SELECT COUNT(*) FROM images WHERE id IN (SELECT value FROM json_each(?)))`, im.doc.Session.ID, string(tj), string(sj), string(ij)).Scan(&n)
	return n > 0, err
}

// remap gives every session, turn, stage, image and event id of the file
// a new id. One map serves all kinds, so a stage whose id is its turn's (a
// plain chat turn) stays so.
func (im *importer) remap() {
	im.ids = map[string]string{}
	add := func(old string) {
		if old != "" && im.ids[old] == "" {
			im.ids[old] = turn.NewID()
		}
	}
	add(im.doc.Session.ID)
	for _, t := range im.doc.Turns {
		add(t.ID)
		for _, s := range t.Stages {
			add(s.ID)
		}
	}
	for _, i := range im.doc.Images {
		if i.ID != "" && !i.Gone && im.ids[i.ID] == "" {
			im.ids[i.ID] = "img_" + turn.NewID()
		}
	}
	// Ids inside JSON values appear as whole JSON strings; quoting both
	// sides means text that merely contains an id is left alone.
	var pairs []string
	for old, id := range im.ids {
		pairs = append(pairs, `"`+old+`"`, `"`+id+`"`)
	}
	im.blob = strings.NewReplacer(pairs...)
	for _, t := range im.doc.Turns {
		for _, e := range t.Events {
			add(e.ID)
		}
	}
}

// id maps an id of the file to the id it is stored under.
func (im *importer) id(old string) string {
	if im.ids == nil || old == "" {
		return old
	}
	if id, ok := im.ids[old]; ok {
		return id
	}
	id := turn.NewID()
	im.ids[old] = id
	return id
}

// raw compacts a JSON value of the file and rewrites the ids in it.
func (im *importer) raw(v json.RawMessage, def string) string {
	c := compactJSON(v, def)
	if im.blob != nil {
		return im.blob.Replace(c)
	}
	return c
}

// priceColumn is a call's price as stored: "" when it had none.
func priceColumn(v json.RawMessage) string {
	if c := compactJSON(v, ""); c != "null" {
		return c
	}
	return ""
}

// compactJSON undoes the export's indenting, so stored values are as
// compact as the app writes them; def stands in for a missing value.
func compactJSON(v json.RawMessage, def string) string {
	var b bytes.Buffer
	if len(v) == 0 || json.Compact(&b, v) != nil { // the decoder checked it
		return def
	}
	return b.String()
}

func (im *importer) session(copyOf bool) Session {
	f := im.doc.Session
	s := Session{ID: im.id(f.ID), Title: strings.TrimSpace(f.Title), CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt,
		Provider: f.Provider, Model: f.Model, Workflow: f.Workflow, Workspace: f.Workspace}
	if s.Title == "" {
		s.Title = "Imported session"
	}
	if copyOf && !im.fork {
		s.Title += " (imported)"
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = time.Now().UTC()
	}
	if s.UpdatedAt.IsZero() {
		s.UpdatedAt = s.CreatedAt
	}
	if s.Workflow == "" {
		s.Workflow = "chat"
	}
	// An evaluation case's session stays one (kept apart from chats); a
	// fork of one, or anything else, is a chat.
	s.Kind = SessionChat
	if f.Kind == SessionEval && !im.fork {
		s.Kind = SessionEval
	}
	return s
}

// turnError says which turn of the file is at fault. Constraint failures
// come from the file (a repeated id or seq), not from the database.
func turnError(n int, err error) error {
	var ae *apperr.Error
	if errors.As(err, &ae) {
		if ae.Code == apperr.Invalid {
			return apperr.Wrap(ae.Err, apperr.Invalid, "This file cannot be imported: turn %d %s. Nothing was imported.", n, ae.Message)
		}
		return err
	}
	if strings.Contains(err.Error(), "constraint failed") {
		return apperr.Wrap(err, apperr.Invalid, "This file cannot be imported: turn %d repeats an id or number used elsewhere in the file. Nothing was imported.", n)
	}
	return err
}

// broken is a problem in one turn of the file; turnError adds which.
func broken(format string, args ...any) error {
	return apperr.New(apperr.Invalid, format, args...)
}

// turnStates are the states a turn of a file may be in: the store's.
var turnStates = map[export.TurnState]bool{}

func init() {
	for _, s := range []TurnState{StateRunning, StateCompleted, StateCancelled, StateFailed, StateInterrupted} {
		turnStates[export.TurnState(s)] = true
	}
}

func (im *importer) turn(t *export.Turn) error {
	if err := im.checkTurn(t); err != nil {
		return err
	}
	if t.State == export.StateRunning {
		interruptImported(t)
	}
	tid := im.id(t.ID)
	parent, err := im.parentOf(t)
	if err != nil {
		return err
	}
	im.last = tid
	var completedAt any
	if t.CompletedAt != nil {
		completedAt = fmtTime(*t.CompletedAt)
	}
	group, slot, target := im.columnOf(t)
	// The re-run's link to its source is stored once every turn is in
	// (linkReruns); its step and edit now.
	if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO turns (id, session_id, seq, user_message, state, workflow, model, started_at, completed_at, final_text, outcome, termination, result, run, parent_turn_id, continues, copied,
			group_id, group_slot, target, from_step, from_edit)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''), ?, ?, NULLIF(?, ''), ?, ?, ?, ?)`,
		tid, im.sid, t.Seq, t.UserMessage, t.State, t.Workflow, t.Model, fmtTime(t.StartedAt), completedAt, t.FinalText, t.Outcome,
		im.raw(t.Termination, `{}`), im.raw(t.Result, `{}`), im.raw(t.Run, `{}`), parent, t.Continues && parent != "", im.copied,
		group, slot, target, t.FromStep, t.FromEdit); err != nil {
		return err
	}
	// The events go in before the messages: the search entries written
	// with the messages index the turn's artifacts and code runs from them.
	if err := im.events(tid, t); err != nil {
		return err
	}
	if err := insertMessages(im.ctx, im.tx, im.sid, tid, 0, im.withImageRefs(t.Messages), true); err != nil {
		return err
	}
	for _, step := range []func(string, *export.Turn) error{im.storeImages, im.stages, im.calls, im.approvals, im.reviews} {
		if err := step(tid, t); err != nil {
			return err
		}
	}
	return nil
}

// interruptImported leaves a turn that was running when exported as
// RecoverInterrupted leaves one whose process died: nothing runs it here.
func interruptImported(t *export.Turn) {
	if t.FinalText == "" {
		t.FinalText = t.PartialText()
	}
	res := turn.Result{FinalText: t.FinalText, Outcome: turn.OutcomeFailed, Termination: turn.Termination{Kind: turn.TermInterrupted},
		Error: "Agentdeck stopped while this turn was running. The answer so far is kept.", PlanSteps: t.Plan()}
	t.State, t.Outcome = export.StateInterrupted, turn.OutcomeFailed
	t.Termination, _ = json.Marshal(res.Termination)
	t.Result, _ = json.Marshal(turn.TurnCompletedData{Result: res})
	if t.CompletedAt == nil {
		at := t.StartedAt
		if n := len(t.Events); n > 0 {
			at = t.Events[n-1].At.Time
		}
		t.CompletedAt = &at
	}
	if len(t.Messages) == 0 {
		t.Messages = []llm.Message{{Role: llm.RoleUser, Content: t.UserMessage}}
		if t.FinalText != "" {
			t.Messages = append(t.Messages, llm.Message{Role: llm.RoleAssistant, Content: t.FinalText})
		}
	}
}

// checkTurn catches what would store a turn the app cannot show: the
// database's constraints catch the rest.
func (im *importer) checkTurn(t *export.Turn) error {
	if t.ID == "" {
		return broken("has no id")
	}
	if t.Seq < 1 {
		return broken("has no valid number")
	}
	if !turnStates[t.State] {
		return broken("has an unknown state %q", t.State)
	}
	for i, m := range t.Messages {
		switch m.Role {
		case llm.RoleSystem, llm.RoleUser, llm.RoleAssistant, llm.RoleTool:
		default:
			return broken("has a message (%d) with an unknown role %q", i+1, m.Role)
		}
	}
	for i, s := range t.Stages {
		if s.ID == "" {
			return broken("has a stage (%d) with no id", i+1)
		}
	}
	var last int64
	for i, e := range t.Events {
		switch {
		case e.Seq <= last:
			return broken("has a broken event (%d): its number %d is out of order", i+1, e.Seq)
		case e.Type == "":
			return broken("has a broken event (%d): it has no type", i+1)
		case e.ID == "":
			return broken("has a broken event (%d): it has no id", i+1)
		case len(e.Data) == 0:
			return broken("has a broken event (%d): it has no data", i+1)
		case e.TurnID != "" && e.TurnID != t.ID, e.SessionID != "" && e.SessionID != im.doc.Session.ID:
			return broken("has a broken event (%d): it belongs to another turn", i+1)
		}
		last = e.Seq
	}
	return nil
}
