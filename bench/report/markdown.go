package main

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

func render(mc machine, rows, comps []row, d *data, before *beforeAfter, took time.Duration) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Benchmarks\n\n")
	w("Written by `make bench` (scripts/bench.sh, then bench/report) on %s. Do not edit it by hand: run `make bench` again.\n\n", mc.date.Format("2006-01-02 15:04 MST"))
	w("## Machine\n\n| CPU | Cores | Memory | OS | Kernel | Go | Load average (1, 5, 15 min) at start / end |\n|---|---|---|---|---|---|---|\n")
	w("| %s | %d | %.1f GB | %s | %s | %s | %s |\n\n", mc.cpu, mc.cores, mc.memGB, mc.os, mc.kernel, mc.goVersion, cmpOr(mc.load, "not recorded"))
	w("The machine is shared: a load average above the core count at the start or the end means other work ran during the run, and the absolute numbers (the desktop ones most) suffer more than the ratios.\n\n")
	if took > 0 {
		w("The whole run took %s. ", took.Round(time.Second))
	}
	b.WriteString("Packages are benchmarked one at a time with `-benchtime 5x` (the peer 10x; the stop, replay, history and sidebar benchmarks run once and repeat inside: 200 stops, 5 replays, 100, 18 and 9 timed operations each against its floor, 200 sidebar opens each way). " +
		"Every figure is a median, and every path is timed alternately with its floor or peer in the same loop, so the ratio compares like with like on a noisy shared machine " +
		"(these machines vary ±20-30% run to run). Absolute numbers are for this machine only.\n\n")

	w("## Summary\n\n")
	table(&b, rows)
	missed(&b, rows)
	if before != nil {
		beforeAfterTable(&b, before)
	}
	var unmeasured []row
	for _, r := range rows {
		if !r.measured {
			unmeasured = append(unmeasured, r)
		}
	}
	if len(unmeasured) > 0 {
		w("### Not measured\n\n")
		for _, r := range unmeasured {
			w("- **%s** %s, %s: %s\n", r.id, r.figure, r.what, r.notMeasured)
		}
		w("\n")
	}
	peerDetails(&b, d)
	w("%s", howMeasured)
	w("## Component benchmarks\n\nThe per-package benchmarks the figures build on, with the targets their doc comments give.\n\n")
	table(&b, comps)
	missed(&b, comps)
	desktopDetails(&b, d)
	w("## Every benchmark of the run\n\nAll custom metrics as reported (`b.ReportMetric`); ns/op is the time of the whole benchmark loop divided by its iterations.\n\n")
	w("| Package | Benchmark | Metrics |\n|---|---|---|\n")
	for _, k := range d.bench.order {
		pkg, name, _ := strings.Cut(k, " ")
		w("| %s | %s | %s |\n", pkg, name, metricsText(d.bench.metrics[k]))
	}
	if len(d.bench.failed) > 0 {
		w("\nFailed: %s (see the log of `make bench`).\n", strings.Join(d.bench.failed, ", "))
	}
	return b.String()
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func table(b *strings.Builder, rows []row) {
	b.WriteString("| # | Figure | What | Ratio (floor or peer, same run) | Absolute | Target | Result |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		ratio, abs := r.ratio, r.abs
		if !r.measured {
			ratio, abs = "—", "—"
		}
		result := r.result()
		if r.measured && !r.met {
			result = "**missed**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.id, r.figure, r.what, ratio, abs, r.target, result)
	}
	b.WriteString("\n")
}

// beforeAfterTable shows each figure the baseline tree measured beside the
// same figure now: the ratios come from one run on one machine, so the
// change is not the machine's mood.
func beforeAfterTable(b *strings.Builder, ba *beforeAfter) {
	fmt.Fprintf(b, "### Before and after, in this run\n\n"+
		"The tree before issue 22 (%s) was checked out beside this one and measured in this same run, one benchmark at a time like the rest: "+
		"the token pipeline, the history benchmarks, and the desktop cold start and memory (its release binary alternating with this one and the floor window). "+
		"Each cell is that tree's figure against a floor or peer of this run.\n\n", cmpOr(ba.rev, "the baseline"))
	b.WriteString("| # | What | Before | Now | Target |\n|---|---|---|---|---|\n")
	for i, r := range ba.rows {
		if !r.measured {
			continue
		}
		now := ba.now[i]
		nowText := "not measured"
		if now.measured {
			nowText = now.ratio + "; " + now.abs
		}
		fmt.Fprintf(b, "| %s | %s | %s; %s | %s | %s |\n", r.id, r.what, r.ratio, r.abs, nowText, r.target)
	}
	b.WriteString("\n")
}

func missed(b *strings.Builder, rows []row) {
	var out []row
	for _, r := range rows {
		if r.measured && !r.met {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return
	}
	b.WriteString("### Missed targets\n\n")
	for _, r := range out {
		fmt.Fprintf(b, "- **%s** %s, %s: %s.\n  Why: %s\n", r.id, r.figure, r.what, r.short, r.why)
	}
	b.WriteString("\n")
}

// peerDetails shows Agentdeck and every peer side by side, each measure
// a row: the medians of figure 2, then Agentdeck's ratio to each peer.
func peerDetails(b *strings.Builder, d *data) {
	if _, ok := d.bench.metrics[kPeer]; !ok {
		return
	}
	b.WriteString("### Peers side by side\n\nThe same tool-calling turn (figure 2), medians of the same run.\n\n| Measure | Agentdeck")
	for _, p := range peers {
		fmt.Fprintf(b, " | %s", p)
	}
	for _, p := range peers {
		fmt.Fprintf(b, " | Agentdeck / %s", p)
	}
	b.WriteString(" |\n|---|---")
	b.WriteString(strings.Repeat("|---", 2*len(peers)))
	b.WriteString("|\n")
	for _, m := range peerMeasures {
		fmt.Fprintf(b, "| %s | %s %s", m.what, num(d.mv(kPeer, "agentdeck-"+m.unit)), m.shown)
		for _, p := range peers {
			fmt.Fprintf(b, " | %s %s", num(d.mv(kPeer, p+"-"+m.unit)), m.shown)
		}
		for _, p := range peers {
			fmt.Fprintf(b, " | %s×", num(d.mv(kPeer, m.unit+"/"+p)))
		}
		b.WriteString(" |\n")
	}
	b.WriteString("\n")
}

// memoryDetails shows figure 6c by process, RSS beside PSS: Agentdeck,
// the trivial window and what Agentdeck adds, medians of the same run.
func memoryDetails(b *strings.Builder, d *data) {
	if _, ok := d.dk("agentdeck_pss_mb"); !ok {
		return
	}
	b.WriteString("### Idle memory by process\n\nFigure 6c, medians in MB. PSS shares each mapped library out among the processes that map it, so the PSS of the whole is what it costs the machine.\n\n")
	b.WriteString("| Process | Agentdeck RSS | Trivial window RSS | Added RSS | Agentdeck PSS | Trivial window PSS | Added PSS |\n|---|---|---|---|---|---|---|\n")
	for _, p := range []struct{ name, key string }{
		{"Go process (the app)", "main_"}, {"WebKitWebProcess", "webprocess_"}, {"WebKitNetworkProcess", "networkprocess_"}, {"All", ""},
	} {
		fmt.Fprintf(b, "| %s", p.name)
		for _, m := range []string{"rss_mb", "pss_mb"} {
			a, f := d.dkv("agentdeck_"+p.key+m), d.dkv("floor_"+p.key+m)
			fmt.Fprintf(b, " | %s | %s | %s", num(a), num(f), num(a-f))
		}
		b.WriteString(" |\n")
	}
	b.WriteString("\n")
}

func desktopDetails(b *strings.Builder, d *data) {
	if len(d.desktop.values) == 0 && len(d.desktop.notes) == 0 {
		return
	}
	b.WriteString("## Desktop and UI details\n\nEvery sample of the desktop and UI parts (scripts/bench.sh); the figures above are medians. RSS and PSS are summed over the app's process and all its descendants (WebKitWebProcess, WebKitNetworkProcess), read from /proc after the window has been ready and idle for 3 s. The ui_window rows are the five 5 s windows of figure 7, in order.\n\n")
	b.WriteString("| Measurement | Median | Samples |\n|---|---|---|\n")
	for _, k := range slices.Sorted(maps.Keys(d.desktop.values)) {
		s := d.desktop.values[k]
		parts := make([]string, len(s))
		for i, v := range s {
			parts[i] = num(v)
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", k, num(d.dkv(k)), strings.Join(parts, ", "))
	}
	if len(d.desktop.notes) > 0 {
		b.WriteString("\n")
		for _, k := range slices.Sorted(maps.Keys(d.desktop.notes)) {
			fmt.Fprintf(b, "- %s: %s\n", k, d.desktop.notes[k])
		}
	}
	b.WriteString("\n")
	memoryDetails(b, d)
}

func metricsText(m map[string]float64) string {
	units := make([]string, 0, len(m))
	for u := range m {
		if u != "iterations" {
			units = append(units, u)
		}
	}
	slices.Sort(units)
	parts := make([]string, 0, len(units))
	for _, u := range units {
		v := m[u]
		s := num(v)
		if u == "ns/op" && v >= 1e6 {
			s = num(math.Round(v/1e6)) + " ms/op"
			parts = append(parts, s)
			continue
		}
		parts = append(parts, s+" "+u)
	}
	return strings.Join(parts, ", ")
}

const howMeasured = `## How each figure is measured

1. **Token pipeline** (app/bench_pipeline_test.go): the scripted server (llmtest) streams 50,000 tokens as fast as loopback allows.
   The full path is a real runner turn, as the desktop app starts it: runner.Start with the server's base URL → the llm client with capture
   recording into the SQLite captures table → workflow and agent engine → Emitter → the store's EventLog, the app's Hub, and a Coalescer whose
   batches are JSON-encoded as Wails' EventsEmit would. It is timed from Start to Handle.Wait (the turn and its events are stored). The floor is
   bare go-openai reading the same stream and doing nothing with it; the two alternate, medians of 5.
   Figure 1d (app/bench_bytes_test.go), in the same loop: the bytes the process passes to write(2) and pwrite(2) (/proc/self/io wchar) from
   Start until the turn, its search entries and the write-ahead log's checkpoint are on disk, less the same count for the bare client's read
   of the same stream (the scripted server's socket writes are the same for both), per byte of the answer's text; beside it, the pages in use
   that the turn adds to the database file.
   Figure 1c (app/bench_otlp_test.go) is the same turn with the live OpenTelemetry export on against it off, alternating in one rig: with it on,
   the runner's Ended hands the turn to a traces.Exporter posting OTLP/HTTP protobuf to a collector on loopback (an in-process receiver on
   127.0.0.1 that reads each request and answers 200 to /v1/traces). The turn is timed from Start to Handle.Wait as in 1a; each iteration then
   waits, outside the timed span, until the collector has the turn (export-ms, from the turn's end), medians of 5 each.
2. **Peers** (bench/peer, its own Go module so that the peers are not dependencies of the app): the same tool-calling turn, 10 model steps,
   10 calls of a trivial lookup tool, 20,000 streamed tokens, through Agentdeck's agent.Agent, through langchaingo v0.1.14's OpenAI client and
   through eino v0.7.36's ReAct agent (flow/agent/react) over eino-ext's OpenAI chat model v0.1.7.
   langchaingo's agent executor is built around prompt templates and output parsers for the older function-call API and does not stream, so its
   side is what its OpenAI functions agent does inside: llms.GenerateContent with llms.WithTools and a streaming func, in a loop that appends the
   tool results as tool messages. eino's side is its agent itself, run with Agent.Stream: every step's tokens are read through a chat model
   callback (as eino's WithMessageFuture does for a UI), and its tool-call checker reads each step's whole message, since the script streams text
   before the tool calls. Every turn of every side is checked (tokens streamed, model and tool calls, the final answer), and TestPeerToolTurn
   checks on the server that each side sent the tool's results for the script's arguments back. The scripted server runs in a child process so
   that no side is charged for it. Per turn: wall time, runtime.MemStats Mallocs and TotalAlloc deltas, and the peak of live heap objects above
   the starting level (sampled every millisecond through runtime/metrics, which does not stop the world). The three take turns going first,
   medians of 10, after a warm-up turn each.
3. **Stop latency** (app/bench_stop_test.go): 200 turns streaming a token every millisecond are stopped with runner.Stop at a random point
   5-50 ms after their first token. (a) Stop → the scripted server records the client's disconnect; (b) Stop → Handle.Done, which closes after
   the turn is committed as cancelled with its partial answer. The floor is bare go-openai cancelling its request context at the same kind of
   moment, alternating. (c) Stop all (app/bench_stopall_test.go): 100 times, one message goes side by side to four models streaming a token
   every millisecond each (API.SendSideBySide), and API.StopGroup is called, as the UI's Stop all does, 5-50 ms after every column's first
   token; timed from the call to the scripted server recording the last of the four disconnects, and to the last column's turn_completed.
4. **Replay** (app/bench_replay_test.go): a critique-revise turn of 20 model calls (a draft, nine failing critiques each followed by a
   revision, a passing critique) recorded against a server streaming 25 tokens a call at 50 tokens/s, then replayed from its captures five times
   through runner.Start in replay mode. Then each of the 20 calls is replayed through the capture middleware (canonical request, key, lookup,
   chunk delivery) and looked up with a bare store GetCapture, alternating, 25 times each. (c) Re-run from a step
   (app/bench_rerun_test.go): the same turn, recorded without the pacing, is re-run 15 times from its last step (the passing critique; the
   19 calls before it come from its recordings), timed from runner.Start to the re-run's live_from event, where its one live call begins; the
   floor, alternating, is a plain turn of the same workflow from runner.Start to its first think_start.
5. **History at scale** (backend/store/bench_history_test.go): a database of 1,000 sessions, 50,000 turns, 100,000 messages (all in the
   search index) and 1,000,000 events, written with direct SQL in transactions of 1,000 turns and kept in the run's temp dir for the desktop part.
   Each operation is timed against the raw SQL it wraps (the same statements, rows scanned into plain values), alternating: opening the
   5,000-turn session (ListTurns' first page and GetTurn of the newest turn), Search for six queries from a very common word to a rare one
   and a prefix (geometric mean of the per-query ratios), and the JSON export of the 1,000-turn session (20,000 events); then, untimed, the
   export's peak heap above its start (sampled every millisecond through runtime/metrics, as for the peer) and the bytes it allocates, medians of 3.
6. **Desktop** (scripts/bench.sh): the release binary built by ` + "`make build`" + ` starts under Xvfb with a fresh database and
   AGENTDECK_READY_FILE, like scripts/smoke.sh; cold start is the time from launch to the ready file, which the UI writes once its shell has
   rendered, the session list has been read (it is asked for first, before the shell mounts) and Status has answered. Memory is read 3 s after that, once the app has handed back what only its start used (app/trim.go). Median of 5, alternating with a trivial Wails window (bench/peer/cmd/floorapp: one page that
   calls Go once, same window options) as the floor. Resident memory is summed from /proc over the process tree, RSS (VmRSS) and PSS
   (smaps_rollup), in all and for the Go process and WebKit's web and network processes each. With the generated history, the
   window starts with 1,000 sessions listed, and the 5,000-turn session (first in the list) is opened by clicking it with xdotool; the click
   counts only if the screenshot of the header changed.
7. **UI streaming** (scripts/bench.sh and bench/ui/stream.mjs): ` + "`agentdeck serve`" + ` over a fresh database whose default provider is a
   scripted server (the bench/peer test binary in its UI mode) that streams 2,000 tokens a second for 30 s, paced to an absolute schedule.
   Headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core) records the idle page's frames for 3 s (the floor), sends a message
   through the composer, and from the first tokens on records every requestAnimationFrame for five windows of 5 s: frames per second and the
   longest gap between frames, overall and per window, with the size of the page's text at the end of each window.
   Figure 7c (bench/ui/mermaid.mjs), in the same page afterwards: the scripted server answers "paint code R" at once with a plain 200-line
   code block (the floor) and "paint mermaid R" with a 200-node Mermaid flowchart (bench/peer/uipaint_test.go); each is sent in a new
   session, and a paint is the time from the Enter that sends it to the first frame after the block is on the page (the code block with its
   last line; the diagram drawn, its last node's label in the SVG). Round 0 is cold (mermaid's chunks load with it) and reported apart; the
   figure is the median of 5 more rounds, each diagram new to the page's cache of drawn diagrams.

`
