// Package paths decides where Agentdeck keeps its files.
//
// Everything lives in one data directory: the SQLite database, user workflow
// files and the MCP configuration. The directory follows each platform's
// convention; the database path can be overridden by a flag or by the
// AGENTDECK_DB environment variable, in that order of precedence.
package paths

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// EnvDB names the environment variable that overrides the database path.
const EnvDB = "AGENTDECK_DB"

// Env is the slice of the process environment this package reads; tests pass
// their own.
type Env struct {
	GOOS   string
	Home   string
	Getenv func(string) string
}

// OSEnv returns the real environment.
func OSEnv() Env {
	home, _ := os.UserHomeDir()
	return Env{GOOS: runtime.GOOS, Home: home, Getenv: os.Getenv}
}

// DataDir returns the per-user data directory:
//
//	Linux    $XDG_DATA_HOME/agentdeck, else ~/.local/share/agentdeck
//	macOS    ~/Library/Application Support/agentdeck
//	Windows  %AppData%\agentdeck
func DataDir(env Env) (string, error) {
	switch env.GOOS {
	case "windows":
		if d := env.Getenv("AppData"); d != "" {
			return filepath.Join(d, "agentdeck"), nil
		}
		return "", errors.New("%AppData% is not set")
	case "darwin":
		if env.Home == "" {
			return "", errors.New("the home directory is unknown")
		}
		return filepath.Join(env.Home, "Library", "Application Support", "agentdeck"), nil
	default:
		if d := env.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
			return filepath.Join(d, "agentdeck"), nil
		}
		if env.Home == "" {
			return "", errors.New("the home directory is unknown; set XDG_DATA_HOME or pass --db")
		}
		return filepath.Join(env.Home, ".local", "share", "agentdeck"), nil
	}
}

// DBPath resolves the database path: the flag if set, else $AGENTDECK_DB,
// else agentdeck.db in the data directory.
func DBPath(flag string, env Env) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if v := env.Getenv(EnvDB); v != "" {
		return filepath.Abs(v)
	}
	dir, err := DataDir(env)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "agentdeck.db"), nil
}
