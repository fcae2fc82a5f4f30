//go:build !race

package resilience_test

const raceEnabled = false
