package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/atomicfile"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/workflow"
	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

// Evaluations the window runs: suite files kept in the data folder's
// evals/ (beside workflows/), cases added to them from turns, and runs
// started and stopped from the window, their progress told to every UI as
// each case ends. A run is the same eval.RunSuite the command line runs,
// so the runs list, reports and diffs cannot tell them apart.

// EvalSuiteInfo is a suite file in the evaluations folder.
type EvalSuiteInfo struct {
	// File is its name in the folder (geo.yaml): what StartEval and
	// SaveEvalCases name it by. Path is where it is, to edit it by hand.
	File string `json:"file"`
	Path string `json:"path"`
	// Name is the suite's name, which its runs are listed under; the rest
	// is what a run of it runs. A file with Problems has none of them.
	Name     string             `json:"name"`
	Cases    int                `json:"cases"`
	Models   []string           `json:"models"`
	Repeat   int                `json:"repeat"`
	Problems []workflow.Problem `json:"problems,omitempty"`
}

// EvalCasesSave adds cases to a suite file: YAML as EvalCaseFromTurn makes
// it, perhaps edited, to the suite File, or to a new suite called Name.
type EvalCasesSave struct {
	File string `json:"file,omitempty"`
	Name string `json:"name,omitempty"`
	YAML string `json:"yaml"`
}

// EvalCasesSaved is the suite as saved, or the problems that kept it from
// being saved (by line and column of the suite as it would have been).
type EvalCasesSaved struct {
	Suite    EvalSuiteInfo      `json:"suite"`
	Problems []workflow.Problem `json:"problems,omitempty"`
}

// EvalStart is a run to start: a suite file in the folder, and what
// eval's command line flags would change.
type EvalStart struct {
	File        string   `json:"file"`
	Models      []string `json:"models,omitempty"`
	Filter      string   `json:"filter,omitempty"`
	Repeat      int      `json:"repeat,omitempty"`
	Concurrency int      `json:"concurrency,omitempty"`
	Capture     string   `json:"capture,omitempty"`
	FromRunID   string   `json:"from_run_id,omitempty"`
}

// EvalProgress is a run started from the window as it goes: one when it
// starts, one as each case ends, one when it ends. It goes to the UIs on
// the bus.
type EvalProgress struct {
	RunID   string `json:"run_id"`
	Suite   string `json:"suite"`
	State   string `json:"state"` // store.EvalRunning, EvalCompleted, EvalCancelled or EvalFailed
	Done    int    `json:"done"`
	Planned int    `json:"planned"`
	Passed  int    `json:"passed"`
	// Failed counts the cases that ended any other way (failed, error,
	// cancelled).
	Failed int `json:"failed"`
	// Case is the case that just ended, if one did.
	Case *EvalCaseEnded `json:"case,omitempty"`
	// Error says why a run failed.
	Error string `json:"error,omitempty"`
}

// Kind implements Message.
func (EvalProgress) Kind() MessageKind { return KindEvalProgress }

// EvalCaseEnded is one case × model × repeat as it ended.
type EvalCaseEnded struct {
	CaseID string `json:"case_id"`
	Model  string `json:"model"`
	Repeat int    `json:"repeat"`
	State  string `json:"state"`
	TurnID string `json:"turn_id,omitempty"`
}

// MaxEvalConcurrency bounds how many cases of a window's run go at once.
const MaxEvalConcurrency = 8

// evalRuns is the runs this process started from a UI: each one's Stop.
type evalRuns struct {
	mu     sync.Mutex
	cancel map[string]context.CancelFunc
	wg     sync.WaitGroup
}

func newEvalRuns() *evalRuns {
	return &evalRuns{cancel: map[string]context.CancelFunc{}}
}

// stopAll stops every run and waits for them to be stored, at most wait;
// it reports whether they all were.
func (e *evalRuns) stopAll(wait time.Duration) bool {
	e.mu.Lock()
	for _, cancel := range e.cancel {
		cancel()
	}
	e.mu.Unlock()
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(wait):
		return false
	}
}

// evalDir is the folder of suite files: evals/ in the data folder.
func (s *Service) evalDir() string { return filepath.Join(filepath.Dir(s.dbPath), "evals") }

// suiteFile is a file name a UI sent, checked to name a suite file in
// the folder and nothing outside it.
var suiteFile = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 ._-]{0,99}\.(ya?ml|json)$`)

func (s *Service) suitePath(file string) (string, error) {
	if !suiteFile.MatchString(file) || filepath.Base(file) != file {
		return "", apperr.New(apperr.Invalid, "%q is not a suite file's name: a name in the evaluations folder ending .yaml, .yml or .json.", file)
	}
	return filepath.Join(s.evalDir(), file), nil
}

// evalSuites lists the suite files in the folder, by file name, each read
// as a run would read it.
func (s *Service) evalSuites() ([]EvalSuiteInfo, error) {
	entries, err := os.ReadDir(s.evalDir())
	if errors.Is(err, os.ErrNotExist) {
		return []EvalSuiteInfo{}, nil
	}
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "The evaluations folder %s cannot be read.", s.evalDir())
	}
	out := []EvalSuiteInfo{}
	for _, e := range entries {
		if e.IsDir() || !suiteFile.MatchString(e.Name()) {
			continue
		}
		path := filepath.Join(s.evalDir(), e.Name())
		suite, err := eval.Load(path)
		out = append(out, suiteInfo(e.Name(), path, suite, err))
	}
	return out, nil
}

// suiteInfo describes a suite file as loaded (suite nil when err).
func suiteInfo(file, path string, suite *eval.Suite, err error) EvalSuiteInfo {
	info := EvalSuiteInfo{File: file, Path: path, Models: []string{}}
	if err != nil {
		info.Problems = problemsOf(path, err)
		return info
	}
	info.Name, info.Cases, info.Models, info.Repeat = suite.Name, len(suite.Cases), suite.Models, max(suite.Repeat, 1)
	if info.Models == nil {
		info.Models = []string{}
	}
	return info
}

// problemsOf is a suite's problems, or err as one problem of the file.
func problemsOf(path string, err error) []workflow.Problem {
	var ps yamlcheck.Problems
	if errors.As(err, &ps) && len(ps) > 0 {
		return ps
	}
	return []workflow.Problem{{File: path, Message: safe(err).Error()}}
}

// saveEvalCases adds req's cases to its suite file, or starts a new one.
// Nothing is written unless the suite that results reads back whole.
func (s *Service) saveEvalCases(req EvalCasesSave) (EvalCasesSaved, error) {
	file, name := req.File, strings.TrimSpace(req.Name)
	if file == "" {
		if name == "" {
			return EvalCasesSaved{}, apperr.New(apperr.Invalid, "Name the suite the case goes in.")
		}
		file = slugFile(name)
	}
	path, err := s.suitePath(file)
	if err != nil {
		return EvalCasesSaved{}, err
	}
	if err := os.MkdirAll(s.evalDir(), 0o755); err != nil {
		return EvalCasesSaved{}, apperr.Wrap(err, apperr.Unavailable, "The evaluations folder %s cannot be made.", s.evalDir())
	}
	text, err := s.withCases(path, name, []byte(req.YAML))
	if err != nil {
		return EvalCasesSaved{}, err
	}
	suite, err := eval.ParseAt(path, text)
	if err != nil {
		return EvalCasesSaved{Suite: EvalSuiteInfo{File: file, Path: path, Models: []string{}}, Problems: problemsOf(path, err)}, nil
	}
	if err := atomicfile.Write(path, text, 0o644); err != nil {
		return EvalCasesSaved{}, apperr.Wrap(err, apperr.Unavailable, "The suite file %s cannot be written; check the disk has room.", path)
	}
	s.log.Info("evaluation cases saved", "file", path, "cases", len(suite.Cases))
	return EvalCasesSaved{Suite: suiteInfo(file, path, suite, nil)}, nil
}

// createExampleSuite writes the example suite (eval.Example: every
// assertion kind, and the table one case attaches) into the folder, for a
// person with no suite yet; an installed copy has no docs folder to copy
// it from. A file of the same name that is not the example's is never
// overwritten: nothing is written, and the answer names it.
func (s *Service) createExampleSuite() (EvalSuiteInfo, error) {
	files := eval.Example()
	for _, f := range files {
		old, err := os.ReadFile(filepath.Join(s.evalDir(), f.Name))
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return EvalSuiteInfo{}, apperr.Wrap(err, apperr.Unavailable, "%s cannot be read.", filepath.Join(s.evalDir(), f.Name))
		case string(old) != string(f.Data):
			return EvalSuiteInfo{}, apperr.New(apperr.Conflict, "The evaluations folder already has a %s of its own; rename or move it to create the example there.", f.Name)
		}
	}
	if err := os.MkdirAll(s.evalDir(), 0o755); err != nil {
		return EvalSuiteInfo{}, apperr.Wrap(err, apperr.Unavailable, "The evaluations folder %s cannot be made.", s.evalDir())
	}
	// The attached files first: the suite is listed only once what it needs is there.
	for i := len(files) - 1; i >= 0; i-- {
		if err := atomicfile.Write(filepath.Join(s.evalDir(), files[i].Name), files[i].Data, 0o644); err != nil {
			return EvalSuiteInfo{}, apperr.Wrap(err, apperr.Unavailable, "%s cannot be written; check the disk has room.", filepath.Join(s.evalDir(), files[i].Name))
		}
	}
	path := filepath.Join(s.evalDir(), files[0].Name)
	suite, err := eval.Load(path)
	s.log.Info("example evaluation suite written", "file", path)
	return suiteInfo(files[0].Name, path, suite, err), nil
}

// withCases is the suite file at path with the cases of add appended, or,
// when there is no such file, add itself named name.
func (s *Service) withCases(path, name string, add []byte) ([]byte, error) {
	old, err := os.ReadFile(path)
	switch {
	case err == nil:
		return eval.AppendCases(old, add)
	case !errors.Is(err, os.ErrNotExist):
		return nil, apperr.Wrap(err, apperr.Unavailable, "The suite file %s cannot be read.", path)
	}
	suite, err := eval.Parse(filepath.Base(path), add)
	if err != nil {
		return nil, err
	}
	if name != "" {
		suite.Name = name
	}
	return eval.SuiteYAML(*suite)
}

// slugFile is the file a new suite called name is kept in.
func slugFile(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	slug := strings.Trim(b.String(), "-")
	if slug == "" {
		slug = "suite"
	}
	return slug[:min(len(slug), 80)] + ".yaml"
}

// startEval starts a run of a suite file in the background and returns it
// stored, running; its progress goes out on the bus.
func (s *Service) startEval(ctx context.Context, req EvalStart) (store.EvalRun, error) {
	path, err := s.suitePath(req.File)
	if err != nil {
		return store.EvalRun{}, err
	}
	opts, err := eval.ParseRunOptions(eval.RunFlags{Models: req.Models, Filter: req.Filter, Repeat: req.Repeat,
		Concurrency: req.Concurrency, MaxConcurrency: MaxEvalConcurrency, Capture: req.Capture, FromRunID: req.FromRunID})
	if err != nil {
		return store.EvalRun{}, apperr.Wrap(err, apperr.Invalid, "%s.", optionProblem(err))
	}
	suite, err := eval.Load(path)
	if err != nil {
		ps := problemsOf(path, err)
		return store.EvalRun{}, apperr.Wrap(err, apperr.Invalid, "Suite %s has %d %s, the first: %s", req.File, len(ps), eval.Plural(len(ps), "problem", "problems"), ps[0].Error())
	}
	sr, err := eval.NewSuiteRun(ctx, s.db, suite, opts)
	if err != nil {
		return store.EvalRun{}, err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.evals.mu.Lock()
	s.evals.cancel[sr.Run.ID] = cancel
	s.evals.wg.Add(1)
	s.evals.mu.Unlock()
	go s.executeEval(runCtx, cancel, sr)
	return sr.Run, nil
}

// executeEval runs sr to its end, telling the UIs as it goes.
func (s *Service) executeEval(ctx context.Context, cancel context.CancelFunc, sr *eval.SuiteRun) {
	defer s.evals.wg.Done()
	defer func() {
		s.evals.mu.Lock()
		delete(s.evals.cancel, sr.Run.ID)
		s.evals.mu.Unlock()
		cancel()
	}()
	p := EvalProgress{RunID: sr.Run.ID, Suite: sr.Run.SuiteName, State: store.EvalRunning, Planned: sr.Planned()}
	s.bus.Publish(p)
	r := eval.NewRunner(s.db, s.runner, nil, s.log)
	run, err := sr.Execute(ctx, r, func(done, _ int, in eval.CaseInput, out eval.CaseOutput, err error) {
		p.Done = done
		if err == nil && out.State == store.EvalPassed {
			p.Passed++
		} else {
			p.Failed++
		}
		state := out.State
		if err != nil {
			state = store.EvalError
		}
		p.Case = &EvalCaseEnded{CaseID: in.CaseID, Model: in.Model, Repeat: in.Repeat, State: state, TurnID: out.TurnID}
		s.bus.Publish(p)
	})
	p.Case = nil
	if err != nil {
		s.log.Error("evaluation run failed", "run", sr.Run.ID, "err", err)
		p.State, p.Error = store.EvalFailed, safe(err).Error()
		// The run is ended failed, so it does not read as running.
		_ = s.db.EndEvalRun(context.WithoutCancel(ctx), sr.Run.ID, store.EvalFailed)
	} else {
		p.State = run.State
	}
	s.log.Info("evaluation run ended", "run", sr.Run.ID, "state", p.State, "passed", p.Passed, "of", p.Planned)
	s.bus.Publish(p)
}

// optionProblem says a refused run option by its name in the window.
func optionProblem(err error) string {
	var fe *eval.RunFlagError
	if !errors.As(err, &fe) {
		return err.Error()
	}
	return fe.Say(func(flag string) string { return runFormNames[flag] })
}

// runFormNames are the options of a run as the window's Run form and a
// run's page call them.
var runFormNames = map[string]string{
	eval.FlagModels:      "Models",
	eval.FlagFilter:      "The filter",
	eval.FlagRepeat:      "Repeat",
	eval.FlagConcurrency: "Cases at once",
	eval.FlagCapture:     "Capture",
	eval.FlagFrom:        "The run to replay",
}

// stopEval stops a run this process is running. A run that has ended is
// left as it is; one another process runs is stopped there.
func (s *Service) stopEval(ctx context.Context, runID string) error {
	s.evals.mu.Lock()
	cancel := s.evals.cancel[runID]
	s.evals.mu.Unlock()
	if cancel != nil {
		cancel()
		return nil
	}
	run, err := s.db.EvalRun(ctx, runID)
	if err != nil {
		return err
	}
	if run.State == store.EvalRunning {
		return apperr.New(apperr.Conflict, "Run %s is going on in another Agentdeck (the command line, or another window); stop it there.", runID)
	}
	return nil
}
