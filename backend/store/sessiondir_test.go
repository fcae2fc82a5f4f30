package store

import (
	"path/filepath"
	"testing"
)

// A session's folder is always a child of sessions/, whatever id an
// imported file brought: deleting it can never reach beyond.
func TestSessionDirStaysInside(t *testing.T) {
	t.Parallel()
	base := filepath.Join("/data", "agentdeck.db")
	for _, id := range []string{"01a2-uuid", "..", ".", "../../etc", "a/b", `a\b`, "", "x y"} {
		dir := SessionDir(base, id)
		if filepath.Dir(dir) != filepath.Join("/data", "sessions") || filepath.Base(dir) == ".." || filepath.Base(dir) == "." {
			t.Errorf("SessionDir(%q) = %s, outside /data/sessions", id, dir)
		}
	}
	if got := SessionDir(base, "01a2-uuid"); got != filepath.Join("/data", "sessions", "01a2-uuid") {
		t.Errorf("a plain id keeps its name: %s", got)
	}
	if SessionDir(base, "..") == SessionDir(base, ".") {
		t.Error("different ids must not share a folder")
	}
}
