package foreign

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// conv is one conversation as a reader found it: a message tree, in any
// app's terms, before it becomes turns.
type conv struct {
	title            string
	created, updated time.Time
	model            string
	// nodes by id, and order the ids in the file's order (children keep
	// the order their parent lists them in).
	nodes map[string]*node
	order []string
	// current is the node the source had selected: the end of the
	// active branch ("" for the last one).
	current string
	left    *leftOut
}

// node is one message of the tree. A node with no message (a root the
// app keeps, a hidden or empty message) is skipped: its children hang
// from its parent.
type node struct {
	id, parent string
	children   []string
	msg        *llm.Message // nil: skipped
	model      string
	at         time.Time
}

func newConv(title string) *conv {
	return &conv{title: strings.TrimSpace(title), nodes: map[string]*node{}, left: newLeftOut()}
}

// add puts a node in the tree; children are linked by link.
func (c *conv) add(n *node) {
	if _, dup := c.nodes[n.id]; !dup {
		c.order = append(c.order, n.id)
	}
	c.nodes[n.id] = n
}

// link fills each node's children from the parents, for sources that
// name only the parent; a source that lists children keeps its order.
func (c *conv) link() {
	for _, id := range c.order {
		n := c.nodes[id]
		if p := c.nodes[n.parent]; p != nil && !slices.Contains(p.children, id) {
			p.children = append(p.children, id)
		}
	}
}

// builder turns a conversation's tree into turns.
type builder struct {
	c     *conv
	app   App
	turns []export.Turn
	// last is the id of the node each turn ends at, by turn index.
	last []string
	// kids are the visible children of each node (skipped nodes spliced
	// out), and seen guards against a cycle in a damaged file.
	kids    map[string][]string
	seen    map[string]bool
	skipped map[string]bool
}

// document makes the conversation a session document and its report.
func (c *conv) document(app App) (export.Document, ConversationReport) {
	b := &builder{c: c, app: app, kids: map[string][]string{}, seen: map[string]bool{}, skipped: map[string]bool{}}
	var roots []string
	for _, id := range c.order {
		n := c.nodes[id]
		if c.nodes[n.parent] == nil {
			roots = append(roots, b.visible(id)...)
		}
	}
	for _, r := range roots {
		b.fromRoot(r)
	}
	title := c.title
	if title == "" {
		title = b.firstUserText()
	}
	if title == "" {
		title = "Imported from " + string(app)
	}
	sess := export.Session{ID: turn.NewID(), Title: title, CreatedAt: c.created, UpdatedAt: c.updated,
		Model: c.model, Workflow: "chat", Settings: json.RawMessage(`{}`), ActiveTurnID: b.active()}
	if sess.CreatedAt.IsZero() && len(b.turns) > 0 {
		sess.CreatedAt = b.turns[0].StartedAt
	}
	if sess.UpdatedAt.IsZero() || sess.UpdatedAt.Before(sess.CreatedAt) {
		sess.UpdatedAt = sess.CreatedAt
	}
	for i := range b.turns {
		if b.turns[i].StartedAt.IsZero() {
			b.turns[i].StartedAt = sess.CreatedAt
		}
		if b.turns[i].CompletedAt == nil || b.turns[i].CompletedAt.IsZero() {
			at := b.turns[i].StartedAt
			b.turns[i].CompletedAt = &at
		}
		if sess.Model == "" {
			sess.Model = b.turns[i].Model
		}
	}
	doc := export.Document{Format: export.FormatName, Version: export.Version, Session: sess, Turns: b.turns}
	return doc, ConversationReport{Title: title, Turns: len(b.turns), Branches: b.branches(), LeftOut: c.left.lines()}
}

// visible is the node itself, or for a skipped node its visible
// descendants nearest to it.
func (b *builder) visible(id string) []string {
	n := b.c.nodes[id]
	if n == nil || b.skipped[id] {
		return nil
	}
	if n.msg != nil {
		return []string{id}
	}
	b.skipped[id] = true
	var out []string
	for _, k := range n.children {
		out = append(out, b.visible(k)...)
	}
	return out
}

// children are a node's visible children.
func (b *builder) children(id string) []string {
	if k, ok := b.kids[id]; ok {
		return k
	}
	var out []string
	for _, k := range b.c.nodes[id].children {
		out = append(out, b.visible(k)...)
	}
	b.kids[id] = out
	return out
}

func (b *builder) isUser(id string) bool { return b.c.nodes[id].msg.Role == llm.RoleUser }

// fromRoot starts the turns of a tree's root: a user message starts a
// turn; anything before the first user message (a system prompt) opens
// each first turn below it, and answers with no user message before them
// make a turn of their own with no user message.
func (b *builder) fromRoot(root string) {
	if b.isUser(root) {
		b.turnsFrom(root, "", nil)
		return
	}
	for _, path := range b.paths(root) {
		pre := b.messages(path)
		end := path[len(path)-1]
		users := b.userChildren(end)
		if len(users) == 0 {
			b.addTurn(nil, path, "", pre)
			continue
		}
		for _, u := range users {
			b.turnsFrom(u, "", pre)
		}
	}
}

// turnsFrom makes the turns that start at user message u (one per path
// of answers below it: versions) and, below each, the turns that follow.
func (b *builder) turnsFrom(u, parent string, pre []llm.Message) {
	if b.seen[u] {
		return
	}
	b.seen[u] = true
	var paths [][]string
	if b.stopsAt(u) {
		paths = append(paths, nil)
	}
	for _, k := range b.children(u) {
		if !b.isUser(k) {
			paths = append(paths, b.paths(k)...)
		}
	}
	for _, path := range paths {
		id := b.addTurn(&u, path, parent, pre)
		end := u
		if len(path) > 0 {
			end = path[len(path)-1]
		}
		for _, next := range b.userChildren(end) {
			b.turnsFrom(next, id, nil)
		}
	}
}

// stopsAt reports whether a path of answers may end at n: it has a user
// message below it, or nothing else.
func (b *builder) stopsAt(n string) bool {
	kids := b.children(n)
	if len(kids) == 0 {
		return true
	}
	for _, k := range kids {
		if b.isUser(k) {
			return true
		}
	}
	return false
}

// paths are the runs of non-user messages from n down: each ends where
// a user message follows or the branch ends.
func (b *builder) paths(n string) [][]string {
	if b.seen[n] {
		return nil
	}
	b.seen[n] = true
	defer delete(b.seen, n)
	var out [][]string
	if b.stopsAt(n) {
		out = append(out, []string{n})
	}
	for _, k := range b.children(n) {
		if b.isUser(k) {
			continue
		}
		for _, p := range b.paths(k) {
			out = append(out, append([]string{n}, p...))
		}
	}
	return out
}

func (b *builder) userChildren(n string) []string {
	var out []string
	for _, k := range b.children(n) {
		if b.isUser(k) {
			out = append(out, k)
		}
	}
	return out
}

func (b *builder) messages(ids []string) []llm.Message {
	var out []llm.Message
	for _, id := range ids {
		out = append(out, *b.c.nodes[id].msg)
	}
	return out
}

// addTurn stores one turn: the user message u (nil for none), the
// answers of path, after the messages pre.
func (b *builder) addTurn(u *string, path []string, parent string, pre []llm.Message) string {
	t := export.Turn{ID: turn.NewID(), Seq: len(b.turns) + 1, State: export.StateCompleted, Workflow: "chat",
		Outcome: turn.OutcomeSucceeded, ParentTurnID: parent, Events: []turn.Event{}, Stages: []export.Stage{},
		ModelCalls: []export.ModelCall{}, ToolCalls: []export.ToolCall{}}
	t.Messages = append(t.Messages, pre...)
	end := ""
	if u != nil {
		n := b.c.nodes[*u]
		t.UserMessage, t.StartedAt, end = n.msg.Content, n.at, *u
		t.Messages = append(t.Messages, *n.msg)
	}
	for _, id := range path {
		n := b.c.nodes[id]
		t.Messages = append(t.Messages, *n.msg)
		if n.msg.Role == llm.RoleAssistant {
			if n.msg.Content != "" {
				t.FinalText = n.msg.Content
			}
			if n.model != "" {
				t.Model = n.model
			}
		}
		if t.StartedAt.IsZero() {
			t.StartedAt = n.at
		}
		if !n.at.IsZero() {
			at := n.at
			t.CompletedAt = &at
		}
		end = id
	}
	if t.Model == "" {
		t.Model = b.c.model
	}
	res := turn.Result{FinalText: t.FinalText, Outcome: turn.OutcomeSucceeded, Termination: turn.Termination{Kind: turn.TermCompleted}}
	t.Termination, _ = json.Marshal(res.Termination)
	t.Result, _ = json.Marshal(turn.TurnCompletedData{Result: res})
	t.Run, _ = json.Marshal(ImportedFrom{App: string(b.app)})
	b.turns = append(b.turns, t)
	b.last = append(b.last, end)
	return t.ID
}

// ImportedFrom is what an imported turn's Run holds: the app it came
// from. Such a turn has no recordings, so nothing of it can be replayed.
type ImportedFrom struct {
	App string `json:"imported_from"`
}

// active is the turn ending at the source's selected message: the one
// that ends there, else one that holds it, else the last turn.
func (b *builder) active() string {
	if len(b.turns) == 0 {
		return ""
	}
	cur := b.c.current
	for i, end := range b.last {
		if end == cur {
			return b.turns[i].ID
		}
	}
	// The selected message was skipped (empty) or sits inside a turn:
	// take the nearest visible message above it that ends a turn.
	for n := b.c.nodes[cur]; n != nil; n = b.c.nodes[n.parent] {
		for i, end := range b.last {
			if end == n.id {
				return b.turns[i].ID
			}
		}
	}
	return b.turns[len(b.turns)-1].ID
}

// branches counts the turns no turn follows.
func (b *builder) branches() int {
	followed := map[string]bool{}
	for _, t := range b.turns {
		followed[t.ParentTurnID] = true
	}
	n := 0
	for _, t := range b.turns {
		if !followed[t.ID] {
			n++
		}
	}
	return n
}

func (b *builder) firstUserText() string {
	for _, t := range b.turns {
		var kept []string
		for _, line := range strings.Split(t.UserMessage, "\n") {
			if !strings.HasPrefix(line, missingMark) {
				kept = append(kept, line)
			}
		}
		if s := strings.TrimSpace(strings.Join(kept, " ")); s != "" {
			if r := []rune(s); len(r) > 60 {
				s = string(r[:60]) + "…"
			}
			return strings.Join(strings.Fields(s), " ")
		}
	}
	return ""
}

// missingMark starts the line that names an attachment the file lacks.
const missingMark = "[missing attachment: "

// epoch is a time from seconds since 1970 (fractions kept), zero for 0.
func epoch(sec float64) time.Time {
	if sec <= 0 {
		return time.Time{}
	}
	return time.UnixMicro(int64(sec * 1e6)).UTC()
}

// epochAny reads seconds or milliseconds (a value past the year 33658 in
// seconds is taken as milliseconds).
func epochAny(v float64) time.Time {
	if v > 1e12 {
		return epoch(v / 1000)
	}
	return epoch(v)
}
