package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
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
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Images sent with messages. A message's extra column names its images
// (llm.Image without the bytes); the bytes are rows of the images table,
// owned by the turn, so the delete of a turn or a session (and its zeroed
// pages) takes them too. They are read back with their bytes only where a
// model is sent them (PathHistory) or a reader asks for one (Image).

// MaxImageBytes is the most one stored image may hold.
const MaxImageBytes = 20 << 20

// saveImages stores the images of a message that carry bytes and no id
// yet, and returns the message's images as the extra column names them.
func saveImages(ctx context.Context, tx *sql.Tx, sessionID, turnID string, ims []llm.Image) ([]llm.Image, error) {
	out := slices.Clone(ims)
	for i := range out {
		im := &out[i]
		if im.ID != "" || len(im.Data) == 0 {
			continue
		}
		if err := CheckImage(*im); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(im.Data)
		im.ID, im.SHA256, im.Size = "img_"+turn.NewID(), hex.EncodeToString(sum[:]), len(im.Data)
		_, err := tx.ExecContext(ctx, `INSERT INTO images (id, session_id, turn_id, mime, name, width, height, size, sha256, data, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			im.ID, sessionID, turnID, im.MIME, im.Name, im.Width, im.Height, im.Size, im.SHA256, im.Data, fmtTime(time.Now()))
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CheckImage refuses an image that cannot be stored and sent: one of a
// type no model reads, or over MaxImageBytes. The runner checks before a
// turn starts, so a turn never ends unable to store its message.
func CheckImage(im llm.Image) error {
	name := firstOf(im.Name, "An image")
	if !slices.Contains(llm.ImageMIMEs, im.MIME) {
		return apperr.New(apperr.Invalid, "%s is %s, not an image a model can be sent (PNG, JPEG, WebP or GIF).", name, firstOf(im.MIME, "of no known type"))
	}
	if len(im.Data) > MaxImageBytes {
		return apperr.New(apperr.Invalid, "%s is %.1f MB; an image may be at most %d MB.", name, float64(len(im.Data))/(1<<20), MaxImageBytes>>20)
	}
	return nil
}

// ReadImageFile reads an image file of this machine to send with a
// message: `run --image`, or one dropped on the window, known to the page
// only by its path. It must be a PNG, JPEG, WebP or GIF by its bytes (a
// renamed file is what it is), not empty, and at most MaxImageBytes. The
// standard library reads the size of a PNG, JPEG or GIF; a WebP's stays 0.
// The error's message starts with the path.
func ReadImageFile(path string) (llm.Image, error) {
	bad := func(format string, args ...any) (llm.Image, error) {
		return llm.Image{}, apperr.New(apperr.Invalid, "%s "+format, append([]any{path}, args...)...)
	}
	unreadable := func(err error) (llm.Image, error) {
		return llm.Image{}, apperr.New(apperr.Invalid, "%s%s", path, fileReason(err))
	}
	f, err := os.Open(path)
	if err != nil {
		return unreadable(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return unreadable(err)
	case fi.IsDir():
		return bad("is a folder, not an image")
	case fi.Size() > MaxImageBytes:
		return bad("is %.1f MB; an image may be at most %d MB", float64(fi.Size())/(1<<20), MaxImageBytes>>20)
	}
	// The size again, as read: the file may have grown since.
	data, err := io.ReadAll(io.LimitReader(f, MaxImageBytes+1))
	if err != nil {
		return unreadable(err)
	}
	return ImageOfBytes(path, data)
}

// ImageOfBytes makes an image to send from bytes read elsewhere: a file, or
// the window's clipboard. name is what the user knows it by (a file's path,
// "The pasted image"): the error's message starts with it, and the image
// is named by its last element. The rules are ReadImageFile's.
func ImageOfBytes(name string, data []byte) (llm.Image, error) {
	bad := func(format string, args ...any) (llm.Image, error) {
		return llm.Image{}, apperr.New(apperr.Invalid, "%s "+format, append([]any{name}, args...)...)
	}
	switch {
	case len(data) > MaxImageBytes:
		return bad("is %.1f MB; an image may be at most %d MB", float64(len(data))/(1<<20), MaxImageBytes>>20)
	case len(data) == 0:
		return bad("is empty")
	}
	mime, _, _ := strings.Cut(http.DetectContentType(data), ";")
	if !slices.Contains(llm.ImageMIMEs, mime) {
		return bad("is %s, not an image a model can be sent (PNG, JPEG, WebP or GIF)", mime)
	}
	im := llm.Image{MIME: mime, Name: filepath.Base(name), Data: data}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		im.Width, im.Height = cfg.Width, cfg.Height
	}
	return im, nil
}

// fileReason says why a file could not be read, to follow its path.
func fileReason(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return ": there is no such file"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return " cannot be read: " + err.Error()
}

// Image reads one stored image with its bytes.
func (db *DB) Image(ctx context.Context, id string) (llm.Image, error) {
	var im llm.Image
	err := db.reader.QueryRowContext(ctx, `SELECT id, mime, name, width, height, size, sha256, data FROM images WHERE id = ?`, id).
		Scan(&im.ID, &im.MIME, &im.Name, &im.Width, &im.Height, &im.Size, &im.SHA256, &im.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return im, apperr.New(apperr.NotFound, "There is no image %s; it may have been deleted with its turn.", id)
	}
	if err != nil {
		return im, readError(err, "reading image "+id)
	}
	return im, nil
}

// UserImages are the images of a turn's own user message, with their
// bytes and without their ids: what a replay or a re-run of the turn sends
// again, stored as its own copies (a session does not hang on another's).
func (db *DB) UserImages(ctx context.Context, turnID string) ([]llm.Image, error) {
	msgs, err := db.queryMessages(ctx, "reading the images of turn "+turnID, `SELECT role, content, extra FROM messages WHERE turn_id = ? AND idx = 0`, turnID)
	if err != nil || len(msgs) == 0 || msgs[0].Role != llm.RoleUser || len(msgs[0].Images) == 0 {
		return nil, err
	}
	msgs, err = db.withImageData(ctx, msgs)
	if err != nil {
		return nil, err
	}
	out := msgs[0].Images
	for i := range out {
		out[i].ID = ""
	}
	return out, nil
}

// turnImages names the images stored with a turn, in the order they were
// stored: the user message's, for a turn recovered after a crash.
func turnImages(ctx context.Context, tx *sql.Tx, turnID string) ([]llm.Image, error) {
	return appendRows(ctx, tx, []llm.Image(nil),
		scanInto(func(im *llm.Image) []any {
			return []any{&im.ID, &im.MIME, &im.Name, &im.Width, &im.Height, &im.Size, &im.SHA256}
		}),
		`SELECT id, mime, name, width, height, size, sha256 FROM images WHERE turn_id = ? ORDER BY rowid`, turnID)
}

// withImageData gives the images of msgs their bytes, for a model call.
func (db *DB) withImageData(ctx context.Context, msgs []llm.Message) ([]llm.Message, error) {
	for i := range msgs {
		if len(msgs[i].Images) == 0 {
			continue
		}
		ims := slices.Clone(msgs[i].Images)
		for j := range ims {
			if len(ims[j].Data) > 0 || ims[j].ID == "" {
				continue
			}
			full, err := db.Image(ctx, ims[j].ID)
			if err != nil {
				return nil, err
			}
			ims[j].Data = full.Data
		}
		msgs[i].Images = ims
	}
	return msgs, nil
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
