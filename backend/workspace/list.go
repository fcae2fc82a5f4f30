package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// visitsPerEntry bounds the work of a listing whose pattern matches little:
// it looks at no more than this many entries per entry it may return.
const visitsPerEntry = 100

type listArgs struct {
	Path      *string `json:"path"`
	Recursive bool    `json:"recursive"`
	Pattern   string  `json:"pattern"`
}

func (w *Workspace) listFiles(ctx context.Context, raw json.RawMessage) (string, error) {
	var in listArgs
	if err := decode(raw, &in); err != nil {
		return "", err
	}
	rel := "."
	if in.Path != nil && *in.Path != "" {
		rel = *in.Path
	}
	if in.Pattern != "" {
		if _, err := path.Match(in.Pattern, ""); err != nil {
			return "", fmt.Errorf("pattern %q is not a valid glob: use *, ? and [abc]", in.Pattern)
		}
	}
	t, err := w.check(rel)
	if err != nil {
		return "", err
	}
	return w.list(ctx, rel, t, in.Recursive, in.Pattern)
}

// entry is one line of a listing.
type entry struct {
	kind  string // file, dir, link, other
	size  int64
	mod   time.Time
	path  string // slash-separated, relative to the workspace
	extra string // link target, or a note
}

// lister collects a listing as fs.WalkDir visits the tree.
type lister struct {
	w         *Workspace
	ctx       context.Context
	fsys      fs.FS
	start     string
	recursive bool
	pattern   string

	entries   []entry
	visits    int
	truncated bool
	gitSkip   bool
	notes     []string
}

func (w *Workspace) list(ctx context.Context, rel string, t target, recursive bool, pattern string) (string, error) {
	root, err := w.open(ctx)
	if err != nil {
		return "", err
	}
	defer root.Close()
	l := &lister{
		w: w, ctx: ctx, fsys: root.FS(), start: filepath.ToSlash(t.name),
		recursive: recursive, pattern: pattern,
	}
	if err := fs.WalkDir(l.fsys, l.start, l.visit); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return "", ctxErr
		}
		return "", opError(rel, err)
	}
	return l.render(rel), nil
}

func (l *lister) visit(p string, d fs.DirEntry, err error) error {
	if err := l.ctx.Err(); err != nil {
		return err
	}
	if err != nil {
		if p == l.start {
			return err
		}
		// An unreadable subfolder is noted, not fatal; WalkDir skips it.
		l.notes = append(l.notes, fmt.Sprintf("could not read %q: %s", p, errText(err)))
		return nil
	}
	if p == l.start && d.IsDir() {
		return nil // list the folder's contents, not the folder
	}
	l.visits++
	if l.visits > visitsPerEntry*l.w.lim.MaxListEntries {
		l.notes = append(l.notes, fmt.Sprintf("the listing stopped after looking at %d entries; list a subfolder or use a narrower pattern", l.visits-1))
		return fs.SkipAll
	}
	descend := d.IsDir() && l.recursive
	isGit := descend && d.Name() == ".git"
	if l.matches(p) {
		if len(l.entries) == l.w.lim.MaxListEntries {
			l.truncated = true
			return fs.SkipAll
		}
		e := l.entry(p, d)
		if isGit {
			e.extra = "(contents not listed)"
		}
		l.entries = append(l.entries, e)
	}
	switch {
	case isGit:
		l.gitSkip = true
		return fs.SkipDir
	case d.IsDir() && !descend:
		return fs.SkipDir
	}
	return nil
}

// matches applies the pattern to the entry's name, or to its path below
// the listed folder when the pattern has a slash.
func (l *lister) matches(p string) bool {
	if l.pattern == "" {
		return true
	}
	subject := path.Base(p)
	if strings.Contains(l.pattern, "/") {
		subject = p
		if l.start != "." {
			subject = strings.TrimPrefix(p, l.start+"/")
		}
	}
	ok, _ := path.Match(l.pattern, subject)
	return ok
}

func (l *lister) entry(p string, d fs.DirEntry) entry {
	e := entry{path: p, size: -1}
	if info, err := d.Info(); err == nil {
		e.mod = info.ModTime()
		if info.Mode().IsRegular() {
			e.size = info.Size()
		}
	}
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		e.kind = "link"
		e.extra = l.linkNote(p)
	case d.IsDir():
		e.kind = "dir"
		e.path += "/"
	case d.Type().IsRegular():
		e.kind = "file"
	default:
		e.kind = "other"
	}
	return e
}

// linkNote shows where a link points and whether it can be followed, so
// the model does not try the ones that cannot.
func (l *lister) linkNote(p string) string {
	dest, err := fs.ReadLink(l.fsys, p)
	if err != nil {
		return ""
	}
	note := "-> " + dest
	var refused *RefusedError
	if _, err := l.w.check(filepath.FromSlash(p)); errors.As(err, &refused) {
		return note + " (cannot be followed: " + refused.Reason + ")"
	}
	if _, err := fs.Stat(l.fsys, p); err != nil {
		return note + " (broken)"
	}
	return note
}

func (l *lister) render(rel string) string {
	var b strings.Builder
	how := ""
	if l.recursive {
		how = ", recursive"
	}
	if l.pattern != "" {
		how += fmt.Sprintf(", pattern %q", l.pattern)
	}
	switch len(l.entries) {
	case 0:
		fmt.Fprintf(&b, "No entries in %q%s.\n", rel, how)
	case 1:
		fmt.Fprintf(&b, "1 entry in %q%s:\n", rel, how)
	default:
		fmt.Fprintf(&b, "%d entries in %q%s:\n", len(l.entries), rel, how)
	}
	if len(l.entries) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "type\tsize\tmodified\tpath")
		for _, e := range l.entries {
			size := "-"
			if e.size >= 0 {
				size = fmt.Sprint(e.size)
			}
			mod := "-"
			if !e.mod.IsZero() {
				mod = e.mod.UTC().Format(time.RFC3339)
			}
			line := e.path
			if e.extra != "" {
				line += " " + e.extra
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.kind, size, mod, line)
		}
		tw.Flush()
	}
	if l.truncated {
		fmt.Fprintf(&b, "The listing stopped at %d entries; list a subfolder or use a pattern to see the rest.\n", len(l.entries))
	}
	if l.gitSkip {
		b.WriteString("The contents of .git were not listed; list \".git\" by path to see them.\n")
	}
	for _, n := range l.notes {
		b.WriteString("Note: " + n + ".\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
