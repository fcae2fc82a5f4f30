package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/workspace"
)

// FuzzResolve checks that any path Resolve accepts ends up under the root
// once every link is followed, and that any refusal names the path.
func FuzzResolve(f *testing.F) {
	fx := newFixture(f, workspace.Limits{})
	for _, seed := range []string{
		".", "a.txt", "dir/b.txt", "dir/../a.txt", "indir/sub/c.go", "good1", "new/x",
		"../x", "a/../../x", "..", "/etc/passwd", `C:\x`, "~/x", "a\x00b",
		"etc/passwd", "up/secret.txt", "upfile", "c1/x", "dir/esc/..", "dir/esc/../..",
		"indir/esc", "loop1", "absin", "dangling", "a.txt/..", "indir/../up/x",
		"dir/sub/../../up", "./././up", "dir//esc", "odd",
	} {
		f.Add(seed)
	}
	root := fx.w.Root()
	f.Fuzz(func(t *testing.T, rel string) {
		got, err := fx.w.Resolve(rel)
		if err != nil {
			var r *workspace.RefusedError
			if !errors.As(err, &r) {
				t.Fatalf("Resolve(%q): error %v is not a *RefusedError", rel, err)
			}
			if !strings.Contains(err.Error(), strconv.Quote(rel)) {
				t.Fatalf("Resolve(%q): error %q does not name the path", rel, err)
			}
			return
		}
		if !under(root, got) {
			t.Fatalf("Resolve(%q) = %q, lexically outside %q", rel, got, root)
		}
		// Follow the links of the longest part that exists; a broken link
		// is followed by hand to where it would create a file.
		p := got
		for hops := 0; ; hops++ {
			if hops > 64 {
				t.Fatalf("Resolve(%q) = %q, which cannot be followed to an end", rel, got)
			}
			real, err := filepath.EvalSymlinks(p)
			if err == nil {
				if !under(root, real) {
					t.Fatalf("Resolve(%q) = %q, which leads to %q, outside %q", rel, got, real, root)
				}
				return
			}
			if p == root {
				t.Fatalf("the root %q cannot be resolved: %v", root, err)
			}
			if dest, lerr := os.Readlink(p); lerr == nil {
				if !filepath.IsAbs(dest) {
					dest = filepath.Join(filepath.Dir(p), dest)
				}
				p = dest
				continue
			}
			p = filepath.Dir(p)
		}
	})
}

// under reports whether p is root or inside it.
func under(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
