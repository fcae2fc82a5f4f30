// Command typegen writes frontend/src/lib/generated.ts: the TypeScript
// types of what the UI sends to and gets from the Go backend, made from the
// Go types. tygo (github.com/gzuidhof/tygo, pinned in this module's go.mod)
// turns each Go declaration into TypeScript; this program picks the
// declarations and puts them in one file:
//
//   - The roots are the methods of app.API (their arguments and results),
//     the types in roots below (the event stream's messages, a turn's
//     result) and the unions (every event payload). Every type a root
//     refers to in this repository's module comes along, and nothing else.
//   - A string type with constants (EventType, TurnState, ...) becomes a
//     union of their values, derived from an array of them
//     (EventTypeValues), so each list exists once and code can loop on it.
//     tygo's own union style needs the constants to be named after the
//     type (EventTypeToken); ours are not (EventToken).
//   - An embedded struct, which encoding/json flattens, is extended.
//   - A slice, map or pointer without omitempty is null when nil, and says so.
//   - A type that marshals itself is given its JSON type in overrides.
//   - API itself becomes an interface of its methods' arguments and
//     results, and APIMethods the list of their names.
//   - An envelope whose data's type depends on its tag (turn.Event: type
//     and data) becomes a discriminated union: its other fields
//     (EventBase) intersected with one {type, data} pair per payload type,
//     so the UI narrows by type with no casts. Each payload type says its
//     tag by a method returning a constant (TokenData.EventType returns
//     EventToken); every constant of the tag's type needs exactly one.
//     Registering another is one line in unions: the envelope's package
//     and name, the JSON names of its tag and data fields, and the method
//     its variants say their tag with, e.g.
//     {pkg: "app", envelope: "Message", tag: "kind", data: "data", method: "Kind"}.
//     A struct that embeds such an envelope (app.Delivered) becomes an
//     intersection with it, as an interface cannot extend a union.
//   - A numeric constant a root names (MaxUploadBytes) becomes a const of
//     its value, worked out from literals and + - * << >>.
//
// Names must be unique across packages: the file has one namespace, and a
// clash is an error to resolve here. A type the file cannot express (a
// func, a channel, an unmapped type of another module) is an error too.
//
// Usage, from the repository root (see the Makefile's types target):
//
//	go run -C frontend/typegen . -root "$PWD"          # write the file
//	go run -C frontend/typegen . -root "$PWD" -check   # fail if it is stale
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
)

const (
	module = "github.com/agentdeck/agentdeck"
	output = "frontend/src/lib/generated.ts"
)

// config says what to generate.
type config struct {
	facadePkg, facade string // the type whose methods are the API
	roots             []root
	external          map[string]string
	overrides         map[string]string
	withZero          map[string]bool
	packageOrder      []string
	unions            []union
}

// root names types to generate beside the API's: every exported type of
// a file, or types by name; and constants by name.
type root struct {
	pkg    string // path in the module
	file   string
	names  []string
	consts []string
}

var agentdeck = config{
	facadePkg: "app", facade: "API",
	roots: roots, external: external, overrides: overrides, withZero: withZero, packageOrder: packageOrder,
	unions: unions,
}

var roots = []root{
	// What the bus carries to the UIs besides the API's replies: its kinds
	// and their payloads (app/bus.go).
	{pkg: "app", names: []string{"MessageKind", "EventBatch", "PendingApproval", "TurnsChanged", "EvalProgress", "Resync", "TracesStatus"}},
	// The event envelope and every event type (the payloads come with
	// its entry in unions below).
	{pkg: "backend/turn", file: "event.go"},
	// A stored turn's result arrives as raw JSON (store.TurnDetail.Result).
	{pkg: "backend/turn", names: []string{"Result"}},
	// The numbers the UI checks before it calls: the largest upload, the
	// largest image.
	{pkg: "app", consts: []string{"MaxUploadBytes"}},
	{pkg: "backend/store", consts: []string{"MaxImageBytes"}},
	// The models known to see images, to say so before images are sent.
	{pkg: "backend/llm", consts: []string{"VisionFamilies"}},
}

// unions are the envelopes whose data's type depends on their tag (see
// union): one line each.
var unions = []union{
	// A turn's event: its data is the payload its type says.
	{pkg: "backend/turn", envelope: "Event", tag: "type", data: "data", method: "EventType"},
	// A message of the bus (app/bus.go): its data is the payload its kind says.
	{pkg: "app", envelope: "Envelope", tag: "kind", data: "data", method: "Kind"},
}

// external maps types of other modules to their JSON's TypeScript.
var external = map[string]string{
	"time.Time":       "string /* RFC 3339 */",
	"time.Duration":   "number /* nanoseconds */",
	"json.RawMessage": "unknown",
}

// overrides give the JSON type of types that marshal themselves.
var overrides = map[string]string{
	"backend/turn.Time": "string", // RFC 3339 in UTC with milliseconds
}

// withZero lists the string types whose zero value "" reaches the UI, so
// their union has it: a running turn has no outcome or termination yet.
var withZero = map[string]bool{
	"backend/turn.Outcome":         true,
	"backend/turn.TerminationKind": true,
}

// packageOrder puts the app's own types first, then the engine's, in the
// order a reader meets them; packages not listed follow by path.
var packageOrder = []string{"app", "backend/turn", "backend/store", "backend/llm", "backend/workflow", "backend/agent", "backend/apperr", "backend/buildinfo"}

func main() {
	rootDir := flag.String("root", "../..", "the repository root")
	check := flag.Bool("check", false, "fail if "+output+" is not what the Go types give, instead of writing it")
	flag.Parse()
	if err := run(*rootDir, *check); err != nil {
		fmt.Fprintln(os.Stderr, "typegen:", err)
		os.Exit(1)
	}
}

func run(rootDir string, check bool) error {
	g, err := newGenerator(rootDir, agentdeck)
	if err != nil {
		return err
	}
	out, err := g.generate(tygoVersion())
	if err != nil {
		return err
	}
	path := filepath.Join(rootDir, output)
	if !check {
		return os.WriteFile(path, out, 0o644)
	}
	have, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if bytes.Equal(have, out) {
		return nil
	}
	fresh := filepath.Join(os.TempDir(), "generated.ts")
	if err := os.WriteFile(fresh, out, 0o644); err != nil {
		return err
	}
	return fmt.Errorf("%s is not what the Go types give (first difference at line %d; the fresh file is %s).\nRun `make types` and commit the result", output, firstDiffLine(have, out), fresh)
}

func tygoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/gzuidhof/tygo" {
				return d.Version
			}
		}
	}
	return "(unknown version)"
}

func firstDiffLine(a, b []byte) int {
	line := 1
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return line
		}
		if a[i] == '\n' {
			line++
		}
	}
	return line
}
