// Package otel tests Agentdeck's OpenTelemetry export against a real
// OpenTelemetry Collector (make test-otel): the collector of tools/otelcol
// (an OTLP receiver and contrib's file exporter, built into
// .bin/otelcol-agentdeck by scripts/install-otelcol.sh) runs on loopback
// with its ports chosen by the system, and the built agentdeck sends it
// live turns (run --otlp-endpoint) and past ones (sessions export --format
// otlp) over OTLP HTTP and gRPC. What the collector wrote is read back and
// checked span by span against the stored turn: names, parent links, the
// gen_ai attributes, the recorded times, the trace id (the turn's id).
//
// Its tests need the otel build tag and the collector binary named in
// OTELCOL_BIN. Rules: no sleeps and no polling: the collector is ready when
// its log says so, and what it received is read after a graceful shutdown
// (SIGTERM), which flushes the file exporter; only the whole test run has
// a timeout.
package otel
