package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
)

// TestCreateExampleSuite: an installed copy has no docs folder, so the
// window writes the example suite (built into the binary) into the
// evaluations folder, where it is listed ready to run; a person's own file
// of the same name is never overwritten, and then nothing is written.
func TestCreateExampleSuite(t *testing.T) {
	t.Parallel()
	example := map[string]string{}
	for _, f := range eval.Example() {
		example[f.Name] = string(f.Data)
	}
	cases := []struct {
		name     string
		before   map[string]string // files in the folder before
		wantCode apperr.Code       // "" when it is written
		wantMsg  string
	}{
		{name: "no folder yet"},
		{name: "already created: written again, the same", before: example},
		{name: "other suites beside it", before: map[string]string{"geo.yaml": geoSuite}},
		{name: "a suite of its own named example.yaml", before: map[string]string{"example.yaml": geoSuite}, wantCode: apperr.Conflict, wantMsg: "already has a example.yaml of its own"},
		{name: "a table of its own named sales.csv", before: map[string]string{"sales.csv": "a,b\n1,2\n"}, wantCode: apperr.Conflict, wantMsg: "sales.csv"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			svc, _, _, dir, _ := evalService(t)
			for name, text := range tc.before {
				writeSuite(t, dir, name, text)
			}
			info, err := svc.api.CreateExampleSuite()
			if tc.wantCode != "" {
				if apperr.CodeOf(err) != tc.wantCode || !strings.Contains(err.Error(), tc.wantMsg) {
					t.Fatalf("got %+v, %v; want %s with %q", info, err, tc.wantCode, tc.wantMsg)
				}
				entries, _ := os.ReadDir(dir)
				if len(entries) != len(tc.before) {
					t.Errorf("a refused example wrote files: %d in the folder, %d before", len(entries), len(tc.before))
				}
				for name, text := range tc.before {
					if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != text {
						t.Errorf("%s was changed:\n%s", name, got)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info.File != "example.yaml" || info.Name != "example" || info.Cases != 4 || len(info.Problems) != 0 || info.Path != filepath.Join(dir, "example.yaml") {
				t.Fatalf("the example as listed: %+v", info)
			}
			for name, text := range example {
				if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != text {
					t.Errorf("%s in the folder: %v\n%s", name, err, got)
				}
			}
			if strings.Contains(example["example.yaml"], "yaml-language-server") {
				t.Error("the written example keeps the repository's schema path, which is wrong in the evaluations folder")
			}
			suites, err := svc.api.EvalSuites()
			listed := 0
			for _, s := range suites {
				if s.File == "example.yaml" && len(s.Problems) == 0 {
					listed++
				}
			}
			if err != nil || listed != 1 {
				t.Fatalf("suites after: %+v %v", suites, err)
			}
		})
	}
}
