package store

import (
	"context"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// AppSettings are the app-wide preferences, shared by the window, the
// browser mode and the CLI.
type AppSettings struct {
	DefaultProvider string      `json:"default_provider"`
	DefaultModel    string      `json:"default_model"`
	DefaultWorkflow string      `json:"default_workflow"`
	Limits          turn.Limits `json:"limits"`
	// Defaults are the lowest layer of every turn's settings: default
	// instructions and sampling (its provider, model, workflow and limits
	// are the fields above when those are set).
	Defaults turn.RunSettings `json:"defaults"`
	Capture  string           `json:"capture"` // off, record (default), auto
	Theme    string           `json:"theme"`   // system (default), light, dark
	// AllowPrivateURLs lets fetch_url and a page added by its URL read
	// private, loopback and link-local addresses (a home server, a
	// router's page, localhost): off by default, so a page or a model
	// cannot make the app reach into the user's own network.
	AllowPrivateURLs bool `json:"allow_private_urls,omitempty"`
	// EmbedProvider and EmbedModel are the embedding model documents'
	// passages and search queries are embedded with (the provider's
	// /v1/embeddings); none by default, and then search is lexical.
	EmbedProvider string `json:"embed_provider,omitempty"`
	EmbedModel    string `json:"embed_model,omitempty"`
	// Observability sends each turn to an OpenTelemetry collector; off by
	// default. Its headers, which carry keys, are in the keyring, not here.
	Observability Observability `json:"observability,omitzero"`
}

// Observability is where the window sends its turns as OpenTelemetry
// traces (backend/traces): Enabled, to Endpoint over Protocol ("http" or
// "grpc"), with message contents when Content. Preset names the form the
// user started from ("langfuse", "phoenix", "collector", "" for none).
type Observability struct {
	Enabled  bool   `json:"enabled,omitempty"`
	Preset   string `json:"preset,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	Content  bool   `json:"content,omitempty"`
}

const appSettingsKey = "app"

// AppSettings returns the preferences, with defaults for what is unset.
func (db *DB) AppSettings(ctx context.Context) (AppSettings, error) {
	st := AppSettings{DefaultWorkflow: "chat", Capture: "record", Theme: "system"}
	_, err := db.getSetting(ctx, appSettingsKey, &st)
	return st, err
}

// SaveAppSettings stores the preferences.
func (db *DB) SaveAppSettings(ctx context.Context, st AppSettings) error {
	switch st.Capture {
	case "", "off", "record", "auto":
	default:
		return apperr.New(apperr.Invalid, "Capture must be off, record or auto.")
	}
	if err := st.Defaults.Validate(); err != nil {
		return apperr.New(apperr.Invalid, "The default settings are not valid: %v.", err)
	}
	switch st.Theme {
	case "", "system", "light", "dark":
	default:
		return apperr.New(apperr.Invalid, "Theme must be system, light or dark.")
	}
	if (st.EmbedProvider == "") != (st.EmbedModel == "") {
		return apperr.New(apperr.Invalid, "An embedding model needs both its provider and its name; clear both for none.")
	}
	return db.setSetting(ctx, appSettingsKey, st)
}
