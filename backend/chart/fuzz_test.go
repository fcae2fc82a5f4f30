package chart_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/chart"
)

// FuzzValidate checks that Validate never panics and that whatever it
// accepts is a JSON object with no "url" key anywhere (nor "href" or
// "usermeta"), the v6 $schema and a clean title.
func FuzzValidate(f *testing.F) {
	seeds := []string{
		barSpec,
		layerSpec,
		`{"data":{"name":"sales"},"mark":"line"}`,
		`{"data":{"url":"https://example.com/x.csv"},"mark":"bar"}`,
		`{"data":{"values":[{"u\u0072l":"x"}]},"mark":"bar"}`,
		`{"layer":[{"data":{"values":[]},"mark":"bar"},{"data":{"url":"x"},"mark":"line"}]}`,
		`{"data":{"values":"a,b\n1,2"},"mark":"bar","encoding":{"url":{"field":"a"}}}`,
		`{"data":{"sequence":{"start":0,"stop":3}},"mark":{"type":"image","url":"//x"}}`,
		`{"datasets":{"d":[{"a":1}]},"data":{"name":"d"},"mark":"bar","usermeta":{}}`,
		`{"vconcat":[{"data":{"name":"sales"},"mark":"bar"},{"data":{"name":"nope"},"mark":"bar"}]}`,
		`"{\"data\":{\"values\":[]},\"mark\":\"bar\"}"`,
		`[1,2]`, `null`, `"x"`, ``, `{`, `{"a":1}{}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), "Sales <b>by</b>\x00 region")
	}
	v := chart.NewValidator()
	ds := chart.DatasetMap{"sales": rows(3)}
	f.Fuzz(func(t *testing.T, spec []byte, title string) {
		res, err := v.Validate(spec, title, ds)
		if err != nil {
			if !chartInvalid(err) {
				t.Fatalf("error is not an invalid-spec error: %v", err)
			}
			return
		}
		var obj map[string]any
		if err := json.Unmarshal(res.Spec, &obj); err != nil {
			t.Fatalf("accepted spec is not a JSON object: %v", err)
		}
		for _, key := range []string{"url", "href", "usermeta"} {
			if path, ok := findKey(obj, key, ""); ok {
				t.Fatalf("accepted spec has %q at %s: %s", key, path, res.Spec)
			}
		}
		if obj["$schema"] != chart.SchemaURL {
			t.Fatalf("$schema = %v", obj["$schema"])
		}
		if utf8.RuneCountInString(res.Title) > chart.MaxTitleRunes || strings.IndexFunc(res.Title, unicode.IsControl) >= 0 {
			t.Fatalf("title not cleaned: %q", res.Title)
		}
	})
}

func findKey(v any, key, path string) (string, bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			if k == key {
				return path + "/" + k, true
			}
			if p, ok := findKey(child, key, path+"/"+k); ok {
				return p, true
			}
		}
	case []any:
		for _, child := range v {
			if p, ok := findKey(child, key, path+"/[]"); ok {
				return p, true
			}
		}
	}
	return "", false
}
