package app

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
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

// Server is the browser mode: the API's methods over HTTP (POST
// /api/call/{method}, the arguments as a JSON array) and the bus, what
// the window gets as Wails events, over server-sent events (GET
// /api/events).
//
// Security: every request must carry the token (the Authorization header,
// the ?token= query of the first page load, or the cookie that load sets),
// and requests whose Host or Origin is not the server's own are refused,
// which stops DNS rebinding and other web sites.
type Server struct {
	svc     *Service
	cfg     ServeConfig
	log     *slog.Logger
	methods map[string]reflect.Value // the API table: API's methods by name
	host    string                   // host:port as listening
	maxBody int64                    // if set, caps every method's body limit (tests)
	uploadGate
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
	return &Server{svc: svc, cfg: cfg, log: log, methods: apiMethods(svc.api), uploadGate: newUploadGate()}, nil
}

// apiMethods is the API table as the browser mode serves it: the methods
// of API, the same the window binds, by name. Every one answers (T, error)
// with the error already safe to send.
func apiMethods(api *API) map[string]reflect.Value {
	v := reflect.ValueOf(api)
	out := make(map[string]reflect.Value, v.NumMethod())
	for i := range v.NumMethod() {
		out[v.Type().Method(i).Name] = v.Method(i)
	}
	return out
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
		// The artifact frame's loader has a policy of its own (csp.go);
		// every other page has the app's.
		if isArtifactPage(r) {
			setArtifactHeaders(w.Header())
		} else {
			w.Header().Set("Content-Security-Policy", appCSP(originOf(r)))
		}
		fsrv.ServeHTTP(w, r)
	})
}

// call runs one API method: the body is a JSON array of its arguments.
func (s *Server) call(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("method")
	fn, ok := s.methods[name]
	if !ok {
		writeErr(w, http.StatusNotFound, apperr.New(apperr.NotFound, "There is no method %q.", name))
		return
	}
	limit := s.bodyLimit(name)
	if r.ContentLength > limit {
		tooLarge(w, name, limit) // refused before a byte is read
		return
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	if name == "UploadAttachment" {
		s.uploadCall(w, r, body, limit)
		return
	}
	args, err := decodeArgs(body, name, fn.Type())
	if mb := (*http.MaxBytesError)(nil); errors.As(err, &mb) {
		tooLarge(w, name, limit)
		return
	}
	if err != nil {
		writeErr(w, http.StatusBadRequest, err)
		return
	}
	out := fn.Call(args)
	if err, _ := out[1].Interface().(error); err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out[0].Interface())
}

// events streams the bus, every envelope as one server-sent event
// ("data: {"kind":...,"data":...}"). A client that falls behind is not
// waited for: the bus replaces what it missed with a resync (see Bus), and
// it catches up with EventsAfter. A client whose connection drops
// reconnects, and catches up the same way.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok || s.svc.eventHub() == nil {
		writeErr(w, http.StatusServiceUnavailable, apperr.New(apperr.Unavailable, "Events are not available."))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	sub := s.svc.bus.Subscribe(uiQueue)
	defer sub.Close()
	fmt.Fprint(w, ": connected\n\n")
	fl.Flush()
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-keepAlive.C:
			fmt.Fprint(w, ": ping\n\n")
			fl.Flush()
		case <-sub.Ready():
			for _, env := range sub.Drain() {
				b, _ := json.Marshal(env)
				fmt.Fprintf(w, "data: %s\n\n", b)
			}
			fl.Flush()
		}
	}
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
