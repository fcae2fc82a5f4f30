package cli

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// db check and db salvage count the same thing, rows, and say so: they
// said 133 events and 49 for the same file, one counting events one by
// one, the other rows (a run of streamed tokens is one row). The events
// the rows hold are said beside them.
func TestCheckAndSalvageCountTheSameRows(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("one two three four five six seven eight", 8)})
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	if r := agentdeck(t, db, srv.URL(), nil, nil, "run", "Count to eight"); r.code != ExitOK {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	check := agentdeck(t, db, srv.URL(), nil, nil, "db", "check")
	salvage := agentdeck(t, db, srv.URL(), nil, nil, "db", "salvage", filepath.Join(dir, "out.db"))
	if check.code != ExitOK || salvage.code != ExitOK {
		t.Fatalf("check %d %s; salvage %d %s", check.code, check.stderr, salvage.code, salvage.stderr)
	}
	c := regexp.MustCompile(`rows: .*· (\d+) events \(holding (\d+) events: a run of streamed tokens is one row\)`).FindStringSubmatch(check.stdout)
	s := regexp.MustCompile(`(?m)^\s+events\s+(\d+) rows read\s+(\d+) copied`).FindStringSubmatch(salvage.stdout)
	if c == nil || s == nil {
		t.Fatalf("the counts do not say their unit:\ncheck: %s\nsalvage: %s", check.stdout, salvage.stdout)
	}
	rows, events := atoi(t, c[1]), atoi(t, c[2])
	if atoi(t, s[1]) != rows || atoi(t, s[2]) != rows {
		t.Fatalf("check counts %d event rows, salvage read %s and copied %s", rows, s[1], s[2])
	}
	if events <= rows {
		t.Fatalf("the streamed answer's tokens should be fewer rows (%d) than events (%d)", rows, events)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
