// Package cli_test drives the built command as a person does: agentdeck,
// built once by TestMain from the module's root package (with -race when
// the tests run with it), runs as a child process with the real signals,
// stdout, stderr and exit codes. The tests talk to the scripted model
// server in the test process. See cmd_test.go.
package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// agentdeckBin is the command under test, built by TestMain.
var agentdeckBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agentdeck-e2e-cli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	agentdeckBin = filepath.Join(dir, "agentdeck")
	code := 1
	if err := goBuild(agentdeckBin, "github.com/agentdeck/agentdeck"); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = runTests(m)
	}
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

func runTests(m *testing.M) (code int) {
	// goleak.VerifyTestMain would exit before the binary's folder is removed.
	code = m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	return code
}

// goBuild builds the package pkg of this module into out, instrumented
// for the race detector when this test binary is.
func goBuild(out, pkg string) error {
	args := []string{"build", "-o", out}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, pkg)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

// cmdTimeout bounds one command; a whole test has the go test timeout.
const cmdTimeout = 2 * time.Minute

// cmdEnv is what every child gets: its own home and data directory, the
// scripted server, and a key that must never be printed.
type cmdEnv struct {
	t    *testing.T
	db   string
	vars map[string]string
}

func newCmdEnv(t *testing.T, baseURL string) *cmdEnv {
	t.Helper()
	dir := t.TempDir()
	return &cmdEnv{t: t, db: filepath.Join(dir, "agentdeck.db"), vars: map[string]string{
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

func (e *cmdEnv) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, agentdeckBin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range e.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.WaitDelay = 5 * time.Second
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
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	cmd := e.command(ctx, args...)
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
	e.checkNoSecret(r.stdout + r.stderr)
	e.t.Logf("$ agentdeck %s  → exit %d", strings.Join(args, " "), code)
	return r
}

func (e *cmdEnv) checkNoSecret(s string) {
	e.t.Helper()
	if strings.Contains(s, "NEVER-PRINTED") {
		e.t.Fatal("the API key was printed")
	}
	if strings.Contains(s, "goroutine ") && strings.Contains(s, "panic") {
		e.t.Fatalf("a stack trace reached the user:\n%s", s)
	}
}

// proc is a command running in the background whose stdout is read line
// by line.
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
	cmd := e.command(context.Background(), args...)
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
// test if the process ends first or the command's time runs out.
func (p *proc) waitLine(match func(string) bool) string {
	p.t.Helper()
	timeout := time.After(cmdTimeout)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("the process ended before the line we wait for; stderr:\n%s", p.stderr.String())
			}
			if match(l) {
				return l
			}
		case <-timeout:
			p.t.Fatalf("no such line within %v; stderr:\n%s", cmdTimeout, p.stderr.String())
		}
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *proc) kill() {
	p.t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		p.t.Fatal(err)
	}
	<-p.done
}

// syncBuffer is a bytes.Buffer safe to read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
