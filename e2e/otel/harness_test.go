//go:build otel

package otel_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The harness itself, without agentdeck: the OpenTelemetry SDK sends one
// span over each protocol, and after the collector's shutdown the file
// holds both, with their ids and attributes. If this fails, the collector
// or the way these tests read it is wrong, not the export.
func TestHarnessSelfTest(t *testing.T) {
	col := startCollector(t)
	ctx := context.Background()
	clients := map[string]otlptrace.Client{
		"http": otlptracehttp.NewClient(otlptracehttp.WithEndpoint(col.HTTP), otlptracehttp.WithInsecure()),
		"grpc": otlptracegrpc.NewClient(otlptracegrpc.WithEndpoint(col.GRPC), otlptracegrpc.WithInsecure()),
	}
	sent := map[string]string{} // span name → trace id
	for proto, client := range clients {
		exp, err := otlptrace.New(ctx, client)
		if err != nil {
			t.Fatal(err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
		_, sp := tp.Tracer("e2e/otel").Start(ctx, "self-test "+proto)
		sp.SetAttributes(attribute.String("harness.protocol", proto), attribute.Int64("harness.n", 42))
		sent["self-test "+proto] = sp.SpanContext().TraceID().String()
		sp.End() // the syncer exports it now, and says so if it could not
		if err := tp.Shutdown(ctx); err != nil {
			t.Fatalf("%s: %v", proto, err)
		}
	}
	got := col.stop()
	if len(got) != len(sent) {
		t.Fatalf("the collector wrote %d spans, want %d: %+v", len(got), len(sent), got)
	}
	for _, s := range got {
		proto, _ := s.Attrs["harness.protocol"].(string)
		if sent[s.Name] != s.TraceID || s.Name != "self-test "+proto || s.Attrs["harness.n"] != int64(42) || s.Parent != "" {
			t.Errorf("span as received: %+v; sent %v", s, sent)
		}
	}
}
