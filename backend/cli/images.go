package cli

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // DecodeConfig reads their sizes
	_ "image/jpeg"
	_ "image/png"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/store"
)

// readImages reads the files of run --image as the images to send with
// the message. Each must be a PNG, JPEG, WebP or GIF by its bytes (not its
// name: a renamed file is what it is) and at most store.MaxImageBytes. An
// error is a usage error's message, naming the file.
func readImages(paths []string) ([]llm.Image, error) {
	var out []llm.Image
	for _, p := range paths {
		im, err := readImage(p)
		if err != nil {
			return nil, err
		}
		out = append(out, im)
	}
	return out, nil
}

func readImage(path string) (llm.Image, error) {
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		return llm.Image{}, fileError(path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return llm.Image{}, fileError(path, err)
	case fi.IsDir():
		return llm.Image{}, fmt.Errorf("--image %s is a folder, not an image", path)
	case fi.Size() > store.MaxImageBytes:
		return llm.Image{}, tooBig(path, fi.Size())
	}
	// The size again, as read: the file may have grown since.
	data, err := io.ReadAll(io.LimitReader(f, store.MaxImageBytes+1))
	switch {
	case err != nil:
		return llm.Image{}, fileError(path, err)
	case len(data) > store.MaxImageBytes:
		return llm.Image{}, tooBig(path, int64(len(data)))
	case len(data) == 0:
		return llm.Image{}, fmt.Errorf("--image %s is empty", path)
	}
	mime, _, _ := strings.Cut(http.DetectContentType(data), ";")
	if !slices.Contains(llm.ImageMIMEs, mime) {
		return llm.Image{}, fmt.Errorf("--image %s is %s, not an image a model can be sent (PNG, JPEG, WebP or GIF)", path, mime)
	}
	im := llm.Image{MIME: mime, Name: name, Data: data}
	// The standard library reads the sizes of PNG, JPEG and GIF; a WebP's
	// stays unknown (0), as does that of a file whose header it cannot
	// read: the model server is the judge of the image itself.
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		im.Width, im.Height = cfg.Width, cfg.Height
	}
	return im, nil
}

func tooBig(path string, n int64) error {
	return fmt.Errorf("--image %s is %.1f MB; an image may be at most %d MB", path, float64(n)/(1<<20), store.MaxImageBytes>>20)
}

// fileError says why a file could not be read, without repeating its
// path twice.
func fileError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("--image %s: there is no such file", path)
	}
	return fmt.Errorf("--image %s cannot be read: %v", path, pathReason(err))
}

// imageFolder stores the images of a Markdown export (export.Options
// .ImageFile) in a folder beside the file, named after it (notes.md:
// notes_images/), linked by paths relative to the file. The folder is
// made when the first image comes, and like the file it must not exist
// yet: an export never writes into what is already there.
type imageFolder struct {
	dir, rel string
	made     bool
}

func newImageFolder(out string) *imageFolder {
	rel := strings.TrimSuffix(filepath.Base(out), filepath.Ext(out)) + "_images"
	return &imageFolder{dir: filepath.Join(filepath.Dir(out), rel), rel: rel}
}

func (f *imageFolder) store(file string, data []byte) (string, error) {
	if !f.made {
		if err := os.Mkdir(f.dir, 0o700); err != nil {
			return "", apperr.Wrap(err, apperr.Unavailable, "Cannot create %s for the session's images: %v (it must not exist yet).", f.dir, pathReason(err))
		}
		f.made = true
	}
	path := filepath.Join(f.dir, file)
	w, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err == nil {
		_, err = w.Write(data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return "", apperr.Wrap(err, apperr.Unavailable, "Cannot write the image %s: %v", path, pathReason(err))
	}
	return f.rel + "/" + file, nil
}

// remove removes what store made, after an export that failed.
func (f *imageFolder) remove() {
	if f.made {
		os.RemoveAll(f.dir)
	}
}

func pathReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
