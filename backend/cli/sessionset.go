package cli

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// A session's own settings from the command line: `agentdeck sessions set
// ID KEY=VALUE...` changes them, and `agentdeck run`'s --system,
// --temperature and the rest set them for a new session (or, with
// --session, for one turn). Both read values through setKey, so a key
// means the same and is checked the same in both places.

// settingKeys are the keys sessions set takes, in the order help lists
// them; "system" is also accepted as "instructions".
var settingKeys = []string{"system", "temperature", "top_p", "max_tokens", "seed", "stop", "reasoning_effort", "model", "provider", "workflow"}

// setKey sets (or, with value "", unsets) one key of a settings layer.
// Model, provider and workflow are a session's columns, set by the
// caller from the layer. stop appends unless first says to replace.
func setKey(s *turn.RunSettings, key, value string, first bool) error {
	unset := value == ""
	switch key {
	case "system", "instructions":
		s.Instructions = nil
		if !unset {
			s.Instructions = &value
		}
	case "temperature":
		return setFloat(&s.Temperature, key, value, "a number from 0 to 2")
	case "top_p":
		return setFloat(&s.TopP, key, value, "a number above 0 and at most 1")
	case "max_tokens":
		s.MaxTokens = nil
		if !unset {
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 {
				return fmt.Errorf("max_tokens: %q is not valid; it must be a whole number of at least 1", value)
			}
			s.MaxTokens = &n
		}
	case "seed":
		s.Seed = nil
		if !unset {
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return fmt.Errorf("seed: %q is not valid; it must be a whole number", value)
			}
			s.Seed = &n
		}
	case "stop":
		if first || unset {
			s.Stop = nil
		}
		if !unset {
			s.Stop = append(s.Stop, value)
		}
	case "reasoning_effort":
		if !unset && !slices.Contains(turn.ReasoningEfforts, value) {
			return fmt.Errorf("reasoning_effort: %q is not valid; it must be low, medium or high", value)
		}
		s.ReasoningEffort = value
	case "model":
		s.Model = value
	case "provider":
		s.Provider = value
	case "workflow":
		s.Workflow = value
	default:
		return fmt.Errorf("unknown key %q; the keys are %s", key, strings.Join(settingKeys, ", "))
	}
	return nil
}

func setFloat(dst **float64, key, value, valid string) error {
	*dst = nil
	if value == "" {
		return nil
	}
	f, err := strconv.ParseFloat(value, 64)
	if err != nil {
		return fmt.Errorf("%s: %q is not valid; it must be %s", key, value, valid)
	}
	*dst = &f
	return nil
}

// settingFlags are run's flags for the settings of a new session (or of
// one turn, with --session).
type settingFlags struct {
	s       turn.RunSettings
	project string
	stops   int
}

func (sf *settingFlags) register(fs *flag.FlagSet) {
	flagKey := func(name, key, usage string) {
		fs.Func(name, usage, func(v string) error {
			if v == "" && key == "system" {
				s := "" // no instructions, over a project's
				sf.s.Instructions = &s
				return nil
			}
			if v == "" {
				return fmt.Errorf("needs a value")
			}
			err := setKey(&sf.s, key, v, key == "stop" && sf.stops == 0)
			if key == "stop" {
				sf.stops++
			}
			return err
		})
	}
	flagKey("system", "system", "the session's instructions (system prompt); with --session, this turn's")
	flagKey("temperature", "temperature", "sampling temperature, 0 to 2")
	flagKey("top-p", "top_p", "nucleus sampling, above 0 and at most 1")
	flagKey("max-tokens", "max_tokens", "the most output tokens of each model call")
	flagKey("seed", "seed", "a seed for repeatable sampling, where the server supports one")
	flagKey("stop", "stop", "a stop sequence (repeatable, at most 4)")
	flagKey("reasoning-effort", "reasoning_effort", "low, medium or high, for a model that reasons")
	fs.StringVar(&sf.project, "project", "", "start the new session in this project (by name or id)")
}

// sessionSetStore is what sessions set uses of the database.
type sessionSetStore interface {
	GetSession(ctx context.Context, id string) (store.Session, error)
	UpdateSession(ctx context.Context, s store.Session) error
	SettingsFor(ctx context.Context, sessionID string) ([]turn.Layer, error)
}

var _ sessionSetStore = (*store.DB)(nil)

// cmdSessionsSet is `agentdeck sessions set ID KEY=VALUE...`.
func cmdSessionsSet(ctx context.Context, args []string, env Env) int {
	fs := newFlagSet("sessions set", env)
	dbFlag := dbFlagOf(fs)
	asJSON := fs.Bool("json", false, "print the session's settings as JSON")
	force := forceFlagOf(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(pos) < 2 {
		fmt.Fprintf(env.Stderr, "agentdeck: sessions set ID KEY=VALUE...: the keys are %s; KEY= unsets one\n", strings.Join(settingKeys, ", "))
		return ExitUsage
	}
	return withDB(ctx, *dbFlag, env, func(db *store.DB) int {
		if code := mayWrite(db, "change the session's settings", *force, env); code != ExitOK {
			return code
		}
		return sessionsSet(ctx, db, pos[0], pos[1:], *asJSON, env)
	})
}

// sessionSettings is what sessions set prints: the session's own layer
// and what its next turn resolves to, with where each value comes from.
type sessionSettings struct {
	Session  string           `json:"session"`
	Own      turn.RunSettings `json:"own"`
	Resolved turn.Resolved    `json:"resolved"`
}

func sessionsSet(ctx context.Context, db sessionSetStore, id string, pairs []string, asJSON bool, env Env) int {
	sess, err := db.GetSession(ctx, id)
	if err != nil {
		return fail(env, err)
	}
	layer := sess.Layer()
	stopSeen := false
	for _, p := range pairs {
		key, value, ok := strings.Cut(p, "=")
		if !ok {
			fmt.Fprintf(env.Stderr, "agentdeck: %q is not KEY=VALUE (KEY= unsets a key); the keys are %s\n", p, strings.Join(settingKeys, ", "))
			return ExitUsage
		}
		key = strings.ReplaceAll(strings.TrimSpace(key), "-", "_")
		if err := setKey(&layer, key, value, key == "stop" && !stopSeen); err != nil {
			fmt.Fprintf(env.Stderr, "agentdeck: %v\n", err)
			return ExitUsage
		}
		stopSeen = stopSeen || key == "stop"
	}
	if err := layer.Validate(); err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: %v\n", err)
		return ExitUsage
	}
	sess.Provider, sess.Model, sess.Workflow = layer.Provider, layer.Model, layer.Workflow
	layer.Provider, layer.Model, layer.Workflow = "", "", ""
	sess.Settings = layer
	if err := db.UpdateSession(ctx, sess); err != nil {
		return fail(env, err)
	}
	layers, err := db.SettingsFor(ctx, sess.ID)
	if err != nil {
		return fail(env, apperr.Wrap(err, apperr.Internal, "the settings were saved, but could not be read back"))
	}
	out := sessionSettings{Session: sess.ID, Own: sess.Layer(), Resolved: turn.Resolve(layers...)}
	if asJSON {
		return printJSON(env, out)
	}
	printSettings(env, out.Resolved)
	return ExitOK
}

// printSettings lists each resolved setting with where it came from.
func printSettings(env Env, r turn.Resolved) {
	s := r.Settings
	line := func(key, field, value string) {
		if from := r.From[field]; from != "" {
			fmt.Fprintf(env.Stdout, "%-17s %s  (%s)\n", key, value, from)
		}
	}
	line("provider", "provider", s.Provider)
	line("model", "model", s.Model)
	line("workflow", "workflow", s.Workflow)
	if s.Instructions != nil {
		first, _, more := strings.Cut(*s.Instructions, "\n")
		if more {
			first += " …"
		}
		line("system", "instructions", strconv.Quote(first))
	}
	if s.Temperature != nil {
		line("temperature", "temperature", strconv.FormatFloat(*s.Temperature, 'g', -1, 64))
	}
	if s.TopP != nil {
		line("top_p", "top_p", strconv.FormatFloat(*s.TopP, 'g', -1, 64))
	}
	if s.MaxTokens != nil {
		line("max_tokens", "max_tokens", strconv.Itoa(*s.MaxTokens))
	}
	if s.Seed != nil {
		line("seed", "seed", strconv.FormatInt(*s.Seed, 10))
	}
	if s.Stop != nil {
		q := make([]string, len(s.Stop))
		for i, st := range s.Stop {
			q[i] = strconv.Quote(st)
		}
		line("stop", "stop", strings.Join(q, " "))
	}
	line("reasoning_effort", "reasoning_effort", s.ReasoningEffort)
}
