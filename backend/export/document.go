package export

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Version is the version of the JSON document this build writes and the
// newest it decodes. Raise it when a change would make an older Agentdeck
// misread a file.
//
// Version 2: recordings are no longer shared by key; each capture lists the
// calls (turn and call index) that used it. Version 1 files still decode.
//
// Version 3: turns form a tree. A turn names the turn it follows
// (parent_turn_id, none for a first message) and the session its active
// turn. In a version 1 or 2 file each turn follows the one numbered before
// it, and the last is active.
//
// Version 4: images. The images the messages name (by id, as llm.Image
// without bytes) are in a top-level list with their bytes (Image). Only a
// document that holds images is written as version 4 (versionOf): an
// older Agentdeck would skip the list and import the session without its
// images, saying nothing, so it must refuse the file instead; a document
// without images is written as version 3, which it reads as it always did.
//
// Version 5: every image a message names is accounted for in the list:
// with its bytes, or marked gone (Image.Gone) when it was no longer stored
// as the file was written (the turn that owned it was deleted, or a
// salvage could not read it). Import refuses a file whose message names
// an image the list lacks, naming where (turns[0].messages[0].images[0]):
// such a file was changed or damaged, and importing it would lose the
// image without a word. A file older than 5 does not mark a gone image, so
// what it lacks may have been gone when it was written (a version 3 file
// naming images always lacks them): import drops such a name, as it
// always did, but still refuses what no export of that version holds (a
// version 4 file with no images, an image no message names). A document
// whose messages name images is written as version 5, so an older
// Agentdeck, which cannot check the list, refuses it rather than drop an
// image silently; a document naming none is still written as version 3.
//
// Version 6: the session's place and settings. The session names its
// project (Session.Project: the project's name, with its settings, so the
// importing database can make it if it has none of that name), its tags,
// and when it was pinned and archived; its settings (instructions,
// sampling: turn.RunSettings), carried raw since version 1, are now read.
// Files of versions 1 to 5 still import, into no project, untagged. Only
// a document that holds any of these is written as version 6 (versionOf):
// an older Agentdeck reads the session with encoding/json, which skips
// fields it does not know, so it would import the session out of its
// project, untagged and without its instructions, saying nothing; it must
// refuse the file instead. A session with none of them loses nothing in
// an older Agentdeck, so its file keeps the version it had (3 or 5), and
// sharing it with someone who has not updated still works.
//
// Version 7: documents. The session's own documents (knowledge: not its
// project's, which belong to the project) are in a top-level list
// (KnowledgeDocument), each with its passages' text, page and heading.
// Their embeddings are not: they are re-made from the text where an
// embedding model is picked, and until then the documents are searched
// by their words. The sources a turn was given to cite travel in its
// events (sources) as they were stored: a copy of what the model saw,
// naming the document and passage ids of the database that exported it.
// Import stores the documents under new ids and leaves those events as
// they are, so an old turn still shows what it was given; a source finds
// its restored document by its version. Only a document that holds
// documents is written as version 7 (versionOf): an older Agentdeck would
// skip the list and import the session without them, saying nothing. A
// session without documents keeps the version it had (3, 5 or 6).
//
// Version 8: side by side. The session's side-by-side groups (Group: one
// message sent to several targets at once) are in a top-level list with
// their votes, and each turn names the group it was a column of, its
// column and its target (Turn.GroupID, GroupSlot, Target); the session
// names the group it shows side by side (Session.OpenGroupID). Import
// stores the groups and votes under new ids; a vote whose turns are not
// in the file is dropped, as is a group none of whose turns is. Only a
// document that holds groups is written as version 8 (versionOf): an
// older Agentdeck would skip the list and import the columns as plain
// versions, their votes lost, saying nothing. A session never sent side
// by side keeps the version it had (3, 5, 6 or 7).
//
// Version 9: re-runs from a step (time travel). A turn re-run from a step
// of another turn names that turn, the step's timeline id and the kind of
// edit made there (Turn.FromTurnID, FromStep, FromEdit). Import restores
// the link when the source turn is in the file, under its new id, and
// otherwise keeps the step and the edit without it, as a deleted
// original leaves them. The recordings the re-run used travel as its own
// (Capture.Calls name it), so it replays offline. Only a document with a
// re-run is written as version 9 (versionOf): an older Agentdeck would
// import the re-run as a plain version, its link lost, saying nothing. A
// session with none keeps the version it had (3, 5, 6, 7 or 8).
//
// Version 10: artifacts and code runs. A turn's events may be artifact
// (turn.ArtifactData: an HTML page or SVG image, its key, title and
// source) and code_run (turn.CodeRunData: a run_code script, what it
// printed and returned); they travel as the other events do, raw, and
// import stores them as they are. Only a document holding one is written
// as version 10 (versionOf): an older Agentdeck would import them as
// events it cannot show, the pages, images and scripts silently gone
// from the conversation. A session with none keeps the version it had.
//
// Version 11: human review. A turn lists its reviews (Turn.Reviews,
// turn.Review: a thumb, a score, labels and a note, of the turn or of one
// of its steps by timeline step id). Import stores them under the turn's
// new id. Only a document with a review is written as version 11
// (versionOf): an older Agentdeck would import the session without them,
// saying nothing. A session with none keeps the version it had.
const Version = 11

// versionOf is the version Write stamps on the document whose head is h:
// the oldest that reads it completely (see Versions 5 to 11). Its
// messages name h.Images images, stored or gone; its session is placed or
// not (a project, tags, a pin, an archive or settings); it holds
// h.Documents documents, h.Groups side-by-side groups, h.Reruns re-runs
// from a step, h.Made artifact and code_run events and h.Reviews reviews.
func versionOf(h *Head) int {
	switch {
	case h.Reviews > 0:
		return 11
	case h.Made > 0:
		return 10
	case h.Reruns > 0:
		return 9
	case len(h.Groups) > 0:
		return 8
	case h.Documents > 0:
		return 7
	case h.Session.Placed():
		return 6
	case h.Images > 0:
		return 5
	}
	return 3
}

// Placed reports whether the session carries anything a version 6 file
// adds: a project, tags, a pin, an archive, or settings.
func (s *Session) Placed() bool {
	return s.Project != nil || len(s.Tags) > 0 || s.PinnedAt != nil || s.ArchivedAt != nil || !emptySettings(s.Settings)
}

// emptySettings reports whether raw settings set nothing: absent, null or
// an object with no keys.
func emptySettings(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return len(raw) == 0 || (json.Unmarshal(raw, &m) == nil && len(m) == 0)
}

// MarksGoneImages reports whether a file of version v marks the images its
// messages name that were gone when it was written (Version 5), so that a
// name its list lacks is damage rather than an image already gone.
func MarksGoneImages(v int) bool { return v >= 5 }

// FormatName marks a JSON document as ours.
const FormatName = "agentdeck-session"

// TurnState is a turn's state as the file names it: the store's states.
type TurnState string

// The states a turn of a file may be in.
const (
	StateRunning     TurnState = "running"
	StateCompleted   TurnState = "completed"
	StateCancelled   TurnState = "cancelled"
	StateFailed      TurnState = "failed"
	StateInterrupted TurnState = "interrupted"
)

// Document is one session as the JSON file holds it. Field names are the
// database's column names; JSON columns are carried raw so nothing is lost
// to a decode and re-encode. A Source hands on Session, Turns, Images and
// Captures (Collect gathers them here); Write stamps the rest.
//
// The file owns its types on purpose, though Session, Turn, Stage and the
// rest mirror store.Session, store.Turn, turn.StageResult and llm's types
// field for field: what a file carries (raw JSON columns, which fields are
// omitted when empty, no list-only fields such as store.Session.Turns)
// changes only with Version, never because a domain type gained a field.
// The store, which imports this package, converts between the two.
type Document struct {
	Format     string    `json:"format"`
	Version    int       `json:"version"`
	ExportedAt time.Time `json:"exported_at"`
	AppVersion string    `json:"app_version,omitempty"`
	Session    Session   `json:"session"`
	// Groups are the session's side-by-side groups with their votes,
	// oldest first (version 8).
	Groups []Group `json:"groups,omitempty"`
	Turns  []Turn  `json:"turns"`
	// Images are the images the turns' messages name, with their bytes
	// (version 4).
	Images []Image `json:"images,omitempty"`
	// Documents are the session's own documents with their passages
	// (version 7).
	Documents []KnowledgeDocument `json:"documents,omitempty"`
	Captures  []Capture           `json:"captures,omitempty"`
}

// Session is the session's own row.
type Session struct {
	ID        string          `json:"id"`
	Title     string          `json:"title"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
	Provider  string          `json:"provider"`
	Model     string          `json:"model"`
	Workflow  string          `json:"workflow"`
	Workspace string          `json:"workspace"`
	Settings  json.RawMessage `json:"settings"`
	// ActiveTurnID is the newest turn of the branch last looked at; an
	// older document has none (its turns are one line, the last active).
	ActiveTurnID string `json:"active_turn_id,omitempty"`
	// Kind is "eval" for an evaluation case's session, "" for a chat.
	Kind string `json:"kind,omitempty"`
	// Project is the project the session was in (version 6), none for a
	// session in no project; Tags its tags; PinnedAt and ArchivedAt when
	// it was pinned and archived, none if it is not.
	Project    *Project   `json:"project,omitempty"`
	Tags       []string   `json:"tags,omitempty"`
	PinnedAt   *time.Time `json:"pinned_at,omitempty"`
	ArchivedAt *time.Time `json:"archived_at,omitempty"`
	// OpenGroupID is the group the session shows side by side, none when
	// it reads as one conversation (version 8).
	OpenGroupID string `json:"open_group_id,omitempty"`
}

// Project is the project a session was in: its name, by which an import
// finds it (ignoring case) or makes it, and its settings (turn.RunSettings,
// raw), which a project made by the import starts with.
type Project struct {
	Name     string          `json:"name"`
	Settings json.RawMessage `json:"settings"`
}

// Turn is one turn with everything stored about it.
type Turn struct {
	ID          string          `json:"id"`
	Seq         int             `json:"seq"`
	UserMessage string          `json:"user_message"`
	State       TurnState       `json:"state"`
	Workflow    string          `json:"workflow"`
	Model       string          `json:"model"`
	StartedAt   time.Time       `json:"started_at"`
	CompletedAt *time.Time      `json:"completed_at"`
	FinalText   string          `json:"final_text"`
	Outcome     turn.Outcome    `json:"outcome"`
	Termination json.RawMessage `json:"termination"`
	Result      json.RawMessage `json:"result"`
	// Run is how the turn was run (limits, workflow); version 2.
	Run json.RawMessage `json:"run,omitempty"`
	// ParentTurnID is the turn this one follows ("" for a first message);
	// an older document has none: each turn follows the one before it.
	ParentTurnID string `json:"parent_turn_id,omitempty"`
	// Continues marks a turn that continues its parent's answer (Continue
	// after Stop or a limit).
	Continues bool `json:"continues,omitempty"`
	// GroupID is the side-by-side group the turn was a column of (version
	// 8), GroupSlot its column there, from 0, and Target what the column
	// ran (a label, "model · provider").
	GroupID   string `json:"group_id,omitempty"`
	GroupSlot int    `json:"group_slot,omitempty"`
	Target    string `json:"target,omitempty"`
	// FromTurnID is the turn this one was re-run from (version 9), none
	// when that turn is not in the file; FromStep the step it started
	// from (a timeline step id: start, stage2, call3, tool1) and FromEdit
	// the kind of edit made there ("" for none). A turn with a FromStep
	// is a re-run, whether or not its source is in the file.
	FromTurnID string        `json:"from_turn_id,omitempty"`
	FromStep   string        `json:"from_step,omitempty"`
	FromEdit   string        `json:"from_edit,omitempty"`
	Messages   []llm.Message `json:"messages"`
	Events     []turn.Event  `json:"events"`
	Stages     []Stage       `json:"stages"`
	ModelCalls []ModelCall   `json:"model_calls"`
	ToolCalls  []ToolCall    `json:"tool_calls"`
	Approvals  []Approval    `json:"approvals,omitempty"`
	// Reviews are a person's reviews of the turn and its steps (version
	// 11).
	Reviews []turn.Review `json:"reviews,omitempty"`
}

// Stage is one stage of a turn's workflow.
type Stage struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Agent       string          `json:"agent"`
	Phase       string          `json:"phase"`
	Outcome     turn.Outcome    `json:"outcome"`
	Termination json.RawMessage `json:"termination"`
	Diagnostics json.RawMessage `json:"diagnostics"`
	Response    json.RawMessage `json:"response"`
}

// ModelCall is one model call's diagnostics.
type ModelCall struct {
	StageID         string    `json:"stage_id"`
	Idx             int       `json:"idx"`
	Model           string    `json:"model"`
	StartedAt       time.Time `json:"started_at"`
	DurationMS      int64     `json:"duration_ms"`
	TTFTMS          int64     `json:"ttft_ms"`
	InputTokens     int       `json:"input_tokens"`
	OutputTokens    int       `json:"output_tokens"`
	CachedTokens    int       `json:"cached_tokens"`
	ReasoningTokens int       `json:"reasoning_tokens"`
	Estimated       bool      `json:"estimated"`
	OK              bool      `json:"ok"`
	Error           string    `json:"error"`
	// Provider, Capture, Price (llm.Price) and CostUSD are what the call
	// was priced at when it ran; version 2 documents from before issue 23
	// have none, and a call whose price was unknown has no cost.
	Provider string          `json:"provider,omitempty"`
	Capture  string          `json:"capture,omitempty"`
	Price    json.RawMessage `json:"price,omitempty"`
	CostUSD  *float64        `json:"cost_usd,omitempty"`
}

// ToolCall is one tool call's diagnostics.
type ToolCall struct {
	StageID    string    `json:"stage_id"`
	CallID     string    `json:"call_id"`
	Name       string    `json:"name"`
	Arguments  string    `json:"arguments"`
	ResultSize int       `json:"result_size"`
	StartedAt  time.Time `json:"started_at"`
	DurationMS int64     `json:"duration_ms"`
	OK         bool      `json:"ok"`
	Error      string    `json:"error"`
}

// Approval is one answer to a tool call that needed a person's approval.
type Approval struct {
	CallID string    `json:"call_id"`
	Tool   string    `json:"tool"`
	Args   string    `json:"args"`
	Guard  string    `json:"guard"`
	Answer string    `json:"answer"`
	At     time.Time `json:"at"`
}

// Group is one message sent side by side to several targets (version 8):
// its turns name it (Turn.GroupID). Targets is what each column ran, by
// slot, carried raw ([{"provider","model","workflow"}]); FollowsGroupID
// the group it continues, whose column i its column i follows. Vote is
// the person's verdict, none until there is one.
type Group struct {
	ID             string          `json:"id"`
	FollowsGroupID string          `json:"follows_group_id,omitempty"`
	Blind          bool            `json:"blind"`
	Targets        json.RawMessage `json:"targets"`
	CreatedAt      time.Time       `json:"created_at"`
	Vote           *GroupVote      `json:"vote,omitempty"`
}

// GroupVote is a verdict on a group: "win" names the better turn
// (WinnerTurnID), "tie" and "both_bad" name none. Blind says the names
// were hidden when it was cast.
type GroupVote struct {
	ID           string    `json:"id"`
	Outcome      string    `json:"outcome"`
	WinnerTurnID string    `json:"winner_turn_id,omitempty"`
	Note         string    `json:"note"`
	Blind        bool      `json:"blind"`
	CreatedAt    time.Time `json:"created_at"`
}

// Image is one image a message names, with its bytes (base64 in the
// file, as encoding/json writes []byte). TurnID is the turn that owns it:
// its own, or in a file whose owner is not in it (a replay names the
// images of the turn it replayed), the first turn that names it. SHA256
// is the lowercase hex SHA-256 of Data; Import refuses an image whose
// bytes do not match it. Data comes last, so the file reads well up to it.
//
// An image that was no longer stored when the file was written is Gone:
// it has no bytes, and says what it was as the message names it (type,
// name, size, hash), so the file accounts for every image its messages
// name (Version 5). Import keeps the message and drops the name.
type Image struct {
	ID        string    `json:"id"`
	TurnID    string    `json:"turn_id"`
	MIME      string    `json:"mime"`
	Name      string    `json:"name"`
	Width     int       `json:"width"`
	Height    int       `json:"height"`
	Size      int       `json:"size"`
	SHA256    string    `json:"sha256"`
	CreatedAt time.Time `json:"created_at"`
	Gone      bool      `json:"gone,omitempty"`
	Data      []byte    `json:"data"`
}

// KnowledgeDocument is one of the session's documents (knowledge.Document)
// with the text of its passages (version 7). Its id is the exporting
// database's, which the turns' sources name; Import gives it a new one.
// Its embeddings are not carried: they are re-made from the text.
type KnowledgeDocument struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Format string `json:"format"`
	URL    string `json:"url,omitempty"`
	// Version is the SHA-256 of the document's bytes, in hex.
	Version   string             `json:"version"`
	Size      int64              `json:"size"`
	Pages     int                `json:"pages"`
	Note      string             `json:"note,omitempty"`
	CreatedAt time.Time          `json:"created_at"`
	Passages  []KnowledgePassage `json:"passages"`
}

// KnowledgePassage is one passage of a document, in the document's order.
// Its id is the exporting database's (a source's passage_id).
type KnowledgePassage struct {
	ID      int64  `json:"id"`
	Page    int    `json:"page"`
	Heading string `json:"heading,omitempty"`
	Text    string `json:"text"`
}

// Capture is one recorded model call, so the file can replay it elsewhere.
type Capture struct {
	Key        string          `json:"key"`
	Model      string          `json:"model"`
	Request    json.RawMessage `json:"request"`
	Chunks     json.RawMessage `json:"chunks"`
	Response   json.RawMessage `json:"response"`
	RecordedAt time.Time       `json:"recorded_at"`
	// Calls are the exported turns' calls that used this recording.
	Calls []Call `json:"calls,omitempty"`
	// Turns is version 1's link: the turns that used the capture, with no
	// call index.
	Turns []string `json:"turns,omitempty"`
}

// Call is one model call of a turn: the turn and its call index.
type Call struct {
	Turn  string `json:"turn"`
	Index int    `json:"index"`
}

// The decoded views the writers and the store's Import need.

// Plan returns the turn's checklist: from its result, or for a turn that
// never finished (the result has none), from its events, as a running
// turn's live plan is.
func (t *Turn) Plan() []turn.PlanStep {
	var res struct {
		PlanSteps []turn.PlanStep `json:"plan_steps"`
	}
	_ = json.Unmarshal(t.Result, &res)
	if res.PlanSteps != nil {
		return res.PlanSteps
	}
	var steps []turn.PlanStep
	for _, e := range t.Events {
		turn.ApplyPlanEvent(&steps, e.Type, e.Data)
	}
	return steps
}

// PartialText joins the tokens streamed after the turn's last think_start:
// the answer so far of a turn that never finished.
func (t *Turn) PartialText() string {
	start := 0
	for i, e := range t.Events {
		if e.Type == turn.EventThinkStart {
			start = i + 1
		}
	}
	var b strings.Builder
	for _, e := range t.Events[start:] {
		if e.Type == turn.EventToken {
			var d turn.TokenData
			_ = json.Unmarshal(e.Data, &d)
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

// errorText is the error the turn's result reports, if any.
func (t *Turn) errorText() string {
	var res struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(t.Result, &res)
	return res.Error
}
