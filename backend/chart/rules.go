package chart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// cleanTitle makes title a single line of plain text. It strips rather than
// escapes: the UI renders it as text.
func cleanTitle(title string) (string, error) {
	title = strings.ToValidUTF8(title, "")
	title = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case unicode.IsControl(r), isBidiControl(r):
			return -1
		}
		return r
	}, title)
	title = strings.Join(strings.Fields(title), " ")
	if n := utf8.RuneCountInString(title); n > MaxTitleRunes {
		return "", invalid("the title is %d characters; keep it to %d or fewer", n, MaxTitleRunes)
	}
	return title, nil
}

// isBidiControl reports the marks, embeddings, overrides and isolates that
// can make a title display as something other than what it says.
func isBidiControl(r rune) bool {
	return r == '\u061c' || r == '\u200e' || r == '\u200f' ||
		(r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

// decodeSpec decodes spec into an object, unwrapping one level of JSON
// string, which is how models often send nested JSON.
func decodeSpec(spec []byte) (map[string]any, error) {
	v, err := decodeJSON(spec)
	if err != nil {
		return nil, invalid("the spec is not valid JSON: %v", err)
	}
	if s, ok := v.(string); ok {
		v, err = decodeJSON([]byte(s))
		if err != nil {
			return nil, invalid("the spec is a string that does not hold valid JSON (%v); send the spec as a JSON object", err)
		}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, invalid(`the spec must be a JSON object such as {"data": {"values": [...]}, "mark": "bar", "encoding": {...}}, not %s`, describe(v))
	}
	return obj, nil
}

// decodeJSON decodes exactly one JSON value, keeping numbers as written so
// they are sent on unchanged.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("%v at byte %d", se, se.Offset)
		case errors.Is(err, io.EOF):
			return nil, errors.New("it is empty")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, errors.New("it ends before the value is complete")
		}
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("more follows the value at byte %d", dec.InputOffset())
	}
	return v, nil
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("a %T", v)
}

// isRemoteKey reports the keys refused at any depth: each loads, links to
// or configures the loading of outside content.
func isRemoteKey(k string) bool {
	return k == "url" || k == "href" || k == "usermeta"
}

// checkNoRemote refuses the spec if any object in it has a key that could
// make the UI load or link to outside content.
func checkNoRemote(obj map[string]any) error {
	var found [][]string
	walkKeys(obj, nil, func(path []string, _ any) bool {
		if isRemoteKey(path[len(path)-1]) {
			found = append(found, slices.Clone(path))
			return false
		}
		return true
	})
	if len(found) == 0 {
		return nil
	}
	slices.SortFunc(found, func(a, b []string) int { return strings.Compare(pointer(a), pointer(b)) })
	return invalid("%s%s", remoteMessage(found[0]), more(len(found)-1, "place"))
}

// walkKeys calls visit with the path of every key of every object in v (a
// spec decoded from JSON), depth first, array items named by their index;
// path is where v is. It goes into a key's value only when visit returns
// true. The path visit gets is reused after it returns: clone it to keep it.
func walkKeys(v any, path []string, visit func(path []string, child any) bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			p := append(path, k)
			if visit(p, child) {
				walkKeys(child, p, visit)
			}
		}
	case []any:
		for i, child := range v {
			walkKeys(child, append(path, strconv.Itoa(i)), visit)
		}
	}
}

func remoteMessage(path []string) string {
	key, at := path[len(path)-1], pointer(path)
	switch {
	case inRows(path):
		return fmt.Sprintf("data rows cannot have a column named %q (at %s); rename the column, e.g. to \"link\" or \"page\"", key, at)
	case key == "usermeta":
		return fmt.Sprintf("usermeta is not allowed; remove it (at %s)", at)
	case key == "href":
		return fmt.Sprintf("charts cannot link to URLs; remove \"href\" (at %s)", at)
	case slices.Contains(path, "data"):
		return fmt.Sprintf("charts cannot load data from a URL; put the rows in data.values or use a named dataset (remove \"url\" at %s)", at)
	}
	return fmt.Sprintf("charts cannot load images or other content from a URL; remove \"url\" (at %s)", at)
}

// inRows reports whether path runs through data rows: data.values or the
// top-level datasets.
func inRows(path []string) bool {
	if len(path) > 1 && path[0] == "datasets" {
		return true
	}
	for i := 1; i < len(path)-1; i++ {
		if path[i] == "values" && path[i-1] == "data" {
			return true
		}
	}
	return false
}

// A rowSource is somewhere rows come from, for the row limit.
type rowSource struct {
	label string
	rows  int
}

// A dataRef is a data object that names a dataset.
type dataRef struct {
	at   string // JSON pointer of the name
	name string
}

// resolveData checks every data object in the spec, resolves the named
// ones and enforces the row limit. It returns the datasets from ds to
// inline, by name.
func resolveData(obj map[string]any, ds Datasets) (map[string][]map[string]any, error) {
	sources, refs, problems := scanData(obj)
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, invalid("%s%s", problems[0], more(len(problems)-1, "data object"))
	}

	own, _ := obj["datasets"].(map[string]any)
	for _, name := range sortedKeys(own) {
		sources = append(sources, rowSource{fmt.Sprintf("dataset %q", name), countRows(own[name])})
	}
	inline := map[string][]map[string]any{}
	for _, ref := range refs {
		if _, ok := own[ref.name]; ok {
			continue
		}
		if _, ok := inline[ref.name]; ok {
			continue
		}
		var rows []map[string]any
		ok := false
		if ds != nil {
			rows, ok = ds.Dataset(ref.name)
		}
		if !ok {
			return nil, unknownDataset(ref, own, ds)
		}
		inline[ref.name] = rows
		sources = append(sources, rowSource{fmt.Sprintf("dataset %q", ref.name), len(rows)})
	}

	if err := checkRows(sources); err != nil {
		return nil, err
	}
	return inline, nil
}

// scanData finds the data objects of every view and lookup in the spec. It
// does not look inside rows, where "data" is just a column name.
func scanData(obj map[string]any) (sources []rowSource, refs []dataRef, problems []string) {
	walkKeys(obj, nil, func(path []string, child any) bool {
		switch k := path[len(path)-1]; {
		case k == "data":
			src, ref, problem := checkData(child, pointer(path))
			if src != nil {
				sources = append(sources, *src)
			}
			if ref != nil {
				refs = append(refs, *ref)
			}
			if problem != "" {
				problems = append(problems, problem)
			}
			return false
		case k == "datasets" && len(path) == 1:
			// Rows; counted by the caller.
			return false
		}
		return true
	})
	slices.SortFunc(refs, func(a, b dataRef) int { return strings.Compare(a.at, b.at) })
	return sources, refs, problems
}

// checkData looks at one data object. Shapes the schema rejects anyway (a
// data that is not an object, a name that is not a string) are left to it.
func checkData(v any, at string) (*rowSource, *dataRef, string) {
	d, ok := v.(map[string]any)
	if !ok {
		return nil, nil, ""
	}
	if values, ok := d["values"]; ok {
		return &rowSource{at + "/values", countRows(values)}, nil, ""
	}
	if name, ok := d["name"]; ok {
		if s, ok := name.(string); ok {
			return nil, &dataRef{at + "/name", s}, ""
		}
		return nil, nil, ""
	}
	for _, gen := range []string{"sequence", "graticule", "sphere"} {
		if _, ok := d[gen]; ok {
			return nil, nil, ""
		}
	}
	return nil, nil, fmt.Sprintf(`data at %s needs "values" with the rows inline or "name" naming a dataset, e.g. {"values": [{"a": 1}]} or {"name": "result"}`, at)
}

func unknownDataset(ref dataRef, own map[string]any, ds Datasets) error {
	names := sortedKeys(own)
	canList := true
	if ds != nil {
		if lister, ok := ds.(DatasetNames); ok {
			names = append(names, lister.Names()...)
		} else {
			canList = false
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	msg := fmt.Sprintf("unknown dataset %q (at %s)", ref.name, ref.at)
	switch {
	case len(names) > 0:
		const show = 20
		quoted := make([]string, 0, min(len(names), show))
		for _, n := range names[:min(len(names), show)] {
			quoted = append(quoted, strconv.Quote(n))
		}
		msg += "; available datasets: " + strings.Join(quoted, ", ") + more(len(names)-show, "dataset")
	case canList:
		msg += "; no datasets are available, so put the rows in data.values"
	default:
		msg += "; use the exact name the dataset was given, or put the rows in data.values"
	}
	return invalid("%s", msg)
}

func checkRows(sources []rowSource) error {
	total := 0
	largest := rowSource{}
	for _, s := range sources {
		total += s.rows
		if s.rows > largest.rows {
			largest = s
		}
	}
	if total <= MaxRows {
		return nil
	}
	return invalid("the chart has %s data rows (the most, %s rows, in %s); the limit is %s. Aggregate in the query first (group, bin or keep the top N) and chart the result",
		thousands(total), thousands(largest.rows), largest.label, thousands(MaxRows))
}

// countRows counts the rows in inline values: array items, or lines of a
// CSV/TSV string. An object (TopoJSON, or JSON read through
// format.property) counts as its largest array.
func countRows(values any) int {
	switch v := values.(type) {
	case []any:
		return len(v)
	case string:
		v = strings.TrimRight(v, "\r\n")
		if v == "" {
			return 0
		}
		return strings.Count(v, "\n") + 1
	case map[string]any:
		n := 0
		for _, child := range v {
			if _, ok := child.(string); ok {
				continue
			}
			n = max(n, countRows(child))
		}
		return n
	}
	return 0
}

// pointer formats path as a JSON pointer (RFC 6901).
func pointer(path []string) string {
	var b strings.Builder
	for _, tok := range path {
		b.WriteByte('/')
		for _, r := range tok {
			switch r {
			case '~':
				b.WriteString("~0")
			case '/':
				b.WriteString("~1")
			default:
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

func more(n int, what string) string {
	switch {
	case n <= 0:
		return ""
	case n == 1:
		return fmt.Sprintf(" (and 1 more %s)", what)
	}
	return fmt.Sprintf(" (and %d more %ss)", n, what)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
