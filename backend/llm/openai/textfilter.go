package openai

import (
	"bytes"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// A model served without a reasoning parser or a tool-call parser writes its
// thinking and its tool calls into the content text. contentFilter reads
// them back out of the stream, delta by delta:
//
//   - A <think> block that opens the content (after optional whitespace) is
//     reasoning, up to </think>; whitespace right after </think> is dropped.
//     A <think> anywhere later is prose (a model explaining the tag).
//   - Tool calls written as text, when calls are on and tools were offered:
//     Hermes and Qwen's <tool_call>{...}</tool_call> anywhere in the answer;
//     Llama 3.x's <|python_tag|>{...} (a trailing <|eom_id|> or <|eot_id|>
//     is dropped) and a bare {"name": ..., "parameters": ...} object, or an
//     array of them, or several separated by "; ", that opens the answer;
//     Mistral's [TOOL_CALLS][{...}, ...] and [TOOL_CALLS]name[ARGS]{...}.
//   - A call counts only when it names an offered tool and its arguments are
//     a JSON object (or absent). Anything else, from the marker to where it
//     stopped looking like a call, is released as answer text byte for byte,
//     so a model writing about <tool_call> tags is shown what it wrote. A
//     bare JSON value is let go as soon as its first key is not "name" (or
//     "type"), so a JSON answer is not held to its end.
//   - Whitespace, ";" and end-of-turn tokens after a call are dropped.
//
// What could still become a call is held back and nothing else is: the tail
// that could be the start of a marker, then the marked call until its JSON
// value closes (tracked byte by byte, so holding stays linear), then the
// decision. Content once released is never taken back. Plain prose with no
// '<' or '[' passes through without copying.

// filtered is what the filter releases for one delta.
type filtered struct {
	Content   string         // answer text
	Reasoning string         // text inside a <think> block
	Calls     []llm.ToolCall // whole tool calls (ID empty: the caller gives one), Arguments is a JSON object text
}

// contentFilter splits a model's streamed content into the answer, the
// reasoning it wrote in <think> tags, and the tool calls it wrote as text.
// It is not safe for concurrent use; the client runs one per stream.
type contentFilter struct {
	tools map[string]bool // nil: tool-call detection is off

	mode filterMode
	// At a boundary (start of content, of the answer, after a call):
	keepSpace bool // leading whitespace is answer text unless a call follows
	thinkOK   bool // a <think> block may still open
	afterCall bool // ";" and end-of-turn tokens are dropped too

	// buf[at:] is the text held back; buf[:at] has been released or dropped.
	buf []byte
	at  int
	pos int // where scanning resumes

	// The call being read; its text starts at at.
	form    textCallForm
	phase   textCallPhase
	markEnd int       // end of the marker
	val     int       // start of the JSON value, Mistral name or call id
	name    string    // a Mistral name[ARGS] call's tool
	nest    jsonDepth // the JSON value's nesting so far
	checked bool      // a bare value's opening was seen to look like a call

	src string // the pushed delta when buf was empty before it: buf[i:j] == src[i:j]
	out filtered
}

// newContentFilter returns a filter. tools are the tools the request offered
// (a text tool call must name one of them to count); textCalls false turns
// tool-call detection off (think tags are still split out).
func newContentFilter(tools []llm.Tool, textCalls bool) *contentFilter {
	f := &contentFilter{}
	if textCalls && len(tools) > 0 {
		f.tools = make(map[string]bool, len(tools))
		for _, t := range tools {
			f.tools[t.Name] = true
		}
	}
	f.reset()
	return f
}

// push takes the next content delta and returns what can be released now.
func (f *contentFilter) push(s string) filtered {
	if len(f.buf) == 0 {
		switch f.mode {
		case filterPassing:
			return filtered{Content: s}
		case filterInProse:
			if !hasMarkerByte(s) {
				return filtered{Content: s}
			}
		case filterInThink:
			if strings.IndexByte(s, '<') < 0 {
				return filtered{Reasoning: s}
			}
		}
	}
	if s == "" {
		return filtered{}
	}
	if len(f.buf) == 0 {
		f.src = s
	}
	f.buf = append(f.buf, s...)
	for f.step() {
	}
	return f.take()
}

// flush releases everything still held back, at the end of the stream (or
// when it failed or was stopped): an unfinished marker or call is released
// as answer text, an unclosed <think> block as reasoning. One exception: a
// <tool_call> whose JSON is whole and only its closing tag was cut off is a
// call. The filter then starts over, as if new (a second flush releases
// nothing).
func (f *contentFilter) flush() filtered {
	f.src = ""
	switch {
	case f.mode == filterInThink:
		f.reasoning(f.at, len(f.buf))
	case f.mode == filterInCall && f.phase == awaitClose:
		// The JSON value is whole and only whitespace and the start of
		// </tool_call> follow: the stream was cut at the closing tag.
		if calls, ok := f.parse(); ok {
			f.out.Calls = append(f.out.Calls, calls...)
		} else {
			f.release(f.at, len(f.buf))
		}
	default:
		f.release(f.at, len(f.buf))
	}
	out := f.out
	f.out = filtered{}
	f.reset()
	return out
}

type filterMode uint8

const (
	filterAtBoundary filterMode = iota
	filterInThink
	filterInProse
	filterInCall
	filterPassing // no more think tags and calls are off
)

type textCallForm uint8

const (
	hermesForm    textCallForm = iota // <tool_call>{...}</tool_call>
	pythonTagForm                     // <|python_tag|>{...}
	bareJSONForm                      // {...} or [{...}] opening the answer
	mistralForm                       // [TOOL_CALLS][{...}] or [TOOL_CALLS]name[ARGS]{...}
)

type textCallPhase uint8

const (
	awaitValue textCallPhase = iota // the JSON value (or a Mistral name) is next
	readName                        // a Mistral tool name
	afterName                       // [ARGS], [CALL_ID] or '{' after a Mistral name
	skipCallID                      // a Mistral call id
	awaitArgs                       // a Mistral call's arguments object is next
	inJSON                          // the JSON value
	awaitClose                      // </tool_call>
)

const (
	thinkOpen     = "<think>"
	thinkClose    = "</think>"
	toolCallOpen  = "<tool_call>"
	toolCallClose = "</tool_call>"
	pythonTag     = "<|python_tag|>"
	eomTag        = "<|eom_id|>"
	eotTag        = "<|eot_id|>"
	mistralCalls  = "[TOOL_CALLS]"
	mistralArgs   = "[ARGS]"
	mistralCallID = "[CALL_ID]"

	// maxCallName bounds a Mistral tool name or call id, so prose after a
	// [TOOL_CALLS] mention is not held for long.
	maxCallName = 128
	// bareLookahead bounds how far into a bare JSON value its first key
	// must be seen; a call has it within a few bytes.
	bareLookahead = 256
)

// The markers that may come next, by where the filter is.
var (
	startTags     = []string{thinkOpen, toolCallOpen, pythonTag, mistralCalls}
	thinkTags     = []string{thinkOpen}
	callTags      = []string{toolCallOpen, pythonTag, mistralCalls}
	afterCallTags = []string{toolCallOpen, pythonTag, mistralCalls, eomTag, eotTag}
	nameTags      = []string{mistralArgs, mistralCallID}
	closeTags     = []string{toolCallClose}
)

func (f *contentFilter) reset() {
	f.mode = filterAtBoundary
	f.keepSpace, f.thinkOK, f.afterCall = true, true, false
	f.buf = f.buf[:0]
	f.at, f.pos = 0, 0
}

// step advances the state machine over buf and reports whether it can go
// on; false means it needs more text.
func (f *contentFilter) step() bool {
	switch f.mode {
	case filterAtBoundary:
		return f.boundary()
	case filterInThink:
		return f.think()
	case filterInProse:
		return f.prose()
	case filterInCall:
		return f.call()
	}
	f.release(f.at, len(f.buf))
	f.at = len(f.buf)
	return false
}

// take compacts buf to what is still held and returns what was released.
func (f *contentFilter) take() filtered {
	if f.at > 0 {
		n := copy(f.buf, f.buf[f.at:])
		f.buf = f.buf[:n]
		f.pos -= f.at
		f.markEnd -= f.at
		f.val -= f.at
		f.at = 0
	}
	f.src = ""
	out := f.out
	f.out = filtered{}
	return out
}

// text returns buf[i:j], without copying when it is part of the delta.
func (f *contentFilter) text(i, j int) string {
	if f.src != "" {
		return f.src[i:j]
	}
	return string(f.buf[i:j])
}

func (f *contentFilter) release(i, j int) {
	if i < j {
		f.out.Content += f.text(i, j)
	}
}

func (f *contentFilter) reasoning(i, j int) {
	if i < j {
		f.out.Reasoning += f.text(i, j)
	}
}

// enterBoundary starts a boundary at at, where leading whitespace is dropped.
func (f *contentFilter) enterBoundary(afterCall bool) {
	f.mode = filterAtBoundary
	f.keepSpace, f.thinkOK, f.afterCall = false, false, afterCall
	f.pos = f.at
}

// boundary reads the start of the content, of the answer after </think>,
// or the text after a call: whitespace, then maybe a marker or a bare JSON
// call, else prose.
func (f *contentFilter) boundary() bool {
	b := f.buf
	for f.pos < len(b) && (isSpace(b[f.pos]) || f.afterCall && b[f.pos] == ';') {
		f.pos++
	}
	if !f.keepSpace {
		f.at = f.pos
	}
	if f.pos == len(b) {
		return false
	}
	tag, m := matchTag(b[f.pos:], f.boundaryTags())
	switch {
	case m == partMatch:
		return false
	case tag == thinkOpen:
		f.at = f.pos + len(tag)
		f.pos = f.at
		f.mode = filterInThink
		return true
	case tag == eomTag || tag == eotTag:
		f.pos += len(tag)
		f.at = f.pos
		return true
	case m == fullMatch:
		f.startCall(tag)
		return true
	case f.tools != nil && (b[f.pos] == '{' || b[f.pos] == '['):
		f.mode, f.form, f.phase = filterInCall, bareJSONForm, inJSON
		f.val, f.name, f.nest, f.checked = f.pos, "", jsonDepth{}, false
		return true
	}
	f.toProse(f.at)
	return true
}

func (f *contentFilter) boundaryTags() []string {
	switch {
	case f.afterCall:
		return afterCallTags
	case f.tools == nil && f.thinkOK:
		return thinkTags
	case f.tools == nil:
		return nil
	case f.thinkOK:
		return startTags
	}
	return callTags
}

// toProse goes on as answer text from p (or passes everything on when
// there is nothing left to look for).
func (f *contentFilter) toProse(p int) {
	f.at, f.pos = p, p
	f.thinkOK = false
	f.mode = filterInProse
	if f.tools == nil {
		f.mode = filterPassing
	}
}

// think releases reasoning up to </think>, holding back a tail that could
// be the start of it.
func (f *contentFilter) think() bool {
	b := f.buf[f.at:]
	if k := bytes.Index(b, []byte(thinkClose)); k >= 0 {
		f.reasoning(f.at, f.at+k)
		f.at += k + len(thinkClose)
		f.enterBoundary(false)
		return true
	}
	end := len(f.buf) - partialSuffix(b, thinkClose)
	f.reasoning(f.at, end)
	f.at = end
	return false
}

// prose releases answer text up to a call marker, holding back a tail that
// could be the start of one.
func (f *contentFilter) prose() bool {
	b := f.buf
	for i := f.pos; i < len(b); i++ {
		if c := b[i]; c != '<' && c != '[' {
			continue
		}
		tag, m := matchTag(b[i:], callTags)
		if m == noMatch {
			continue
		}
		f.release(f.at, i)
		f.at, f.pos = i, i
		if m == partMatch {
			return false
		}
		f.startCall(tag)
		return true
	}
	f.release(f.at, len(b))
	f.at, f.pos = len(b), len(b)
	return false
}
