package app

import (
	"os"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export/exporttest"
	"github.com/agentdeck/agentdeck/backend/export/foreign"
	"github.com/agentdeck/agentdeck/backend/store"
)

// TestImportFile: the window's Import takes another app's file (here
// ChatGPT's, from github.com/mitkury/chatgpt-export-parser, MIT; see
// export/foreign/testdata/SOURCES.md) and our own export alike, answers
// with the sessions and the report, refuses a broken file naming the
// place with nothing stored, and Replay of an imported turn says why.
func TestImportFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	data, err := os.ReadFile("../backend/export/foreign/testdata/chatgpt_export_parser_branch.json")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := f.api.ImportFile("conversations.json", string(data))
	if err != nil || len(rep.Sessions) != 1 || rep.Report.App != foreign.ChatGPT {
		t.Fatalf("ImportFile: %+v %v", rep, err)
	}
	c := rep.Report.Conversations[0]
	if c.SessionID != rep.Sessions[0].ID || c.Turns != 3 || c.Branches != 2 || rep.Sessions[0].Turns != 3 {
		t.Fatalf("report %+v, session %+v", c, rep.Sessions[0])
	}

	_, err = f.api.ReplayTurn(rep.Sessions[0].ActiveTurnID)
	if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(apperr.MessageOf(err), "imported from ChatGPT: it has no recorded model calls to replay") {
		t.Fatalf("ReplayTurn of an imported turn: %v", err)
	}

	_, err = f.api.ImportFile("cut.json", `[{"mapping": {"a": {"parent": null, "children": []`)
	if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(apperr.MessageOf(err), "cut.json:1:") {
		t.Fatalf("ImportFile of a cut file: %v", err)
	}
	if page, err := f.api.ListSessions(store.Page{}); err != nil || len(page.Sessions) != 1 {
		t.Fatalf("sessions after the refused import and the refused replay: %+v (%v)", page.Sessions, err)
	}

	ours := exporttest.JSON(t, exporttest.Chat(exporttest.Exchange{ID: "a", User: "Hi", Answer: "Hello."}))
	rep, err = f.api.ImportFile("mine.json", string(ours))
	if err != nil || rep.Report.App != foreign.Ours || len(rep.Sessions) != 1 || rep.Report.Conversations[0].Turns != 1 {
		t.Fatalf("ImportFile of our own export: %+v %v", rep, err)
	}
}
