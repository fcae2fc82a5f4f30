package cli

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
)

// geoSuite has a case that passes, one that fails, and one a critic
// judges, each run twice on one model.
const geoSuite = `name: geo
models: [fake/m]
repeat: 2
cases:
  - id: capital
    prompt: Capital of {{country}}?
    vars: {country: France}
    assert:
      - contains: Paris
      - termination: {not_limit: true}
  - id: wrong
    prompt: Capital of Germany?
    assert:
      - contains: Berlin
  - id: judged
    prompt: Capital of France, in a sentence?
    assert:
      - judge: {rubric: Names Paris as the capital., model: fake/critic}
`

// geoServer answers every case "Paris it is." and the critic a passing
// verdict.
func geoServer(t *testing.T) *llmtest.Server {
	srv := llmtest.NewServer(t)
	srv.Respond(func(r llmtest.Request) llmtest.Reply {
		if r.Model == "critic" {
			return llmtest.Reply{Chunks: llmtest.Text(`{"passed": true, "score": 0.9, "feedback": "ok"}`, 3)}
		}
		return llmtest.Reply{Chunks: llmtest.Text("Paris it is.", 2)}
	})
	return srv
}

// evalSetup writes the suite and adds the provider "fake" for srv.
func evalSetup(t *testing.T, srv *llmtest.Server, suite string) (db, suitePath, dir string) {
	t.Helper()
	dir = t.TempDir()
	db = filepath.Join(dir, "a.db")
	suitePath = filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(suitePath, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := agentdeck(t, db, "", nil, nil, "providers", "add", "fake", "--base-url", srv.URL()); r.code != 0 {
		t.Fatalf("providers add: %d %s", r.code, r.stderr)
	}
	return db, suitePath, dir
}

// cells is each result's state and score by "case #repeat".
func cells(t *testing.T, rep evalReport) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range rep.Results {
		out[fmt.Sprintf("%s %s #%d", r.CaseID, r.Model, r.Repeat)] = fmt.Sprintf("%s %.2f", r.State, r.Score)
	}
	return out
}

func parseReport(t *testing.T, r cliRun) evalReport {
	t.Helper()
	var rep evalReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("eval --json printed %q: %v (stderr %s)", r.stdout, err, r.stderr)
	}
	return rep
}

// TestEvalRunsASuiteAndReplaysIt: a suite with a passing, a failing and a
// judged case, twice each, exits 1 with its report as JSON and JUnit;
// replayed with the server stopped it gives the same results; runs, show
// and diff read the runs back.
func TestEvalRunsASuiteAndReplaysIt(t *testing.T) {
	t.Parallel()
	srv := geoServer(t)
	db, suite, dir := evalSetup(t, srv, geoSuite)
	junitPath := filepath.Join(dir, "junit.xml")

	r := agentdeck(t, db, "", nil, nil, "eval", suite, "--json", "--junit", junitPath, "--concurrency", "2")
	if r.code != ExitFailed {
		t.Fatalf("exit %d, want 1: %s", r.code, r.stderr)
	}
	first := parseReport(t, r)
	want := map[string]string{
		"capital fake/m #1": "passed 1.00", "capital fake/m #2": "passed 1.00",
		"wrong fake/m #1": "failed 0.00", "wrong fake/m #2": "failed 0.00",
		"judged fake/m #1": "passed 0.90", "judged fake/m #2": "passed 0.90",
	}
	if got := cells(t, first); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("results %v, want %v", got, want)
	}
	if first.Run.State != store.EvalCompleted || first.Run.SuiteFile != suite || first.Passed != 4 || first.Planned != 6 ||
		len(first.Models) != 1 || first.Models[0].Model != "fake/m" || first.Models[0].PassRate < 0.66 || first.Models[0].PassRate > 0.67 {
		t.Fatalf("report %+v", first)
	}
	for _, res := range first.Results {
		if res.TurnID == "" || len(res.Outcomes) == 0 {
			t.Fatalf("a result without its turn or outcomes: %+v", res)
		}
		if res.CaseID == "wrong" && (res.Outcomes[0].Passed || res.Reason() == "") {
			t.Fatalf("the failing case's outcome %+v", res.Outcomes)
		}
	}
	// Progress went to stderr, a line per case (stderr is no terminal).
	if !regexp.MustCompile(`(?m)^\[6/6\] \w+ · fake/m #\d (passed|failed)$`).MatchString(r.stderr) ||
		strings.Count(r.stderr, "\n") < 6 {
		t.Fatalf("progress on stderr: %q", r.stderr)
	}

	ju := readJUnit(t, junitPath)
	if ju.Tests != 6 || ju.Failures != 2 || ju.Errors != 0 || len(ju.Suites) != 1 || ju.Suites[0].Name != "geo.fake/m" ||
		ju.Suites[0].Failures != 2 || len(ju.Suites[0].Cases) != 6 {
		t.Fatalf("JUnit %+v", ju)
	}
	for _, c := range ju.Suites[0].Cases {
		failed := strings.HasPrefix(c.Name, "wrong #")
		if (c.Failure != nil) != failed || c.Classname != "geo.fake/m" || (failed && !strings.Contains(c.Failure.Message, "contains")) {
			t.Fatalf("JUnit case %+v", c)
		}
	}

	// Offline: the same states and scores, from the first run's recordings.
	asked := len(srv.Requests())
	srv.Close()
	r = agentdeck(t, db, "", nil, nil, "eval", suite, "--capture", "replay", "--json")
	if r.code != ExitFailed {
		t.Fatalf("replay: exit %d, want 1: %s", r.code, r.stderr)
	}
	replay := parseReport(t, r)
	if replay.Run.FromRunID != first.Run.ID || replay.Run.Capture != "replay" {
		t.Fatalf("the replay's run %+v", replay.Run)
	}
	if got := cells(t, replay); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("replayed %v, want %v", got, want)
	}
	if asked != 8 {
		t.Fatalf("the model was asked %d times for 6 cases and 2 judgements", asked)
	}

	runs := agentdeck(t, db, "", nil, nil, "eval", "runs")
	if runs.code != 0 || !strings.Contains(runs.stdout, first.Run.ID) || !strings.Contains(runs.stdout, replay.Run.ID) || !strings.Contains(runs.stdout, "4/6") {
		t.Fatalf("eval runs: %d %s %s", runs.code, runs.stdout, runs.stderr)
	}
	runs = agentdeck(t, db, "", nil, nil, "eval", "runs", "--suite", "geo", "--json")
	var list struct {
		Runs []struct {
			ID            string
			Passed, Total int
		}
	}
	if err := json.Unmarshal([]byte(runs.stdout), &list); err != nil || len(list.Runs) != 2 || list.Runs[0].ID != replay.Run.ID ||
		list.Runs[1].Passed != 4 || list.Runs[1].Total != 6 || strings.Contains(runs.stdout, `"suite":`) {
		t.Fatalf("eval runs --json: %v %s", err, runs.stdout)
	}
	if none := agentdeck(t, db, "", nil, nil, "eval", "runs", "--suite", "other"); none.code != 0 || !strings.Contains(none.stdout, "No evaluation runs") {
		t.Fatalf("eval runs of another suite: %s", none.stdout)
	}

	show := agentdeck(t, db, "", nil, nil, "eval", "show", first.Run.ID)
	var wrongTurn string
	for _, res := range first.Results {
		if res.CaseID == "wrong" {
			wrongTurn = res.TurnID
		}
	}
	for _, s := range []string{"fake/m", "4/6", "67%", "wrong", wrongTurn, "agentdeck turns show", "agentdeck eval show " + first.Run.ID} {
		if !strings.Contains(show.stdout, s) {
			t.Fatalf("eval show lacks %q:\n%s", s, show.stdout)
		}
	}
	if show.code != 0 || strings.Contains(show.stdout, "capital  ") {
		t.Fatalf("eval show: exit %d, a passed case listed as failing?\n%s", show.code, show.stdout)
	}
	showJSON := parseReport(t, agentdeck(t, db, "", nil, nil, "eval", "show", first.Run.ID, "--json"))
	if fmt.Sprint(cells(t, showJSON)) != fmt.Sprint(want) {
		t.Fatalf("eval show --json: %+v", showJSON)
	}

	again := filepath.Join(dir, "again.xml")
	if r := agentdeck(t, db, "", nil, nil, "eval", "show", replay.Run.ID, "--junit", again); r.code != 0 {
		t.Fatalf("eval show --junit: %d %s", r.code, r.stderr)
	}
	if ju := readJUnit(t, again); ju.Tests != 6 || ju.Failures != 2 {
		t.Fatalf("JUnit of eval show: %+v", ju)
	}
	if r := agentdeck(t, db, "", nil, nil, "eval", "show", replay.Run.ID, "--junit", filepath.Join(dir, "no", "such.xml")); r.code != ExitFailed ||
		!strings.Contains(r.stderr, "could not be written") || !strings.Contains(r.stderr, "agentdeck eval show "+replay.Run.ID+" --junit FILE") {
		t.Fatalf("a JUnit file that cannot be written: %d %s", r.code, r.stderr)
	}

	diff := agentdeck(t, db, "", nil, nil, "eval", "diff", first.Run.ID, replay.Run.ID, "--json")
	var d eval.RunDiff
	if err := json.Unmarshal([]byte(diff.stdout), &d); err != nil || diff.code != 0 {
		t.Fatalf("eval diff --json: %d %v %s", diff.code, err, diff.stderr)
	}
	if len(d.Regressions) != 0 || len(d.Fixes) != 0 || len(d.StillFailing) != 2 || d.Same != 4 || len(d.OnlyA)+len(d.OnlyB) != 0 {
		t.Fatalf("diff of a run and its replay: %+v", d)
	}
	diff = agentdeck(t, db, "", nil, nil, "eval", "diff", first.Run.ID, replay.Run.ID)
	if diff.code != 0 || !strings.Contains(diff.stdout, "Regressions (passed in A, not in B): 0") || !strings.Contains(diff.stdout, "Still failing: 2") {
		t.Fatalf("eval diff:\n%s", diff.stdout)
	}

	for _, args := range [][]string{{"show", "nope"}, {"diff", first.Run.ID, "nope"}} {
		r := agentdeck(t, db, "", nil, nil, append([]string{"eval"}, args...)...)
		if r.code != ExitFailed || !strings.Contains(r.stderr, "There is no evaluation run nope") || !strings.Contains(r.stderr, "agentdeck eval runs") {
			t.Fatalf("eval %v: exit %d %s", args, r.code, r.stderr)
		}
	}
}

// TestEvalTextSummaryAndDiff: a run that passes exits 0 with its table on
// stdout; diffed against a fuller run, the cells it left out are only in A.
func TestEvalTextSummaryAndDiff(t *testing.T) {
	srv := geoServer(t)
	db, suite, dir := evalSetup(t, srv, geoSuite)
	// A suite named relative to the working folder is stored by its
	// absolute path, which names it from anywhere.
	t.Chdir(dir)
	full := parseReport(t, agentdeck(t, db, "", nil, nil, "eval", "suite.yaml", "--json", "--filter", "^(capital|wrong)$", "--repeat", "1"))
	if got, _ := filepath.EvalSymlinks(full.Run.SuiteFile); !filepath.IsAbs(full.Run.SuiteFile) || got != mustEvalSymlinks(t, suite) {
		t.Fatalf("the run's suite file is %q, want %q", full.Run.SuiteFile, suite)
	}

	r := agentdeck(t, db, "", nil, nil, "eval", suite, "--filter", "^capital$", "--repeat", "1")
	if r.code != ExitOK {
		t.Fatalf("exit %d, want 0: %s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`fake/m\s+1/1\s+100%`).MatchString(r.stdout) || strings.Contains(r.stdout, "Not passed") || strings.Contains(r.stdout, "[1/1]") {
		t.Fatalf("summary:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "[1/1] capital · fake/m #1 passed\n") {
		t.Fatalf("progress: %q", r.stderr)
	}
	id := regexp.MustCompile(`agentdeck eval show (\S+)`).FindStringSubmatch(r.stdout)
	if id == nil {
		t.Fatalf("no run id in:\n%s", r.stdout)
	}
	var d eval.RunDiff
	json.Unmarshal([]byte(agentdeck(t, db, "", nil, nil, "eval", "diff", full.Run.ID, id[1], "--json").stdout), &d)
	if d.Same != 1 || len(d.OnlyA) != 1 || d.OnlyA[0].CaseID != "wrong" || d.OnlyA[0].A.State != store.EvalFailedCase || len(d.OnlyB) != 0 {
		t.Fatalf("diff %+v", d)
	}
}

// TestEvalStopsOnSIGINT: Ctrl+C stops the running case, which is stored
// cancelled, and the command exits 130 after its summary.
func TestEvalStopsOnSIGINT(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	asked := make(chan struct{}, 8)
	srv.Respond(func(llmtest.Request) llmtest.Reply {
		asked <- struct{}{}
		return llmtest.Reply{Hang: true}
	})
	db, suite, _ := evalSetup(t, srv, geoSuite)
	signals := make(chan os.Signal, 1)
	go func() {
		<-asked
		signals <- os.Interrupt
	}()
	junitPath := filepath.Join(t.TempDir(), "junit.xml")
	r := agentdeck(t, db, "", signals, nil, "eval", suite, "--json", "--junit", junitPath)
	if r.code != ExitCancelled {
		t.Fatalf("exit %d, want 130: %s", r.code, r.stderr)
	}
	rep := parseReport(t, r)
	if rep.Run.State != store.EvalCancelled || len(rep.Results) != 1 || rep.Results[0].State != store.EvalCancelled || rep.Planned != 6 {
		t.Fatalf("a stopped run: %+v", rep)
	}
	if !strings.Contains(r.stderr, "stopping the running cases") {
		t.Fatalf("stderr %q", r.stderr)
	}
	if ju := readJUnit(t, junitPath); ju.Tests != 1 || ju.Skipped != 1 || ju.Suites[0].Cases[0].Skipped == nil {
		t.Fatalf("JUnit of a stopped run: %+v", ju)
	}
}

// TestEvalCaseThatCannotRun: a model whose provider does not exist is an
// error result, with why, in the table and as a JUnit error.
func TestEvalCaseThatCannotRun(t *testing.T) {
	t.Parallel()
	srv := geoServer(t)
	db, suite, dir := evalSetup(t, srv, geoSuite)
	junitPath := filepath.Join(dir, "junit.xml")
	r := agentdeck(t, db, "", nil, nil, "eval", suite, "--models", "fake/m,nope/m", "--filter", "^capital$", "--repeat", "1", "--junit", junitPath)
	if r.code != ExitFailed {
		t.Fatalf("exit %d, want 1: %s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`(?m)^capital\s+nope/m\s+1\s+error\s+\S.*\s+-$`).MatchString(r.stdout) || !regexp.MustCompile(`fake/m\s+1/1\s+100%`).MatchString(r.stdout) ||
		!regexp.MustCompile(`nope/m\s+0/1\s+-\s`).MatchString(r.stdout) {
		t.Fatalf("summary:\n%s", r.stdout)
	}
	ju := readJUnit(t, junitPath)
	if ju.Tests != 2 || ju.Errors != 1 || ju.Failures != 0 || len(ju.Suites) != 2 || ju.Suites[1].Name != "geo.nope/m" ||
		ju.Suites[1].Cases[0].Error == nil || ju.Suites[1].Cases[0].Error.Message == "" {
		t.Fatalf("JUnit %+v", ju)
	}
}

func mustEvalSymlinks(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readJUnit(t *testing.T, path string) junitSuites {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ju junitSuites
	if err := xml.Unmarshal(b, &ju); err != nil {
		t.Fatalf("the JUnit file does not parse: %v\n%s", err, b)
	}
	return ju
}

// TestEvalProgressOnATerminal: on a terminal the bar is redrawn in place
// and its line ended once; elsewhere a line a case.
func TestEvalProgressOnATerminal(t *testing.T) {
	t.Parallel()
	in := eval.Cell{CaseID: "capital", Model: "a/m", Repeat: 1}
	var tty strings.Builder
	p := &evalProgress{w: &tty, tty: true}
	p.update(1, 2, in, eval.CellOutput{State: "passed"}, nil)
	p.update(2, 2, in, eval.CellOutput{}, apperr.New(apperr.NotFound, "no provider"))
	p.finish()
	if got := tty.String(); strings.Count(got, "\r") != 2 || strings.Count(got, "\n") != 1 || !strings.HasSuffix(got, "[2/2] capital · a/m #1 error: no provider\n") {
		t.Fatalf("bar %q", got)
	}
	var log strings.Builder
	p = &evalProgress{w: &log}
	p.update(3, 8, in, eval.CellOutput{State: "passed"}, nil)
	p.finish()
	if log.String() != "[3/8] capital · a/m #1 passed\n" {
		t.Fatalf("log %q", log.String())
	}
}

// TestEvalUsageErrors: a bad suite prints each problem at its
// file:line:col and exits 2, as do bad flags; nothing is run.
func TestEvalUsageErrors(t *testing.T) {
	t.Parallel()
	srv := geoServer(t)
	db, suite, dir := evalSetup(t, srv, geoSuite)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: geo\nmodels: [fake/m]\ncases:\n  - prompt: hi\n    asert: []\n"), 0o644)
	tests := []struct {
		name     string
		args     []string
		mentions string
	}{
		{"bad suite", []string{bad}, bad + ":5:5: "},
		{"missing suite", []string{filepath.Join(dir, "none.yaml")}, "none.yaml"},
		{"no suite", nil, "usage: agentdeck eval SUITE.yaml"},
		{"two suites", []string{suite, suite}, "usage: agentdeck eval SUITE.yaml"},
		{"bad capture", []string{suite, "--capture", "sometimes"}, "--capture must be"},
		{"bad filter", []string{suite, "--filter", "("}, "--filter is not a regular expression"},
		{"bad model", []string{suite, "--models", "m"}, `--models: "m" is not a provider/model`},
		{"bad concurrency", []string{suite, "--concurrency", "-1"}, "--concurrency must be 1 or more"},
		{"bad repeat", []string{suite, "--repeat", "101"}, "--repeat must be 1 to 100"},
		{"from without replay", []string{suite, "--capture", "record", "--from", "x"}, "--from needs --capture replay"},
		{"filter keeps nothing", []string{suite, "--filter", "^none$"}, "No case of suite geo"},
		{"show without id", []string{"show"}, "usage: agentdeck eval show RUN_ID"},
		{"diff with one id", []string{"diff", "a"}, "usage: agentdeck eval diff RUN_A RUN_B"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := agentdeck(t, db, "", nil, nil, append([]string{"eval"}, tt.args...)...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tt.mentions) || r.stdout != "" {
				t.Fatalf("exit %d (want 2), stdout %q, stderr %q should mention %q", r.code, r.stdout, r.stderr, tt.mentions)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times", n)
	}
}
