package app

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/agentdeck/agentdeck/backend/logging"
)

// What the About box shows, and what its "Copy details" puts in a bug
// report. It answers whatever state the database is in: a person asks
// for it most when something is wrong.

// Where a person reads about Agentdeck and tells us what went wrong.
var aboutLinks = []Link{
	{Label: "Project home", URL: "https://github.com/agentdeck/agentdeck"},
	{Label: "Report a problem", URL: "https://github.com/agentdeck/agentdeck/issues"},
}

func (s *Service) about() AboutInfo {
	info := AboutInfo{
		Version: s.info.Version, Commit: s.info.Commit, GoVersion: s.info.GoVersion,
		OS: runtime.GOOS, Arch: runtime.GOARCH,
		DBPath: s.dbPath,
		Links:  aboutLinks,
	}
	if s.dbErr != nil {
		info.DBError = safe(s.dbErr)
	}
	if s.dbPath == "" {
		return info // no place for the data could be found; DBError says why
	}
	info.DataDir = filepath.Dir(s.dbPath)
	// SQLite in WAL mode keeps the database in three files; what it takes
	// on disk is their sum.
	for _, suffix := range []string{"", "-wal", "-shm"} {
		info.DBBytes += s.fileSize(s.dbPath + suffix)
	}
	// The log is beside the database (backend/logging) when it could be opened.
	if log := filepath.Join(info.DataDir, logging.FileName); exists(log) {
		info.LogPath = log
	}
	return info
}

// fileSize is a file's size; 0 for one that does not exist (a database
// with no write-ahead log, say) or cannot be read, which is logged.
func (s *Service) fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("about: reading a file's size", "path", path, "err", err)
		}
		return 0
	}
	return st.Size()
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
