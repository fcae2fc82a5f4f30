package cli

import (
	"errors"
	"fmt"
	_ "image/gif" // DecodeConfig reads their sizes
	_ "image/jpeg"
	_ "image/png"
	"io/fs"
	"os"
	"path/filepath"
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

// readImage reads one file of run --image (store.ReadImageFile); its
// refusal is a usage error's message.
func readImage(path string) (llm.Image, error) {
	im, err := store.ReadImageFile(path)
	if err != nil {
		return im, fmt.Errorf("--image %s", apperr.MessageOf(err))
	}
	return im, nil
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
