//go:build race

package resilience_test

// raceEnabled: the race detector's shadow memory makes resident memory
// meaningless for the soak's growth check.
const raceEnabled = true
