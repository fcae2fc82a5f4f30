package openai

// startCall begins reading a call whose marker tag is at pos; its text
// starts at at (which may include leading whitespace, kept if it fails).
func (f *contentFilter) startCall(tag string) {
	f.mode, f.phase = filterInCall, awaitValue
	switch tag {
	case toolCallOpen:
		f.form = hermesForm
	case pythonTag:
		f.form = pythonTagForm
	default:
		f.form = mistralForm
	}
	f.pos += len(tag)
	f.markEnd = f.pos
	f.name = ""
}

// call reads a marked or bare call until it is whole or cannot be one.
func (f *contentFilter) call() bool {
	switch f.phase {
	case awaitValue, awaitArgs:
		return f.callValue()
	case readName, skipCallID:
		return f.mistralName()
	case afterName:
		return f.mistralTag()
	case inJSON:
		return f.inJSON()
	}
	return f.closeTag()
}

// callValue waits for the JSON value after a marker (or a Mistral name, or
// [ARGS]): an object or array, or a Mistral tool name right after the marker.
func (f *contentFilter) callValue() bool {
	b := f.buf
	if f.pos = skipSpace(b, f.pos); f.pos == len(b) {
		return false
	}
	switch c := b[f.pos]; {
	case c == '{' || c == '[' && f.phase == awaitValue:
		f.val, f.nest, f.phase = f.pos, jsonDepth{}, inJSON
		return true
	case f.form == mistralForm && f.phase == awaitValue && f.pos == f.markEnd && isNameByte(c):
		f.val, f.phase = f.pos, readName
		return true
	}
	return f.fail(f.pos)
}

// mistralName reads a Mistral tool name (or call id), which must name an
// offered tool.
func (f *contentFilter) mistralName() bool {
	b := f.buf
	for f.pos < len(b) && isNameByte(b[f.pos]) && f.pos-f.val <= maxCallName {
		f.pos++
	}
	if f.pos-f.val > maxCallName {
		return f.fail(f.pos)
	}
	if f.pos == len(b) {
		return false
	}
	if f.phase == readName {
		if f.name = string(b[f.val:f.pos]); !f.tools[f.name] {
			return f.fail(f.pos)
		}
	}
	f.phase = afterName
	return true
}

// mistralTag reads what follows a Mistral name or call id: [ARGS],
// [CALL_ID], or the arguments themselves when the server dropped [ARGS] as
// a special token.
func (f *contentFilter) mistralTag() bool {
	b := f.buf
	if b[f.pos] == '{' {
		f.phase = awaitArgs
		return true
	}
	tag, m := matchTag(b[f.pos:], nameTags)
	switch m {
	case partMatch:
		return false
	case noMatch:
		return f.fail(f.pos)
	}
	f.pos += len(tag)
	f.phase = awaitArgs
	if tag == mistralCallID {
		f.val, f.phase = f.pos, skipCallID
	}
	return true
}

// closeTag waits for </tool_call> after a Hermes call's JSON value.
func (f *contentFilter) closeTag() bool {
	b := f.buf
	if f.pos = skipSpace(b, f.pos); f.pos == len(b) {
		return false
	}
	switch _, m := matchTag(b[f.pos:], closeTags); m {
	case partMatch:
		return false
	case noMatch:
		return f.fail(f.pos)
	}
	f.pos += len(toolCallClose)
	return f.decide()
}

// inJSON scans the call's JSON value on to its end.
func (f *contentFilter) inJSON() bool {
	b := f.buf
	if f.form == bareJSONForm && !f.checked {
		switch bareOpening(b[f.val:]) {
		case noMatch:
			return f.fail(f.pos)
		case fullMatch:
			f.checked = true
		}
	}
	done, bad := f.nest.scan(b, &f.pos)
	switch {
	case bad:
		return f.fail(f.pos)
	case !done:
		return false
	case f.form == hermesForm:
		f.phase = awaitClose
		return true
	}
	return f.decide()
}

// decide turns the whole call text at[:pos] into calls, or releases it as
// answer text.
func (f *contentFilter) decide() bool {
	calls, ok := f.parse()
	if !ok {
		return f.fail(f.pos)
	}
	f.out.Calls = append(f.out.Calls, calls...)
	f.at = f.pos
	f.enterBoundary(true)
	return true
}

// fail gives up on the call: its text up to p is answer text, and prose
// goes on from p. A bare value that does not open like a call is read again
// from its start as prose, so how far the scan had got (which depends on
// how the stream was split) does not matter.
func (f *contentFilter) fail(p int) bool {
	if f.form == bareJSONForm && !f.checked {
		p = f.at
	}
	f.release(f.at, p)
	f.toProse(p)
	return true
}
