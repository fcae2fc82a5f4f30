//go:build otel

package otel_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cmdEnv is what every agentdeck gets: its own home and data directory,
// the scripted model server, and a key that must never be printed (as in
// e2e/cli).
type cmdEnv struct {
	t    *testing.T
	vars map[string]string
}

func newCmdEnv(t *testing.T, baseURL string) *cmdEnv {
	t.Helper()
	dir := t.TempDir()
	return &cmdEnv{t: t, vars: map[string]string{
		"HOME":            dir,
		"XDG_DATA_HOME":   filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"AGENTDECK_DB":    filepath.Join(dir, "agentdeck.db"),
		"OPENAI_BASE_URL": baseURL,
		"AGENTDECK_MODEL": "test-model",
		"OPENAI_API_KEY":  "sk-test-NEVER-PRINTED",
		"NO_COLOR":        "1",
	}}
}

// with is the same environment for a subtest: its failures are t's.
func (e *cmdEnv) with(t *testing.T) *cmdEnv {
	return &cmdEnv{t: t, vars: e.vars}
}

// withVar is the same environment with one more variable.
func (e *cmdEnv) withVar(k, v string) *cmdEnv {
	vars := map[string]string{k: v}
	for k, v := range e.vars {
		vars[k] = v
	}
	return &cmdEnv{t: e.t, vars: vars}
}

// command is agentdeck with args. No command has a deadline of its own:
// only the whole test run has one (go test -timeout).
func (e *cmdEnv) command(args ...string) *exec.Cmd {
	cmd := exec.Command(agentdeckBin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range e.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// result is a finished command.
type result struct {
	code           int
	stdout, stderr string
}

// run runs agentdeck with args to the end.
func (e *cmdEnv) run(args ...string) result {
	e.t.Helper()
	cmd := e.command(args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			e.t.Fatalf("agentdeck %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	r := result{code, out.String(), errb.String()}
	e.checkOutput(r.stdout + r.stderr)
	e.t.Logf("$ agentdeck %s  → exit %d", strings.Join(args, " "), code)
	return r
}

// mustRun runs agentdeck and fails the test unless it exits 0.
func (e *cmdEnv) mustRun(args ...string) result {
	e.t.Helper()
	r := e.run(args...)
	if r.code != 0 {
		e.t.Fatalf("agentdeck %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

func (e *cmdEnv) checkOutput(s string) {
	e.t.Helper()
	if strings.Contains(s, "NEVER-PRINTED") {
		e.t.Fatal("the API key was printed")
	}
	if strings.Contains(s, "goroutine ") && strings.Contains(s, "panic") {
		e.t.Fatalf("a stack trace reached the user:\n%s", s)
	}
}

// proc is agentdeck running in the background, its stdout read line by
// line.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	lines  chan string
	stderr *syncBuffer
	done   chan struct{}
	err    error
}

// start starts agentdeck with args in the background. The test's cleanup
// kills it if it still runs.
func (e *cmdEnv) start(args ...string) *proc {
	e.t.Helper()
	cmd := e.command(args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	p := &proc{t: e.t, cmd: cmd, lines: make(chan string, 1<<16), stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Logf("$ agentdeck %s &  (pid %d)", strings.Join(args, " "), cmd.Process.Pid)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, out)
		close(p.lines)
		p.err = cmd.Wait()
		close(p.done)
	}()
	e.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	return p
}

// waitLine returns the first stdout line that match accepts, failing the
// test if the process ends first.
func (p *proc) waitLine(match func(string) bool) string {
	p.t.Helper()
	for l := range p.lines {
		if match(l) {
			return l
		}
	}
	p.t.Fatalf("agentdeck ended before the line we wait for; stderr:\n%s", p.stderr.String())
	return ""
}

// wait waits for the process to end and returns its exit code and every
// stdout line it had not read.
func (p *proc) wait() (code int, rest []string) {
	p.t.Helper()
	for l := range p.lines {
		rest = append(rest, l)
	}
	<-p.done
	if p.err != nil {
		ee, ok := p.err.(*exec.ExitError)
		if !ok {
			p.t.Fatal(p.err)
		}
		return ee.ExitCode(), rest
	}
	return 0, rest
}

// turnIDOf reads the session and turn ids from run's closing line on
// stderr ("session S turn T").
func turnIDOf(t *testing.T, stderr string) (session, tr string) {
	t.Helper()
	for _, l := range strings.Split(stderr, "\n") {
		f := strings.Fields(l)
		if len(f) == 4 && f[0] == "session" && f[2] == "turn" {
			return f[1], f[3]
		}
	}
	t.Fatalf("no session/turn line in stderr:\n%s", stderr)
	return "", ""
}

// storedTurn is what these tests read of a turn in the JSON export
// (backend/export's Turn): the recorded times every span must carry.
type storedTurn struct {
	ID          string     `json:"id"`
	State       string     `json:"state"`
	Workflow    string     `json:"workflow"`
	Model       string     `json:"model"`
	StartedAt   time.Time  `json:"started_at"`
	CompletedAt *time.Time `json:"completed_at"`
	FinalText   string     `json:"final_text"`
	Stages      []struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Agent string `json:"agent"`
	} `json:"stages"`
	ModelCalls []struct {
		StageID         string    `json:"stage_id"`
		Model           string    `json:"model"`
		StartedAt       time.Time `json:"started_at"`
		DurationMS      int64     `json:"duration_ms"`
		InputTokens     int64     `json:"input_tokens"`
		OutputTokens    int64     `json:"output_tokens"`
		CachedTokens    int64     `json:"cached_tokens"`
		ReasoningTokens int64     `json:"reasoning_tokens"`
		Provider        string    `json:"provider"`
	} `json:"model_calls"`
	ToolCalls []struct {
		StageID    string    `json:"stage_id"`
		CallID     string    `json:"call_id"`
		Name       string    `json:"name"`
		StartedAt  time.Time `json:"started_at"`
		DurationMS int64     `json:"duration_ms"`
		OK         bool      `json:"ok"`
	} `json:"tool_calls"`
}

// storedTurns reads a session's turns from `sessions export --format
// json`, by id.
func (e *cmdEnv) storedTurns(session string) map[string]storedTurn {
	e.t.Helper()
	r := e.mustRun("sessions", "export", session, "--format", "json")
	var doc struct {
		Turns []storedTurn `json:"turns"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		e.t.Fatalf("sessions export --format json: %v\n%.2000s", err, r.stdout)
	}
	m := map[string]storedTurn{}
	for _, tr := range doc.Turns {
		m[tr.ID] = tr
	}
	return m
}
