package app

import (
	"bufio"
	"database/sql"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// Bytes written per byte of answer (figure 1d). Two measures, both for
// the 50,000-token turn of BenchmarkTokenPipeline50k:
//
//   - written: the bytes the process passes to write(2) and pwrite(2)
//     (/proc/self/io wchar) from Start until the turn, its search entries
//     and the checkpoint of the write-ahead log are on disk, less what the
//     bare go-openai client's read of the same stream costs in the same
//     process (the scripted server runs in the process, and its socket
//     writes are the same for both): what SQLite writes to the database
//     and its log, each page twice (log, then checkpoint).
//   - stored: the pages in use the turn adds to the database file.

// procWchar is the process's wchar: bytes passed to write calls so far.
func procWchar(b *testing.B) int64 {
	f, err := os.Open("/proc/self/io")
	if err != nil {
		b.Skipf("figure 1d needs /proc/self/io: %v", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "wchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("no wchar in /proc/self/io")
	return 0
}

// pagesInUse is the bytes of the database's pages that hold data.
func pagesInUse(b *testing.B, path string) int64 {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var pages, free, size int64
	if err := db.QueryRow(`SELECT (SELECT page_count FROM pragma_page_count), (SELECT freelist_count FROM pragma_freelist_count), (SELECT page_size FROM pragma_page_size)`).Scan(&pages, &free, &size); err != nil {
		b.Fatal(err)
	}
	return (pages - free) * size
}

// answerBytes is the text the scripted reply streams.
func answerBytes(r llmtest.Reply) int64 {
	var n int64
	for _, c := range r.Chunks {
		n += int64(len(c.Content))
	}
	return n
}

// reportBytes reports figure 1d from the per-iteration samples.
func reportBytes(b *testing.B, answer int64, full, bare, stored []int64) {
	med := func(v []int64) float64 {
		s := slices.Clone(v)
		slices.Sort(s)
		return float64(s[len(s)/2])
	}
	written := med(full) - med(bare)
	b.ReportMetric(float64(answer), "answer-bytes")
	b.ReportMetric(written, "written-bytes")
	b.ReportMetric(written/float64(answer), "written/answer")
	b.ReportMetric(med(stored), "stored-bytes")
	b.ReportMetric(med(stored)/float64(answer), "stored/answer")
}
