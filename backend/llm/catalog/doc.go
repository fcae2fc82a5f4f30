// Package catalog knows the kinds of model server Agentdeck works with:
// the presets a new provider starts from (presets.go, one table), the
// reasoning dialect each speaks, how to validate a provider, and what a
// server says of a model: its context window (window.go), its price
// (price.go) and its model list, and which local servers are running
// (provider_models.go). docs/PROVIDERS.md documents every preset.
//
// Rules:
//
//   - Adding a preset is one entry in presets (and its Kind constant), a
//     row in each table of docs/PROVIDERS.md, and the count in TestPresets;
//     the settings, onboarding, validation, local detection and the "is not
//     running" errors all read the table.
//   - It imports llm for the types it fills in (Provider, Window, Price) and
//     openai only for the names of the dialects.
//   - Server queries are bounded by ctx and by a body limit; a server that
//     does not answer gives ErrUnreachable, one that answers without saying
//     gives a zero value, and the callers fall back on the known tables.
//   - Prices and windows the user set come before anything a server or a
//     table says (llm.Provider.UserPrice, UserWindow).
package catalog
