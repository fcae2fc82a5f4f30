package export

import (
	"bufio"
	"context"
	"errors"
	"io"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/buildinfo"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Source reads one session, in one snapshot, and hands it to a Sink as
// it reads: the store is one. It reads what load asks for, and returns
// what the Sink returned, or an *apperr.Error a person can act on
// (NotFound for a session that is not there).
type Source interface {
	ReadSession(ctx context.Context, sessionID string, load Load, to Sink) error
}

// Sink is handed one session by a Source, in the document's order: Head
// once, then every turn in order of seq, then every image, then every
// document, then every capture. What it is handed is its own to keep. An error it returns stops
// the Source, which returns that error as it is.
type Sink interface {
	Head(h *Head) error
	// Turn is handed a turn with everything but its events (t.Events is
	// empty) and its events, in order of seq, to range over at most once:
	// the Source reads each event as the range asks for it, so a turn's
	// events need not all be in memory. An event that cannot be read ends
	// the range, and the Source returns the error once Turn returns.
	Turn(t *Turn, events iter.Seq[turn.Event]) error
	Image(im *Image) error
	Document(d *KnowledgeDocument) error
	Capture(c *Capture) error
}

// Head is what a Source knows of a session before its turns.
type Head struct {
	Session Session
	// Images is how many images the Source hands on after the turns:
	// every one the turns' messages name, with its bytes or, if it is no
	// longer stored, marked gone. The JSON document's version depends on
	// it, and is written first.
	Images int
	// Documents is how many of the session's documents the Source hands
	// on after the images (Load.Documents): the version depends on it too.
	Documents int
	// Groups are the session's side-by-side groups with their votes,
	// oldest first: few and small, so they come with the head, and the
	// version depends on them.
	Groups []Group
	// Reruns is how many of the turns the Source hands on were re-run
	// from a step of another (Turn.FromStep): the version depends on it.
	Reruns int
	// Made is how many artifact and code_run events the turns hold
	// (version 10): the version depends on it.
	Made int
	// Reviews is how many reviews the turns hold (version 11).
	Reviews int
}

// Load says what of a session a Source reads. The session, its turns and
// their messages, stages, model and tool calls and approvals are always
// read; events and recordings, the bulk of a session, only as asked.
type Load struct {
	// AllEvents reads every event; else EventTypes lists the types to read.
	AllEvents  bool
	EventTypes []turn.EventType
	// PartialAnswers adds the think_start and token events of the turns
	// still running: their answer so far exists only as tokens.
	PartialAnswers bool
	// Captures adds the recorded model calls the session's turns used.
	Captures bool
	// Images adds the images the messages name, with their bytes, or
	// marked gone if no longer stored (Sink.Image); without it a message
	// still names its images.
	Images bool
	// Documents adds the session's own documents (not its project's),
	// newest last (Sink.Document); Passages adds their passages' text.
	Documents, Passages bool
}

// Format is the kind of file Write writes.
type Format string

const (
	// JSON is the lossless document Decode reads back.
	JSON Format = "json"
	// Markdown is a transcript for people.
	Markdown Format = "md"
	// JSONL is chat fine-tuning data in OpenAI's format.
	JSONL Format = "jsonl"
)

// ParseFormat reads a format name as a person or a file extension gives
// it: "json", "md" (or "markdown"), "jsonl"; case and a leading dot are
// ignored.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimPrefix(strings.TrimSpace(s), ".")) {
	case "json":
		return JSON, nil
	case "md", "markdown":
		return Markdown, nil
	case "jsonl":
		return JSONL, nil
	}
	return "", apperr.New(apperr.Invalid, "Unknown export format %q; use json, md or jsonl.", s)
}

// Extension returns the file extension for the format, with its dot.
func (f Format) Extension() string { return "." + string(f) }

// Options tune Write. The zero value suits every format.
type Options struct {
	// Captures adds the recorded model calls the session's turns use to a
	// JSON export, so the file can replay them elsewhere. Ignored by the
	// other formats.
	Captures bool
	// AllBranches writes every turn of every branch to Markdown and JSONL;
	// without it they give the active branch, the conversation as it
	// reads now. JSON always has every branch.
	AllBranches bool
	// ImageFile, if set, is given each image of a Markdown export's
	// messages, once: a file name the export chooses (its content's hash
	// and the extension of its type, so it is safe in any folder) and the
	// bytes. It stores them and returns the path, relative to the Markdown
	// file and with slashes, that the transcript links. Without it the
	// transcript names each image with its size and says the JSON export
	// holds it: a Markdown file never holds an image's bytes. Ignored by
	// the other formats.
	ImageFile func(file string, data []byte) (path string, err error)
}

// Write writes one session, read from src, to w.
//
// JSON is lossless: the session, and for every turn its messages, every
// event exactly as stored, stages with diagnostics, model and tool calls,
// and approvals, and the images the messages name with their bytes; the
// store's Import reads it back. It is written as src reads it, a turn at a
// time, so its memory does not grow with the session. Markdown is a
// transcript for people (its images beside it, see Options.ImageFile);
// JSONL is fine-tuning data (see writeJSONL).
func Write(ctx context.Context, src Source, sessionID string, format Format, w io.Writer, opts Options) error {
	load, ok := loads(opts)[format]
	if !ok {
		return apperr.New(apperr.Invalid, "Unknown export format %q; use json, md or jsonl.", string(format))
	}
	var err error
	if format == JSON {
		j := jsonSink{jsonWriter: newJSONWriter(w), exportedAt: time.Now().UTC()}
		if err = src.ReadSession(ctx, sessionID, load, j); err == nil {
			err = j.end()
		}
	} else {
		err = writeWhole(ctx, src, sessionID, format, load, w, opts)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return apperr.Wrap(err, apperr.Cancelled, "The export was cancelled; the file is incomplete.")
	case apperr.CodeOf(err) != apperr.Internal:
		return err
	}
	return apperr.Wrap(err, apperr.Unavailable, "Writing the export failed; check that the disk has space and the destination is writable.")
}

// writeWhole writes the formats that need the whole session at once.
func writeWhole(ctx context.Context, src Source, sessionID string, format Format, load Load, w io.Writer, opts Options) error {
	doc, err := Collect(ctx, src, sessionID, load)
	if err != nil {
		return err
	}
	doc.AppVersion = buildinfo.Version
	bw := bufio.NewWriterSize(w, 64<<10)
	if format == Markdown {
		// A re-run names its source by number, and the source is
		// often on another branch: read the numbers before the cut.
		reruns := mdReruns(doc.Turns)
		err = writeMarkdown(ctx, bw, withBranches(doc, opts.AllBranches), reruns, opts.ImageFile)
	} else {
		err = writeJSONL(ctx, bw, withBranches(doc, opts.AllBranches))
	}
	if err == nil {
		err = bw.Flush()
	}
	return err
}

// Collect reads a session from src into one document, for what needs it
// whole: a Markdown transcript (it counts the turns and groups continued
// answers) and JSONL (each line holds the turns before it), or a fork. A
// JSON export does not: Write writes it as src reads it.
func Collect(ctx context.Context, src Source, sessionID string, load Load) (Document, error) {
	var c collector
	err := src.ReadSession(ctx, sessionID, load, &c)
	if c.doc.Turns == nil {
		c.doc.Turns = []Turn{}
	}
	return c.doc, err
}

// collector is the Sink of Collect.
type collector struct{ doc Document }

func (c *collector) Head(h *Head) error {
	c.doc.Session, c.doc.Groups = h.Session, h.Groups
	return nil
}

func (c *collector) Turn(t *Turn, events iter.Seq[turn.Event]) error {
	t.Events = slices.AppendSeq(t.Events, events)
	c.doc.Turns = append(c.doc.Turns, *t)
	return nil
}

func (c *collector) Image(im *Image) error {
	c.doc.Images = append(c.doc.Images, *im)
	return nil
}

func (c *collector) Document(d *KnowledgeDocument) error {
	c.doc.Documents = append(c.doc.Documents, *d)
	return nil
}

func (c *collector) Capture(cp *Capture) error {
	c.doc.Captures = append(c.doc.Captures, *cp)
	return nil
}

// withBranches is doc with the turns of its active branch only, unless all
// is set (or the document names no active turn: one line of turns).
func withBranches(doc Document, all bool) *Document {
	if all || doc.Session.ActiveTurnID == "" {
		return &doc
	}
	byID := map[string]Turn{}
	for _, t := range doc.Turns {
		byID[t.ID] = t
	}
	on := map[string]bool{}
	for id := doc.Session.ActiveTurnID; id != "" && !on[id]; id = byID[id].ParentTurnID {
		on[id] = true
	}
	branch := make([]Turn, 0, len(on))
	for _, t := range doc.Turns {
		if on[t.ID] {
			branch = append(branch, t)
		}
	}
	doc.Turns = branch
	return &doc
}

// loads is what each format reads of a session.
func loads(opts Options) map[Format]Load {
	return map[Format]Load{
		JSON: {AllEvents: true, Captures: opts.Captures, Images: true, Documents: true, Passages: true},
		// Charts; plans, for turns whose result has none; the partial
		// answer of a running turn, which exists only as tokens; and the
		// images' bytes only where they are written as files; the
		// sources each turn was given, and the session's documents (not
		// their text) for its header.
		Markdown: {EventTypes: []turn.EventType{turn.EventChart, turn.EventArtifact, turn.EventCodeRun, turn.EventPlanGenerated, turn.EventStepStart, turn.EventStepEnd, turn.EventSources}, PartialAnswers: true,
			Images: opts.ImageFile != nil, Documents: true},
		// Images go in the lines as the model was sent them.
		JSONL: {Images: true},
	}
}
