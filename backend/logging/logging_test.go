package logging

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestWhereRecordsGo(t *testing.T) {
	tests := []struct {
		name    string
		noFile  bool // no folder given
		broken  bool // the log file cannot be opened
		verbose bool
		// wantFile and wantStderr: the info record lands there; debug
		// records appear only with verbose.
		wantFile, wantStderr bool
	}{
		{name: "file only", wantFile: true},
		{name: "file and stderr with verbose", verbose: true, wantFile: true, wantStderr: true},
		{name: "no folder", noFile: true},
		{name: "unopenable file", broken: true},
		{name: "unopenable file, verbose", broken: true, verbose: true, wantStderr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			if tt.broken {
				// A folder where the file goes: no one can open it as a
				// file, root included.
				if err := os.Mkdir(path, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			opts := Options{Dir: dir}
			if tt.noFile {
				opts.Dir = ""
			}
			var stderr bytes.Buffer
			if tt.verbose {
				opts.Verbose = &stderr
			}
			l := New(opts)
			l.Info("turn stopped", "turn", "t1")
			l.Debug("detail")
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			file, _ := os.ReadFile(path)
			if got := strings.Contains(string(file), "msg=\"turn stopped\" turn=t1"); got != tt.wantFile {
				t.Fatalf("record in the file: %v, want %v: %q", got, tt.wantFile, file)
			}
			if got := strings.Contains(stderr.String(), "msg=\"turn stopped\""); got != tt.wantStderr {
				t.Fatalf("record on stderr: %v, want %v: %q", got, tt.wantStderr, stderr.String())
			}
			if strings.Contains(string(file), "detail") != (tt.verbose && tt.wantFile) {
				t.Fatalf("debug records in the file without --verbose, or missing with it: %q", file)
			}
		})
	}
}

// A record logged after Close (a goroutine still ending) is kept, and
// starts no goroutine that would outlive the logger.
func TestRecordAfterClose(t *testing.T) {
	dir := t.TempDir()
	l := New(Options{Dir: dir})
	l.Info("before")
	l.Close()
	l.Info("after")
	file, _ := os.ReadFile(filepath.Join(dir, FileName))
	if !strings.Contains(string(file), "before") || !strings.Contains(string(file), "after") {
		t.Fatalf("log file: %q", file)
	}
}
