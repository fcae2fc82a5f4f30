// Command otelcol-agentdeck is a real OpenTelemetry Collector for make
// test-otel (e2e/otel): an OTLP receiver (HTTP and gRPC), contrib's file
// exporter and contrib's bearer-token authenticator, nothing else. It is
// what the collector builder (ocb) writes from a manifest naming those
// components: this main.go and components.go, in a module of its own
// (this one) so that the collector's dependencies stay out of Agentdeck's
// go.mod.
//
// Every collector module is at one release: v0.161.0 for the v0.x modules
// (otelcol, otlpreceiver, service; contrib's fileexporter and
// bearertokenauthextension) and v1.67.0 for the v1.x ones of that same
// release (component, confmap and its providers, pdata).
// scripts/install-otelcol.sh builds it into .bin/otelcol-agentdeck once
// per version of this module.
package main

import (
	"log"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/otelcol"
)

func main() {
	info := component.BuildInfo{
		Command:     "otelcol-agentdeck",
		Description: "OpenTelemetry Collector (OTLP receiver, file exporter) for Agentdeck's tests",
		Version:     "0.161.0",
	}
	set := otelcol.CollectorSettings{
		BuildInfo: info,
		Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{
					envprovider.NewFactory(),
					fileprovider.NewFactory(),
				},
			},
		},
		ProviderModules: map[string]string{
			envprovider.NewFactory().Create(confmap.ProviderSettings{}).Scheme():  "go.opentelemetry.io/collector/confmap/provider/envprovider v1.67.0",
			fileprovider.NewFactory().Create(confmap.ProviderSettings{}).Scheme(): "go.opentelemetry.io/collector/confmap/provider/fileprovider v1.67.0",
		},
	}
	if err := otelcol.NewCommand(set).Execute(); err != nil {
		log.Fatalf("collector server run finished with error: %v", err)
	}
}
