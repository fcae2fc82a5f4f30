package main

import (
	"fmt"
	"strings"
)

// Why each figure stands where it does: the words the report prints under
// a figure, with the numbers of the run that measured it.

func whySidebar(d *data) string {
	return fmt.Sprintf("Opening the grouped sidebar reads what it shows (stores/sessions.svelte.ts): the 200 projects, folded (ListProjects: names and counts, "+
		"not their settings, which only a project's own dialog reads with GetProject), the first page of \"No project\" and the pinned sessions; "+
		"the flat list read its first page of 100 sessions (%s µs). Three things keep the grouped open from growing with the sessions: "+
		"each project's count is a column the triggers of migration 0013 keep, so counting never reads the sessions; the pinned sessions and "+
		"\"No project\" each have an index of their own; and every list index is in the lists' exact order (updated_at DESC, id DESC), "+
		"so a page reads its rows in order and stops. Before that last change SQLite scanned and sorted all 10,000 sessions for a filtered page "+
		"(about 60 ms), and decoding 200 projects' settings cost more than the page it sat beside.",
		num(d.mv(kSidebar, "flat-µs")))
}

func whyBytes(d *data) string {
	return fmt.Sprintf("Written is what the process passes to write(2) from Start until the turn, its search entries and the checkpoint are on disk, "+
		"less the bare client's read of the same stream in the same process: SQLite writes each page twice, to the write-ahead log and then to the "+
		"file, so %s bytes stored become about twice that written. Issue 48 stored the answer's text once in the token runs, once in the "+
		"recording's chunks, and made the ending's copies references (turn_completed and final_answer to the turns row, the stage's response "+
		"to its stage_end, the recording's response to its chunks), each checked at write to read back byte for byte: from 25.3 to 9.8 bytes "+
		"stored and from 58.4 to 25.9 written per byte of answer in its own measurement. What is left: the answer is still in the events (token runs "+
		"and stage_end), the recording's chunks, the message, the turn's final_text and result, and the search index, whose entries for 50,000 "+
		"different words (the scripted tokens are tok0 ... tok49999) are nearly as large as the text; one place for all of them is the "+
		"next step (docs/STORAGE.md).", num(d.mv(kPipeline, "stored-bytes")))
}

func whyPipeline(d *data) string {
	rate := d.mv(kEventLog, "events/s")
	return fmt.Sprintf("Since issue 22 a token is no longer a row: the tokens of a write batch are one row (a token run; the store writes %s events/s that way, "+
		"BenchmarkEventLogWrite), the Coalescer merges typed text without decoding each token again, and the Hub keeps a running turn's events in blocks. "+
		"Then, each step found with a CPU profile or a timeline of this benchmark: chunks decoded by go-json-experiment (the encoding/json/v2 design) at "+
		"1.0 µs and 2 allocations instead of 2.3 µs and 11, and then a plain text delta, nearly every chunk of an answer, read in one pass over its "+
		"bytes at 0.5 µs, anything else still by go-json-experiment (BenchmarkDecodeChunk, FuzzDecodeChunk); the capture record and the event log gathered in blocks, and the "+
		"record handed to the store in those blocks and encoded into one string of its size (it was joined into one 5.6 MB slice, encoded, and copied "+
		"again); a batch's token runs written into one string of their size (the flusher allocated 18 MB for 3 MB of runs); the built-in workflows "+
		"parsed once instead of at every start (4 ms). Two steps took the most: the write-ahead log is checkpointed by the store's own worker after "+
		"each write, where SQLite checkpointed inside whichever of the turn's commits crossed 64 pages, which then waited to copy and sync the file; "+
		"and the answer's search entries are written by the store's indexer once the turn's event log closes (woken at FinishTurn, it held the writer "+
		"for about 100 ms while the turn still had its ending events to store). "+
		"Where the time goes now, from a timeline of thirty runs (medians; the turn takes about 240 ms on this machine when it is quiet, bare go-openai "+
		"210-250): the stream itself about 135 ms, in which the llm client decodes each chunk and the Emitter stamps it and hands it to the event log, "+
		"Hub and Coalescer (about 2.5 µs a token), while the other core serves the stream, writes the event log's batches and runs the garbage collector; "+
		"then, one after another on the one writer, the capture record (a 2.6 MB row) about 32 ms, the last batch of events about 18, FinishTurn about "+
		"28 and the ending events with the answer about 24. The search entries (about 95 ms) and the checkpoints follow on the other core, after the turn. "+
		"Because the full path keeps both cores busy and bare go-openai one, other work on the machine costs the full path more: the ratio moves with "+
		"the load average above. "+
		"Bare go-openai reads the stream in %s ms and keeps nothing. The full path writes about 10 MB for this 439 KB answer: the answer whole nine "+
		"times, about 4 MB (final_text; the result, twice; the final_answer and turn_completed events, three times; messages; the stage's response; "+
		"the search index), the token runs 3.1 MB (each token with its id and time) and the capture record 2.6 MB. The next factor is in that record: "+
		"the answer stored once and referred to elsewhere, and the capture written in parts as it streams instead of at the end; each changes what "+
		"the record holds and how old files and exports read, so each is a change of its own, not a tuning. "+
		"The absolute target is met %s× over.",
		num(rate), num(d.mv(kPipeline, "bare-ms")), num(d.mv(kPipeline, "full-tok/s")/20_000))
}

func whyPeer(peer string) func(*data) string {
	return func(*data) string {
		s := "Agentdeck's engine does more per token than the peer's loop: every token is a turn.Event (id, sequence, timestamp, JSON data) handed to the sinks, " +
			"and every tool call is checked against its JSON Schema and the guards. "
		switch peer {
		case "langchaingo":
			s += "langchaingo instead re-concatenates the whole message string on every chunk (quadratic in the step's length), which is why its bytes allocated grow so fast. "
		case "eino":
			s += "Most of eino's allocations are in eino-ext's OpenAI client (a fork of go-openai), which decodes every chunk twice (the struct with sonic, then its " +
				"unknown fields into a map) and builds a *schema.Message per chunk; its compiled graph (stream copies for the callbacks and the branch's tool-call check, " +
				"ConcatMessages of each step) is a smaller share (about 80% and 13% of its bytes allocated in a memory profile taken while adding it). "
		}
		return s + "Profile with -memprofile on BenchmarkPeerToolTurn to see which side moved."
	}
}

func whyStop(*data) string {
	return "Stop cancels the turn's context, which closes the HTTP stream at once (the bare go-openai floor is well under a millisecond); " +
		"what remains is committing the cancelled turn (FinishTurn and the last event batch). A p99 over target means a write stalled: look for a WAL checkpoint or a long transaction in the same process."
}

func whyStopAll(*data) string {
	return "StopGroup cancels every column's context before it reads anything, so the four streams are closed together; the p50 is one turn's Stop. " +
		"The tail is scheduling: the scripted server runs in the benchmark's process, so noticing the last of four disconnects competes for the same " +
		"cores with the four turns committing their cancelled endings (pure-Go SQLite writes) at that moment, and with anything else on the machine. " +
		"Compare with 3a from the same run; a model server in another process (as in real use) or a quieter machine removes most of it."
}

func whyReplay(*data) string {
	return "A replay reads each call's capture (one SELECT and a JSON decode of its chunks) and links it to the new turn with an INSERT; anything slower than that is the workflow or the store, not the model."
}

func whyRerun(*data) string {
	return "No model time is spent before the live step: the 19 calls before it cost what a replay's calls do (4a: each recording read, linked to the new turn with an INSERT, " +
		"and streamed through the workflow as stored events), and Start reads the original's whole event log to find the step and rebuild nothing else. " +
		"Both are SQLite reads and writes on 2 cores, so the figure follows the load on the machine as 4a's does: 43-72 ms over runs at load averages of 13-20 while it was built, " +
		"when 4a's replay of 20 calls took 48 ms."
}

func whyExport(d *data) string {
	return fmt.Sprintf("The export writes the document as it reads the session (one read transaction, each table's query read alongside the turns', in their order) "+
		"and copies the JSON columns (event data, results, diagnostics) as stored, so it holds %s MB of heap at its peak for the %s MB file and allocates %s MB. "+
		"What it adds to the raw floor is small: a CPU profile of this benchmark, taken while building the streaming export, puts about 60%% of the export in reading rows "+
		"(SQLite stepping through them, about 35%%, and the driver copying each column into a Go string, about 15%%), as the floor does too, "+
		"and under a tenth in writing the JSON; the rest is allocation and GC of the strings the driver returns. "+
		"Reading fewer rows (token runs stored as one row) lowers both sides. The ratio is sensitive to load on the machine, since both sides are short.",
		num(d.mv(kExport, "export-peak-heap-MB")), num(d.mv(kExport, "export-MB")), num(d.mv(kExport, "export-alloc-MB")))
}

func whyUI(d *data) string {
	var ws []string
	for i := 1; i <= 5; i++ {
		k := fmt.Sprintf("ui_window%d_", i)
		ws = append(ws, fmt.Sprintf("%s fps (longest %s ms) at %s KB", num(d.dkv(k+"fps")), num(d.dkv(k+"longest_frame_ms")), num(d.dkv(k+"text_kb"))))
	}
	return "By 5 s windows: " + strings.Join(ws, "; ") + " of answer text. " +
		"The answer is markdown as a model writes it (bench/peer's uistream_test.go: a heading, a paragraph, a list, a code block and a paragraph every 100 tokens, " +
		"2,500 blocks at 50,000 tokens); until issue 48 it was one paragraph of 50,000 words, which no model writes and whose layout the browser does whole on every change. " +
		"A streaming answer's finished blocks are rendered once and keep their DOM; each update lexes and renders the open blocks only (lib/markdown.ts), " +
		"and the finished blocks sit in chunks of 32 that the browser skips while they are out of view (Markdown.svelte, content-visibility). " +
		"What is left per frame is the open block's markdown render and sanitizing, the Svelte update and the page's layout and paint of what is in view. " +
		"The frame rate is sensitive to other load on the machine's 2 cores: see the load averages above."
}

func whyLongestFrame(*data) string {
	return "The longest frames come when an update meets a burst of events or other load on the machine (a single long frame is more likely the machine than the page; " +
		"the per-window longest frames in 7a's note show whether it grows with the answer)."
}

func whyUpdateCost(*data) string {
	return "Measured in the page (bench/ui/stream.mjs): for each frame in which the answer's DOM changed, the time from the frame's first animation callback " +
		"(where the turn store applies the frame's events) to the end of its rendering (a message posted from that callback is handled after style, layout and paint), " +
		"so the update's whole main-thread work without the wait for the frame; its median over the frames at 100 to 1,000 tokens against 49,000 to 51,000. " +
		"Until issue 48 it grew with the answer: the check that the text continues the one before (String.startsWith, which V8 runs a character at a time, about 3 ms at 200 kB), " +
		"DOMPurify's config parsed on every call, and the browser's style, layout, pre-paint and paint of the whole answer on every frame. " +
		"Few frames fall in the first window (the answer passes 1,000 tokens in half a second): its median moves with the load."
}

func whyColumns(*data) string {
	return "Four answers stream at once, each updated once a frame: a frame holds four updates (each its open block's markdown render, sanitizing and DOM), " +
		"on the same main thread, so this figure is about four times 7b2's cost per update against a 16.7 ms frame; it is the most sensitive figure to other load on the machine."
}

func whyStart(d *data) string {
	return fmt.Sprintf("A trivial Wails window that loads one page and calls Go once starts in %s ms on this machine in the same run; the rest is Agentdeck's own start: "+
		"creating and migrating the fresh database and building the engine in its own process, then in the web process the shell's bundle "+
		"(about 480 KB of JavaScript, 170 KB of it the markdown renderer, and 74 KB of CSS, parsed and run, and its first layout) and the first backend calls, the session list first and asked for before the shell mounts. "+
		"Every page, dialog and panel the first screen does not show is a chunk loaded when it opens. Nothing for charts is on that path: "+
		"Vega-Lite (about 850 KB) is a chunk of its own that the page loads with the first chart, and the chart schema compiles with the first render_chart call "+
		"(it used to compile in the background at start, about 160 ms of CPU competing with WebKit's start on 2 cores; BenchmarkCompileSchema). "+
		"Start times are the most sensitive figure to other load on the machine (see the load averages above): while building this harness Agentdeck's window was ready in 0.35-0.45 s on a quiet machine, "+
		"0.8-1.0 s at a load average of 2, and 1-7 s while other test runs kept it above 10. The generated history itself does not slow the start: "+
		"in an interleaved test at a load of 2, empty database 0.86-0.98 s, 1,000 empty sessions 0.86-1.05 s, the 625 MB history 0.81-0.93 s.",
		num(d.dkv("floor_ready_ms")))
}

func whyRSS(key string) func(*data) string {
	return func(d *data) string {
		added := func(k string) float64 { return d.dkv("agentdeck_"+k) - d.dkv("floor_"+k) }
		s := fmt.Sprintf("Most of it is the platform: a trivial Wails window (one page that calls Go once) uses %s MB RSS and %s MB PSS on this machine, summed over its Go process and WebKit's web and network processes; "+
			"RSS counts the GTK and WebKit libraries mapped in each process again, PSS shares them out among the processes that map them. "+
			"Idle, Agentdeck adds %s MB RSS (%s MB PSS): %s MB (PSS %s) in its own process and %s MB (PSS %s) in the web process (the table under the desktop details splits them). "+
			"In its own process, the start runs every package's init and the start path once, scattered over the 68 MB binary, and the kernel maps the pages around each fault: "+
			"about 30 MB of its code and read-only data were resident for code that does not run again (7 MB for the trivial window's whole binary). "+
			"Once the UI is ready the app hands the Go heap's free pages back; it keeps the binary's mappings, since dropping them (tried: about 27 MB less RSS) leaves the pages in the page cache, "+
			"so the machine would use the memory all the same. The rest is the Go heap (about 6 MB live, much of it built by library inits: jsonschema, excelize, goldmark, wazero) and the SQLite caches. Nothing there is for charts: the Vega-Lite schema compiles with the first chart "+
			"and hands its garbage back to the OS at once (compiled at start, it added about 22 MB here). "+
			"In the web process it is the page: its DOM, styles and the JavaScript heap and code of the bundle, and the pages of WebKit's and JavaScriptCore's libraries that a richer page touches, about half each. "+
			"The first screen's bundle is the shell (every page and dialog loads when it opens); a build that also loaded the conversation view and the markdown renderer "+
			"when a session opens used 4.8 MB less there. The rest is the shell's JavaScript heap and DOM, and JavaScriptCore's and WebKit's code that a page of this size touches.",
			num(d.dkv("floor_rss_mb")), num(d.dkv("floor_pss_mb")), num(added("rss_mb")), num(added("pss_mb")),
			num(added("main_rss_mb")), num(added("main_pss_mb")), num(added("webprocess_rss_mb")), num(added("webprocess_pss_mb")))
		if key == "history_open_rss_mb" {
			s += fmt.Sprintf(" With the generated history, the idle window uses %s MB (1,000 sessions listed), and opening the 5,000-turn session (its first page of turns rendered) adds %s MB.",
				num(d.dkv("history_idle_rss_mb")), num(d.dkv("history_open_rss_mb")-d.dkv("history_idle_rss_mb")))
		}
		return s
	}
}

func whyOTLP(d *data) string {
	return fmt.Sprintf("With the export on, the runner's Ended only queues the turn's id; the exporter's worker then reads the stored turn, builds its spans and "+
		"posts them (%s ms after the turn's end here), off the turn's path but on the same 2 cores. A figure over the target means that work, or the "+
		"machine's other load, overlapped the measured turns: compare the load averages above, and profile BenchmarkOTLPExport50k.", num(d.mv(kOTLP, "export-ms")))
}
