package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestResourcesReachTheExe builds a small Windows program with and without
// the object file syso writes, and reads each back: with it, check finds the
// icon, the manifest and the version; without it, check says what is
// missing. (make package checks the real agentdeck.exe the same way.)
func TestResourcesReachTheExe(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles a Windows program")
	}
	const ver = "0.0.0~git20261203.abcdef0"
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module tiny\n\ngo 1.26\n")
	write("main.go", "package main\n\nfunc main() {}\n")
	build := func(out string) string {
		t.Helper()
		cmd := exec.Command("go", "build", "-o", out, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0", "GOFLAGS=", "GOWORK=off")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, b)
		}
		return filepath.Join(dir, out)
	}

	bare := build("bare.exe")
	if _, err := check(bare, ver); err == nil || !strings.Contains(err.Error(), "no icon") || !strings.Contains(err.Error(), "no application manifest") {
		t.Fatalf("an exe without resources: %v", err)
	}

	if err := run([]string{"syso", "-root", "../..", "-version", ver, "-numeric", "0.0.0", "-out", filepath.Join(dir, "rsrc_windows_amd64.syso")}, nil); err != nil {
		t.Fatal(err)
	}
	full := build("full.exe")
	got, err := check(full, ver)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "256") || !strings.Contains(got, "16 px") || !strings.Contains(got, ver) {
		t.Fatalf("check: %s", got)
	}
	if _, err := check(full, "1.0.0"); err == nil || !strings.Contains(err.Error(), `not "1.0.0"`) {
		t.Fatalf("another version passed: %v", err)
	}
}

// TestBadTemplatesAreNamed: a template naming a field wails.json does not
// give is an error that names the file, not an empty value in the exe.
func TestBadTemplatesAreNamed(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "build", "windows"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "build", "windows", "info.json"), []byte(`{"x": "{{.Info.Nope}}"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := render(root, "info.json", projectData{}); err == nil || !strings.Contains(err.Error(), "build/windows/info.json") {
		t.Fatalf("render: %v", err)
	}
	if _, err := resources(root, "1.0.0", "1.0.0"); err == nil || !strings.Contains(err.Error(), "wails.json") {
		t.Fatalf("resources without wails.json: %v", err)
	}
}
