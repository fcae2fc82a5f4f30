package workspace_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentdeck/agentdeck/backend/workspace"
)

func TestNew(t *testing.T) {
	base := t.TempDir()
	writeFile(t, filepath.Join(base, "file.txt"), "x")
	if err := os.Mkdir(filepath.Join(base, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(base, "linked")
	if err := os.Symlink("real", linked); err != nil {
		t.Skipf("symlinks are not available: %v", err)
	}
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		root     string
		wantRoot string
		wantErr  string
	}{
		{name: "folder", root: filepath.Join(base, "real"), wantRoot: filepath.Join(realBase, "real")},
		{name: "link to a folder is resolved", root: linked, wantRoot: filepath.Join(realBase, "real")},
		{name: "missing", root: filepath.Join(base, "nope"), wantErr: "does not exist"},
		{name: "a file", root: filepath.Join(base, "file.txt"), wantErr: "is a file, not a folder"},
		{name: "empty", root: "", wantErr: "not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := workspace.New(tt.root, workspace.Limits{})
			if tt.wantErr != "" {
				wantErr(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.Root() != tt.wantRoot {
				t.Errorf("Root() = %q, want %q", w.Root(), tt.wantRoot)
			}
			want := workspace.Limits{MaxReadBytes: 256 << 10, MaxWriteBytes: 1 << 20, MaxListEntries: 500}
			if w.Limits() != want {
				t.Errorf("Limits() = %+v, want the defaults %+v", w.Limits(), want)
			}
		})
	}
}

func TestResolveAccepts(t *testing.T) {
	f := newFixture(t, workspace.Limits{})
	tests := []struct {
		rel  string
		want string // relative to the root
	}{
		{".", "."},
		{"a.txt", "a.txt"},
		{"./dir//b.txt", "dir/b.txt"},
		{"dir/../a.txt", "a.txt"},
		{"dir/sub/..", "dir"},
		{"indir/b.txt", "indir/b.txt"}, // the link is kept; it stays inside
		{"good1", "good1"},
		{"new/file.txt", "new/file.txt"},
		{"dangling", "dangling"},
		{"a.txt/x", "a.txt/x"}, // not there; the operation says so
		{"~x", "~x"},           // a file named ~x is a file
		{"ab:c", "ab:c"},       // one letter before : would be a drive
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			got, err := f.w.Resolve(tt.rel)
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(f.w.Root(), filepath.FromSlash(tt.want)); got != want {
				t.Errorf("Resolve(%q) = %q, want %q", tt.rel, got, want)
			}
		})
	}
}

func TestResolveRefuses(t *testing.T) {
	f := newFixture(t, workspace.Limits{})
	tests := []struct {
		name   string
		rel    string
		reason string
	}{
		{"parent", "../x", "climb above the workspace folder"},
		{"parent after a folder", "a/../../x", "climb above the workspace folder"},
		{"just ..", "..", "climb above"},
		{"unix absolute", "/etc/passwd", "absolute path; use a path relative to the workspace"},
		{"windows drive", `C:\x`, "absolute path"},
		{"windows drive slash", "c:/x", "absolute path"},
		{"windows drive relative", "C:x", "absolute path"},
		{"unc", `\\server\share`, "absolute path"},
		{"home", "~/notes.txt", "~ is not expanded"},
		{"empty", "", "the path is empty"},
		{"nul", "a\x00b.txt", "NUL byte"},
		{"link to /etc", "etc/passwd", `"etc" is a link that leads outside the workspace (to /etc)`},
		{"link to /etc itself", "etc", `"etc" is a link that leads outside`},
		{"linked folder outside", "up/secret.txt", `"up" is a link that leads outside the workspace`},
		{"linked file outside", "upfile", `"upfile" is a link that leads outside`},
		{"chain", "c1/secret.txt", `"c1" is a link that leads outside`},
		{"deep link", "dir/esc/secret.txt", `"dir/esc" is a link that leads outside`},
		{"deep link via linked folder", "indir/esc", `"indir/esc" is a link that leads outside`},
		{"loop", "loop1", `"loop1" is a link that loops`},
		{"absolute link inside", "absin", `"absin" is a link with an absolute target`},
		{"link through a missing folder", "odd", `goes through "missing", which is missing or not a folder, and then back up with ".."`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.w.Resolve(tt.rel)
			if err == nil {
				t.Fatalf("Resolve(%q) = %q; want a refusal", tt.rel, got)
			}
			wantRefused(t, err, tt.rel, tt.reason)
		})
	}
}
