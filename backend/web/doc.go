// Package web is the fetch_url tool, and the reading of a web page for it
// and for a page added by its URL: the page's main text (readability)
// as clean Markdown, in blocks under their headings.
//
// The rules:
//   - Only http and https, a host named, no credentials in the URL; every
//     redirect is checked again, at most MaxRedirects.
//   - Only public addresses unless the user allowed private ones
//     (Options.AllowPrivate, asked at every fetch). The check is made on
//     the resolved address in the dialer (net.Dialer.ControlContext), for
//     every connection, so DNS rebinding and redirects cannot pass it; no
//     proxy is used, since a proxy would connect past it.
//   - A time limit on the whole fetch, a size limit on what is read, and
//     a limit on the Markdown the model gets; only HTML, XHTML and plain
//     text are read, anything else is refused by name.
//   - A Fetcher keeps no connection after a fetch: it holds nothing to
//     close and leaves no goroutine behind.
//   - The tool is Recorded: its output carries what a replay needs to
//     report the page as the turn's source again (Result), and a replay
//     gives that output back without fetching. It is Scoped by site: the
//     person approves a site the first time it is read in a session.
package web
