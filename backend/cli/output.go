package cli

import (
	"encoding/json"
	"fmt"
	"log/slog"
)

// printJSON writes v as one indented JSON document.
func printJSON(env Env, v any) int {
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: writing output: %v\n", err)
		return ExitFailed
	}
	return ExitOK
}

// quietLogger logs warnings and errors to stderr, for headless commands.
func quietLogger(env Env) *slog.Logger {
	return slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

func jsonUnmarshal(b []byte, v any) error {
	if len(b) == 0 {
		return nil
	}
	return json.Unmarshal(b, v)
}
