package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentdeck/agentdeck/backend/export/foreign"
	"github.com/agentdeck/agentdeck/backend/store"
)

// sessionsImport imports a file: our own export (one session), or
// another app's history (foreign: ChatGPT, Open WebUI, LM Studio, OpenAI
// messages), each of its conversations a session, all or none. It prints
// what it took and what it left out; --json prints the report (for our
// own export, the session, as before).
func sessionsImport(ctx context.Context, db sessionsStore, path string, asJSON bool, env Env) int {
	data, code := readImportFile(path, env)
	if code != ExitOK {
		return code
	}
	res, err := foreign.Read(ctx, filepath.Base(path), data)
	if err != nil {
		return fail(env, err)
	}
	if res.App == foreign.Ours {
		sess, err := db.Import(ctx, bytes.NewReader(data))
		if err != nil {
			return fail(env, err)
		}
		if asJSON {
			return printJSON(env, sess)
		}
		fmt.Fprintf(env.Stdout, "imported session %s (%s, %d turns)\n", sess.ID, sess.Title, sess.Turns)
		return ExitOK
	}
	sessions, err := db.ImportDocuments(ctx, res.Documents)
	if err != nil {
		return fail(env, err)
	}
	for i, s := range sessions {
		res.Report.Conversations[i].SessionID = s.ID
	}
	if asJSON {
		return printJSON(env, res.Report)
	}
	printImportReport(env.Stdout, res.Report)
	return ExitOK
}

// readImportFile reads the file whole, refusing one over the import limit.
func readImportFile(path string, env Env) ([]byte, int) {
	file, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: cannot open %s: %v\n", path, err)
		return nil, ExitFailed
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, store.MaxImportBytes+1))
	if err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: cannot read %s: %v\n", path, err)
		return nil, ExitFailed
	}
	if len(data) > store.MaxImportBytes {
		fmt.Fprintf(env.Stderr, "agentdeck: %s is larger than the %d MB an import reads\n", path, store.MaxImportBytes>>20)
		return nil, ExitUsage
	}
	return data, ExitOK
}

// printImportReport writes what an import of another app's file took,
// conversation by conversation, and what it left out.
func printImportReport(w io.Writer, r foreign.FileReport) {
	turns, branches := r.Totals()
	fmt.Fprintf(w, "imported %d %s from %s (%d turns, %d branches)\n",
		len(r.Conversations), plural(len(r.Conversations), "conversation", "conversations"), r.App, turns, branches)
	for _, c := range r.Conversations {
		fmt.Fprintf(w, "  session %s  %s  (%d turns, %d branches)\n", c.SessionID, c.Title, c.Turns, c.Branches)
		if len(c.LeftOut) > 0 {
			fmt.Fprintf(w, "    left out: %s\n", strings.Join(c.LeftOut, ", "))
		}
	}
	if len(r.Empty) > 0 {
		fmt.Fprintf(w, "  not imported (no message with text): %s\n", strings.Join(r.Empty, ", "))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
