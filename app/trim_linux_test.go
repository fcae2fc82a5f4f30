//go:build linux

package app

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The test binary, like the app, has run every package's init: its code
// is resident, and after the release far less of it is, while the
// process goes on running (the pages fault back in from the page cache).
func TestReleaseStartPages(t *testing.T) {
	before := exeReadOnlyRSS(t)
	if before == 0 {
		t.Fatal("no resident read-only pages of the executable before the release")
	}
	n, err := releaseStartPages()
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("released nothing")
	}
	after := exeReadOnlyRSS(t)
	if after >= before/2 {
		t.Fatalf("resident read-only pages of the executable: %d kB before, %d kB after; want under half", before, after)
	}
	t.Logf("read-only pages of the executable resident: %d kB before, %d kB after (%d kB advised)", before, after, n>>10)
	// Code and data that were dropped still work.
	if got := strconv.Itoa(strings.Count("a,b,c", ",")); got != "2" {
		t.Fatalf("got %q", got)
	}
}

// exeReadOnlyRSS sums the Rss (kB) of this process's mappings of its
// executable that are not writable.
func exeReadOnlyRSS(t *testing.T) int {
	t.Helper()
	self, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	total, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = len(fields) >= 6 && fields[5] == self && !strings.Contains(fields[1], "w")
			continue
		}
		if in && len(fields) >= 2 && fields[0] == "Rss:" {
			kb, _ := strconv.Atoi(fields[1])
			total += kb
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}
