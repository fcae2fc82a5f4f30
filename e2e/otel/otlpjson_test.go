//go:build otel

package otel_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// OTLP JSON (the protocol's JSON mapping: ids in hex, 64-bit integers as
// decimal strings, enums as numbers), as the collector's file exporter
// writes it and `sessions export --format otlp -o` must: one TracesData
// object a line. Only what these tests read is decoded.
type tracesData struct {
	ResourceSpans []struct {
		Resource struct {
			Attributes []keyValue `json:"attributes"`
		} `json:"resource"`
		ScopeSpans []struct {
			Scope struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"scope"`
			Spans []spanJSON `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type spanJSON struct {
	TraceID      string     `json:"traceId"`
	SpanID       string     `json:"spanId"`
	ParentSpanID string     `json:"parentSpanId"`
	Name         string     `json:"name"`
	Kind         int        `json:"kind"` // OTLP JSON: enums as numbers
	Start        jsonInt    `json:"startTimeUnixNano"`
	End          jsonInt    `json:"endTimeUnixNano"`
	Attributes   []keyValue `json:"attributes"`
	Status       struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"status"`
}

type keyValue struct {
	Key   string   `json:"key"`
	Value anyValue `json:"value"`
}

type anyValue struct {
	StringValue *string  `json:"stringValue"`
	IntValue    *jsonInt `json:"intValue"`
	DoubleValue *float64 `json:"doubleValue"`
	BoolValue   *bool    `json:"boolValue"`
	ArrayValue  *struct {
		Values []anyValue `json:"values"`
	} `json:"arrayValue"`
}

// jsonInt is a 64-bit integer that OTLP JSON writes as a string ("17")
// and a reader must also take as a number.
type jsonInt int64

func (n *jsonInt) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseInt(strings.Trim(string(b), `"`), 10, 64)
	*n = jsonInt(v)
	return err
}

func (v anyValue) value() any {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.IntValue != nil:
		return int64(*v.IntValue)
	case v.DoubleValue != nil:
		return *v.DoubleValue
	case v.BoolValue != nil:
		return *v.BoolValue
	case v.ArrayValue != nil:
		var out []any
		for _, x := range v.ArrayValue.Values {
			out = append(out, x.value())
		}
		return out
	}
	return nil
}

func attrMap(kvs []keyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value.value()
	}
	return m
}

// span is one span as read back, with its resource's attributes.
type span struct {
	TraceID, ID, Parent, Name string
	Kind                      int
	Start, End                time.Time
	Attrs, Resource           map[string]any
	StatusCode                int
}

// parseTracesLine decodes one line of OTLP JSON, refusing what the
// protocol does not allow: ids that are not hex of the right length, a
// span with no name or an end before its start.
func parseTracesLine(line []byte) ([]span, error) {
	var td tracesData
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&td); err != nil {
		return nil, err
	}
	if len(td.ResourceSpans) == 0 {
		return nil, fmt.Errorf("a TracesData with no resourceSpans")
	}
	var out []span
	for _, rs := range td.ResourceSpans {
		res := attrMap(rs.Resource.Attributes)
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				if !isHex(s.TraceID, 16) || !isHex(s.SpanID, 8) || (s.ParentSpanID != "" && !isHex(s.ParentSpanID, 8)) {
					return nil, fmt.Errorf("span %q: ids not in OTLP JSON's hex (trace %q span %q parent %q)", s.Name, s.TraceID, s.SpanID, s.ParentSpanID)
				}
				if s.Name == "" || s.End < s.Start || s.Start <= 0 {
					return nil, fmt.Errorf("span %q: no name, or times %d..%d", s.Name, s.Start, s.End)
				}
				out = append(out, span{
					TraceID: strings.ToLower(s.TraceID), ID: strings.ToLower(s.SpanID), Parent: strings.ToLower(s.ParentSpanID), Name: s.Name, Kind: s.Kind,
					Start: time.Unix(0, int64(s.Start)).UTC(), End: time.Unix(0, int64(s.End)).UTC(),
					Attrs: attrMap(s.Attributes), Resource: res, StatusCode: s.Status.Code,
				})
			}
		}
	}
	return out, nil
}

// isHex says whether s is n bytes in hex (OTLP JSON's ids: hex, of
// either case).
func isHex(s string, n int) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == n
}

// readSpansFile reads a file of OTLP JSON lines; a missing file is no
// spans (the file exporter makes it on its first write).
func readSpansFile(t *testing.T, path string) []span {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []span
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		spans, err := parseTracesLine(sc.Bytes())
		if err != nil {
			t.Fatalf("%s:%d is not OTLP JSON: %v\n%.2000s", path, n, err, sc.Bytes())
		}
		out = append(out, spans...)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// byTrace groups spans by trace id, each trace's spans by start time.
func byTrace(spans []span) map[string][]span {
	m := map[string][]span{}
	for _, s := range spans {
		m[s.TraceID] = append(m[s.TraceID], s)
	}
	for _, ss := range m {
		slices.SortStableFunc(ss, func(a, b span) int { return a.Start.Compare(b.Start) })
	}
	return m
}

// traceIDOf is the trace id of a turn: its UUID's 16 bytes, in hex.
func traceIDOf(turnID string) string {
	return strings.ToLower(strings.ReplaceAll(turnID, "-", ""))
}
