package app

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// MaxUploadBytes is the largest file UploadAttachment takes: 20 MiB, a
// table of a few hundred thousand rows. Its base64 (27 MiB) fits in a
// call's body (see bodyLimit). A larger file is attached by its path, which the
// table loader takes up to 100 MiB: dropped on the window, or with
// `agentdeck run --attach FILE`.
const MaxUploadBytes = 20 << 20

// uploadTTL is how long an upload no message attached is kept.
const uploadTTL = 24 * time.Hour

// UploadedFile is a file the page sent, stored for a message to attach.
type UploadedFile struct {
	// Path is where it is stored: what SendRequest.Attach takes.
	Path string `json:"path"`
	// Name is the file name it is stored under, which names its table.
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// Uploads live in uploads/ beside the database, each in a folder of its
// own with a random name, so two files of the same name never clash and
// the file keeps its name (the table it becomes is named after it):
//
//	uploads/<random>/<the file's name, made safe>
//
// An upload is only a way for bytes to reach the table loader, which wants
// a path: a message that attaches it loads it into the session's tables
// (SessionDir, which DeleteSession deletes) and then the upload is
// removed. One that no message attached (the person took it off, the
// message failed, the page closed) is removed after uploadTTL, the next
// time an upload is stored or the app starts.

// upload stores a file the page sent: its name and its bytes in base64.
func (s *Service) upload(name, content string) (UploadedFile, error) {
	limit := s.uploadLimit()
	// Refused before decoding: the base64 of a file over the limit is longer.
	if len(content) > base64.StdEncoding.EncodedLen(limit) {
		return UploadedFile{}, tooBig(uploadName(name), int64(base64.StdEncoding.DecodedLen(len(content))), limit)
	}
	return s.uploadFrom(name, strings.NewReader(content))
}

// uploadFrom stores a file whose base64 is read from content, decoding it
// straight into the stored file: the browser mode streams a request's body
// here (servebody.go), so a file is never held whole in memory.
func (s *Service) uploadFrom(name string, content io.Reader) (UploadedFile, error) {
	safeName := uploadName(name)
	limit := s.uploadLimit()
	dir, err := s.uploadsDir()
	if err != nil {
		return UploadedFile{}, err
	}
	s.sweepUploads(time.Now())
	path, size, err := storeUpload(dir, safeName, base64.NewDecoder(base64.StdEncoding, content), int64(limit))
	var corrupt base64.CorruptInputError
	switch {
	case errors.As(err, &corrupt), errors.Is(err, io.ErrUnexpectedEOF): // the decoder's: a cut quantum
		return UploadedFile{}, apperr.Wrap(err, apperr.Invalid, "%s arrived damaged (its content is not base64). Attach it again.", safeName)
	case errors.Is(err, errUploadTooBig):
		// Count the rest (the caller bounds it) to say how big the file is.
		rest, _ := io.Copy(io.Discard, base64.NewDecoder(base64.StdEncoding, content))
		return UploadedFile{}, tooBig(safeName, size+rest, limit)
	case err != nil && apperr.CodeOf(err) != apperr.Internal:
		return UploadedFile{}, err // the request's body ended or was too large: its own message
	case err != nil:
		return UploadedFile{}, apperr.Wrap(err, apperr.Unavailable, "Could not store %s in %s. Check that the disk has space and the folder can be written.", safeName, dir)
	case size == 0:
		return UploadedFile{}, apperr.New(apperr.Invalid, "%s is empty: there is nothing to attach.", safeName)
	}
	return UploadedFile{Path: path, Name: safeName, Size: size}, nil
}

// errUploadTooBig is storeUpload's: the data is over the limit.
var errUploadTooBig = errors.New("the upload is over the limit")

// storeUpload writes data, at most limit bytes, as dir/<random>/name and
// answers its path and how many bytes it wrote. The writes go through an
// os.Root of dir: whatever the name, nothing is written outside it. Data
// over the limit, empty data, or a failed read or write leave nothing.
func storeUpload(dir, name string, data io.Reader, limit int64) (path string, size int64, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", 0, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", 0, err
	}
	defer root.Close()
	id := rand.Text()
	if err := root.Mkdir(id, 0o700); err != nil {
		return "", 0, err
	}
	rel := filepath.Join(id, name)
	f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		size, err = io.Copy(f, io.LimitReader(data, limit+1))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	switch {
	case err == nil && size > limit:
		err = errUploadTooBig
	case err == nil && size == 0:
		_ = root.RemoveAll(id)
		return "", 0, nil
	}
	if err != nil {
		_ = root.RemoveAll(id)
		return "", size, err
	}
	return filepath.Join(dir, rel), size, nil
}

// consumeUploads removes the uploads among the paths a started turn
// attached: their rows are in the session's tables now. A path outside
// uploads/ is the person's own file and is never touched.
func (s *Service) consumeUploads(paths []string) {
	dir, err := s.uploadsDir()
	if err != nil {
		return
	}
	for _, p := range paths {
		own := filepath.Dir(filepath.Clean(p))
		if filepath.Dir(own) != dir {
			continue
		}
		if err := os.RemoveAll(own); err != nil {
			s.log.Warn("removing an attached upload", "path", own, "err", err)
		}
	}
}

// sweepUploads removes the uploads older than uploadTTL.
func (s *Service) sweepUploads(now time.Time) {
	dir, err := s.uploadsDir()
	if err != nil {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // none yet
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < uploadTTL {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			s.log.Warn("removing an upload no message attached", "path", e.Name(), "err", err)
		}
	}
}

func (s *Service) uploadsDir() (string, error) {
	if s.dbPath == "" {
		return "", apperr.New(apperr.Unavailable, "There is no folder to keep uploads in: the database's location is unknown.")
	}
	return filepath.Join(filepath.Dir(s.dbPath), "uploads"), nil
}

func (s *Service) uploadLimit() int {
	if s.maxUpload > 0 {
		return s.maxUpload
	}
	return MaxUploadBytes
}

func tooBig(name string, size int64, limit int) error {
	return apperr.New(apperr.Invalid, "%s is %s, over the %s a file sent from the page may have. Attach a smaller file, or attach this one by its path: drop it on the desktop window, or use `agentdeck run --attach FILE`.",
		name, megabytes(size), megabytes(int64(limit)))
}

func megabytes(n int64) string {
	mb := float64(n) / (1 << 20)
	if mb == float64(int64(mb)) {
		return fmt.Sprintf("%d MB", int64(mb))
	}
	return fmt.Sprintf("%.1f MB", mb)
}

// maxNameBytes bounds an upload's file name (file systems allow 255).
const maxNameBytes = 100

// uploadName is name made a safe file name in an upload's own folder: its
// last path element (after either slash); what is not a letter, digit,
// dot, dash, underscore or space replaced by _; no leading dots (no
// hidden file, no ..) and no trailing dots or spaces; at most
// maxNameBytes with its extension kept; never a device name Windows
// reserves. "upload" when nothing is left.
func uploadName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.ToValidUTF8(name, "_")
	name = unsafeUploadChars.ReplaceAllString(name, "_")
	name = strings.TrimRight(strings.TrimLeft(name, ". "), ". ")
	if name == "" {
		return "upload"
	}
	if len(name) > maxNameBytes {
		ext := filepath.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		stem := name[:maxNameBytes-len(ext)]
		for !utf8.ValidString(stem) {
			stem = stem[:len(stem)-1]
		}
		name = strings.TrimRight(stem, ". ") + ext
	}
	stem, _, _ := strings.Cut(name, ".")
	if windowsDevice.MatchString(stem) {
		name = "_" + name
	}
	return name
}

var (
	unsafeUploadChars = regexp.MustCompile(`[^\p{L}\p{M}\p{N}._ -]+`)
	windowsDevice     = regexp.MustCompile(`(?i)^(con|prn|aux|nul|com[0-9]|lpt[0-9])$`)
)
