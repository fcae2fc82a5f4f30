package export

import (
	"io"
	"iter"
	"slices"
	"time"

	"github.com/agentdeck/agentdeck/backend/buildinfo"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Encode writes a whole document as the JSON file holds it: what Write
// writes as it reads a Source, from a document in memory (a test's, or
// one decoded).
func Encode(w io.Writer, doc *Document) error {
	j := newJSONWriter(w)
	j.start(doc.Format, doc.Version, doc.ExportedAt, doc.AppVersion, &doc.Session, doc.Groups)
	for i := range doc.Turns {
		t := &doc.Turns[i]
		_ = j.Turn(t, slices.Values(t.Events))
	}
	for i := range doc.Images {
		_ = j.Image(&doc.Images[i])
	}
	for i := range doc.Documents {
		_ = j.Document(&doc.Documents[i])
	}
	for i := range doc.Captures {
		_ = j.Capture(&doc.Captures[i])
	}
	return j.end()
}

// jsonWriter writes the JSON document as it is handed its parts, in the
// document's order; it is the Sink of a JSON export (jsonSink). The top
// levels are indented for people who open the file, one element of a
// turn's lists (a message, an event, a stage) to a line; raw JSON values
// (event data, results, diagnostics) are written as stored, so the cost of
// an export is reading the session, not re-encoding it.
type jsonWriter struct {
	e   *encoder
	doc object
	// open is the top-level list being written (turns, images,
	// captures), named by its key.
	open     list
	openName string
}

func newJSONWriter(w io.Writer) *jsonWriter { return &jsonWriter{e: newEncoder(w)} }

// Field names below are Document's JSON names; TestEncodeMatchesEncodingJSON
// checks every field of every type against encoding/json.

func (j *jsonWriter) start(format string, version int, exportedAt time.Time, appVersion string, s *Session, groups []Group) {
	j.doc = j.e.object("  ")
	j.doc.str("format", format)
	j.doc.int("version", int64(version))
	j.doc.time("exported_at", exportedAt)
	j.doc.strOmit("app_version", appVersion)
	j.doc.key("session")
	o := j.e.object("    ")
	o.str("id", s.ID)
	o.str("title", s.Title)
	o.time("created_at", s.CreatedAt)
	o.time("updated_at", s.UpdatedAt)
	o.str("provider", s.Provider)
	o.str("model", s.Model)
	o.str("workflow", s.Workflow)
	o.str("workspace", s.Workspace)
	o.raw("settings", s.Settings)
	o.strOmit("active_turn_id", s.ActiveTurnID)
	o.strOmit("kind", s.Kind)
	if s.Project != nil {
		o.key("project")
		j.e.value(s.Project)
	}
	if len(s.Tags) > 0 {
		o.key("tags")
		j.e.value(s.Tags)
	}
	if s.PinnedAt != nil {
		o.time("pinned_at", *s.PinnedAt)
	}
	if s.ArchivedAt != nil {
		o.time("archived_at", *s.ArchivedAt)
	}
	o.strOmit("open_group_id", s.OpenGroupID)
	o.end()
	if len(groups) > 0 {
		j.groups(groups)
	}
	j.list("turns")
}

// groups writes the side-by-side groups, one to a line.
func (j *jsonWriter) groups(groups []Group) {
	j.list("groups")
	for i := range groups {
		g := &groups[i]
		j.open.next()
		o := j.e.object("")
		o.str("id", g.ID)
		o.strOmit("follows_group_id", g.FollowsGroupID)
		o.bool("blind", g.Blind)
		o.raw("targets", g.Targets)
		o.time("created_at", g.CreatedAt)
		if v := g.Vote; v != nil {
			o.key("vote")
			vo := j.e.object("")
			vo.str("id", v.ID)
			vo.str("outcome", v.Outcome)
			vo.strOmit("winner_turn_id", v.WinnerTurnID)
			vo.str("note", v.Note)
			vo.bool("blind", v.Blind)
			vo.time("created_at", v.CreatedAt)
			vo.end()
		}
		o.end()
	}
}

// list ends the top-level list being written, if it is not name, and
// starts name.
func (j *jsonWriter) list(name string) {
	if j.openName == name {
		return
	}
	if j.openName != "" {
		j.open.end()
	}
	j.open, j.openName = j.doc.list(name), name
}

// Turn writes a turn, its events as events hands them.
func (j *jsonWriter) Turn(t *Turn, events iter.Seq[turn.Event]) error {
	j.open.next()
	o := j.e.object(j.open.indent + "  ")
	o.str("id", t.ID)
	o.int("seq", int64(t.Seq))
	o.str("user_message", t.UserMessage)
	o.str("state", string(t.State))
	o.str("workflow", t.Workflow)
	o.str("model", t.Model)
	o.time("started_at", t.StartedAt)
	if t.CompletedAt != nil {
		o.time("completed_at", *t.CompletedAt)
	} else {
		o.null("completed_at")
	}
	o.str("final_text", t.FinalText)
	o.str("outcome", string(t.Outcome))
	o.raw("termination", t.Termination)
	o.raw("result", t.Result)
	if len(t.Run) > 0 {
		o.raw("run", t.Run)
	}
	o.strOmit("parent_turn_id", t.ParentTurnID)
	if t.Continues {
		o.bool("continues", true)
	}
	o.strOmit("group_id", t.GroupID)
	if t.GroupSlot != 0 {
		o.int("group_slot", int64(t.GroupSlot))
	}
	o.strOmit("target", t.Target)
	o.strOmit("from_turn_id", t.FromTurnID)
	o.strOmit("from_step", t.FromStep)
	o.strOmit("from_edit", t.FromEdit)
	l := o.list("messages")
	for i := range t.Messages {
		l.next()
		j.e.value(&t.Messages[i])
	}
	l.end()
	if err := j.events(&o, events); err != nil {
		return err
	}
	l = o.list("stages")
	for i := range t.Stages {
		l.next()
		writeStage(j.e, &t.Stages[i])
	}
	l.end()
	l = o.list("model_calls")
	for i := range t.ModelCalls {
		l.next()
		writeModelCall(j.e, &t.ModelCalls[i])
	}
	l.end()
	l = o.list("tool_calls")
	for i := range t.ToolCalls {
		l.next()
		writeToolCall(j.e, &t.ToolCalls[i])
	}
	l.end()
	if len(t.Approvals) > 0 {
		l = o.list("approvals")
		for i := range t.Approvals {
			l.next()
			writeApproval(j.e, &t.Approvals[i])
		}
		l.end()
	}
	if len(t.Reviews) > 0 {
		l = o.list("reviews")
		for i := range t.Reviews {
			l.next()
			writeReview(j.e, &t.Reviews[i])
		}
		l.end()
	}
	o.end()
	return j.e.flushed()
}

// events writes a turn's events, one to a line, handing the buffer on as
// it fills: a turn's events are never all in memory here.
func (j *jsonWriter) events(t *object, events iter.Seq[turn.Event]) error {
	l := t.list("events")
	for ev := range events {
		l.next()
		o := j.e.object("")
		o.str("id", ev.ID)
		o.str("session_id", ev.SessionID)
		o.str("turn_id", ev.TurnID)
		o.str("stage_id", ev.StageID)
		o.int("seq", ev.Seq)
		o.str("parent_id", ev.ParentID)
		o.key("at")
		at, _ := ev.At.MarshalJSON()
		j.e.b = append(j.e.b, at...)
		o.str("type", string(ev.Type))
		o.str("phase", string(ev.Phase))
		o.bool("checkpoint", ev.Checkpoint)
		o.raw("data", ev.Data)
		o.end()
		if err := j.e.flushed(); err != nil {
			return err
		}
	}
	l.end()
	return nil
}

func writeStage(e *encoder, s *Stage) {
	o := e.object("")
	o.str("id", s.ID)
	o.str("name", s.Name)
	o.str("agent", s.Agent)
	o.str("phase", s.Phase)
	o.str("outcome", string(s.Outcome))
	o.raw("termination", s.Termination)
	o.raw("diagnostics", s.Diagnostics)
	o.raw("response", s.Response)
	o.end()
}

func writeModelCall(e *encoder, c *ModelCall) {
	o := e.object("")
	o.str("stage_id", c.StageID)
	o.int("idx", int64(c.Idx))
	o.str("model", c.Model)
	o.time("started_at", c.StartedAt)
	o.int("duration_ms", c.DurationMS)
	o.int("ttft_ms", c.TTFTMS)
	o.int("input_tokens", int64(c.InputTokens))
	o.int("output_tokens", int64(c.OutputTokens))
	o.int("cached_tokens", int64(c.CachedTokens))
	o.int("reasoning_tokens", int64(c.ReasoningTokens))
	o.bool("estimated", c.Estimated)
	o.bool("ok", c.OK)
	o.str("error", c.Error)
	o.strOmit("provider", c.Provider)
	o.strOmit("capture", c.Capture)
	if len(c.Price) > 0 {
		o.raw("price", c.Price)
	}
	if c.CostUSD != nil {
		o.float("cost_usd", *c.CostUSD)
	}
	o.end()
}

func writeToolCall(e *encoder, c *ToolCall) {
	o := e.object("")
	o.str("stage_id", c.StageID)
	o.str("call_id", c.CallID)
	o.str("name", c.Name)
	o.str("arguments", c.Arguments)
	o.int("result_size", int64(c.ResultSize))
	o.time("started_at", c.StartedAt)
	o.int("duration_ms", c.DurationMS)
	o.bool("ok", c.OK)
	o.str("error", c.Error)
	o.end()
}

func writeApproval(e *encoder, a *Approval) {
	o := e.object("")
	o.str("call_id", a.CallID)
	o.str("tool", a.Tool)
	o.str("args", a.Args)
	o.str("guard", a.Guard)
	o.str("answer", a.Answer)
	o.time("at", a.At)
	o.end()
}

func writeReview(e *encoder, r *turn.Review) {
	o := e.object("")
	o.str("id", r.ID)
	o.str("turn_id", r.TurnID)
	o.str("step", r.Step)
	o.int("thumb", int64(r.Thumb))
	o.int("score", int64(r.Score))
	o.key("labels")
	e.value(r.Labels)
	o.str("note", r.Note)
	o.time("created_at", r.CreatedAt)
	o.time("updated_at", r.UpdatedAt)
	o.end()
}

// Image writes an image, its bytes last, a piece at a time.
func (j *jsonWriter) Image(im *Image) error {
	j.list("images")
	j.open.next()
	o := j.e.object(j.open.indent + "  ")
	o.str("id", im.ID)
	o.str("turn_id", im.TurnID)
	o.str("mime", im.MIME)
	o.str("name", im.Name)
	o.int("width", int64(im.Width))
	o.int("height", int64(im.Height))
	o.int("size", int64(im.Size))
	o.str("sha256", im.SHA256)
	o.time("created_at", im.CreatedAt)
	if im.Gone {
		o.bool("gone", true)
	}
	if im.Data != nil {
		o.key("data")
		j.e.base64(im.Data)
	} else {
		o.null("data")
	}
	o.end()
	return j.e.flushed()
}

// Document writes one of the session's documents, its passages one to a
// line.
func (j *jsonWriter) Document(d *KnowledgeDocument) error {
	j.list("documents")
	j.open.next()
	o := j.e.object(j.open.indent + "  ")
	o.str("id", d.ID)
	o.str("name", d.Name)
	o.str("format", d.Format)
	o.strOmit("url", d.URL)
	o.str("version", d.Version)
	o.int("size", d.Size)
	o.int("pages", int64(d.Pages))
	o.strOmit("note", d.Note)
	o.time("created_at", d.CreatedAt)
	l := o.list("passages")
	for i := range d.Passages {
		l.next()
		p := &d.Passages[i]
		po := j.e.object("")
		po.int("id", p.ID)
		po.int("page", int64(p.Page))
		po.strOmit("heading", p.Heading)
		po.str("text", p.Text)
		po.end()
		if err := j.e.flushed(); err != nil {
			return err
		}
	}
	l.end()
	o.end()
	return j.e.flushed()
}

// Capture writes a recorded model call; its request, chunks and response
// are raw JSON, written as stored.
func (j *jsonWriter) Capture(c *Capture) error {
	j.list("captures")
	j.open.next()
	o := j.e.object(j.open.indent + "  ")
	o.str("key", c.Key)
	o.str("model", c.Model)
	o.raw("request", c.Request)
	o.raw("chunks", c.Chunks)
	o.raw("response", c.Response)
	o.time("recorded_at", c.RecordedAt)
	if len(c.Calls) > 0 {
		o.key("calls")
		sep := byte('[')
		for _, call := range c.Calls {
			j.e.b = append(j.e.b, sep)
			sep = ','
			co := j.e.object("")
			co.str("turn", call.Turn)
			co.int("index", int64(call.Index))
			co.end()
		}
		j.e.b = append(j.e.b, ']')
	}
	if len(c.Turns) > 0 {
		o.key("turns")
		sep := byte('[')
		for _, id := range c.Turns {
			j.e.b = appendString(append(j.e.b, sep), id)
			sep = ','
		}
		j.e.b = append(j.e.b, ']')
	}
	o.end()
	return j.e.flushed()
}

// end closes the document and hands the rest to the writer.
func (j *jsonWriter) end() error {
	j.open.end()
	j.doc.end()
	j.e.b = append(j.e.b, '\n')
	j.e.flush()
	return j.e.err
}

// jsonSink is the Sink of a JSON export: it stamps the document's head
// and writes every part as the Source hands it.
type jsonSink struct {
	*jsonWriter
	exportedAt time.Time
}

func (s jsonSink) Head(h *Head) error {
	s.start(FormatName, versionOf(h), s.exportedAt, buildinfo.Version, &h.Session, h.Groups)
	return s.e.flushed()
}
