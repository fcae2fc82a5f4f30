package docs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckLayers proves the checker can fail: each case is a small
// repository with a map, and the problems it must report (as substrings,
// in order), or none.
func TestCheckLayers(t *testing.T) {
	const mapHead = "# Map\n\n| package | what it owns | may import |\n|---|---|---|\n"
	base := mapHead +
		"| `main.go` | wiring | `app` |\n" +
		"| `app` | the bridge | `store` `llm` |\n" +
		"| `backend/store` | the file | `llm` |\n" +
		"| `backend/llm/...` | models | — |\n" +
		"\nText after the table: `store` here is no rule.\n"
	files := map[string]string{
		"main.go":                    "package main\nimport _ \"github.com/agentdeck/agentdeck/app\"\n",
		"app/app.go":                 "package app\nimport (\n\t\"fmt\"\n\t_ \"github.com/agentdeck/agentdeck/backend/store\"\n)\nvar _ = fmt.Sprint\n",
		"backend/store/store.go":     "package store\nimport _ \"github.com/agentdeck/agentdeck/backend/llm/openai\"\n",
		"backend/llm/llm.go":         "package llm\n",
		"backend/llm/openai/wire.go": "package openai\nimport _ \"github.com/agentdeck/agentdeck/backend/llm\"\n",
		// Tests may import anything.
		"backend/llm/llm_test.go": "package llm_test\nimport _ \"github.com/agentdeck/agentdeck/app\"\n",
	}
	tests := []struct {
		name  string
		files map[string]string // added to (or, if empty, removed from) files
		arch  string            // the map, if not base
		want  []string
	}{
		{name: "clean: a subtree row covers a new subpackage, which may import its parent"},
		{
			name:  "forbidden import",
			files: map[string]string{"backend/llm/openai/wire.go": "package openai\n\nimport (\n\t\"github.com/agentdeck/agentdeck/backend/store\"\n)\n\nvar _ = store.X\n"},
			want:  []string{"backend/llm/openai/wire.go:4:2: backend/llm/openai imports backend/store, which its row (backend/llm/..., docs/ARCHITECTURE.md:8) does not allow; it may import: nothing of the module"},
		},
		{
			name:  "forbidden upward import in a file with build tags",
			files: map[string]string{"backend/store/win.go": "//go:build windows\n\npackage store\nimport _ \"github.com/agentdeck/agentdeck/app\"\n"},
			want:  []string{"backend/store/win.go:4:8: backend/store imports app, which its row (backend/store, docs/ARCHITECTURE.md:7) does not allow; it may import: llm"},
		},
		{
			name:  "a package with no row",
			files: map[string]string{"backend/bus/bus.go": "package bus\n"},
			want:  []string{"backend/bus/bus.go: the package backend/bus has no row"},
		},
		{
			name: "a row that names nothing, and a name that is no row",
			arch: strings.Replace(base, "| `backend/store` | the file | `llm` |", "| `backend/store` | the file | `llm` `bus` |\n| `backend/gone` | removed | — |", 1),
			want: []string{
				"docs/ARCHITECTURE.md:7: \"bus\" in the last column is no row of the map",
				"docs/ARCHITECTURE.md:8: the row backend/gone names no folder",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			arch := tc.arch
			if arch == "" {
				arch = base
			}
			write(t, root, "docs/ARCHITECTURE.md", arch)
			for name, src := range files {
				if _, ok := tc.files[name]; !ok {
					write(t, root, name, src)
				}
			}
			for name, src := range tc.files {
				write(t, root, name, src)
			}
			got, err := checkLayers(root, "docs/ARCHITECTURE.md")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("problem %d:\n got %s\nwant %s", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestReadMapRefusesAMalformedRow(t *testing.T) {
	root := t.TempDir()
	write(t, root, "docs/ARCHITECTURE.md", "| package | what | may import |\n|---|---|---|\n| `app` | two cells |\n")
	if _, err := checkLayers(root, "docs/ARCHITECTURE.md"); err == nil || !strings.Contains(err.Error(), ":3: a row of the map has 2 cells") {
		t.Fatalf("err = %v, want the row's line and cell count", err)
	}
}

func write(t *testing.T, root, name, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
