package promptvars

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// tcase is one case of testdata/cases.json, which the UI's tests read too.
type tcase struct {
	Name    string            `json:"name"`
	Body    string            `json:"body"`
	Vars    []string          `json:"vars"`
	Values  map[string]string `json:"values"`
	Want    string            `json:"want"`
	Missing []string          `json:"missing"`
}

func TestVariablesAndFill(t *testing.T) {
	raw, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []tcase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if got := Variables(c.Body); !slices.Equal(got, c.Vars) {
				t.Errorf("Variables(%q) = %q, want %q", c.Body, got, c.Vars)
			}
			got, err := Fill(c.Body, c.Values)
			if len(c.Missing) > 0 {
				if apperr.CodeOf(err) != apperr.Invalid {
					t.Fatalf("Fill(%q) error = %v, want Invalid", c.Body, err)
				}
				for _, m := range c.Missing {
					if !strings.Contains(apperr.MessageOf(err), "{{"+m+"}}") {
						t.Errorf("Fill's error %q does not name %s", apperr.MessageOf(err), m)
					}
				}
				return
			}
			if err != nil || got != c.Want {
				t.Errorf("Fill(%q) = %q, %v; want %q", c.Body, got, err, c.Want)
			}
		})
	}
}

func TestFillNamesEveryMissingValueOnce(t *testing.T) {
	_, err := Fill("{{a}} {{b}} {{c}} {{a}}", map[string]string{"b": "x"})
	if got, want := apperr.MessageOf(err), "The prompt needs a value for {{a}} and {{c}}."; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}
