package export_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/export/exporttest"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// continued is a session whose first answer was stopped inside a code
// block, continued with an instruction (a server that takes no prefix)
// until it reached the token budget, and continued again as a prefix;
// then the next message.
func continued() export.Document {
	const instruction = "Continue your previous answer exactly where it stopped."
	return exporttest.Chat(
		exporttest.Exchange{ID: "q", User: "Write a Go program that counts", Answer: "Here it is:\n\n```go\nfunc main() {",
			State: export.StateCancelled, In: 20, Out: 8},
		exporttest.Exchange{ID: "q2", Parent: "q", Continues: true, User: instruction, Answer: "\n\tfor i := 1; i <= 3; i++ {\n\t\tfmt.Println(i)\n\t}",
			Termination: turn.Termination{Kind: turn.TermBudgetExceeded, Limit: 100, Used: 120}, In: 40, Out: 60},
		exporttest.Exchange{ID: "q3", Parent: "q2", Continues: true, Answer: "\n}\n```\n\nIt prints 1 to 3.", In: 60, Out: 12},
		exporttest.Exchange{ID: "n", Parent: "q3", User: "Thanks!", Answer: "You're welcome."},
	)
}

// TestExportContinuedAnswerGolden: the Markdown and JSONL of a continued
// answer (see continued), compared with the files in testdata.
func TestExportContinuedAnswerGolden(t *testing.T) {
	db := openStore(t)
	s, err := db.Import(ctx, bytes.NewReader(exporttest.JSON(t, continued())))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []export.Format{export.Markdown, export.JSONL} {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := export.Write(ctx, db, s.ID, f, &buf, export.Options{}); err != nil {
				t.Fatal(err)
			}
			exportGolden(t, filepath.Join("testdata", "export", "continued"+f.Extension()), buf.Bytes())
		})
	}
}

// TestExportMarkdownContinuedAnswer: a continued answer reads as one
// answer under its first turn's heading: the continuations have no
// heading and no message of their own, a mark says where each resumed and
// why, a code block cut by Stop is reopened after the mark, and each
// part's stages stay, named by turn. With every branch, a continuation is
// still written with the answer it continues, and another version of the
// next message after it.
func TestExportMarkdownContinuedAnswer(t *testing.T) {
	branched := exporttest.Chat(
		exporttest.Exchange{ID: "a", User: "Count to five", Answer: "One, two,", State: export.StateCancelled},
		exporttest.Exchange{ID: "b", Parent: "a", User: "Never mind", Answer: "Fine."},
		exporttest.Exchange{ID: "c", Parent: "a", Continues: true, Answer: " three, four, five.",
			Messages: []llm.Message{{Role: llm.RoleUser}, {Role: llm.RoleAssistant, Content: " three, four, five."}}},
	)
	tests := []struct {
		name     string
		doc      export.Document
		all      bool
		want     []string
		dontWant []string
	}{
		{"continued twice", continued(), false, []string{
			"## Turn 1 · 2025-03-01 10:00 UTC\n\n### You\n\nWrite a Go program that counts\n\n### Assistant\n\nHere it is:\n\n```go\nfunc main() {\n```\n\n" +
				"_— Resumed in turn 2 (continued after Stop) —_\n\n```go\n\tfor i := 1; i <= 3; i++ {\n\t\tfmt.Println(i)\n\t}\n```\n\n" +
				"_— Resumed in turn 3 (continued after it stopped at the token budget: 120 tokens used of 100) —_\n\n```go\n}\n```\n\nIt prints 1 to 3.\n\n" +
				"#### Stages · turn 1\n\n",
			"| chat | assistant | succeeded | budget\\_exceeded (120/100) | 40 / 60 | 10.0 s |\n\n#### Stages · turn 3\n\n",
			"---\n\n## Turn 4 · ",
		}, []string{"## Turn 2", "## Turn 3", "Continue your previous answer", "_Stopped", "Stopped at the token budget"}},
		{"a version beside the continuation", branched, true, []string{
			"One, two,\n\n_— Resumed in turn 3 (continued after Stop) —_\n\nthree, four, five.\n\n#### Stages · turn 1",
			"## Turn 2 · 2025-03-01 10:01 UTC\n\n### You\n\nNever mind\n\n### Assistant\n\nFine.",
		}, []string{"## Turn 3", "### You\n\n### Assistant"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openStore(t)
			s, err := db.Import(ctx, bytes.NewReader(exporttest.JSON(t, tt.doc)))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := export.Write(ctx, db, s.ID, export.Markdown, &buf, export.Options{AllBranches: tt.all}); err != nil {
				t.Fatal(err)
			}
			md := buf.String()
			for _, w := range tt.want {
				if !strings.Contains(md, w) {
					t.Errorf("the transcript lacks\n%s\n---- transcript:\n%s", w, md)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(md, w) {
					t.Errorf("the transcript has %q:\n%s", w, md)
				}
			}
		})
	}
}

// TestExportJSONLContinuedAnswer: JSONL gives a continuation as the model
// was sent it: after an instruction, a message of its own; continued as a
// prefix, one assistant message with the part before it, trained with the
// continuation's line and context only after.
func TestExportJSONLContinuedAnswer(t *testing.T) {
	const (
		q       = "Write a Go program that counts"
		partial = "Here it is:\n\n```go\nfunc main() {"
		instr   = "Continue your previous answer exactly where it stopped."
		second  = "\n\tfor i := 1; i <= 3; i++ {\n\t\tfmt.Println(i)\n\t}"
		third   = "\n}\n```\n\nIt prints 1 to 3."
	)
	want := []string{
		strings.Join([]string{q, "(" + partial + ")", instr, second}, "|"),
		strings.Join([]string{q, "(" + partial + ")", instr, second + third}, "|"),
		strings.Join([]string{q, "(" + partial + ")", instr, "(" + second + third + ")", "Thanks!", "You're welcome."}, "|"),
	}
	if got := jsonlLines(t, continued(), false); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines:\n%q\nwant\n%q", got, want)
	}
}
