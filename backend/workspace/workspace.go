package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Default limits.
const (
	DefaultMaxReadBytes   = 256 << 10
	DefaultMaxWriteBytes  = 1 << 20
	DefaultMaxListEntries = 500
)

// maxLinks is how many links os.Root follows in one path; the check
// follows no more, so it never accepts a path the operation would refuse.
const maxLinks = 8

// Limits bound what one tool call reads, writes or lists. Zero or negative
// fields take the defaults.
type Limits struct {
	MaxReadBytes   int64 // largest text read_file returns; default 256 KiB
	MaxWriteBytes  int64 // largest content write_file accepts; default 1 MiB
	MaxListEntries int   // most entries list_files returns; default 500
}

func (l Limits) withDefaults() Limits {
	if l.MaxReadBytes <= 0 {
		l.MaxReadBytes = DefaultMaxReadBytes
	}
	if l.MaxWriteBytes <= 0 {
		l.MaxWriteBytes = DefaultMaxWriteBytes
	}
	if l.MaxListEntries <= 0 {
		l.MaxListEntries = DefaultMaxListEntries
	}
	return l
}

// Workspace is one folder an agent may read and write, and nothing outside
// it. It is immutable and safe for concurrent use.
type Workspace struct {
	root string // absolute, symlink-resolved
	lim  Limits
}

// New returns the workspace rooted at root, which must be an existing folder.
func New(root string, lim Limits) (*Workspace, error) {
	if root == "" {
		return nil, errors.New("the workspace folder is not set")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace folder %q: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("workspace folder %q does not exist", root)
		}
		return nil, fmt.Errorf("workspace folder %q: %w", root, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("workspace folder %q: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("workspace folder %q is a file, not a folder", root)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("workspace folder %q cannot be opened: %w", root, err)
	}
	r.Close()
	return &Workspace{root: real, lim: lim.withDefaults()}, nil
}

// Root returns the workspace folder: absolute, with links resolved.
func (w *Workspace) Root() string { return w.root }

// Limits returns the limits in force, defaults filled in.
func (w *Workspace) Limits() Limits { return w.lim }

// Resolve checks a path the model sent and returns where it is: the
// workspace root joined with the cleaned path. Links in it are left as they
// are, but every one was followed and stays inside. A refusal is a
// *RefusedError whose message names the path and the reason.
func (w *Workspace) Resolve(rel string) (string, error) {
	t, err := w.check(rel)
	if err != nil {
		return "", err
	}
	return filepath.Join(w.root, t.name), nil
}

// RefusedError is a path the workspace will not touch. Its message goes to
// the model, so it says what to do instead.
type RefusedError struct {
	Path   string // as the model sent it
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused path %q: %s", e.Path, e.Reason)
}

// target is a checked path, relative to the root: name is the cleaned path
// as the model wrote it, real the same place with every link followed.
type target struct {
	name string
	real string
}

// check is the gate every tool goes through.
func (w *Workspace) check(rel string) (target, error) {
	refuse := func(reason string) (target, error) {
		return target{}, &RefusedError{Path: rel, Reason: reason}
	}
	switch {
	case rel == "":
		return refuse("the path is empty; use a path relative to the workspace, or . for the workspace folder itself")
	case strings.IndexByte(rel, 0) >= 0:
		return refuse("it contains a NUL byte")
	case isAbsolute(rel):
		return refuse("it is an absolute path; use a path relative to the workspace")
	case rel == "~" || strings.HasPrefix(rel, "~/") || strings.HasPrefix(rel, `~\`):
		return refuse("~ is not expanded here, and the home folder is outside the workspace; use a path relative to the workspace")
	}
	name := filepath.Clean(rel)
	if name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
		return refuse("its .. components climb above the workspace folder; use a path relative to the workspace")
	}
	real, err := w.follow(name)
	if err != nil {
		return refuse(err.Error())
	}
	return target{name: name, real: real}, nil
}

// isAbsolute reports absolute paths of this platform and Windows-style ones
// (C:\x, C:/x, \x, \\server\share) everywhere.
func isAbsolute(p string) bool {
	if filepath.IsAbs(p) || p[0] == '/' || p[0] == '\\' {
		return true
	}
	c := p[0] | 0x20
	return len(p) >= 2 && p[1] == ':' && c >= 'a' && c <= 'z'
}

// follow walks name (clean, not starting with ..) from the root the way
// os.Root does: a link's target replaces the link, and a .. removes the
// component before it. It returns the location reached, relative to the
// root, or the reason the walk left the workspace. Components that do not
// exist are taken as they are; the operation will report them.
func (w *Workspace) follow(name string) (string, error) {
	type part struct {
		s    string
		orig int // 1-based index in name's components; 0 if from a link target
	}
	given := strings.Split(name, string(filepath.Separator))
	parts := make([]part, len(given))
	for i, s := range given {
		parts[i] = part{s: s, orig: i + 1}
	}
	var cur []string // resolved components; none is a link
	blame := ""      // the link in name being followed, for messages
	links := 0
	for len(parts) > 0 {
		p := parts[0]
		parts = parts[1:]
		switch p.s {
		case "", ".":
			continue
		case "..":
			switch {
			case len(cur) > 0:
			case blame == "": // check refuses this before follow sees it
				return "", errors.New("its .. components climb above the workspace folder")
			default:
				return "", fmt.Errorf("%q is a link that leads outside the workspace", blame)
			}
			cur = cur[:len(cur)-1]
			continue
		}
		at := filepath.Join(w.root, filepath.Join(cur...), p.s)
		fi, err := os.Lstat(at)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			cur = append(cur, p.s)
			if err == nil && (fi.IsDir() || len(parts) == 0) {
				continue
			}
			rest := make([]string, len(parts))
			for i, q := range parts {
				rest[i] = q.s
			}
			return dead(cur, rest)
		}
		if p.orig > 0 {
			blame = filepath.ToSlash(filepath.Join(given[:p.orig]...))
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%q is a link that loops or goes through more than %d links", blame, maxLinks)
		}
		dest, err := w.linkTarget(at, blame)
		if err != nil {
			return "", err
		}
		spliced := make([]part, 0, len(dest)+len(parts))
		for _, s := range dest {
			spliced = append(spliced, part{s: s})
		}
		parts = append(spliced, parts...)
	}
	if len(cur) == 0 {
		return ".", nil
	}
	return filepath.Join(cur...), nil
}

// linkTarget reads the link at and returns its target's components, not
// cleaned: os.Root applies a .. in a target after following the links
// before it, and so must follow.
func (w *Workspace) linkTarget(at, blame string) ([]string, error) {
	dest, err := os.Readlink(at)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%q is a link that cannot be read", blame)
	case dest == "":
		return nil, fmt.Errorf("%q is a link with an empty target", blame)
	case isAbsolute(dest) && w.inside(dest):
		return nil, fmt.Errorf("%q is a link with an absolute target; only links with relative targets are followed", blame)
	case isAbsolute(dest):
		return nil, fmt.Errorf("%q is a link that leads outside the workspace (to %s)", blame, dest)
	}
	return strings.Split(dest, string(filepath.Separator)), nil
}

// dead finishes a walk that reached a missing entry or a file at the end of
// cur. Nothing exists below it, so rest is taken as written; os.Root will
// fail on it, and a .. in it (possible only from a link target) has
// nothing to climb.
func dead(cur, rest []string) (string, error) {
	for _, s := range rest {
		switch s {
		case "", ".":
		case "..":
			return "", fmt.Errorf("it goes through %q, which is missing or not a folder, and then back up with \"..\"", filepath.ToSlash(filepath.Join(cur...)))
		default:
			cur = append(cur, s)
		}
	}
	return filepath.Join(cur...), nil
}

// inside reports whether abs is the root or below it, lexically.
func (w *Workspace) inside(abs string) bool {
	rel, err := filepath.Rel(w.root, filepath.Clean(abs))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// open opens the root for one tool call.
// open opens the workspace folder for one operation, unless ctx is done.
func (w *Workspace) open(ctx context.Context) (*os.Root, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(w.root)
	if err != nil {
		return nil, fmt.Errorf("the workspace folder cannot be opened (%v); it may have been moved or deleted", errText(err))
	}
	return r, nil
}

// opError turns an error from an os.Root operation on rel into a message
// for the model that names the path.
func opError(rel string, err error) error {
	var pe *fs.PathError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%q does not exist; use list_files to see what is there", rel)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%q: permission denied", rel)
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%q: a part of the path is a file, not a folder", rel)
	case errors.Is(err, syscall.ELOOP):
		return &RefusedError{Path: rel, Reason: "it goes through too many links"}
	case strings.Contains(err.Error(), "path escapes from parent"):
		// os.Root's own refusal (its error value is not exported). The
		// check let the path through, so the tree changed since.
		return &RefusedError{Path: rel, Reason: "it leads outside the workspace"}
	case errors.As(err, &pe):
		return fmt.Errorf("%q: %v", rel, pe.Err)
	default:
		return fmt.Errorf("%q: %v", rel, err)
	}
}

// errText is err without an absolute path the model has no use for.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// byteSize formats n for a message: "812 bytes", "256 KiB", "1.5 MiB".
func byteSize(n int64) string {
	unit, div := "", int64(1)
	switch {
	case n >= 1<<30:
		unit, div = "GiB", 1<<30
	case n >= 1<<20:
		unit, div = "MiB", 1<<20
	case n >= 1<<10:
		unit, div = "KiB", 1<<10
	default:
		return fmt.Sprintf("%d bytes", n)
	}
	s := fmt.Sprintf("%.1f", float64(n)/float64(div))
	return strings.TrimSuffix(s, ".0") + " " + unit
}

// count formats n things: "1 line", "3 lines".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
