package store

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/turn"
)

func TestSettingsRoundTrip(t *testing.T) {
	t.Parallel()
	type window struct {
		Width  int  `json:"width"`
		Height int  `json:"height"`
		Max    bool `json:"max"`
	}
	tests := []struct {
		name  string
		key   string
		value any
		dst   func() any
	}{
		{"string", "theme", "dark", func() any { return new(string) }},
		{"number", "font_size", 14.5, func() any { return new(float64) }},
		{"bool", "telemetry", false, func() any { return new(bool) }},
		{"struct", "window", window{1280, 800, true}, func() any { return new(window) }},
		{"list", "recent", []string{"a", "b"}, func() any { return new([]string) }},
		{"raw JSON", "raw", json.RawMessage(`{"a":[1,2,{"b":null}]}`), func() any { return new(json.RawMessage) }},
		{"null", "nothing", nil, func() any { return new(any) }},
	}
	db := mustOpen(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := db.setSetting(ctx, tt.key, tt.value); err != nil {
				t.Fatal(err)
			}
			dst := tt.dst()
			found, err := db.getSetting(ctx, tt.key, dst)
			if err != nil || !found {
				t.Fatalf("found %v, %v", found, err)
			}
			got := reflect.ValueOf(dst).Elem().Interface()
			want := tt.value
			if raw, ok := want.(json.RawMessage); ok {
				if !configJSONEqual(t, raw, got.(json.RawMessage)) {
					t.Fatalf("got %s, want %s", got, raw)
				}
				return
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %#v, want %#v", got, want)
			}
		})
	}

	if err := db.setSetting(ctx, "theme", "light"); err != nil {
		t.Fatal(err)
	}
	var theme string
	if db.getSetting(ctx, "theme", &theme); theme != "light" {
		t.Fatalf("overwritten theme %q", theme)
	}
	theme = "untouched"
	if found, err := db.getSetting(ctx, "never-set", &theme); found || err != nil || theme != "untouched" {
		t.Fatalf("a key never set: found %v, %v, %q", found, err, theme)
	}
}

func TestSettingsRefuseBadInput(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	tests := []struct {
		name  string
		key   string
		value any
	}{
		{"empty key", "", 1},
		{"blank key", "  ", 1},
		{"control character in key", "a\nb", 1},
		{"long key", strings.Repeat("k", 129), 1},
		{"invalid raw JSON", "k", json.RawMessage(`{"a":`)},
		{"unencodable value", "k", func() {}},
		{"huge value", "k", strings.Repeat("v", 2<<20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := db.setSetting(ctx, tt.key, tt.value); apperr.CodeOf(err) != apperr.Invalid {
				t.Fatalf("SetSetting: %v", err)
			}
		})
	}
	for _, tt := range tests {
		var v json.RawMessage
		if found, _ := db.getSetting(ctx, tt.key, &v); found {
			t.Fatalf("the refused setting %q was stored: %s", tt.key, v)
		}
	}
	db.setSetting(ctx, "n", "not a number")
	var n int
	if found, err := db.getSetting(ctx, "n", &n); !found || err == nil || !strings.Contains(apperr.MessageOf(err), `"n"`) {
		t.Fatalf("decoding into the wrong type: %v %v", found, err)
	}
}

func TestProviders(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	work := llm.Provider{Name: "work-openai", Kind: catalog.KindOpenAI, BaseURL: "https://api.openai.com/v1", APIKeyRef: "agentdeck/work-openai", NeedsKey: true, Models: []string{"gpt-x"}, DefaultModel: "gpt-x"}
	local := catalog.Presets()[0]
	for _, p := range []llm.Provider{work, local} {
		if err := db.SaveProvider(ctx, p); err != nil {
			t.Fatalf("SaveProvider(%s): %v", p.Name, err)
		}
	}
	got, err := db.ListProviders(ctx)
	if err != nil || !reflect.DeepEqual(got, []llm.Provider{local, work}) {
		t.Fatalf("ListProviders %+v %v", got, err)
	}
	local.DefaultModel = "llama3"
	if err := db.SaveProvider(ctx, local); err != nil {
		t.Fatal(err)
	}
	if got, err := db.ListProviders(ctx); err != nil || !reflect.DeepEqual(got, []llm.Provider{local, work}) {
		t.Fatalf("updated provider %+v %v", got, err)
	}
	if err := db.DeleteProvider(ctx, work.Name); err != nil {
		t.Fatal(err)
	}
	if got, err := db.ListProviders(ctx); err != nil || !reflect.DeepEqual(got, []llm.Provider{local}) {
		t.Fatalf("after deleting %s: %+v %v", work.Name, got, err)
	}
	if err := db.DeleteProvider(ctx, work.Name); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("deleting twice: %v", err)
	}
}

func TestProvidersRefuseSecrets(t *testing.T) {
	t.Parallel()
	const secret = "sk-proj-abcdef0123456789"
	base := llm.Provider{Name: "p", Kind: catalog.KindCustom, BaseURL: "http://127.0.0.1:8080/v1"}
	tests := []struct {
		name   string
		change func(p *llm.Provider)
	}{
		{"key pasted as the reference", func(p *llm.Provider) { p.APIKeyRef = secret }},
		{"bearer token as the reference", func(p *llm.Provider) { p.APIKeyRef = "Bearer " + secret }},
		{"key in the URL query", func(p *llm.Provider) { p.BaseURL = "http://127.0.0.1:8080/v1?key=" + secret }},
		{"password in the URL", func(p *llm.Provider) { p.BaseURL = "http://user:" + secret + "@127.0.0.1:8080/v1" }},
		{"no name", func(p *llm.Provider) { p.Name = "" }},
	}
	db := mustOpen(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := base
			tt.change(&p)
			err := db.SaveProvider(ctx, p)
			if apperr.CodeOf(err) != apperr.Invalid || strings.Contains(err.Error(), secret) {
				t.Fatalf("SaveProvider: %v", err)
			}
		})
	}
	if got, _ := db.ListProviders(ctx); len(got) != 0 {
		t.Fatalf("refused providers were stored: %+v", got)
	}
	var n int
	db.reader.QueryRow(`SELECT COUNT(*) FROM providers WHERE definition LIKE ?`, "%"+secret+"%").Scan(&n)
	if n != 0 {
		t.Fatal("the secret reached the database")
	}
}

func TestApprovals(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "guarded")
	tr, _ := storeTurn(t, db, s.ID, "write it", "done")
	other, _ := storeTurn(t, db, newSession(t, db, "other").ID, "x", "y")

	answers := []turn.Answer{turn.AllowOnce, turn.Deny, turn.Always}
	var recorded []Approval
	for i, ans := range answers {
		a, err := db.RecordApproval(ctx, Approval{TurnID: tr.ID, CallID: "call-" + strconv.Itoa(i), Tool: "write_file", Args: json.RawMessage(`{"path":"a.txt"}`), Guard: "side_effects", Answer: ans})
		if err != nil {
			t.Fatal(err)
		}
		if a.ID == 0 || a.SessionID != s.ID || a.At.IsZero() {
			t.Fatalf("defaults not filled: %+v", a)
		}
		recorded = append(recorded, a)
	}
	got, err := db.ListApprovals(ctx, tr.ID)
	if err != nil || len(got) != len(answers) {
		t.Fatalf("ListApprovals %+v %v", got, err)
	}
	for i := range got {
		if got[i].Answer != answers[i] || got[i].ID != recorded[i].ID || !got[i].At.Equal(recorded[i].At) || !configJSONEqual(t, got[i].Args, recorded[i].Args) || got[i].Guard != "side_effects" {
			t.Fatalf("approval %d: %+v, want %+v", i, got[i], recorded[i])
		}
	}

	bad := []struct {
		name string
		a    Approval
		code apperr.Code
	}{
		{"unknown answer", Approval{TurnID: tr.ID, Tool: "t", Answer: "maybe"}, apperr.Invalid},
		{"no tool", Approval{TurnID: tr.ID, Answer: turn.Deny}, apperr.Invalid},
		{"no turn", Approval{Tool: "t", Answer: turn.Deny}, apperr.Invalid},
		{"missing turn", Approval{TurnID: "nope", Tool: "t", Answer: turn.Deny}, apperr.NotFound},
		{"turn of another session", Approval{SessionID: s.ID, TurnID: other.ID, Tool: "t", Answer: turn.Deny}, apperr.Invalid},
		{"invalid args", Approval{TurnID: tr.ID, Tool: "t", Answer: turn.Deny, Args: json.RawMessage(`{`)}, apperr.Invalid},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := db.RecordApproval(ctx, tt.a); apperr.CodeOf(err) != tt.code {
				t.Fatalf("RecordApproval: %v, want code %s", err, tt.code)
			}
		})
	}
	if got, _ := db.ListApprovals(ctx, tr.ID); len(got) != len(answers) {
		t.Fatalf("refused approvals were stored: %+v", got)
	}

	if err := db.DeleteSession(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.ListApprovals(ctx, tr.ID); len(got) != 0 {
		t.Fatalf("approvals outlived their session: %+v", got)
	}
}

func configJSONEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}
