package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// Adding an executor is one file and its test. The echo kind below is
// written as echo.go would be, but registered only while a test runs: its
// spec and run function are all it takes for files of its kind to load,
// be checked (with line, column and "did you mean"), appear in the schema
// and the docs table, and run.

const kindEcho Kind = "echo"

var echoSpec = executorSpec{
	kind:  kindEcho,
	order: 60,
	doc:   "an agent says its input back",
	roles: []role{{name: "speaker", required: true, doc: "the agent that says the input back"}},
	numbers: []number{{name: "times", integer: true, deflt: 1, max: 5,
		doc: "how many times the speaker's reply is repeated"}},
	run: (*wfRun).execEcho,
}

// execEcho has the speaker answer the input, and repeats its reply.
func (r *wfRun) execEcho(ctx context.Context, st *Stage, input string) stageOutcome {
	sr, res := r.agentStage(ctx, stageCall{name: "echo", agent: st.role("speaker")}, agent.Input{User: input})
	out := outcomeOf(sr, res)
	if out.outcome == turn.OutcomeSucceeded {
		out.text = strings.Repeat(out.text+"\n", st.count("times")-1) + out.text
	}
	return out
}

// withEcho registers the echo executor for the rest of the test.
func withEcho(t *testing.T) {
	t.Helper()
	t.Cleanup(register(echoSpec))
}

const parrot = `name: parrot
kind: echo
speaker: polly
times: 2
agents:
  polly: {}
`

func TestEchoLoads(t *testing.T) {
	withEcho(t)
	d := mustParse(t, "parrot.yaml", parrot)
	if d.Kind != kindEcho || d.Roles["speaker"] != "polly" || d.Numbers["times"] != 2 {
		t.Fatalf("parsed %+v", d.Stage)
	}
	pipe := mustParse(t, "pipe.yaml", `name: pipe
kind: pipeline
agents: {polly: {}, writer: {}}
phases:
  - stages:
      - {kind: chat, agent: writer}
      - {kind: echo, speaker: polly}
`)
	if st := pipe.Phases[0].Stages[1]; st.Kind != kindEcho || st.Roles["speaker"] != "polly" || st.Numbers != nil {
		t.Fatalf("echo stage %+v", st)
	}
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"kind":"echo","speaker":"polly","times":2`; !strings.Contains(string(data), want) {
		t.Errorf("JSON %s lacks %s", data, want)
	}
}

func TestEchoProblems(t *testing.T) {
	withEcho(t)
	tests := []struct {
		name string
		src  string
		want []string // every problem, as Error() writes it
	}{
		{"a misspelled role", strings.Replace(parrot, "speaker:", "speakr:", 1), []string{
			"parrot.yaml:1:1: an echo workflow needs speaker: the name of the agent that says the input back",
			`parrot.yaml:3:1: unknown field "speakr" (did you mean "speaker"?)`,
		}},
		{"an agent that is not defined", strings.Replace(parrot, "speaker: polly", "speaker: poly", 1), []string{
			`parrot.yaml:3:10: speaker: "poly" is not an agent of this workflow; define it under agents (defined: polly); did you mean "polly"?`,
		}},
		{"a number out of range", strings.Replace(parrot, "times: 2", "times: 9", 1), []string{
			"parrot.yaml:4:8: times: must be at most 5, got 9",
		}},
		{"a number that is not whole", strings.Replace(parrot, "times: 2", "times: 1.5", 1), []string{
			"parrot.yaml:4:8: times: expected a whole number, got a number",
		}},
		{"a field of another kind", parrot + "writer: polly\n", []string{
			"parrot.yaml:7:1: writer: not read by an echo workflow; only critique-revise uses writer",
		}},
		{"its field on another kind", strings.Replace(parrot, "kind: echo\nspeaker: polly", "kind: chat\nagent: polly", 1), []string{
			"parrot.yaml:4:1: times: not read by a chat workflow; only echo uses times",
		}},
		{"a misspelled kind", strings.Replace(parrot, "kind: echo", "kind: ecoh", 1), []string{
			`parrot.yaml:2:7: kind: "ecoh" is not one of chat, critique-revise, plan-execute, reflection, handoff, echo, pipeline (did you mean "echo"?)`,
		}},
		{"in a pipeline stage", `name: pipe
kind: pipeline
agents: {polly: {}}
phases:
  - stages:
      - kind: echo
        speakers: [polly]
`, []string{
			"parrot.yaml:6:9: phases[0].stages[0]: an echo stage needs speaker: the name of the agent that says the input back",
			`parrot.yaml:7:9: phases[0].stages[0]: unknown field "speakers" (did you mean "speaker"?)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("parrot.yaml", []byte(tt.src))
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("Parse = %v, want problems", err)
			}
			var got []string
			for _, p := range ps {
				got = append(got, p.Error())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// The echo kind is in the schema and the docs table while it is
// registered, and gone again after.
func TestEchoInSchemaAndDocs(t *testing.T) {
	shipped := Schema()
	t.Run("registered", func(t *testing.T) {
		withEcho(t)
		var doc struct {
			Properties map[string]struct {
				Description string `json:"description"`
				Enum        []string
				Maximum     float64
			}
			Defs struct {
				Roles struct {
					AllOf []struct {
						If struct {
							Properties struct{ Kind struct{ Const string } }
						}
						Then struct{ Required []string }
					}
				}
				Stage struct {
					Properties map[string]json.RawMessage
				}
			} `json:"$defs"`
		}
		if err := json.Unmarshal(Schema(), &doc); err != nil {
			t.Fatal(err)
		}
		if kinds := doc.Properties["kind"].Enum; !slices.Contains(kinds, "echo") {
			t.Errorf("kinds %v lack echo", kinds)
		}
		if d := doc.Properties["speaker"].Description; d != "echo: the agent that says the input back." {
			t.Errorf("speaker: %q", d)
		}
		if times := doc.Properties["times"]; times.Maximum != 5 || !strings.Contains(times.Description, "(default 1)") {
			t.Errorf("times: %+v", times)
		}
		if doc.Defs.Stage.Properties["speaker"] == nil {
			t.Error("a stage may not have a speaker")
		}
		roles := doc.Defs.Roles.AllOf
		if last := roles[len(roles)-1]; last.If.Properties.Kind.Const != "echo" || !slices.Equal(last.Then.Required, []string{"speaker"}) {
			t.Errorf("roles: %+v", last)
		}
		if table := kindsTable(executors()); !strings.Contains(table, "| `echo` | `speaker` | `times` (1) |\n") {
			t.Errorf("docs table:\n%s", table)
		}
	})
	if got := Schema(); string(got) != string(shipped) {
		t.Error("the schema still has echo after its test")
	}
}

func TestEchoRuns(t *testing.T) {
	withEcho(t)
	srv := llmtest.NewServer(t)
	client := openai.NewClient(openai.Config{BaseURL: srv.URL(), MaxRetries: -1})
	eng := &Engine{NewAgent: func(name string, d AgentDef) (*agent.Agent, error) {
		return &agent.Agent{Name: name, Client: client, Model: "m", SystemPrompt: d.SystemPrompt}, nil
	}}
	run := func(t *testing.T, def *Definition) (turn.Result, *turntest.Recorder) {
		t.Helper()
		rec := &turntest.Recorder{}
		em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{rec}})
		res := turn.RunTurn(context.Background(), em, func(ctx context.Context) turn.Result {
			return eng.Run(ctx, em, def, agent.Input{User: "Say hi."})
		})
		turntest.Check(t, rec.UntilEnded(t, "t"))
		return res, rec
	}
	t.Run("a workflow", func(t *testing.T) {
		srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("hi", 1)})
		res, rec := run(t, mustParse(t, "parrot.yaml", parrot))
		if !res.OK || res.FinalText != "hi\nhi" || len(res.Stages) != 1 || res.FinalStageID != res.Stages[0].ID {
			t.Fatalf("ok %v final %q from %q, stages %+v", res.OK, res.FinalText, res.FinalStageID, res.Stages)
		}
		if start := turntest.Data[turn.StageStartData](t, rec.Of(turn.EventStageStart)[0]); start.Stage != "echo" || start.Agent != "polly" {
			t.Fatalf("stage_start %+v", start)
		}
	})
	t.Run("a pipeline stage with its default", func(t *testing.T) {
		srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("notes", 1)}, llmtest.Reply{Chunks: llmtest.Text("notes again", 1)})
		res, _ := run(t, mustParse(t, "pipe.yaml", `name: pipe
kind: pipeline
agents: {polly: {}, writer: {}}
phases:
  - stages:
      - {kind: chat, agent: writer}
      - {kind: echo, speaker: polly}
`))
		if !res.OK || res.FinalText != "notes again" || res.Stages[1].Name != "echo" || res.Stages[1].Phase != "phase-1" {
			t.Fatalf("ok %v final %q, stages %+v", res.OK, res.FinalText, res.Stages)
		}
	})
}
