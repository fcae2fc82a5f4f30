package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/web"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// article is a page with an article among navigation, scripts and a footer.
const article = `<!DOCTYPE html><html><head><title>Solar power in 2026 | The Daily</title>
<script>var tracking = "SCRIPT-TEXT";</script><style>.x{color:red}</style></head>
<body>
<nav><a href="/">Home</a> <a href="/news">NAV-LINK-TEXT</a></nav>
<article>
<h1>Solar power in 2026</h1>
<p>Solar panels made more electricity this year than ever before, and the price of a panel fell again. Engineers say the
growth comes from cheaper cells, better inverters and larger farms built in deserts where the sun shines most days.</p>
<h2>Costs</h2>
<p>The cost of a watt of solar capacity fell by a fifth. Installers report <strong>record demand</strong> from households,
and <a href="https://example.org/report">the annual report</a> says utilities bought more panels than in any year before.</p>
<ul><li>Cells: cheaper</li><li>Inverters: <em>better</em></li></ul>
<h2>Storage</h2>
<p>Batteries now store the midday surplus for the evening. Grid operators plan to double storage capacity within three
years, which lets solar farms supply power after sunset when demand peaks in most cities.</p>
<table><tr><th>Year</th><th>Capacity</th></tr><tr><td>2025</td><td>100 GW</td></tr><tr><td>2026</td><td>140 GW</td></tr></table>
</article>
<footer>FOOTER-TEXT Copyright</footer>
<script>console.log("SCRIPT-TEXT-2")</script>
</body></html>`

// allowing is a fetcher that may read exactly srv, though it is on 127.0.0.1.
func allowing(srv *httptest.Server, opts web.Options) *web.Fetcher {
	opts.Allow = append(opts.Allow, netip.MustParseAddrPort(srv.Listener.Addr().String()))
	return web.New(opts)
}

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchExtractsTheArticle(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.UserAgent(), "Agentdeck") {
			t.Errorf("user agent %q does not name Agentdeck", r.UserAgent())
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(article))
	})
	p, err := allowing(srv, web.Options{}).Fetch(context.Background(), srv.URL+"/solar#top")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Title, "Solar power in 2026") || p.URL != srv.URL+"/solar" {
		t.Fatalf("title %q, url %q", p.Title, p.URL)
	}
	md := p.Markdown()
	for _, want := range []string{
		"# Solar power in 2026", "\n\n## Costs", "## Storage", "**record demand**",
		"[the annual report](https://example.org/report)", "- Cells: cheaper", "- Inverters: *better*",
		"| Year | Capacity |\n| --- | --- |\n| 2025 | 100 GW |", "Batteries now store the midday surplus",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	for _, gone := range []string{"SCRIPT-TEXT", "NAV-LINK-TEXT", "FOOTER-TEXT", "color:red"} {
		if strings.Contains(md, gone) {
			t.Errorf("the Markdown keeps %q:\n%s", gone, md)
		}
	}
	var storage bool
	for _, b := range p.Blocks {
		if strings.HasPrefix(b.Text, "Batteries") {
			storage = b.Heading == "Storage"
		}
	}
	if !storage {
		t.Errorf("the storage paragraph is not under its heading: %+v", p.Blocks)
	}
}

func TestFetchPlainText(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		_, _ = w.Write([]byte("Caf\xe9 menu\n\nCoffee and tea.\n"))
	})
	p, err := allowing(srv, web.Options{}).Fetch(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Blocks) != 2 || p.Blocks[0].Text != "Café menu" {
		t.Fatalf("blocks %+v", p.Blocks)
	}
}

func TestFetchRefuses(t *testing.T) {
	// forbidden is a second local server, not among the allowed addresses.
	forbidden := serve(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<p>private</p>")) })
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/pdf":
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write([]byte("%PDF-1.7"))
		case "/big":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<p>" + strings.Repeat("a", 2000) + "</p>"))
		case "/big-unsized":
			w.Header().Set("Content-Type", "text/html")
			for range 4 {
				_, _ = w.Write([]byte(strings.Repeat("b", 600)))
				w.(http.Flusher).Flush()
			}
		case "/to-private":
			http.Redirect(w, r, forbidden.URL+"/", http.StatusFound)
		case "/to-ftp":
			http.Redirect(w, r, "ftp://example.com/file", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	})
	f := allowing(srv, web.Options{MaxBytes: 1000})
	cases := []struct {
		name, url string
		f         *web.Fetcher
		code      apperr.Code
		says      string
	}{
		{"not a web page", srv.URL + "/pdf", f, apperr.Invalid, "is application/pdf, not a web page"},
		{"too large, by its length", srv.URL + "/big", f, apperr.Invalid, "larger than"},
		{"too large, as it is read", srv.URL + "/big-unsized", f, apperr.Invalid, "larger than"},
		{"a redirect to a private address", srv.URL + "/to-private", f, apperr.Invalid, "is private, loopback"},
		{"loopback, not allowed", forbidden.URL, f, apperr.Invalid, "Allow private addresses in Settings"},
		{"a loopback name", "http://localhost:" + forbidden.URL[strings.LastIndex(forbidden.URL, ":")+1:], f, apperr.Invalid, "is private, loopback"},
		{"a redirect to another scheme", srv.URL + "/to-ftp", f, apperr.Invalid, "Only http and https"},
		{"too many redirects", srv.URL + "/loop", f, apperr.Unavailable, "redirects more than 5 times"},
		{"not found", srv.URL + "/missing", f, apperr.Unavailable, "404 Not Found"},
		{"another scheme", "file:///etc/passwd", f, apperr.Invalid, "Only http and https"},
		{"credentials", "http://user:secret@example.com/", f, apperr.Invalid, "user name or password"},
		{"not a URL", "example", f, apperr.Invalid, "not a web address"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.f.Fetch(context.Background(), c.url)
			if apperr.CodeOf(err) != c.code || !strings.Contains(apperr.MessageOf(err), c.says) {
				t.Fatalf("err = %v (%s), want %s saying %q", err, apperr.CodeOf(err), c.code, c.says)
			}
			if strings.Contains(apperr.MessageOf(err), "secret") {
				t.Fatal("the message shows the password")
			}
		})
	}
}

// The user's setting allows private addresses, asked at each fetch.
func TestFetchPrivateWhenAllowed(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<html><body><p>On the home network.</p></body></html>"))
	})
	allowed := false
	f := web.New(web.Options{AllowPrivate: func(context.Context) bool { return allowed }})
	if _, err := f.Fetch(context.Background(), srv.URL); err == nil {
		t.Fatal("read a loopback address without the setting")
	}
	allowed = true
	p, err := f.Fetch(context.Background(), srv.URL)
	if err != nil || !strings.Contains(p.Markdown(), "On the home network.") {
		t.Fatalf("page %+v, err %v", p, err)
	}
}

// A page that does not answer in time is given up, and so is one whose
// reader stops it; the handler is released by a channel, not a sleep.
func TestFetchTimeLimit(t *testing.T) {
	release := make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) }) // runs before srv.Close
	_, err := allowing(srv, web.Options{Timeout: 50 * time.Millisecond}).Fetch(context.Background(), srv.URL)
	if apperr.CodeOf(err) != apperr.Unavailable || !strings.Contains(apperr.MessageOf(err), "did not answer within 50ms") {
		t.Fatalf("err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = allowing(srv, web.Options{}).Fetch(ctx, srv.URL)
	if apperr.CodeOf(err) != apperr.Cancelled {
		t.Fatalf("a stopped fetch: err = %v (%s)", err, apperr.CodeOf(err))
	}
}

func TestPublic(t *testing.T) {
	for addr, want := range map[string]bool{
		"93.184.216.34": true, "2606:2800:220:1::1": true, "8.8.8.8": true,
		"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "100.64.0.1": false, "0.0.0.0": false, "224.0.0.1": false,
		"255.255.255.255": false, "::1": false, "fe80::1": false, "fd00::1": false, "::": false,
		"::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false, "ff02::1": false,
	} {
		if got := web.Public(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Public(%s) = %v, want %v", addr, got, want)
		}
	}
}
