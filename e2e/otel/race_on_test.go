//go:build otel && race

package otel_test

const raceEnabled = true
