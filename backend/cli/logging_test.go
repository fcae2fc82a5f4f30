package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/logging"
	"github.com/agentdeck/agentdeck/backend/paths"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/store/storetest"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// A log record on stderr looks like "time=... level=INFO msg=...".
const logRecord = "level="

// The log goes to agentdeck.log beside the database, and to stderr only
// with --verbose, which every command takes wherever it stands; a log file
// that cannot be opened costs nothing.
func TestLogGoesToTheFileAndStderrOnlyWithVerbose(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		// brokenLog makes agentdeck.log a folder, which no one can open
		// as a file (permissions would not stop root).
		brokenLog   bool
		wantStderr  bool // log records on stderr
		wantLogFile bool // log records in agentdeck.log
	}{
		{"run", []string{"run", "Say hi"}, false, false, true},
		{"run --verbose", []string{"run", "--verbose", "Say hi"}, false, true, true},
		{"--verbose before the command", []string{"--verbose", "run", "Say hi"}, false, true, true},
		{"--verbose=false", []string{"run", "--verbose=false", "Say hi"}, false, false, true},
		{"log file cannot be opened", []string{"run", "Say hi"}, true, false, false},
		{"log file cannot be opened, --verbose", []string{"run", "Say hi", "--verbose"}, true, true, false},
		{"sessions list --verbose", []string{"sessions", "list", "--verbose"}, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Hi there.", 2)})
			dir := t.TempDir()
			db := filepath.Join(dir, "agentdeck.db")
			logPath := filepath.Join(dir, logging.FileName)
			if tt.brokenLog {
				if err := os.Mkdir(logPath, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			r := agentdeck(t, db, srv.URL(), nil, nil, tt.args...)
			if r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if tt.args[0] == "run" && strings.TrimSpace(r.stdout) != "Hi there." {
				t.Fatalf("stdout %q", r.stdout)
			}
			if got := strings.Contains(r.stderr, logRecord); got != tt.wantStderr {
				t.Fatalf("log records on stderr: %v, want %v:\n%s", got, tt.wantStderr, r.stderr)
			}
			if tt.wantStderr && !strings.Contains(r.stderr, "msg=secrets") {
				t.Fatalf("--verbose did not send the run's log to stderr:\n%s", r.stderr)
			}
			file, _ := os.ReadFile(logPath)
			if got := strings.Contains(string(file), "msg=secrets"); got != tt.wantLogFile {
				t.Fatalf("the run's log in %s: %v, want %v:\n%s", logPath, got, tt.wantLogFile, file)
			}
		})
	}
}

func TestTakeVerbose(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		want    []string
		verbose bool
	}{
		{[]string{"run", "x"}, []string{"run", "x"}, false},
		{[]string{"run", "-verbose", "x"}, []string{"run", "x"}, true},
		{[]string{"--verbose=true", "sessions", "list"}, []string{"sessions", "list"}, true},
		{[]string{"run", "--verbose=0", "x"}, []string{"run", "x"}, false},
		// After "--" it is the prompt's, not a flag.
		{[]string{"run", "--", "--verbose"}, []string{"run", "--", "--verbose"}, false},
		{[]string{"run", "explain --verbose"}, []string{"run", "explain --verbose"}, false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, l := takeVerbose(tt.args)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || l.verbose != tt.verbose {
				t.Fatalf("got %q verbose %v, want %q %v", got, l.verbose, tt.want, tt.verbose)
			}
		})
	}
}

// On a full disk `agentdeck run` says so in one line on stderr (no log
// record), exits 1, keeps the answer as far as it was stored, and writes
// the details to agentdeck.log. The disk is a real small file system: the
// command opens its own database, whose page limit a test cannot set, so
// without a tmpfs the runner's test covers the fallback.
func TestRunOnAFullDiskSaysSoOnce(t *testing.T) {
	t.Parallel()
	dir, whyNot := storetest.SmallDisk(t, "16m")
	if dir == "" {
		t.Skipf("no tmpfs here (%s); TestTurnStopsOnAFullDisk in backend/runner covers the page-limit fallback", whyNot)
	}
	t.Logf("disk full path: a tmpfs of 16 MB at %s, 4 MB of it the reserve and all but 1 MB of the rest filled", dir)
	// The reserve is made while there is room for it (store.ReserveRoom);
	// then other programs fill the disk.
	pre, err := store.Open(context.Background(), filepath.Join(dir, "agentdeck.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := pre.KeepReserve(); err != nil {
		t.Fatal(err)
	}
	if err := pre.Close(); err != nil {
		t.Fatal(err)
	}
	storetest.FillDisk(t, dir, 1<<20)
	var answer strings.Builder
	for i := range 60_000 {
		answer.WriteString("word" + strconv.Itoa(i) + " ")
	}
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text(answer.String(), 12_000), Delay: time.Millisecond})
	db := filepath.Join(dir, "agentdeck.db")

	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "Write a very long answer")
	t.Logf("stderr:\n%s", r.stderr)
	if r.code != ExitFailed {
		t.Fatalf("exit %d, want 1: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, logRecord) || strings.Contains(r.stderr, "could not be recorded") {
		t.Fatalf("log records or a second message on stderr:\n%s", r.stderr)
	}
	var messages []string
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		if !strings.HasPrefix(line, "session ") && !strings.HasPrefix(line, "── ") {
			messages = append(messages, line)
		}
	}
	if len(messages) != 1 || !strings.Contains(messages[0], "The disk is full") || !strings.Contains(messages[0], "words") || !strings.Contains(messages[0], "Free at least") {
		t.Fatalf("want the one disk-full message on stderr, got %q", messages)
	}
	if len(strings.Fields(r.stdout)) >= 60_000 {
		t.Fatal("the whole answer streamed into a disk that cannot hold it")
	}

	var turnID string
	if f := strings.Fields(r.stderr[strings.LastIndex(r.stderr, "turn "):]); len(f) == 2 {
		turnID = f[1]
	}
	show := agentdeck(t, db, srv.URL(), nil, nil, "turns", "show", turnID, "--json")
	var v struct {
		State       string           `json:"state"`
		FinalText   string           `json:"final_text"`
		Termination turn.Termination `json:"termination"`
	}
	if err := json.Unmarshal([]byte(show.stdout), &v); err != nil {
		t.Fatalf("turns show %s: %v %s %s", turnID, err, show.stdout, show.stderr)
	}
	if v.State != "failed" || v.Termination.Kind != turn.TermDiskFull || v.FinalText == "" || !strings.HasPrefix(r.stdout, v.FinalText) {
		t.Fatalf("stored turn: %s %+v, %d bytes of final text, a prefix of stdout: %v", v.State, v.Termination, len(v.FinalText), strings.HasPrefix(r.stdout, v.FinalText))
	}
	if !strings.Contains(messages[0], strconv.Itoa(len(strings.Fields(v.FinalText)))) {
		t.Fatalf("the message does not count the %d stored words: %s", len(strings.Fields(v.FinalText)), messages[0])
	}
	file, _ := os.ReadFile(filepath.Join(dir, logging.FileName))
	if !strings.Contains(string(file), "the disk is full: turn stopped") || !strings.Contains(string(file), "turn="+turnID) {
		t.Fatalf("agentdeck.log lacks the details:\n%s", file)
	}
}

// The window and serve log to the file too, on a first start as well,
// when the database's folder does not exist yet.
func TestDesktopLogsToTheFileOnAFirstStart(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "not", "yet")
	db := filepath.Join(dir, "agentdeck.db")
	var stderr syncBuffer
	env := Env{
		Stdout: &syncBuffer{}, Stderr: &stderr,
		Paths:  paths.Env{GOOS: "linux", Home: t.TempDir(), Getenv: func(string) string { return "" }},
		Getenv: func(string) string { return "" },
		Desktop: func(ctx context.Context, start DesktopStart) error {
			start.Logger.Info("window started")
			return nil
		},
	}
	if code := Main(context.Background(), []string{"--db", db}, env); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	file, _ := os.ReadFile(filepath.Join(dir, logging.FileName))
	if !strings.Contains(string(file), "window started") || strings.Contains(stderr.String(), logRecord) {
		t.Fatalf("log file %q, stderr %q", file, stderr.String())
	}
}
