package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html/charset"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// The limits of a fetch, unless Options say otherwise.
const (
	DefaultTimeout      = 20 * time.Second
	DefaultMaxBytes     = 5 << 20 // what is read of a page
	DefaultMaxRunes     = 40000   // of Markdown given to the model: about 10,000 tokens
	DefaultMaxRedirects = 5
	DefaultUserAgent    = "Agentdeck (fetch_url; a desktop AI assistant reading a page for its user)"
)

// Options configure a Fetcher.
type Options struct {
	// AllowPrivate reports whether the user allowed private and loopback
	// addresses (the app setting AllowPrivateURLs). It is asked at every
	// fetch, so a change applies at once; nil: never allowed.
	AllowPrivate func(ctx context.Context) bool
	// Allow are exact addresses (ip:port) allowed although not public: a
	// test's local server, without allowing every private address.
	Allow []netip.AddrPort
	// Zero values take the defaults above.
	Timeout      time.Duration
	MaxBytes     int64
	MaxRunes     int
	MaxRedirects int
	UserAgent    string
}

// Fetcher reads web pages under the package's rules. It keeps no
// connections between fetches, so it holds nothing to close.
type Fetcher struct {
	opts Options
}

// New returns a Fetcher.
func New(opts Options) *Fetcher {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxRunes <= 0 {
		opts.MaxRunes = DefaultMaxRunes
	}
	if opts.MaxRedirects <= 0 {
		opts.MaxRedirects = DefaultMaxRedirects
	}
	if opts.UserAgent == "" {
		opts.UserAgent = DefaultUserAgent
	}
	return &Fetcher{opts: opts}
}

// Fetch reads the page at rawURL and extracts its main text.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (Page, error) {
	u, err := CheckURL(rawURL)
	if err != nil {
		return Page{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	body, final, ctype, err := f.get(ctx, u)
	if err != nil {
		return Page{}, f.explain(ctx, u, err)
	}
	return readPage(body, final, ctype)
}

// CheckURL parses a URL a page may be read from: http or https, with a
// host, and no user name or password in it.
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil || u.Scheme == "":
		return nil, apperr.New(apperr.Invalid, "%q is not a web address: give a full URL such as https://example.com/page.", raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, apperr.New(apperr.Invalid, "Only http and https pages are read; %s is a %s address.", u.Redacted(), u.Scheme)
	case u.Host == "":
		return nil, apperr.New(apperr.Invalid, "%q names no site: give a full URL such as https://example.com/page.", raw)
	}
	if u.User != nil {
		return nil, apperr.New(apperr.Invalid, "A web address with a user name or password in it is not read: remove them from %s.", u.Redacted())
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// get reads the body of u, following redirects, under the size limit.
func (f *Fetcher) get(ctx context.Context, u *url.URL) (body []byte, final *url.URL, ctype string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, nil, "", err
	}
	req.Header.Set("User-Agent", f.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9")
	resp, err := f.client(ctx).Do(req)
	if err != nil {
		return nil, nil, "", err
	}
	defer resp.Body.Close()
	final = resp.Request.URL
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, final, "", apperr.New(apperr.Unavailable, "%s answered %s.", final.Redacted(), resp.Status)
	}
	if resp.ContentLength > f.opts.MaxBytes {
		return nil, final, "", f.tooLarge(final)
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, f.opts.MaxBytes+1))
	if err != nil {
		return nil, final, "", err
	}
	if int64(len(body)) > f.opts.MaxBytes {
		return nil, final, "", f.tooLarge(final)
	}
	ctype = resp.Header.Get("Content-Type")
	if ctype == "" {
		ctype = http.DetectContentType(body)
	}
	media, _, _ := mime.ParseMediaType(ctype)
	switch media {
	case "text/html", "application/xhtml+xml", "text/plain":
	default:
		if media == "" {
			media = ctype
		}
		return nil, final, "", apperr.New(apperr.Invalid,
			"%s is %s, not a web page: fetch_url reads HTML and plain text only (add a PDF or another file as a document instead).", final.Redacted(), media)
	}
	return toUTF8(body, ctype), final, media, nil
}

// toUTF8 decodes a page by the charset it names (its header, a meta tag,
// a byte order mark); as it is when that charset is unknown.
func toUTF8(body []byte, ctype string) []byte {
	r, err := charset.NewReader(bytes.NewReader(body), ctype)
	if err != nil {
		return body
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return body
	}
	return out
}

// client is an HTTP client for one fetch: its dialer checks every address
// it connects to, it uses no proxy (a proxy would connect for it, past
// the check), and it keeps no connection after the fetch.
func (f *Fetcher) client(ctx context.Context) *http.Client {
	rule := addressRule{allow: f.opts.Allow}
	if f.opts.AllowPrivate != nil {
		rule.allowPrivate = f.opts.AllowPrivate(ctx)
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, ControlContext: rule.control}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		DisableKeepAlives:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > f.opts.MaxRedirects {
				return apperr.New(apperr.Unavailable, "%s redirects more than %d times; it was not read.", via[0].URL.Redacted(), f.opts.MaxRedirects)
			}
			if _, err := CheckURL(req.URL.String()); err != nil {
				return err
			}
			return nil
		},
	}
}

func (f *Fetcher) tooLarge(u *url.URL) error {
	return apperr.New(apperr.Invalid, "%s is larger than %d MB, the most a page may be: it was not read.", u.Redacted(), f.opts.MaxBytes>>20)
}

// explain turns a failed fetch into what a person (or the model) can act on.
func (f *Fetcher) explain(ctx context.Context, u *url.URL, err error) error {
	var blocked *blockedError
	var ae *apperr.Error
	var dns *net.DNSError
	switch {
	case errors.As(err, &blocked):
		return apperr.Wrap(err, apperr.Invalid,
			"%s was not read: its address %s is private, loopback or otherwise not public. Allow private addresses in Settings to read pages of your own network.", u.Redacted(), blocked.addr)
	case errors.As(err, &ae):
		return ae
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return apperr.Wrap(err, apperr.Unavailable, "%s did not answer within %s; try again later.", u.Redacted(), f.opts.Timeout)
	case ctx.Err() != nil:
		return apperr.Wrap(err, apperr.Cancelled, "Reading %s was stopped.", u.Redacted())
	case errors.As(err, &dns):
		return apperr.Wrap(err, apperr.Unavailable, "The site %s was not found (%s); check the address.", u.Hostname(), dns.Err)
	}
	return apperr.Wrap(err, apperr.Unavailable, "%s could not be read: %s.", u.Redacted(), rootCause(err))
}

// rootCause is the innermost message of a network error, without the
// URL and method the client wraps it in.
func rootCause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Sprint(err)
}
