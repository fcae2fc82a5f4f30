//go:build otel

package otel_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// agentdeckBin is the command under test, built by TestMain; collectorBin
// the collector (OTELCOL_BIN, from make test-otel).
var agentdeckBin, collectorBin string

func TestMain(m *testing.M) {
	collectorBin = os.Getenv("OTELCOL_BIN")
	if collectorBin == "" {
		fmt.Fprintln(os.Stderr, "OTELCOL_BIN is not set: run make test-otel, which builds the collector (scripts/install-otelcol.sh) and names it")
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "agentdeck-e2e-otel-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	agentdeckBin = filepath.Join(dir, "agentdeck")
	code := 1
	if err := goBuild(agentdeckBin, "github.com/agentdeck/agentdeck"); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = runTests(m)
	}
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

func runTests(m *testing.M) (code int) {
	// goleak.VerifyTestMain would exit before the binary's folder is removed.
	code = m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	return code
}

// goBuild builds the package pkg of this module into out, instrumented
// for the race detector when this test binary is.
func goBuild(out, pkg string) error {
	args := []string{"build", "-o", out}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, pkg)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}
