package app

import (
	"net/http"
	"strings"
)

// The Content-Security-Policies the app serves, in one place. The window
// (desktop.go's middleware) and the browser mode (serve.go's static) set
// them by path; frontend/index.html and frontend/public/artifact.html
// carry the same policies as <meta> fallbacks (without the directives a
// <meta> cannot carry: frame-ancestors, sandbox). docs/SECURITY.md says
// what each directive stops.

// ArtifactPath is the sealed frame's loader page: an artifact (a model's
// HTML or SVG) is written into it by its one inline script, which accepts
// exactly one message from its parent.
const ArtifactPath = "/artifact.html"

// ArtifactCSP is the frame's policy: inline script and style only (an
// artifact is one self-contained page), images, fonts and media only from
// data: and blob:, no request of any kind (connect-src, and default-src
// for the rest), no form, no <base>, embeddable only by the app's own
// pages, and sandboxed to scripts alone: an opaque origin, so no storage,
// cookies or access to the app; no pop-ups, forms, top navigation or
// modal dialogs.
const ArtifactCSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; connect-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox allow-scripts"

// appCSPBase is the app's own policy in browser mode, but for frame-src,
// which appCSP adds: scripts only from the app's own files, no plugins, no
// <base>, and never framed itself.
const appCSPBase = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

// appCSP is the app's policy for a page served from origin (scheme://host):
// the only frame it may hold is the artifact loader, by its full address
// (a path-scoped source: not the app's other pages, nor its API).
func appCSP(origin string) string {
	return appCSPBase + "; frame-src " + origin + ArtifactPath
}

// isArtifactPage reports whether a request is for the frame's loader.
func isArtifactPage(r *http.Request) bool {
	return r.URL.Path == ArtifactPath
}

// withArtifactCSP sets the frame's policy on its loader page and serves
// everything else as next does (the window's asset server: the app's own
// pages there keep index.html's <meta> policy).
func withArtifactCSP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isArtifactPage(r) {
			setArtifactHeaders(w.Header())
		}
		next.ServeHTTP(w, r)
	})
}

func setArtifactHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ArtifactCSP)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	// Each artifact is written into a fresh copy of the loader; the
	// page itself never changes, but never let a cache keep it either.
	h.Set("Cache-Control", "no-store")
}

// originOf is the origin a browser-mode request was made to.
func originOf(r *http.Request) string {
	return "http://" + strings.ToLower(r.Host)
}
