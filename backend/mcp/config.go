package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"
)

// Transport names, as reported in ServerConfig.Type and ServerStatus.Transport.
const (
	TransportStdio = "stdio" // a local command spoken to over stdin/stdout
	TransportHTTP  = "http"  // a remote server spoken to over streamable HTTP
)

// ServerConfig is one MCP server from the user's configuration.
type ServerConfig struct {
	Name     string            `json:"name"`
	Type     string            `json:"type"` // TransportStdio or TransportHTTP, inferred when the file omits it
	Command  string            `json:"command,omitempty"`
	Args     []string          `json:"args,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	Cwd      string            `json:"cwd,omitempty"` // absolute; a relative cwd in the file is taken from the file's directory
	URL      string            `json:"url,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
}

// LoadConfig reads the MCP configuration file at path, in the shape other
// MCP clients use:
//
//	{"mcpServers": {
//	  "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {}, "cwd": "."},
//	  "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ..."}, "disabled": true}
//	}}
//
// A missing file is an empty configuration. Errors name the file, the
// line:column and what was expected, or the server that is wrong. Servers
// come back sorted by name; disabled ones are included.
func LoadConfig(path string) ([]ServerConfig, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the MCP configuration: %w", err)
	}
	return parseConfig(path, data)
}

// fileServer is one entry of "mcpServers" as written in the file. Unknown
// keys (other clients add "autoApprove", "timeout", ...) are ignored.
type fileServer struct {
	Type     string            `json:"type"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	Cwd      string            `json:"cwd"`
	URL      string            `json:"url"`
	Headers  map[string]string `json:"headers"`
	Disabled bool              `json:"disabled"`
}

func parseConfig(path string, data []byte) ([]ServerConfig, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	// First the syntax and the shape, with errors json can place.
	var top struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, jsonError(path, data, 0, "", err)
	}
	entries, err := serverEntries(data)
	if err != nil { // not expected: the document was just decoded
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([]ServerConfig, 0, len(entries))
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.name] {
			return nil, fmt.Errorf("%s: server %q is defined twice", position(path, data, e.offset), e.name)
		}
		seen[e.name] = true
		var fsrv fileServer
		if err := json.Unmarshal(e.raw, &fsrv); err != nil {
			return nil, jsonError(path, data, e.offset, e.name, err)
		}
		sc, err := fsrv.resolve(e.name, filepath.Dir(path))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", position(path, data, e.offset), err)
		}
		out = append(out, sc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// resolve checks one entry and infers its transport.
func (f fileServer) resolve(name, dir string) (ServerConfig, error) {
	sc := ServerConfig{
		Name: name, Command: f.Command, Args: f.Args, Env: f.Env, Cwd: f.Cwd,
		URL: f.URL, Headers: f.Headers, Disabled: f.Disabled,
	}
	if strings.TrimSpace(name) == "" {
		return sc, errors.New(`a server has an empty name; give it a name under "mcpServers"`)
	}
	switch strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(f.Type)) {
	case "":
		switch {
		case f.Command != "" && f.URL != "":
			return sc, fmt.Errorf(`server %q has both "command" and "url"; keep "command" for a local server or "url" for a remote one`, name)
		case f.Command != "":
			sc.Type = TransportStdio
		case f.URL != "":
			sc.Type = TransportHTTP
		default:
			return sc, fmt.Errorf(`server %q has neither "command" (a local server) nor "url" (a remote server)`, name)
		}
	case "stdio":
		sc.Type = TransportStdio
	case "http", "streamablehttp":
		sc.Type = TransportHTTP
	case "sse":
		return sc, fmt.Errorf(`server %q uses the legacy "sse" transport, which is not supported; use its streamable HTTP endpoint with "type": "http"`, name)
	default:
		return sc, fmt.Errorf(`server %q has an unknown "type" %q; expected "stdio" or "http"`, name, f.Type)
	}
	switch sc.Type {
	case TransportStdio:
		if f.Command == "" {
			return sc, fmt.Errorf(`server %q is a stdio server but has no "command"`, name)
		}
		if sc.Cwd != "" && !filepath.IsAbs(sc.Cwd) {
			sc.Cwd = filepath.Join(dir, sc.Cwd)
		}
	case TransportHTTP:
		if f.URL == "" {
			return sc, fmt.Errorf(`server %q is an http server but has no "url"`, name)
		}
		u, err := url.Parse(f.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return sc, fmt.Errorf(`server %q has "url" %q; expected an http:// or https:// address`, name, f.URL)
		}
	}
	return sc, nil
}

// serverEntry is the raw text of one server and where it starts in the file.
type serverEntry struct {
	name   string
	raw    json.RawMessage
	offset int64
}

// serverEntries walks the (already valid) document to find each server's
// value and its byte offset, so later errors can point into the file. Unlike
// json.Unmarshal it keeps a name defined twice, so that can be reported.
func serverEntries(data []byte) ([]serverEntry, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var out []serverEntry
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if key != "mcpServers" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
			continue
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if tok == nil { // "mcpServers": null
			continue
		}
		out = out[:0] // a repeated "mcpServers" key replaces the earlier one, as in json.Unmarshal
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			name, _ := tok.(string)
			after := dec.InputOffset()
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, err
			}
			out = append(out, serverEntry{name: name, raw: raw, offset: after + valueStart(data[after:])})
		}
		if _, err := dec.Token(); err != nil { // }
			return nil, err
		}
	}
	return out, nil
}

// tokenStart returns where the JSON token that ends at end starts.
func tokenStart(doc []byte, end int64) int64 {
	dec := json.NewDecoder(bytes.NewReader(doc))
	for {
		before := dec.InputOffset()
		if _, err := dec.Token(); err != nil {
			return max(end-1, 0)
		}
		if dec.InputOffset() >= end {
			return before + valueStart(doc[before:])
		}
	}
}

// valueStart skips the white space, colon or comma before a value.
func valueStart(b []byte) int64 {
	i := 0
	for i < len(b) && strings.IndexByte(" \t\r\n:,", b[i]) >= 0 {
		i++
	}
	return int64(i)
}

// jsonError turns a decoding error into "file:line:col: what was expected".
// base is the offset in data of the text that was decoded: the whole file,
// or the value of the server named server.
func jsonError(path string, data []byte, base int64, server string, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && base == 0 && syn.Offset >= int64(len(data)):
		return fmt.Errorf("%s: the file ends too early; a closing } or ] or a quote is probably missing", position(path, data, int64(len(data))))
	case errors.As(err, &syn):
		// The offset is just past the offending byte.
		return fmt.Errorf("%s: %s", position(path, data, base+max(syn.Offset-1, 0)), syn.Error())
	case errors.As(err, &typ):
		// The offset is just past the offending value; point at its start.
		return fmt.Errorf("%s: %s", position(path, data, base+tokenStart(data[base:], typ.Offset)), typeErrorText(typ, server))
	default:
		return fmt.Errorf("%s: %w", path, err)
	}
}

// typeErrorText says what was expected where, without Go type names.
func typeErrorText(e *json.UnmarshalTypeError, server string) string {
	found := map[string]string{"string": "a string", "number": "a number", "bool": "true or false", "array": "an array", "object": "an object"}[e.Value]
	if found == "" {
		found = e.Value
	}
	field := e.Field
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		field = field[i+1:]
	}
	switch {
	case server == "" && field == "":
		return `the file must hold a JSON object like {"mcpServers": {...}}, found ` + found
	case server == "":
		return `"mcpServers" must be an object of named servers, found ` + found
	case field == "":
		return fmt.Sprintf(`server %q must be an object like {"command": "..."} or {"url": "..."}, found %s`, server, found)
	case (field == "env" || field == "headers") && e.Type.Kind() == reflect.String:
		return fmt.Sprintf("server %q: the values of %q must be strings (quote numbers), found %s", server, field, found)
	}
	return fmt.Sprintf("server %q: %q must be %s, found %s", server, field, expected(e.Type), found)
}

func expected(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "an array of strings"
	case reflect.Map:
		return "an object of strings"
	default:
		return "an object"
	}
}

// position renders a byte offset as "path:line:col" (1-based; columns count
// characters, not bytes).
func position(path string, data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return fmt.Sprintf("%s:%d:%d", path, line, col)
}
