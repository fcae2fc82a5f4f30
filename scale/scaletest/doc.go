// Package scaletest runs evaluations on a real Temporal server on
// loopback, with agentdeck-worker processes against the scripted model:
// make test-scale builds the binaries and runs it (its tests need the
// scale build tag, and the binaries named in AGENTDECK_WORKER_BIN and
// TEMPORAL_BIN).
package scaletest
