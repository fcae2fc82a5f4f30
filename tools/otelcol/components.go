package main

import (
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/bearertokenauthextension"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

// components are the collector's factories, as ocb's components.go lists
// them: one receiver (otlp), one exporter (file), one extension
// (bearertokenauth: a receiver that asks for a key, as a hosted
// collector does, for the headers of OTEL_EXPORTER_OTLP_HEADERS), the
// default telemetry.
func components() (otelcol.Factories, error) {
	var err error
	factories := otelcol.Factories{
		Telemetry: otelconftelemetry.NewFactory(),
	}
	if factories.Extensions, err = otelcol.MakeFactoryMap[extension.Factory](bearertokenauthextension.NewFactory()); err != nil {
		return otelcol.Factories{}, err
	}
	factories.ExtensionModules = map[component.Type]string{
		bearertokenauthextension.NewFactory().Type(): "github.com/open-telemetry/opentelemetry-collector-contrib/extension/bearertokenauthextension v0.161.0",
	}
	if factories.Receivers, err = otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory()); err != nil {
		return otelcol.Factories{}, err
	}
	factories.ReceiverModules = map[component.Type]string{
		otlpreceiver.NewFactory().Type(): "go.opentelemetry.io/collector/receiver/otlpreceiver v0.161.0",
	}
	if factories.Exporters, err = otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory()); err != nil {
		return otelcol.Factories{}, err
	}
	factories.ExporterModules = map[component.Type]string{
		fileexporter.NewFactory().Type(): "github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter v0.161.0",
	}
	if factories.Processors, err = otelcol.MakeFactoryMap[processor.Factory](); err != nil {
		return otelcol.Factories{}, err
	}
	if factories.Connectors, err = otelcol.MakeFactoryMap[connector.Factory](); err != nil {
		return otelcol.Factories{}, err
	}
	return factories, nil
}
