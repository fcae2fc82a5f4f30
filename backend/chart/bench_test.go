package chart_test

import (
	"encoding/json"
	"testing"

	"github.com/agentdeck/agentdeck/backend/chart"
)

func BenchmarkValidate(b *testing.B) {
	v := chart.NewValidator()
	// The schema compiles on first use (BenchmarkCompileSchema): not here.
	if _, err := v.Validate(json.RawMessage(barSpec), "", nil); err != nil {
		b.Fatal(err)
	}
	benches := []struct {
		name    string
		spec    string
		ds      chart.Datasets
		wantErr bool
	}{
		{name: "bar", spec: barSpec},
		{name: "layer", spec: layerSpec},
		{name: "schema error", spec: `{"data":{"values":[]},"mark":"barr","encoding":{"x":{"field":"a","type":"quantitativ"}}}`, wantErr: true},
		{name: "named dataset 5000 rows", spec: `{"data":{"name":"big"},"mark":"point","encoding":{"x":{"field":"day","type":"quantitative"}}}`,
			ds: chart.DatasetMap{"big": rows(chart.MaxRows)}},
		{name: "inline 5000 rows", spec: inlineRows(chart.MaxRows)},
	}
	for _, bb := range benches {
		b.Run(bb.name, func(b *testing.B) {
			spec := json.RawMessage(bb.spec)
			b.SetBytes(int64(len(spec)))
			for b.Loop() {
				_, err := v.Validate(spec, "Title", bb.ds)
				if (err != nil) != bb.wantErr {
					b.Fatal(err)
				}
			}
		})
	}
}
