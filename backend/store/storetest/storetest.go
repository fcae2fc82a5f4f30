// Package storetest has helpers for tests that look at a database from
// outside the store package: its files on disk.
package storetest

import (
	"os"
	"testing"
)

// Files returns the database file and its write-ahead log, end to end, so
// a test can tell whether anything at all was written.
func Files(t testing.TB, path string) []byte {
	t.Helper()
	var all []byte
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(append(all, b...), 0xff)
	}
	return all
}
