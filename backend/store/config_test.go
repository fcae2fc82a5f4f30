package store

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/turn"
)

func TestSettingsRoundTrip(t *testing.T) {
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
			if err := db.SetSetting(ctx, tt.key, tt.value); err != nil {
				t.Fatal(err)
			}
			dst := tt.dst()
			found, err := db.GetSetting(ctx, tt.key, dst)
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

	all, err := db.AllSettings(ctx)
	if err != nil || len(all) != len(tests) || string(all["theme"]) != `"dark"` {
		t.Fatalf("AllSettings %v %v", all, err)
	}
	if err := db.SetSetting(ctx, "theme", "light"); err != nil {
		t.Fatal(err)
	}
	var theme string
	if db.GetSetting(ctx, "theme", &theme); theme != "light" {
		t.Fatalf("overwritten theme %q", theme)
	}
	if err := db.DeleteSetting(ctx, "theme"); err != nil {
		t.Fatal(err)
	}
	theme = "untouched"
	if found, err := db.GetSetting(ctx, "theme", &theme); found || err != nil || theme != "untouched" {
		t.Fatalf("deleted setting: found %v, %v, %q", found, err, theme)
	}
	if err := db.DeleteSetting(ctx, "never-set"); err != nil {
		t.Fatalf("deleting an unset key: %v", err)
	}
}

func TestSettingsRefuseBadInput(t *testing.T) {
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
			if err := db.SetSetting(ctx, tt.key, tt.value); apperr.CodeOf(err) != apperr.Invalid {
				t.Fatalf("SetSetting: %v", err)
			}
		})
	}
	if all, _ := db.AllSettings(ctx); len(all) != 0 {
		t.Fatalf("refused settings were stored: %v", all)
	}
	db.SetSetting(ctx, "n", "not a number")
	var n int
	if found, err := db.GetSetting(ctx, "n", &n); !found || err == nil || !strings.Contains(apperr.MessageOf(err), `"n"`) {
		t.Fatalf("decoding into the wrong type: %v %v", found, err)
	}
}

func TestProviders(t *testing.T) {
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
	if p, err := db.GetProvider(ctx, local.Name); err != nil || p.DefaultModel != "llama3" {
		t.Fatalf("updated provider %+v %v", p, err)
	}
	if err := db.DeleteProvider(ctx, work.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := db.GetProvider(ctx, work.Name); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("deleted provider: %v", err)
	}
	if err := db.DeleteProvider(ctx, work.Name); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("deleting twice: %v", err)
	}
}

func TestProvidersRefuseSecrets(t *testing.T) {
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

func TestAttachments(t *testing.T) {
	db := mustOpen(t)
	s := newSession(t, db, "with files")
	other := newSession(t, db, "other")
	dir := t.TempDir()
	sum := strings.Repeat("ab", 32)
	first, err := db.AddAttachment(ctx, Attachment{SessionID: s.ID, Name: "sales.csv", Path: filepath.Join(dir, "sales.csv"), Size: 120, SHA256: sum, TableName: "sales"})
	if err != nil {
		t.Fatal(err)
	}
	if first.ID == "" || first.CreatedAt.IsZero() {
		t.Fatalf("defaults not filled: %+v", first)
	}
	second, err := db.AddAttachment(ctx, Attachment{SessionID: s.ID, Name: "notes.txt", Path: filepath.Join(dir, "notes.txt"), CreatedAt: first.CreatedAt.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	db.AddAttachment(ctx, Attachment{SessionID: other.ID, Name: "x.csv"})

	got, err := db.ListAttachments(ctx, s.ID)
	if err != nil || len(got) != 2 || got[0].ID != first.ID || got[1].ID != second.ID {
		t.Fatalf("ListAttachments %+v %v", got, err)
	}
	if !got[0].CreatedAt.Equal(first.CreatedAt) || got[0].SHA256 != sum || got[0].TableName != "sales" || got[0].Size != 120 {
		t.Fatalf("round trip %+v, want %+v", got[0], first)
	}

	bad := []struct {
		name string
		a    Attachment
		code apperr.Code
	}{
		{"no session", Attachment{Name: "a"}, apperr.Invalid},
		{"missing session", Attachment{SessionID: "nope", Name: "a"}, apperr.NotFound},
		{"no name", Attachment{SessionID: s.ID}, apperr.Invalid},
		{"relative path", Attachment{SessionID: s.ID, Name: "a", Path: "../../etc/passwd"}, apperr.Invalid},
		{"negative size", Attachment{SessionID: s.ID, Name: "a", Size: -1}, apperr.Invalid},
		{"bad checksum", Attachment{SessionID: s.ID, Name: "a", SHA256: "xyz"}, apperr.Invalid},
		{"upper-case checksum", Attachment{SessionID: s.ID, Name: "a", SHA256: strings.ToUpper(sum)}, apperr.Invalid},
		{"duplicate id", Attachment{ID: first.ID, SessionID: s.ID, Name: "a"}, apperr.Conflict},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := db.AddAttachment(ctx, tt.a); apperr.CodeOf(err) != tt.code {
				t.Fatalf("AddAttachment: %v, want code %s", err, tt.code)
			}
		})
	}

	if err := db.DeleteSession(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.ListAttachments(ctx, s.ID); len(got) != 0 {
		t.Fatalf("attachments outlived their session: %+v", got)
	}
	if got, _ := db.ListAttachments(ctx, other.ID); len(got) != 1 {
		t.Fatalf("the other session's attachment: %+v", got)
	}
}

func TestApprovals(t *testing.T) {
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
