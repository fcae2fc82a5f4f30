package cli

import (
	"encoding/json"
	"fmt"
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
