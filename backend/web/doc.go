// Package web is the fetch_url tool: a web page read as clean Markdown,
// only over http and https, never from a private or loopback address
// unless the user allowed it, within size and time limits, with every
// redirect checked again. Its result is recorded: a replay gives back the
// page as it was and never fetches again.
package web
