// Package logging is where Agentdeck's log goes: agentdeck.log in the
// database's folder, rotated at 10 MB with the two files before it kept
// (at most 30 MB), and also stderr only when a person asks (--verbose).
// Rotation is timberjack's (a maintained fork of lumberjack whose Close
// stops its goroutine: lumberjack's never ends, one per log opened).
//
// Rules: no log line reaches a terminal in normal use; a person reads
// messages, not log records. A log file that cannot be opened or written
// (a read-only folder, a full disk) costs nothing: its records go nowhere
// (or to stderr with --verbose), and no command fails for it.
package logging

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/DeRuina/timberjack"
)

// FileName is the log file's name in the database's folder.
const FileName = "agentdeck.log"

// Rotation: the file is moved aside past maxSizeMB and maxBackups of the
// moved files are kept, so the log takes at most 3 × 10 MB.
const (
	maxSizeMB  = 10
	maxBackups = 2
)

// Options say where a logger writes.
type Options struct {
	// Dir is the folder of the log file (the database's); "" for no file.
	Dir string
	// Verbose, when set, also gets every record, debug ones included:
	// stderr with --verbose.
	Verbose io.Writer
}

// Logger is a process's log: its slog.Logger and the file behind it.
type Logger struct {
	*slog.Logger
	file *timberjack.Logger // nil when there is no file
}

// New returns the logger Options describe. Close it when the command ends.
func New(opts Options) *Logger {
	level := slog.LevelInfo
	if opts.Verbose != nil {
		level = slog.LevelDebug
	}
	hopts := &slog.HandlerOptions{Level: level}
	var handlers []slog.Handler
	l := &Logger{}
	if opts.Dir != "" {
		path := filepath.Join(opts.Dir, FileName)
		if canAppend(path) {
			l.file = &timberjack.Logger{Filename: path, MaxSize: maxSizeMB, MaxBackups: maxBackups, Compression: "none", FileMode: 0o600}
			handlers = append(handlers, slog.NewTextHandler(l.file, hopts))
		}
	}
	if opts.Verbose != nil {
		handlers = append(handlers, slog.NewTextHandler(opts.Verbose, hopts))
	}
	switch len(handlers) {
	case 0:
		l.Logger = slog.New(slog.DiscardHandler)
	case 1:
		l.Logger = slog.New(handlers[0])
	default:
		l.Logger = slog.New(slog.NewMultiHandler(handlers...))
	}
	return l
}

// Close closes the log file and stops the rotation's goroutine. A record
// logged after it (a goroutine still ending) is appended with an open and
// a close of its own.
func (l *Logger) Close() error {
	if l == nil || l.file == nil {
		return nil
	}
	return l.file.Close()
}

// canAppend reports whether the log file can be opened to append to,
// creating it (never its folder) if needed. Checking once up front keeps a
// folder we may not write from being tried at every record; a write that
// fails later (a full disk) is dropped by slog.
func canAppend(path string) bool {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
