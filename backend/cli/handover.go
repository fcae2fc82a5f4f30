package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Evaluations on Temporal (docs/SCALE.md) are run by agentdeck-worker,
// built from its own module so this binary carries no Temporal code:
// `agentdeck eval SUITE --temporal HOST:PORT ...` hands the whole command
// over to `agentdeck-worker eval SUITE --temporal HOST:PORT ...`, which
// takes the same flags, stores the run in the same database and prints
// the same report.

// workerName is agentdeck-worker's file name here.
func workerName() string {
	if runtime.GOOS == "windows" {
		return "agentdeck-worker.exe"
	}
	return "agentdeck-worker"
}

// wantsTemporal says whether an eval command's args ask for Temporal.
func wantsTemporal(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "-") && name == "temporal" {
			return true
		}
	}
	return false
}

// findWorker is agentdeck-worker beside this binary, else on PATH.
func findWorker(env Env) (string, error) {
	if env.FindWorker != nil {
		return env.FindWorker()
	}
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), workerName())
		if fi, err := os.Stat(beside); err == nil && !fi.IsDir() {
			return beside, nil
		}
	}
	return exec.LookPath(workerName())
}

// handOver runs agentdeck-worker eval with args, passing on its output,
// its exit code and every SIGINT/SIGTERM this process gets (the worker
// runs in a process group of its own, so one Ctrl+C is one signal).
func handOver(ctx context.Context, args []string, env Env) int {
	bin, err := findWorker(env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: --temporal runs the suite through %s, which is not beside agentdeck or on PATH; build it with make worker (see docs/SCALE.md)\n", workerName())
		return ExitFailed
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"eval"}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, env.Stdout, env.Stderr
	ownProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: starting %s: %v\n", bin, err)
		return ExitFailed
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			var exit *exec.ExitError
			switch {
			case err == nil:
				return ExitOK
			case errors.As(err, &exit) && exit.ExitCode() >= 0:
				return exit.ExitCode()
			}
			fmt.Fprintf(env.Stderr, "agentdeck: %s ended: %v\n", bin, err)
			return ExitFailed
		case sig := <-env.Signals:
			_ = cmd.Process.Signal(sig)
		}
	}
}
