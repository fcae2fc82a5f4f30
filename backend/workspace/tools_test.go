package workspace_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/workspace"
)

func TestToolSpecs(t *testing.T) {
	f := newFixture(t, workspace.Limits{})
	ts, err := tool.NewSet(f.w.Tools()...)
	if err != nil {
		t.Fatalf("the schemas do not compile: %v", err)
	}
	sideEffects := map[string]bool{workspace.ToolListFiles: false, workspace.ToolReadFile: false, workspace.ToolWriteFile: true}
	required := map[string][]string{workspace.ToolReadFile: {"path"}, workspace.ToolWriteFile: {"path", "content"}}
	for _, tool := range f.w.Tools() {
		spec := tool.Spec()
		t.Run(spec.Name, func(t *testing.T) {
			if spec.SideEffects != sideEffects[spec.Name] {
				t.Errorf("SideEffects = %v", spec.SideEffects)
			}
			var schema struct {
				AdditionalProperties *bool    `json:"additionalProperties"`
				Required             []string `json:"required"`
			}
			if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
				t.Fatal(err)
			}
			if schema.AdditionalProperties == nil || *schema.AdditionalProperties {
				t.Error("additionalProperties is not false")
			}
			if fmt.Sprint(schema.Required) != fmt.Sprint(required[spec.Name]) {
				t.Errorf("required = %v, want %v", schema.Required, required[spec.Name])
			}
			if _, err := ts.Validate(spec.Name, `{"path":"a.txt","content":"x","extra":1}`); err == nil {
				t.Error("an unknown property was accepted")
			}
		})
	}
	if _, err := ts.Validate(workspace.ToolReadFile, `{}`); err == nil {
		t.Error("read_file without a path was accepted")
	}
	if _, err := ts.Validate(workspace.ToolWriteFile, `{"path":"a","content":"x","mode":"append"}`); err == nil {
		t.Error("an unknown write mode was accepted")
	}
	if _, err := ts.Validate(workspace.ToolReadFile, `{"path":"a","start_line":0}`); err == nil {
		t.Error("start_line 0 was accepted")
	}
}

func TestListFiles(t *testing.T) {
	f := newFixture(t, workspace.Limits{})
	tests := []struct {
		name    string
		args    string
		want    []string // lines (after the header) that must appear, in order
		notWant []string
	}{
		{
			name:    "top, not recursive",
			args:    `{}`,
			want:    []string{"type  size", "dir ", ".git/", "file  17 ", "a.txt", "link", "absin -> ", "c1 -> c2", "dir/", "link", "etc -> /etc (cannot be followed", "good1 -> good2\n", "up -> ../outside (cannot be followed"},
			notWant: []string{"HEAD", "dir/sub", "contents not listed"},
		},
		{
			name:    "recursive skips .git",
			args:    `{"recursive":true}`,
			want:    []string{".git/ (contents not listed)", "dir/", "dir/b.txt", "link", "dir/esc -> ../../outside", "dir/sub/", "dir/sub/c.go", "The contents of .git were not listed"},
			notWant: []string{".git/HEAD", "up/secret.txt", "indir/b.txt"}, // links are not followed
		},
		{
			name: ".git by path",
			args: `{"path":".git","recursive":true}`,
			want: []string{`1 entry in ".git", recursive:`, ".git/HEAD"},
		},
		{
			name:    "subfolder",
			args:    `{"path":"dir"}`,
			want:    []string{`3 entries in "dir":`, "dir/b.txt", "dir/esc", "dir/sub/"},
			notWant: []string{"c.go"},
		},
		{
			name: "through a link to a folder inside",
			args: `{"path":"indir"}`,
			want: []string{"indir/b.txt", "indir/sub/"},
		},
		{
			name:    "pattern on names",
			args:    `{"recursive":true,"pattern":"*.go"}`,
			want:    []string{`1 entry in ".", recursive, pattern "*.go":`, "dir/sub/c.go"},
			notWant: []string{"b.txt"},
		},
		{
			name: "pattern with a slash",
			args: `{"path":"dir","recursive":true,"pattern":"sub/*"}`,
			want: []string{"1 entry", "dir/sub/c.go"},
		},
		{
			name: "a file",
			args: `{"path":"dir/b.txt"}`,
			want: []string{"1 entry", "file  2 ", "dir/b.txt"},
		},
		{
			name: "broken link",
			args: `{"pattern":"dang*"}`,
			want: []string{"dangling -> nothing.txt (broken)"},
		},
		{
			name: "nothing matches",
			args: `{"pattern":"*.rs"}`,
			want: []string{`No entries in "."`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := call(t, f.w, workspace.ToolListFiles, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			rest := out
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("%q missing or out of order in:\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
			for _, nw := range tt.notWant {
				if strings.Contains(out, nw) {
					t.Errorf("%q should not be in:\n%s", nw, out)
				}
			}
		})
	}
}

func TestListFilesErrors(t *testing.T) {
	f := newFixture(t, workspace.Limits{})
	_, err := call(t, f.w, workspace.ToolListFiles, `{"path":"nope"}`)
	wantErr(t, err, `"nope" does not exist`)
	_, err = call(t, f.w, workspace.ToolListFiles, `{"pattern":"[a"}`)
	wantErr(t, err, `pattern "[a" is not a valid glob`)
}

func TestListFilesCap(t *testing.T) {
	f := newFixture(t, workspace.Limits{MaxListEntries: 3})
	for i := range 10 {
		writeFile(t, filepath.Join(f.ws, "many", fmt.Sprintf("f%02d.txt", i)), "x")
	}
	out, err := call(t, f.w, workspace.ToolListFiles, `{"path":"many"}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out, "many/f"); got != 3 {
		t.Errorf("%d entries listed, want 3:\n%s", got, out)
	}
	for _, w := range []string{"many/f00.txt", "many/f02.txt", "The listing stopped at 3 entries"} {
		if !strings.Contains(out, w) {
			t.Errorf("%q missing in:\n%s", w, out)
		}
	}
}

func TestReadFile(t *testing.T) {
	f := newFixture(t, workspace.Limits{MaxReadBytes: 64})
	writeFile(t, filepath.Join(f.ws, "crlf.txt"), "one\r\ntwo\r\n")
	writeFile(t, filepath.Join(f.ws, "nonl.txt"), "x\ny")
	writeFile(t, filepath.Join(f.ws, "empty.txt"), "")
	var ten strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&ten, "line %02d of ten\n", i) // 15 bytes a line
	}
	writeFile(t, filepath.Join(f.ws, "ten.txt"), ten.String()) // 150 bytes, over the 64 limit
	writeFile(t, filepath.Join(f.ws, "badline.txt"), "ok\n"+strings.Repeat("y", 9000)+"\nbad \xff\n")

	tests := []struct {
		name    string
		args    string
		want    string
		wantErr []string
	}{
		{name: "whole file", args: `{"path":"a.txt"}`, want: "\"a.txt\", 3 lines:\n1 | alpha\n2 | beta\n3 | gamma"},
		{name: "range", args: `{"path":"a.txt","start_line":2,"end_line":3}`, want: "\"a.txt\", lines 2-3 of 3:\n2 | beta\n3 | gamma"},
		{name: "start only", args: `{"path":"a.txt","start_line":3}`, want: "\"a.txt\", lines 3-3 of 3:\n3 | gamma"},
		{name: "end only", args: `{"path":"a.txt","end_line":1}`, want: "\"a.txt\", lines 1-1 of 3:\n1 | alpha"},
		{name: "end past the end", args: `{"path":"a.txt","start_line":2,"end_line":99}`, want: "\"a.txt\", lines 2-3 of 3:\n2 | beta\n3 | gamma"},
		{name: "crlf", args: `{"path":"crlf.txt"}`, want: "\"crlf.txt\", 2 lines:\n1 | one\n2 | two"},
		{name: "no final newline", args: `{"path":"nonl.txt"}`, want: "\"nonl.txt\", 2 lines:\n1 | x\n2 | y"},
		{name: "empty", args: `{"path":"empty.txt"}`, want: `"empty.txt" is empty (0 lines).`},
		{name: "through a link inside", args: `{"path":"good1"}`, want: "\"good1\", 1 line:\n1 | b"},
		{name: "large file by range", args: `{"path":"ten.txt","start_line":9,"end_line":10}`, want: "\"ten.txt\", lines 9-10 of 10:\n 9 | line 09 of ten\n10 | line 10 of ten"},
		{name: "large file whole", args: `{"path":"ten.txt"}`, wantErr: []string{`"ten.txt" is 150 bytes (10 lines), more than the 64 bytes`, "start_line and end_line"}},
		{name: "large range", args: `{"path":"ten.txt","start_line":2,"end_line":9}`, wantErr: []string{`lines 2-9 of "ten.txt" (10 lines) are more than the 64 bytes`, "fewer lines"}},
		{name: "large range to the end", args: `{"path":"ten.txt","start_line":2}`, wantErr: []string{"lines 2 to the end"}},
		{name: "past the end", args: `{"path":"a.txt","start_line":4}`, wantErr: []string{`start_line 4 is past the end of "a.txt", which has 3 lines`}},
		{name: "end before start", args: `{"path":"a.txt","start_line":3,"end_line":2}`, wantErr: []string{"end_line 2 is before start_line 3"}},
		{name: "binary", args: `{"path":"bin.dat"}`, wantErr: []string{`"bin.dat" looks like a binary file (it contains NUL bytes)`}},
		{name: "not utf-8", args: `{"path":"latin1.txt"}`, wantErr: []string{`"latin1.txt" looks like a binary file (it is not valid UTF-8 text)`}},
		{name: "bad line after the first 8 KB", args: `{"path":"badline.txt","start_line":3}`, wantErr: []string{`line 3 is not valid UTF-8`}},
		{name: "folder", args: `{"path":"dir"}`, wantErr: []string{`"dir" is a folder; use list_files`}},
		{name: "missing", args: `{"path":"nope.txt"}`, wantErr: []string{`"nope.txt" does not exist`}},
		{name: "broken link", args: `{"path":"dangling"}`, wantErr: []string{`"dangling" does not exist`}},
		{name: "file as folder", args: `{"path":"a.txt/x"}`, wantErr: []string{`"a.txt/x": a part of the path is a file`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := call(t, f.w, workspace.ToolReadFile, tt.args)
			if tt.wantErr != nil {
				wantErr(t, err, tt.wantErr...)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", out, tt.want)
			}
		})
	}
}

func TestReadLargeFileDefaultLimit(t *testing.T) {
	f := newFixture(t, workspace.Limits{})
	var b strings.Builder
	line := strings.Repeat("é", 49) + "\n" // 99 bytes, two-byte runes across the 8 KB mark
	for b.Len() < 300<<10 {
		b.WriteString(line)
	}
	writeFile(t, filepath.Join(f.ws, "big.txt"), b.String())
	total := b.Len() / len(line)

	_, err := call(t, f.w, workspace.ToolReadFile, `{"path":"big.txt"}`)
	wantErr(t, err, `"big.txt" is 300.`, fmt.Sprintf("(%d lines), more than the 256 KiB", total))

	out, err := call(t, f.w, workspace.ToolReadFile, fmt.Sprintf(`{"path":"big.txt","start_line":%d}`, total-1))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("lines %d-%d of %d:\n%d | %s", total-1, total, total, total-1, strings.TrimSuffix(line, "\n"))
	if !strings.Contains(out, want) {
		t.Errorf("got:\n%s\nwant it to contain:\n%s", out, want)
	}
}

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name    string
		setup   map[string]string // files to make first, relative to ws
		args    string
		want    string
		wantErr []string
		file    string // checked on disk after the call
		content string
	}{
		{name: "create", args: `{"path":"new.txt","content":"hello\nworld\n"}`, want: `Created "new.txt" (12 bytes, 2 lines).`, file: "new.txt", content: "hello\nworld\n"},
		{name: "create with folders", args: `{"path":"x/y/z.txt","content":"z"}`, want: `Created "x/y/z.txt"`, file: "x/y/z.txt", content: "z"},
		{name: "create refuses an existing file", args: `{"path":"a.txt","content":"new"}`, wantErr: []string{`"a.txt" already exists (17 bytes)`, `mode "overwrite"`}, file: "a.txt", content: "alpha\nbeta\ngamma\n"},
		{name: "explicit create mode", args: `{"path":"a.txt","content":"new","mode":"create"}`, wantErr: []string{"already exists"}, file: "a.txt", content: "alpha\nbeta\ngamma\n"},
		{name: "overwrite", args: `{"path":"a.txt","content":"new","mode":"overwrite"}`, want: `Replaced "a.txt" (3 bytes, 1 line; it had 17 bytes).`, file: "a.txt", content: "new"},
		{name: "overwrite a missing file creates it", args: `{"path":"fresh.txt","content":"","mode":"overwrite"}`, want: `Created "fresh.txt" (0 bytes, 0 lines).`, file: "fresh.txt", content: ""},
		{name: "overwrite through a link writes its target", args: `{"path":"good1","content":"B\n","mode":"overwrite"}`, want: `Replaced "good1"`, file: "dir/b.txt", content: "B\n"},
		{name: "through a linked folder", args: `{"path":"indir/n.txt","content":"n"}`, want: `Created "indir/n.txt"`, file: "dir/n.txt", content: "n"},
		{name: "through a dangling link creates its target", args: `{"path":"dangling","content":"d"}`, want: `Created "dangling"`, file: "nothing.txt", content: "d"},
		{name: "too large", args: `{"path":"big.txt","content":"` + strings.Repeat("x", 33) + `"}`, wantErr: []string{`the content for "big.txt" is 33 bytes, more than the 32 bytes`}},
		{name: "a folder", args: `{"path":"dir","content":"x","mode":"overwrite"}`, wantErr: []string{`"dir" is a folder`}},
		{name: "trailing slash", args: `{"path":"newdir/","content":"x"}`, wantErr: []string{`"newdir/" ends with a slash`}},
		{name: "the workspace itself", args: `{"path":".","content":"x"}`, wantErr: []string{`"." is the workspace folder itself`}},
		{name: "under a file", args: `{"path":"a.txt/x","content":"x"}`, wantErr: []string{`"a.txt/x": a part of the path is a file`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, workspace.Limits{MaxWriteBytes: 32})
			out, err := call(t, f.w, workspace.ToolWriteFile, tt.args)
			if tt.wantErr != nil {
				wantErr(t, err, tt.wantErr...)
			} else if err != nil {
				t.Fatal(err)
			} else if !strings.HasPrefix(out, tt.want) {
				t.Errorf("got %q, want it to start with %q", out, tt.want)
			}
			if tt.file != "" {
				got, err := os.ReadFile(filepath.Join(f.ws, tt.file))
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != tt.content {
					t.Errorf("%s holds %q, want %q", tt.file, got, tt.content)
				}
			}
			noTempFiles(t, f.ws)
			if fi, err := os.Lstat(filepath.Join(f.ws, "good1")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("good1 is no longer a link: %v", err)
			}
		})
	}
}

func TestWriteKeepsMode(t *testing.T) {
	f := newFixture(t, workspace.Limits{})
	path := filepath.Join(f.ws, "run.sh")
	writeFile(t, path, "#!/bin/sh\n")
	if err := os.Chmod(path, 0o751); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, f.w, workspace.ToolWriteFile, `{"path":"run.sh","content":"echo hi\n","mode":"overwrite"}`); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o751 {
		t.Errorf("mode = %v, want -rwxr-x--x", fi.Mode().Perm())
	}
}

// TestEscapesRefusedByEveryTool sends each way out to each tool and checks
// the refusal and that nothing outside changed.
func TestEscapesRefusedByEveryTool(t *testing.T) {
	f := newFixture(t, workspace.Limits{})
	escapes := []struct {
		path   string
		reason string
	}{
		{"../outside/secret.txt", "climb above the workspace folder"},
		{"a/../../outside/x", "climb above the workspace folder"},
		{"/etc/passwd", "absolute path"},
		{"etc/passwd", `"etc" is a link that leads outside the workspace`},
		{"etc/agentdeck-test", `"etc" is a link that leads outside the workspace`},
		{"up/secret.txt", `"up" is a link that leads outside the workspace`},
		{"upfile", `"upfile" is a link that leads outside the workspace`},
		{"c1/secret.txt", `"c1" is a link that leads outside the workspace`},
		{"dir/esc/secret.txt", `"dir/esc" is a link that leads outside the workspace`},
		{"loop1", "loops"},
		{"absin", "absolute target"},
		{"x\x00y", "NUL byte"},
	}
	for _, e := range escapes {
		for _, tool := range []string{workspace.ToolListFiles, workspace.ToolReadFile, workspace.ToolWriteFile} {
			t.Run(tool+" "+e.path, func(t *testing.T) {
				args, _ := json.Marshal(map[string]any{"path": e.path})
				if tool == workspace.ToolWriteFile {
					args, _ = json.Marshal(map[string]any{"path": e.path, "content": "pwned", "mode": "overwrite"})
				}
				out, err := call(t, f.w, tool, string(args))
				if err == nil {
					t.Fatalf("accepted; output:\n%s", out)
				}
				wantRefused(t, err, e.path, e.reason)
			})
		}
	}
	got, err := os.ReadFile(filepath.Join(f.outside, "secret.txt"))
	if err != nil || string(got) != "secret\n" {
		t.Errorf("outside/secret.txt = %q, %v; it must not change", got, err)
	}
	if entries, _ := os.ReadDir(f.outside); len(entries) != 1 {
		t.Errorf("outside holds %d entries, want only secret.txt", len(entries))
	}
}

func TestCancelled(t *testing.T) {
	f := newFixture(t, workspace.Limits{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	args := map[string]string{
		workspace.ToolListFiles: `{"recursive":true}`,
		workspace.ToolReadFile:  `{"path":"a.txt"}`,
		workspace.ToolWriteFile: `{"path":"c.txt","content":"x"}`,
	}
	for _, tool := range f.w.Tools() {
		name := tool.Spec().Name
		if _, err := tool.Execute(ctx, json.RawMessage(args[name])); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(f.ws, "c.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a cancelled write left c.txt: %v", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	f := newFixture(t, workspace.Limits{})
	tools := map[string]tool.Tool{}
	for _, tool := range f.w.Tools() {
		tools[tool.Spec().Name] = tool
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			name := fmt.Sprintf("c/%d.txt", i)
			content := strings.Repeat(fmt.Sprintf("%d\n", i), 100)
			args, _ := json.Marshal(map[string]string{"path": name, "content": content})
			if _, err := tools[workspace.ToolWriteFile].Execute(ctx, args); err != nil {
				t.Error(err)
				return
			}
			args, _ = json.Marshal(map[string]any{"path": name, "start_line": 100})
			out, err := tools[workspace.ToolReadFile].Execute(ctx, args)
			if err != nil || !strings.HasSuffix(out, fmt.Sprintf("100 | %d", i)) {
				t.Errorf("read %s: %q, %v", name, out, err)
			}
			if _, err := tools[workspace.ToolListFiles].Execute(ctx, json.RawMessage(`{"recursive":true}`)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// noTempFiles fails if a write left a temporary file anywhere in dir.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".agentdeck-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}
