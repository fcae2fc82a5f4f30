package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/store"
)

// Clipboard reads an image the user copied, where the window's web view
// cannot hand it to the page: WebKitGTK gives a paste of an image to the
// page with no files and no types (WebKit bugs 218519, 320303). The
// window on Linux has one (clipboard_gtk.go); other windows and the
// browser, whose pastes carry their images, have none.
type Clipboard interface {
	// Image answers the bytes of the image on the clipboard, as its owner
	// offers them (PNG, JPEG, WebP or GIF; another kind of image as PNG),
	// and nil when the clipboard holds no image.
	Image(ctx context.Context) ([]byte, error)
}

// clipboardWait bounds a read of the clipboard: its owner is another
// program, which may never answer.
const clipboardWait = 10 * time.Second

// pastedImageName is what a pasted image is called, in the composer and in
// its errors: a clipboard's image has no name.
const pastedImageName = "The pasted image"

// clipboardImage reads the image on the clipboard, to send with a message.
func (s *Service) clipboardImage(ctx context.Context) (ImageData, error) {
	if s.clipboard == nil {
		return ImageData{}, apperr.New(apperr.Unavailable, "Only the desktop window on Linux reads the clipboard itself; here, paste the image into the page.")
	}
	ctx, cancel := context.WithTimeout(ctx, clipboardWait)
	defer cancel()
	data, err := s.clipboard.Image(ctx)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return ImageData{}, apperr.New(apperr.Unavailable, "The program the image was copied from did not hand it over within %s. Copy it again, or add it with the image button.", clipboardWait)
	case err != nil:
		return ImageData{}, apperr.Wrap(err, apperr.Unavailable, "The clipboard could not be read; add the image with the image button, or drop its file on the window.")
	case data == nil:
		return ImageData{}, apperr.New(apperr.Invalid, "The clipboard holds no image. Copy one, or add it with the image button.")
	}
	im, err := store.ImageOfBytes(pastedImageName, data)
	if err != nil {
		return ImageData{}, err
	}
	im.Name = "pasted-image." + strings.TrimPrefix(im.MIME, "image/")
	return imageData(im), nil
}
