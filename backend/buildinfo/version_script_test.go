package buildinfo_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVersionScript runs scripts/version.sh in a throwaway repository
// through the states a build meets: no tag, a tag, commits after it, and
// uncommitted changes. Every version must be one Debian accepts (it starts
// with a digit) and sort the way the history runs.
func TestVersionScript(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is not installed: make and scripts/version.sh need it to build Agentdeck")
	}
	src, err := os.ReadFile("../../scripts/version.sh")
	if err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "scripts", "version.sh"), src, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_COMMITTER_DATE=2026-12-03T23:30:00-05:00", "GIT_AUTHOR_DATE=2026-12-03T23:30:00-05:00")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = repo
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	version := func(flag ...string) string { return run(append([]string{"bash", "scripts/version.sh"}, flag...)...) }

	if got := version(); got != "0.0.0~src" {
		t.Fatalf("outside git: %q", got)
	}
	run("git", "init", "-q")
	run("sh", "-c", "echo notes > NOTES")
	run("git", "add", ".")
	run("git", "commit", "-qm", "first")

	// The commit's date in UTC: 23:30 at -05:00 is the 4th.
	cases := []struct {
		name string
		step []string
		flag string
		want string
	}{
		{"untagged", nil, "", "0.0.0~git20261204.<sha>"},
		{"untagged numeric", nil, "--numeric", "0.0.0"},
		{"on a tag", []string{"git", "tag", "v1.2.3"}, "", "1.2.3"},
		{"on a tag numeric", nil, "--numeric", "1.2.3"},
		{"a tag not a version", []string{"git", "tag", "vnext"}, "", "1.2.3"},
		{"after the tag", []string{"git", "commit", "-q", "--allow-empty", "-m", "second"}, "", "1.2.3+git20261204.<sha>"},
		{"dirty", []string{"sh", "-c", "echo more >> NOTES"}, "", "1.2.3+git20261204.<sha>.dirty"},
	}
	debian := regexp.MustCompile(`^[0-9][A-Za-z0-9.+~-]*$`)
	for _, c := range cases {
		if c.step != nil {
			run(c.step...)
		}
		want := strings.ReplaceAll(c.want, "<sha>", run("git", "rev-parse", "--short=7", "HEAD"))
		var got string
		if c.flag == "" {
			got = version()
		} else {
			got = version(c.flag)
		}
		if got != want {
			t.Errorf("%s: %q, want %q", c.name, got, want)
		}
		if !debian.MatchString(got) {
			t.Errorf("%s: %q is not a Debian version", c.name, got)
		}
	}
	if got, want := version("--commit"), run("git", "rev-parse", "--short=12", "HEAD"); got != want {
		t.Errorf("--commit: %q, want %q", got, want)
	}
}
