package chart

import "testing"

// The compiler must never fetch: anything but the embedded schema is refused.
func TestLoaderServesOnlyTheEmbeddedSchema(t *testing.T) {
	for _, url := range []string{
		"https://vega.github.io/schema/vega-lite/v5.json",
		"http://json-schema.org/draft-07/schema",
		"file:///etc/passwd",
	} {
		if _, err := (embeddedLoader{}).Load(url); err == nil {
			t.Errorf("Load(%q) succeeded", url)
		}
	}
	doc, err := (embeddedLoader{}).Load(SchemaURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.(map[string]any)["definitions"]; !ok {
		t.Error("the embedded schema has no definitions")
	}
}

func TestCountRows(t *testing.T) {
	tests := []struct {
		name   string
		values any
		want   int
	}{
		{"array", []any{1, 2, 3}, 3},
		{"csv", "a,b\n1,2\n3,4\n", 3},
		{"empty string", "", 0},
		{"object counts its largest array", map[string]any{"type": "x", "rows": []any{1, 2}, "more": map[string]any{"r": []any{1, 2, 3}}}, 3},
		{"scalar", true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := countRows(tt.values); got != tt.want {
				t.Errorf("countRows = %d, want %d", got, tt.want)
			}
		})
	}
}
