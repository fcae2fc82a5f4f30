package app

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// ServeConfig configures the browser mode.
type ServeConfig struct {
	Addr   string // default 127.0.0.1:7788
	Assets fs.FS  // the built frontend
	// AllowRemote permits a non-loopback address.
	AllowRemote bool
	// Token is the access token; empty makes a random one.
	Token  string
	Logger *slog.Logger
	// Ready, if set, receives the URL to open once the server listens.
	Ready func(url string)
}

// Server is the browser mode: the same Service methods over HTTP and the
// same events over server-sent events.
//
// Security: every request must carry the token (the Authorization header,
// the ?token= query of the first page load, or the cookie that load sets),
// and requests whose Host or Origin is not the server's own are refused,
// which stops DNS rebinding and other web sites.
type Server struct {
	svc     *Service
	cfg     ServeConfig
	log     *slog.Logger
	methods map[string]reflect.Method
	host    string // host:port as listening
}

// NewServer returns a browser-mode server for svc.
func NewServer(svc *Service, cfg ServeConfig) (*Server, error) {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:7788"
	}
	if cfg.Token == "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		cfg.Token = hex.EncodeToString(b)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	host, _, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, apperr.New(apperr.Invalid, "The address %q is not host:port.", cfg.Addr)
	}
	if !isLoopback(host) && !cfg.AllowRemote {
		return nil, apperr.New(apperr.Invalid, "Refusing to listen on %s, which other machines can reach. Pass --allow-remote if you really mean it.", cfg.Addr)
	}
	s := &Server{svc: svc, cfg: cfg, log: log, methods: map[string]reflect.Method{}}
	t := reflect.TypeOf(svc)
	for i := 0; i < t.NumMethod(); i++ {
		s.methods[t.Method(i).Name] = t.Method(i)
	}
	return s, nil
}

// Token returns the access token.
func (s *Server) Token() string { return s.cfg.Token }

// ListenAndServe serves until ctx is done, then stops running turns.
func (s *Server) ListenAndServe(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "Cannot listen on %s (is another agentdeck serve running?)", s.cfg.Addr)
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln until ctx is done.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.host = ln.Addr().String()
	s.svc.startup(ctx)
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx },
		// net/http's own complaints (a bad TLS hello, a handler's panic) go
		// to the log file, not to the terminal through the log package.
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	if s.cfg.Ready != nil {
		s.cfg.Ready(s.URL())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		s.svc.shutdown()
		return err
	case <-ctx.Done():
		s.svc.shutdown()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return nil
	}
}

// URL is the address to open, with the token.
func (s *Server) URL() string {
	return "http://" + s.host + "/?token=" + url.QueryEscape(s.cfg.Token)
}

const cookieName = "agentdeck_token"

// Handler returns the HTTP handler (for tests).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/call/{method}", s.call)
	mux.HandleFunc("GET /api/events", s.events)
	mux.Handle("/", s.static())
	return s.guard(mux)
}

// guard refuses foreign hosts and origins and requests without the token.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.sameHost(r.Host) {
			writeErr(w, http.StatusForbidden, apperr.New(apperr.Invalid, "Wrong host."))
			return
		}
		if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
			writeErr(w, http.StatusForbidden, apperr.New(apperr.Invalid, "Requests from other sites are refused."))
			return
		}
		token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if token == "" {
			token = r.URL.Query().Get("token")
		}
		if token == "" {
			if c, err := r.Cookie(cookieName); err == nil {
				token = c.Value
			}
		}
		if subtle.ConstantTimeCompare([]byte(token), []byte(s.cfg.Token)) != 1 {
			writeErr(w, http.StatusUnauthorized, apperr.New(apperr.Invalid, "Missing or wrong access token. Open the URL agentdeck serve printed."))
			return
		}
		if r.URL.Query().Get("token") != "" {
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.cfg.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

func (s *Server) sameHost(h string) bool {
	if h == s.host {
		return true
	}
	_, port, _ := net.SplitHostPort(s.host)
	hh, hp, err := net.SplitHostPort(h)
	return err == nil && hp == port && (hh == "localhost" || hh == "127.0.0.1" || hh == "[::1]" || hh == "::1")
}

func (s *Server) static() http.Handler {
	if s.cfg.Assets == nil {
		return http.NotFoundHandler()
	}
	fsrv := http.FileServerFS(s.cfg.Assets)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
		fsrv.ServeHTTP(w, r)
	})
}

// call runs one Service method: the body is a JSON array of arguments.
func (s *Server) call(w http.ResponseWriter, r *http.Request) {
	m, ok := s.methods[r.PathValue("method")]
	if !ok {
		writeErr(w, http.StatusNotFound, apperr.New(apperr.NotFound, "There is no method %q.", r.PathValue("method")))
		return
	}
	var raw []json.RawMessage
	body, err := io.ReadAll(io.LimitReader(r.Body, 256<<20))
	if err == nil && len(strings.TrimSpace(string(body))) > 0 {
		err = json.Unmarshal(body, &raw)
	}
	if err != nil {
		writeErr(w, http.StatusBadRequest, apperr.New(apperr.Invalid, "The request body must be a JSON array of arguments."))
		return
	}
	ft := m.Type
	nin := ft.NumIn() - 1 // the receiver
	if len(raw) != nin {
		writeErr(w, http.StatusBadRequest, apperr.New(apperr.Invalid, "%s takes %d arguments, got %d.", m.Name, nin, len(raw)))
		return
	}
	args := []reflect.Value{reflect.ValueOf(s.svc)}
	for i := 0; i < nin; i++ {
		v := reflect.New(ft.In(i + 1))
		if err := json.Unmarshal(raw[i], v.Interface()); err != nil {
			writeErr(w, http.StatusBadRequest, apperr.New(apperr.Invalid, "Argument %d of %s is not valid: %v", i+1, m.Name, err))
			return
		}
		args = append(args, v.Elem())
	}
	out := m.Func.Call(args)
	var result any
	for _, o := range out {
		if o.Type().Implements(reflect.TypeOf((*error)(nil)).Elem()) {
			if !o.IsNil() {
				err := o.Interface().(error)
				s.log.Warn("call failed", "method", m.Name, "err", err)
				writeErr(w, statusOf(err), err)
				return
			}
			continue
		}
		result = o.Interface()
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(result)
}

// events streams event batches, approval requests and turn changes as
// server-sent events. A client that cannot keep up is disconnected rather
// than slowing the turn; it reconnects and fetches what it missed with
// EventsAfter.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	hub := s.svc.eventHub()
	if !ok || hub == nil {
		writeErr(w, http.StatusServiceUnavailable, apperr.New(apperr.Unavailable, "Events are not available."))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	q := newSendQueue(1024)
	co := NewCoalescer(func(b []Delivered) { q.push(map[string]any{"kind": "events", "batch": b}) }, 16*time.Millisecond)
	unsub := hub.Subscribe(func(e turn.Event) { _ = co.Emit(e) })
	defer unsub()
	unApprove := s.svc.onApproval(func(p PendingApproval) { q.push(map[string]any{"kind": "approval", "approval": p}) })
	defer unApprove()
	unTurns := hub.SubscribeTurns(func(c []TurnChange) { q.push(TurnsChangedMessage{Kind: "turns_changed", Turns: c}) })
	defer unTurns()
	fmt.Fprint(w, ": connected\n\n")
	fl.Flush()
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-q.overflow:
			return
		case <-keepAlive.C:
			fmt.Fprint(w, ": ping\n\n")
			fl.Flush()
		case <-q.ready:
			for _, msg := range q.drain() {
				b, _ := json.Marshal(msg)
				fmt.Fprintf(w, "data: %s\n\n", b)
			}
			fl.Flush()
		}
	}
}

// TurnsChangedMessage is the stream's message for turns whose state
// changed without an event (see TurnChange): {"kind":"turns_changed",
// "turns":[{"turn_id":..., "session_id":..., "state":"interrupted"}]}.
type TurnsChangedMessage struct {
	Kind  string       `json:"kind"`
	Turns []TurnChange `json:"turns"`
}

// sendQueue is a bounded queue between the event producers and one client.
type sendQueue struct {
	mu       sync.Mutex
	items    []any
	max      int
	ready    chan struct{}
	overflow chan struct{}
	over     bool
}

func newSendQueue(max int) *sendQueue {
	return &sendQueue{max: max, ready: make(chan struct{}, 1), overflow: make(chan struct{})}
}

func (q *sendQueue) push(v any) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.over {
		return
	}
	if len(q.items) >= q.max {
		q.over = true
		close(q.overflow)
		return
	}
	q.items = append(q.items, v)
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *sendQueue) drain() []any {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.items
	q.items = nil
	return out
}

func statusOf(err error) int { return apperr.HTTPStatus(err) }

func writeErr(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		ae = &apperr.Error{Code: apperr.CodeOf(err), Message: apperr.MessageOf(err)}
	}
	_ = json.NewEncoder(w).Encode(map[string]string{"code": string(ae.Code), "message": ae.Message})
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
