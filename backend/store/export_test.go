package store

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/export/exporttest"
	"github.com/agentdeck/agentdeck/backend/llm"
)

// TestExportHoldsNoSecrets: an export holds only the session's own rows,
// never settings, provider definitions or anything from the environment.
func TestExportHoldsNoSecrets(t *testing.T) {
	const (
		settingKey  = "sk-setting-5f1e8a7c0b3d4e2f9a6b"
		providerKey = "sk-provider-9c2d7e4a1b8f3c6d5e0a"
		envKey      = "sk-env-3a9f1c7e5b2d8a4c6e0f"
	)
	t.Setenv("OPENAI_API_KEY", envKey)
	t.Setenv("AGENTDECK_API_KEY", envKey)
	db := mustOpen(t)
	if _, err := db.writer.Exec(`INSERT INTO settings (key, value) VALUES ('provider.openai.api_key', ?)`, `"`+settingKey+`"`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.writer.Exec(`INSERT INTO providers (name, definition) VALUES ('openai', ?)`, `{"base_url":"https://api.openai.com/v1","api_key":"`+providerKey+`"}`); err != nil {
		t.Fatal(err)
	}
	s, err := db.Import(ctx, bytes.NewReader(exporttest.JSON(t, exporttest.Fixture())))
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := storeTurn(t, db, s.ID, "hello", "hi")
	if err := db.Captures(tr.ID).PutCapture(ctx, &llm.Capture{Key: "cap-1", Model: "m", Request: json.RawMessage(`{"model":"m"}`)}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []export.Format{export.JSON, export.Markdown, export.JSONL} {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := export.Write(ctx, db, s.ID, f, &buf, export.Options{Captures: true}); err != nil {
				t.Fatal(err)
			}
			for _, secret := range []string{settingKey, providerKey, envKey, "sk-"} {
				if bytes.Contains(buf.Bytes(), []byte(secret)) {
					t.Fatalf("the %s export contains %q", f, secret)
				}
			}
		})
	}
}
