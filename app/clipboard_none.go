//go:build !(desktop && linux)

package app

// WindowClipboard is nil here: the other windows' web views (WKWebView,
// WebView2) hand a pasted image to the page, and a build without the
// desktop tag has no window.
func WindowClipboard() Clipboard { return nil }
