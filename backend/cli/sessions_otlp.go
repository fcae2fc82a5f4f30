package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/traces"
)

// wantsOTLP reports whether sessions export's arguments ask for
// --format otlp, which has its own flags (sessionsExportOTLP).
func wantsOTLP(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return false
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "format" {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		return strings.EqualFold(strings.TrimSpace(value), "otlp")
	}
	return false
}

// otlpStore is what the OTLP export reads of the database.
type otlpStore interface {
	export.Source
	ReadSessions(ctx context.Context) (sessions []store.Session, lost int, err error)
	turnReader
}

var _ otlpStore = (*store.DB)(nil)

// otlpExport is what `sessions export --format otlp` was asked.
type otlpExport struct {
	sessions     []string
	turns        repeated
	since, until time.Time
	all          bool
	endpoint     string
	protocol     string
	out          string
	content      bool
}

// cmdSessionsExportOTLP sends stored turns to a collector (--endpoint),
// or writes them as OTLP JSON (-o FILE), each turn a trace as it
// happened: the same spans a live export sent.
func cmdSessionsExportOTLP(ctx context.Context, args []string, env Env) int {
	fs := newFlagSet("sessions export", env)
	dbFlag := dbFlagOf(fs)
	fs.String("format", "otlp", "otlp")
	var x otlpExport
	var since, until string
	fs.Var(&x.turns, "turn", "export this turn (repeatable)")
	fs.StringVar(&since, "since", "", "turns started on or after this day, YYYY-MM-DD (local time)")
	fs.StringVar(&until, "until", "", "turns started on or before this day, YYYY-MM-DD (local time)")
	fs.BoolVar(&x.all, "all", false, "every turn of every session")
	fs.StringVar(&x.endpoint, "endpoint", "", "send to this OpenTelemetry collector (http://127.0.0.1:4318; with --protocol grpc, 127.0.0.1:4317); headers from OTEL_EXPORTER_OTLP_HEADERS or the keyring")
	fs.StringVar(&x.protocol, "protocol", traces.ProtocolHTTP, "http (HTTP/protobuf) or grpc")
	fs.StringVar(&x.out, "o", "", "write OTLP JSON to FILE instead: one TracesData object per line, a turn a line")
	fs.BoolVar(&x.content, "content", false, "add message contents (prompts, answers, tool arguments and results)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return ExitUsage
	}
	x.sessions = pos
	if x.since, err = day(since, "since"); err == nil {
		x.until, err = day(until, "until")
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: %s\n", apperr.MessageOf(err))
		return ExitUsage
	}
	if !x.until.IsZero() {
		x.until = x.until.AddDate(0, 0, 1) // the whole day
	}
	switch {
	case len(x.sessions) == 0 && len(x.turns) == 0 && x.since.IsZero() && x.until.IsZero() && !x.all:
		fmt.Fprintln(env.Stderr, "agentdeck: say what to export: SESSION_ID ..., --turn TURN_ID, --since/--until YYYY-MM-DD, or --all")
		return ExitUsage
	case (x.endpoint == "") == (x.out == ""):
		fmt.Fprintln(env.Stderr, "agentdeck: sessions export --format otlp takes either --endpoint URL (send to a collector) or -o FILE (write OTLP JSON)")
		return ExitUsage
	case x.protocol != traces.ProtocolHTTP && x.protocol != traces.ProtocolGRPC:
		fmt.Fprintf(env.Stderr, "agentdeck: --protocol must be http or grpc, not %q\n", x.protocol)
		return ExitUsage
	}
	return withDB(ctx, *dbFlag, env, func(db *store.DB) int {
		return x.run(ctx, db, db.Path(), env)
	})
}

func (x *otlpExport) run(ctx context.Context, db otlpStore, dbPath string, env Env) int {
	var client otlptrace.Client
	var file *os.File
	if x.out != "" {
		f, err := os.OpenFile(x.out, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintf(env.Stderr, "agentdeck: cannot create %s: %v (it must not exist yet)\n", x.out, err)
			return ExitFailed
		}
		defer f.Close()
		file, client = f, traces.NewFileClient(f)
	} else {
		h, err := otlpHeaders(ctx, env, dbPath)
		if err != nil {
			return fail(env, err)
		}
		if client, err = traces.NewClient(traces.Config{Endpoint: x.endpoint, Protocol: x.protocol, Headers: h, Retry: true}); err != nil {
			return fail(env, err)
		}
	}
	exp := otlptrace.NewUnstarted(client)
	if err := exp.Start(ctx); err != nil {
		return fail(env, apperr.Wrap(err, apperr.Unavailable, "Cannot start the OTLP export: %v", err))
	}
	defer exp.Shutdown(context.WithoutCancel(ctx))
	turns, spans, err := x.send(ctx, db, exp, env)
	if err != nil {
		if file != nil {
			file.Close()
			os.Remove(x.out)
		}
		return fail(env, err)
	}
	where := x.out
	if where == "" {
		where = x.endpoint
	}
	fmt.Fprintf(env.Stderr, "exported %d turns (%d spans) to %s\n", turns, spans, where)
	return ExitOK
}

// send exports every chosen turn, a turn a request; the first refusal
// stops it.
func (x *otlpExport) send(ctx context.Context, db otlpStore, exp *otlptrace.Exporter, env Env) (turns, spans int, err error) {
	ids, wanted, err := x.sessionIDs(ctx, db)
	if err != nil {
		return 0, 0, err
	}
	keep := func(t *export.Turn) bool {
		if len(x.turns) > 0 && !slices.Contains(x.turns, t.ID) {
			return false
		}
		return (x.since.IsZero() || !t.StartedAt.Before(x.since)) && (x.until.IsZero() || t.StartedAt.Before(x.until))
	}
	for _, id := range ids {
		err := traces.ReadTurns(ctx, db, id, keep, func(s *export.Session, t *export.Turn) error {
			ss := traces.Build(s, t, traces.Options{Content: x.content, Version: env.Info.Version})
			if err := exp.ExportSpans(ctx, ss); err != nil {
				return apperr.Wrap(err, apperr.Unavailable, "The collector did not take turn %s: %v. %d turns were exported before it; check that the collector runs at %s and try again.", t.ID, err, turns, x.endpoint)
			}
			delete(wanted, t.ID)
			turns, spans = turns+1, spans+len(ss)
			return nil
		})
		if err != nil {
			return turns, spans, err
		}
	}
	for id := range wanted {
		return turns, spans, apperr.New(apperr.NotFound, "There is no turn %s in the sessions given.", id)
	}
	return turns, spans, nil
}

// sessionIDs are the sessions to read: those named, those of the turns
// named, or every session updated since --since. wanted are the turns
// named, each removed once exported.
func (x *otlpExport) sessionIDs(ctx context.Context, db otlpStore) (ids []string, wanted map[string]bool, err error) {
	ids = slices.Clone(x.sessions)
	wanted = map[string]bool{}
	for _, id := range x.turns {
		wanted[id] = true
		if len(x.sessions) > 0 {
			continue
		}
		d, err := db.ReadTurn(ctx, id, false)
		if err != nil {
			return nil, nil, err
		}
		if !slices.Contains(ids, d.SessionID) {
			ids = append(ids, d.SessionID)
		}
	}
	if len(ids) > 0 {
		return ids, wanted, nil
	}
	all, _, err := db.ReadSessions(ctx)
	if err != nil {
		return nil, nil, err
	}
	for i := len(all) - 1; i >= 0; i-- { // oldest first
		s := all[i]
		if !x.since.IsZero() && s.UpdatedAt.Before(x.since) {
			continue // nothing in it started since
		}
		ids = append(ids, s.ID)
	}
	return ids, wanted, nil
}
