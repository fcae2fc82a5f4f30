package workspace

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	Mode    string `json:"mode"`
}

func (w *Workspace) writeFile(ctx context.Context, raw json.RawMessage) (string, error) {
	var in writeArgs
	if err := decode(raw, &in); err != nil {
		return "", err
	}
	switch in.Mode {
	case "":
		in.Mode = "create"
	case "create", "overwrite":
	default:
		return "", fmt.Errorf("mode %q is not known; use \"create\" or \"overwrite\"", in.Mode)
	}
	if n := int64(len(in.Content)); n > w.lim.MaxWriteBytes {
		return "", fmt.Errorf("the content for %q is %s, more than the %s write_file accepts", in.Path, byteSize(n), byteSize(w.lim.MaxWriteBytes))
	}
	if strings.HasSuffix(in.Path, "/") || strings.HasSuffix(in.Path, string(filepath.Separator)) {
		return "", fmt.Errorf("%q ends with a slash, so it names a folder; give the path of a file", in.Path)
	}
	t, err := w.check(in.Path)
	if err != nil {
		return "", err
	}
	if t.name == "." {
		return "", fmt.Errorf("%q is the workspace folder itself; give the path of a file", in.Path)
	}
	return w.write(ctx, in.Path, t, []byte(in.Content), in.Mode == "overwrite")
}

// write puts data at t.real: the link-resolved location, so writing
// through a link replaces its target rather than the link.
func (w *Workspace) write(ctx context.Context, rel string, t target, data []byte, overwrite bool) (string, error) {
	root, err := w.open(ctx)
	if err != nil {
		return "", err
	}
	defer root.Close()

	old, err := root.Lstat(t.real)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", opError(rel, err)
	case exists && old.IsDir():
		return "", fmt.Errorf("%q is a folder; give the path of a file", rel)
	case exists && !old.Mode().IsRegular():
		return "", fmt.Errorf("%q is not a regular file, so it is not written", rel)
	case exists && !overwrite:
		return "", existsError(rel, old.Size())
	}

	dir := filepath.Dir(t.real)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return "", opError(rel, err)
		}
	}
	perm, keep := fs.FileMode(0o644), false
	if exists {
		perm, keep = old.Mode().Perm(), true
	}
	tmp, err := writeTemp(root, dir, data, perm, keep)
	if err != nil {
		return "", opError(rel, err)
	}
	defer root.Remove(tmp) // gone already once moved into place
	if err := ctx.Err(); err != nil {
		return "", err // stopped: leave the old file as it was
	}
	if err := commit(root, tmp, t.real, overwrite); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", existsError(rel, -1)
		}
		return "", opError(rel, err)
	}

	what := fmt.Sprintf("%s, %s", count(len(data), "byte"), count(lineCount(data), "line"))
	if exists {
		return fmt.Sprintf("Replaced %q (%s; it had %s).", rel, what, count(int(old.Size()), "byte")), nil
	}
	return fmt.Sprintf("Created %q (%s).", rel, what), nil
}

// commit moves the finished temporary file to name. Overwriting is a
// rename, atomic over an old file. Creating is a hard link, which fails if
// name appeared since the check, then the temporary name is removed; on a
// file system without hard links it is a rename after a second check.
func commit(root *os.Root, tmp, name string, overwrite bool) error {
	if overwrite {
		return root.Rename(tmp, name)
	}
	err := root.Link(tmp, name)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	if _, serr := root.Lstat(name); serr == nil {
		return fs.ErrExist
	}
	return root.Rename(tmp, name)
}

// writeTemp writes data to a new hidden file in dir and syncs it. keep
// sets perm exactly (an overwritten file keeps its mode); otherwise the
// umask applies as for any new file.
func writeTemp(root *os.Root, dir string, data []byte, perm fs.FileMode, keep bool) (string, error) {
	var (
		f    *os.File
		name string
		err  error
	)
	for range 3 {
		name = filepath.Join(dir, ".agentdeck-"+rand.Text()[:12]+".tmp")
		f, err = root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil && keep {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		root.Remove(name)
		return "", err
	}
	return name, nil
}

func existsError(rel string, size int64) error {
	had := ""
	if size >= 0 {
		had = fmt.Sprintf(" (%d bytes)", size)
	}
	return fmt.Errorf("%q already exists%s; to replace it, call write_file again with mode \"overwrite\"", rel, had)
}

// lineCount counts lines as read_file numbers them.
func lineCount(data []byte) int {
	n := strings.Count(string(data), "\n")
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}
