package paths

import (
	"path/filepath"
	"testing"
)

func envWith(goos, home string, vars map[string]string) Env {
	return Env{GOOS: goos, Home: home, Getenv: func(k string) string { return vars[k] }}
}

func TestDBPath(t *testing.T) {
	tests := []struct {
		name string
		flag string
		env  Env
		want string
	}{
		{"linux default", "", envWith("linux", "/home/ann", nil), "/home/ann/.local/share/agentdeck/agentdeck.db"},
		{"linux XDG", "", envWith("linux", "/home/ann", map[string]string{"XDG_DATA_HOME": "/data"}), "/data/agentdeck/agentdeck.db"},
		{"relative XDG ignored", "", envWith("linux", "/home/ann", map[string]string{"XDG_DATA_HOME": "rel"}), "/home/ann/.local/share/agentdeck/agentdeck.db"},
		{"macOS", "", envWith("darwin", "/Users/ann", nil), "/Users/ann/Library/Application Support/agentdeck/agentdeck.db"},
		{"env overrides default", "", envWith("linux", "/home/ann", map[string]string{EnvDB: "/tmp/x.db"}), "/tmp/x.db"},
		{"flag overrides env", "/srv/a.db", envWith("linux", "/home/ann", map[string]string{EnvDB: "/tmp/x.db"}), "/srv/a.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DBPath(tt.flag, tt.env)
			if err != nil {
				t.Fatal(err)
			}
			if got != filepath.FromSlash(tt.want) {
				t.Errorf("DBPath = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDataDirNeedsAHome(t *testing.T) {
	if _, err := DataDir(envWith("linux", "", nil)); err == nil {
		t.Fatal("expected an error when neither HOME nor XDG_DATA_HOME is known")
	}
}
