package traces

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// OTLP/JSON (the OTLP specification's JSON encoding, which a collector's
// ptrace.JSONUnmarshaler reads) differs from protojson in two places:
// trace and span ids are hex strings, not base64, and enums (a span's
// kind, a status code) are integers. MarshalOTLPJSON writes protojson
// with enum numbers and then turns every id field into hex;
// UnmarshalOTLPJSON undoes it.

// idFields are the OTLP fields that hold a trace or span id (in a span,
// its links and events carry none of their own but links do).
var idFields = map[string]bool{"traceId": true, "spanId": true, "parentSpanId": true}

// MarshalOTLPJSON is td as one OTLP/JSON object.
func MarshalOTLPJSON(td *tracepb.TracesData) ([]byte, error) {
	b, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(td)
	if err != nil {
		return nil, err
	}
	return recodeIDs(b, func(s string) (string, error) {
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return "", err
		}
		return hex.EncodeToString(raw), nil
	})
}

// UnmarshalOTLPJSON reads one OTLP/JSON object (hex ids, enums as
// numbers or names).
func UnmarshalOTLPJSON(b []byte) (*tracepb.TracesData, error) {
	pj, err := recodeIDs(b, func(s string) (string, error) {
		raw, err := hex.DecodeString(s)
		if err != nil {
			return "", err
		}
		return base64.StdEncoding.EncodeToString(raw), nil
	})
	if err != nil {
		return nil, err
	}
	var td tracepb.TracesData
	if err := protojson.Unmarshal(pj, &td); err != nil {
		return nil, err
	}
	return &td, nil
}

// recodeIDs rewrites the string value of every id field in the JSON b.
func recodeIDs(b []byte, conv func(string) (string, error)) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if err := walkIDs(v, conv); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func walkIDs(v any, conv func(string) (string, error)) error {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && idFields[k] {
				c, err := conv(s)
				if err != nil {
					return fmt.Errorf("%s %q: %w", k, s, err)
				}
				x[k] = c
				continue
			}
			if err := walkIDs(e, conv); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := walkIDs(e, conv); err != nil {
				return err
			}
		}
	}
	return nil
}
