package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Import reads a JSON export (see Export) and stores it as a session. It
// all happens in one transaction: a file damaged anywhere leaves nothing
// behind.
//
// Ids are kept, so a session moved to another computer keeps its identity.
// If the session, or any of its turns or stages, is already here (the file
// was imported before, or came from this database), the file is stored as a
// copy with new ids for the session, turns, stages and events, remapped
// consistently (event turn, session, stage and parent links, and the ids
// inside results and event data), and the title gets " (imported)". Turns
// that were running when exported become interrupted, as
// RecoverInterrupted would leave them. Files of a newer ExportVersion,
// files that are not Agentdeck exports, and files over MaxImportBytes are
// refused with a message that says so.
func (db *DB) Import(ctx context.Context, r io.Reader) (Session, error) {
	return db.importLimit(ctx, r, MaxImportBytes)
}

func (db *DB) importLimit(ctx context.Context, r io.Reader, limit int64) (Session, error) {
	doc, err := decodeExport(ctx, r, limit)
	var s Session
	if err == nil {
		err = db.tx(ctx, "importing the session", func(tx *sql.Tx) error {
			im := &importer{ctx: ctx, tx: tx, doc: &doc}
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

// decodeExport reads the document, checking "format" and "version" as they
// arrive (Export writes them first), so a file from a newer Agentdeck is
// refused for its version rather than for a shape this build does not know.
func decodeExport(ctx context.Context, r io.Reader, limit int64) (exportDoc, error) {
	d := exportDecoder{lr: &importLimitReader{ctx: ctx, r: r, limit: limit}}
	d.dec = json.NewDecoder(d.lr)
	tok, err := d.dec.Token()
	if err != nil {
		return d.doc, importReadError(err, d.lr, false)
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return d.doc, errNotExport("")
	}
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return d.doc, importReadError(err, d.lr, true)
		}
		key, _ := tok.(string)
		err = d.field(key)
		var ae *apperr.Error
		switch {
		case err == nil:
		case errors.As(err, &ae):
			return d.doc, err
		case errors.As(err, new(*kindError)) && d.haveFormat:
			return d.doc, apperr.Wrap(err, apperr.Invalid, "%s", err.Error())
		case !d.haveFormat && !d.lr.over && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) && !errors.Is(err, errImportRead):
			// Some other JSON document that does not fit ours.
			return d.doc, errNotExport("")
		default:
			return d.doc, importReadError(err, d.lr, true)
		}
	}
	if _, err := d.dec.Token(); err != nil { // the closing brace
		return d.doc, importReadError(err, d.lr, true)
	}
	if !d.haveFormat {
		return d.doc, errNotExport("")
	}
	if !d.haveVersion {
		return d.doc, apperr.New(apperr.Invalid, "This file is damaged: it does not say which export version it is.")
	}
	if _, err := d.dec.Token(); err != io.EOF {
		if d.lr.over {
			return d.doc, importReadError(err, d.lr, true)
		}
		return d.doc, apperr.New(apperr.Invalid, "This file has more after the session; it is not a single Agentdeck export.")
	}
	return d.doc, nil
}

// exportDecoder is the state of decodeExport.
type exportDecoder struct {
	dec                     *json.Decoder
	lr                      *importLimitReader
	doc                     exportDoc
	haveFormat, haveVersion bool
}

// field decodes the value of one top-level key. A value of the wrong kind
// is reported with its path in the file (turns[3].seq), so a person can
// find it.
func (d *exportDecoder) field(key string) error {
	switch key {
	case "format":
		if err := d.decode(key, &d.doc.Format); err != nil {
			return err
		}
		if d.doc.Format != exportFormatName {
			return errNotExport(d.doc.Format)
		}
		d.haveFormat = true
		return d.checkVersion()
	case "version":
		if err := d.decode(key, &d.doc.Version); err != nil {
			return err
		}
		d.haveVersion = true
		return d.checkVersion()
	case "exported_at":
		return d.decode(key, &d.doc.ExportedAt)
	case "app_version":
		return d.decode(key, &d.doc.AppVersion)
	case "session":
		return d.decode(key, &d.doc.Session)
	case "turns":
		return decodeList(d, key, &d.doc.Turns)
	case "captures":
		return decodeList(d, key, &d.doc.Captures)
	}
	return d.dec.Decode(new(json.RawMessage))
}

// decode reads the next value into v, naming key in a type error.
func (d *exportDecoder) decode(key string, v any) error {
	var raw json.RawMessage
	if err := d.dec.Decode(&raw); err != nil {
		return err
	}
	return unmarshalAt(key, raw, v)
}

// decodeList reads a list one element at a time, so a type error names the
// element (turns[3].seq) and only one element is in memory twice.
func decodeList[T any](d *exportDecoder, key string, out *[]T) error {
	tok, err := d.dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil // null: no elements
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '[' {
		return wrongKind(key, jsonKindOfToken(tok), "a list")
	}
	for i := 0; d.dec.More(); i++ {
		var raw json.RawMessage
		if err := d.dec.Decode(&raw); err != nil {
			return err
		}
		var v T
		if err := unmarshalAt(fmt.Sprintf("%s[%d]", key, i), raw, &v); err != nil {
			return err
		}
		*out = append(*out, v)
	}
	_, err = d.dec.Token() // ]
	return err
}

// unmarshalAt decodes raw, the value at path, into v; a value of the wrong
// kind anywhere inside becomes an error naming its full path.
func unmarshalAt(path string, raw json.RawMessage, v any) error {
	err := json.Unmarshal(raw, v)
	var typ *json.UnmarshalTypeError
	if !errors.As(err, &typ) {
		return err
	}
	at, got := locateKind(raw, strings.Split(typ.Field, "."), typ.Value)
	if typ.Field == "" {
		at, got = "", jsonKindOf(raw)
	}
	return wrongKind(path+at, got, goKindWord(typ))
}

// locateKind follows field names (with every array index on the way) to
// the first value of JSON kind want, and returns its path below raw.
func locateKind(raw json.RawMessage, fields []string, want string) (string, string) {
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil && len(fields) > 0 && fields[0] != "" {
		for i, el := range arr {
			if at, got := locateKind(el, fields, want); got != "" {
				return fmt.Sprintf("[%d]%s", i, at), got
			}
		}
		return "", ""
	}
	if len(fields) == 0 || fields[0] == "" {
		if k := jsonKindOf(raw); k == want || want == "" {
			return "", k
		}
		return "", ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return "", ""
	}
	el, ok := obj[fields[0]]
	if !ok {
		return "", ""
	}
	at, got := locateKind(el, fields[1:], want)
	if got == "" {
		return "", ""
	}
	return "." + fields[0] + at, got
}

// jsonKindOf is the JSON kind of a value, as encoding/json names it.
func jsonKindOf(raw json.RawMessage) string {
	switch b := bytes.TrimSpace(raw); {
	case len(b) == 0:
		return ""
	case b[0] == '{':
		return "object"
	case b[0] == '[':
		return "array"
	case b[0] == '"':
		return "string"
	case b[0] == 't' || b[0] == 'f':
		return "bool"
	case b[0] == 'n':
		return "null"
	}
	return "number"
}

func jsonKindOfToken(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return "object"
		}
		return "array"
	case string:
		return "string"
	case bool:
		return "bool"
	case float64, json.Number:
		return "number"
	}
	return "null"
}

// kindError is a value of the wrong kind at a path of the file. In a file
// that is not known to be ours yet, it means the file is someone else's.
type kindError struct{ path, got, want string }

func (e *kindError) Error() string {
	words := map[string]string{"object": "an object", "array": "a list", "string": "text", "bool": "true or false", "number": "a number", "null": "null"}
	g := words[e.got]
	if g == "" {
		g = "a value"
	}
	return fmt.Sprintf("This file is damaged: %s holds %s where %s belongs. Nothing was imported.", e.path, g, e.want)
}

func wrongKind(path, got, want string) error { return &kindError{path, got, want} }

// goKindWord says what kind of value the Go field wanted.
func goKindWord(typ *json.UnmarshalTypeError) string {
	if typ.Type == nil {
		return "another kind of value"
	}
	switch typ.Type.Kind() {
	case reflect.String:
		return "text"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		if typ.Type == reflect.TypeOf(time.Time{}) {
			return "a time as text"
		}
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another kind of value"
}

// checkVersion refuses a version this build cannot read, once the file is
// known to be ours: in anyone else's file, "version" means something else.
func (d *exportDecoder) checkVersion() error {
	if d.haveFormat && d.haveVersion {
		return checkExportVersion(d.doc.Version)
	}
	return nil
}

func checkExportVersion(v int) error {
	switch {
	case v > ExportVersion:
		return apperr.New(apperr.Unavailable, "This file was exported by a newer Agentdeck (format %d); update Agentdeck to import it.", v)
	case v < 1:
		return apperr.New(apperr.Invalid, "This file is damaged: its export version %d is not valid.", v)
	}
	return nil
}

func errNotExport(format string) error {
	if format != "" {
		return apperr.New(apperr.Invalid, "This file is not an Agentdeck session export (its format is %q). Agentdeck imports the .json files it exports.", format)
	}
	return apperr.New(apperr.Invalid, "This file is not an Agentdeck session export. Agentdeck imports the .json files it exports; Markdown and JSONL exports cannot be imported.")
}

// importReadError explains why the document could not be read; started
// says whether any JSON had been read.
func importReadError(err error, lr *importLimitReader, started bool) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case lr.over:
		return apperr.Wrap(err, apperr.Invalid, "This file is larger than %s, the most Agentdeck imports.", sizeText(lr.limit))
	case !started && errors.Is(err, io.EOF):
		return apperr.Wrap(err, apperr.Invalid, "This file is empty.")
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return apperr.Wrap(err, apperr.Invalid, "This file ends too early: it was cut short or not completely written. Export the session again.")
	case errors.As(err, &syntax) && !started:
		return apperr.Wrap(err, apperr.Invalid, "This file is not JSON. Agentdeck imports the .json files it exports; Markdown and JSONL exports cannot be imported.")
	case errors.As(err, &syntax):
		return apperr.Wrap(err, apperr.Invalid, "This file is damaged: it stops being valid JSON at byte %d.", syntax.Offset)
	case errors.As(err, &typ):
		return apperr.Wrap(err, apperr.Invalid, "This file is damaged: %q holds the wrong kind of value.", typ.Field)
	}
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return err
	}
	if errors.Is(err, errImportRead) {
		return apperr.Wrap(err, apperr.Unavailable, "Reading the file failed.")
	}
	return apperr.Wrap(err, apperr.Invalid, "This file is damaged and cannot be imported.")
}

func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// errImportRead marks a failure of the reader itself (not of its content).
var errImportRead = errors.New("reading the import")

// importLimitReader stops with an error once more than limit bytes arrive,
// or once ctx is done: decoding a large file takes a while.
type importLimitReader struct {
	ctx   context.Context
	r     io.Reader
	limit int64
	n     int64
	over  bool
}

func (l *importLimitReader) Read(p []byte) (int, error) {
	if l.over {
		return 0, errors.New("the file is too large")
	}
	if err := l.ctx.Err(); err != nil {
		return 0, err
	}
	if room := l.limit + 1 - l.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.n > l.limit {
		l.over = true
		return n - int(l.n-l.limit), errors.New("the file is too large")
	}
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%w: %w", errImportRead, err)
	}
	return n, err
}

// importer writes one decoded document inside a transaction.
type importer struct {
	ctx context.Context
	tx  *sql.Tx
	doc *exportDoc
	sid string // the session's id as stored
	// ids maps old ids to new ones when the file is stored as a copy; nil
	// keeps every id.
	ids map[string]string
	// blob rewrites ids inside JSON values (results, event data) to match.
	blob *strings.Replacer
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
	s := im.session(copyOf)
	im.sid = s.ID
	if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO sessions (id, title, created_at, updated_at, provider, model, workflow, workspace, settings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.Title, fmtTime(s.CreatedAt), fmtTime(s.UpdatedAt), s.Provider, s.Model, s.Workflow, s.Workspace, string(s.Settings)); err != nil {
		return Session{}, err
	}
	if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO search (text, kind, session_id, turn_id) VALUES (?, 'title', ?, '')`, s.Title, s.ID); err != nil {
		return Session{}, err
	}
	events, err := im.tx.PrepareContext(im.ctx, `INSERT INTO events (turn_id, seq, id, stage_id, parent_id, at, type, phase, checkpoint, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return Session{}, err
	}
	defer events.Close()
	for i := range doc.Turns {
		if err := im.ctx.Err(); err != nil {
			return Session{}, err
		}
		if err := im.turn(&doc.Turns[i], events); err != nil {
			return Session{}, turnError(i+1, err)
		}
	}
	if err := im.captures(); err != nil {
		return Session{}, err
	}
	s.Turns = len(doc.Turns)
	return s, nil
}

// alreadyHere reports whether the session, or any turn or stage id of the
// file, is in the database.
func (im *importer) alreadyHere() (bool, error) {
	turns, stages := []string{}, []string{}
	for _, t := range im.doc.Turns {
		turns = append(turns, t.ID)
		for _, s := range t.Stages {
			stages = append(stages, s.ID)
		}
	}
	tj, _ := json.Marshal(turns)
	sj, _ := json.Marshal(stages)
	var n int
	err := im.tx.QueryRowContext(im.ctx, `SELECT
		(SELECT COUNT(*) FROM sessions WHERE id = ?) +
		(SELECT COUNT(*) FROM turns WHERE id IN (SELECT value FROM json_each(?))) +
		(SELECT COUNT(*) FROM stages WHERE id IN (SELECT value FROM json_each(?)))`, im.doc.Session.ID, string(tj), string(sj)).Scan(&n)
	return n > 0, err
}

// remap gives every session, turn, stage and event id of the file a new
// id. One map serves all kinds, so a stage whose id is its turn's (a plain
// chat turn) stays so.
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
		Provider: f.Provider, Model: f.Model, Workflow: f.Workflow, Workspace: f.Workspace, Settings: json.RawMessage(im.raw(f.Settings, `{}`))}
	if s.Title == "" {
		s.Title = "Imported session"
	}
	if copyOf {
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

var turnStates = map[TurnState]bool{StateRunning: true, StateCompleted: true, StateCancelled: true, StateFailed: true, StateInterrupted: true}

func (im *importer) turn(t *exportTurn, events *sql.Stmt) error {
	if err := im.checkTurn(t); err != nil {
		return err
	}
	if t.State == StateRunning {
		interruptImported(t)
	}
	tid := im.id(t.ID)
	var completedAt any
	if t.CompletedAt != nil {
		completedAt = fmtTime(*t.CompletedAt)
	}
	if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO turns (id, session_id, seq, user_message, state, workflow, model, started_at, completed_at, final_text, outcome, termination, result, run)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		tid, im.sid, t.Seq, t.UserMessage, t.State, t.Workflow, t.Model, fmtTime(t.StartedAt), completedAt, t.FinalText, t.Outcome,
		im.raw(t.Termination, `{}`), im.raw(t.Result, `{}`), im.raw(t.Run, `{}`)); err != nil {
		return err
	}
	if err := insertMessages(im.ctx, im.tx, im.sid, tid, 0, t.Messages); err != nil {
		return err
	}
	for _, step := range []func(string, *exportTurn) error{im.stages, im.calls, im.approvals} {
		if err := step(tid, t); err != nil {
			return err
		}
	}
	return im.events(tid, t, events)
}

// interruptImported leaves a turn that was running when exported as
// RecoverInterrupted leaves one whose process died: nothing runs it here.
func interruptImported(t *exportTurn) {
	if t.FinalText == "" {
		t.FinalText = t.partialText()
	}
	res := turn.Result{FinalText: t.FinalText, Outcome: turn.OutcomeFailed, Termination: turn.Termination{Kind: turn.TermInterrupted},
		Error: "Agentdeck stopped while this turn was running. The answer so far is kept.", PlanSteps: t.plan()}
	t.State, t.Outcome = StateInterrupted, turn.OutcomeFailed
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
func (im *importer) checkTurn(t *exportTurn) error {
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

func (im *importer) stages(tid string, t *exportTurn) error {
	for i, s := range t.Stages {
		if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO stages (id, turn_id, idx, name, agent, phase, outcome, termination, diagnostics, response) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			im.id(s.ID), tid, i, s.Name, s.Agent, s.Phase, s.Outcome, im.raw(s.Termination, `{}`), im.raw(s.Diagnostics, `{}`), im.raw(s.Response, `null`)); err != nil {
			return err
		}
	}
	return nil
}

func (im *importer) calls(tid string, t *exportTurn) error {
	for _, c := range t.ModelCalls {
		if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO model_calls (turn_id, stage_id, idx, model, started_at, duration_ms, ttft_ms, input_tokens, output_tokens, cached_tokens, reasoning_tokens, estimated, ok, error)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			tid, im.id(c.StageID), c.Idx, c.Model, fmtTime(c.StartedAt), c.DurationMS, c.TTFTMS, c.InputTokens, c.OutputTokens, c.CachedTokens, c.ReasoningTokens, c.Estimated, c.OK, c.Error); err != nil {
			return err
		}
	}
	for _, c := range t.ToolCalls {
		if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO tool_calls (turn_id, stage_id, call_id, name, arguments, result_size, started_at, duration_ms, ok, error)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			tid, im.id(c.StageID), c.CallID, c.Name, c.Arguments, c.ResultSize, fmtTime(c.StartedAt), c.DurationMS, c.OK, c.Error); err != nil {
			return err
		}
	}
	return nil
}

func (im *importer) approvals(tid string, t *exportTurn) error {
	for _, a := range t.Approvals {
		if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO approvals (session_id, turn_id, call_id, tool, args, guard, answer, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			im.sid, tid, a.CallID, a.Tool, a.Args, a.Guard, a.Answer, fmtTime(a.At)); err != nil {
			return err
		}
	}
	return nil
}

// events stores the turn's log. An event's session and turn are those of
// the row it is stored under, so they need no column of their own.
func (im *importer) events(tid string, t *exportTurn, stmt *sql.Stmt) error {
	for _, e := range t.Events {
		at, _ := e.At.MarshalJSON()
		if _, err := stmt.ExecContext(im.ctx, tid, e.Seq, im.id(e.ID), im.id(e.StageID), im.id(e.ParentID), string(at[1:len(at)-1]),
			string(e.Type), string(e.Phase), e.Checkpoint, im.raw(e.Data, `{}`)); err != nil {
			return err
		}
	}
	return nil
}

// captures stores the file's recorded model calls, each as a recording of
// its own linked to the imported turns' calls. A version 1 file names only
// the turns that used a capture: their calls are numbered in the order the
// file lists the captures, which is the order they were recorded.
func (im *importer) captures() error {
	inFile := map[string]bool{}
	for _, t := range im.doc.Turns {
		inFile[t.ID] = true
	}
	nextIndex := map[string]int{} // version 1: each turn's next call index
	for _, c := range im.doc.Captures {
		if c.Key == "" {
			return apperr.New(apperr.Invalid, "This file is damaged: a recorded model call has no key. Nothing was imported.")
		}
		var id int64
		if err := im.tx.QueryRowContext(im.ctx, `INSERT INTO recordings (key, model, request, chunks, response, recorded_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			c.Key, c.Model, compactJSON(c.Request, `null`), compactJSON(c.Chunks, `[]`), compactJSON(c.Response, `{}`), fmtTime(c.RecordedAt)).Scan(&id); err != nil {
			return err
		}
		calls := c.Calls
		for _, turnID := range c.Turns {
			calls = append(calls, exportCall{Turn: turnID, Index: nextIndex[turnID]})
			nextIndex[turnID]++
		}
		for _, call := range calls {
			if !inFile[call.Turn] {
				continue
			}
			if call.Index < 0 {
				return apperr.New(apperr.Invalid, "This file is damaged: a recorded model call has a negative call index. Nothing was imported.")
			}
			if _, err := im.tx.ExecContext(im.ctx, `INSERT OR IGNORE INTO turn_calls (turn_id, idx, recording_id) VALUES (?, ?, ?)`, im.id(call.Turn), call.Index, id); err != nil {
				return err
			}
		}
	}
	return nil
}
