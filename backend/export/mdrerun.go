package export

import (
	"fmt"
	"strconv"
	"strings"
)

// mdReruns says, of each turn re-run from a step of another (version 9),
// where it started and what it changed there, for its heading: "Re-run
// of turn #3 from tool result 2, edited tool result". It reads the
// numbers from turns as the session holds them, before a branch is cut
// (withBranches): the source is often on another branch. A source not in
// the file (deleted, or the file holds only part of the session) is "an
// earlier turn".
func mdReruns(turns []Turn) map[string]string {
	seqs := map[string]int{}
	for _, t := range turns {
		seqs[t.ID] = t.Seq
	}
	out := map[string]string{}
	for _, t := range turns {
		if t.FromStep == "" {
			continue
		}
		source := "an earlier turn"
		if seq, ok := seqs[t.FromTurnID]; ok && t.FromTurnID != "" {
			source = fmt.Sprintf("turn #%d", seq)
		}
		out[t.ID] = fmt.Sprintf("Re-run of %s from %s, %s", source, mdStepLabel(t.FromStep), mdEditLabel(t.FromEdit))
	}
	return out
}

// mdStepLabel names a step by its timeline id (start, stageN, callN,
// toolN), lowercase, to follow "from". The transcript has not the
// source's events to name the tool, and needs not: the number finds it.
func mdStepLabel(id string) string {
	for _, k := range []struct{ prefix, label string }{{"stage", "stage"}, {"call", "model call"}, {"tool", "tool result"}} {
		if n, ok := strings.CutPrefix(id, k.prefix); ok {
			if _, err := strconv.Atoi(n); err == nil {
				return k.label + " " + n
			}
		}
	}
	if id == "start" {
		return "the start"
	}
	return "step " + mdEscape(id)
}

// mdEditLabel says what a re-run changed at its step (runner.EditKind).
func mdEditLabel(kind string) string {
	switch kind {
	case "":
		return "no edit"
	case "message":
		return "edited message"
	case "system_prompt":
		return "edited system prompt"
	case "tool_result":
		return "edited tool result"
	case "reply":
		return "edited reply"
	case "settings":
		return "changed settings"
	case "stage":
		return "changed stage settings"
	}
	return "edit " + mdEscape(kind)
}
