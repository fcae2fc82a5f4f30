package export

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// mdImages writes the images of a transcript's messages. Given somewhere
// to store them (file, Options.ImageFile), each is stored once and linked
// where a message has it; otherwise each is named with its size, and the
// reader is sent to the JSON export, which holds it. A transcript never
// holds an image's bytes: base64 in Markdown is megabytes no viewer shows.
// err is the first failure to store one; the transcript stops there.
type mdImages struct {
	data  map[string][]byte // the loaded bytes, by image id
	file  func(string, []byte) (string, error)
	paths map[string]string // where each file name was stored
	err   error
}

func newMDImages(ims []Image, file func(string, []byte) (string, error)) *mdImages {
	m := &mdImages{data: map[string][]byte{}, file: file, paths: map[string]string{}}
	for _, im := range ims {
		if len(im.Data) > 0 {
			m.data[im.ID] = im.Data
		}
	}
	return m
}

// write writes a message's images, a paragraph each.
func (m *mdImages) write(b *strings.Builder, ims []llm.Image) {
	for _, im := range ims {
		if m.err != nil {
			return
		}
		data, ok := m.data[im.ID]
		switch {
		case m.file == nil:
			fmt.Fprintf(b, "_%s, in the JSON export_\n\n", mdImageNote(im))
		case !ok:
			// Its turn's image was deleted, or never stored.
			fmt.Fprintf(b, "_%s, no longer stored_\n\n", mdImageNote(im))
		default:
			path, err := m.store(im.MIME, data)
			if err != nil {
				m.err = err
				return
			}
			fmt.Fprintf(b, "![%s](%s)\n\n", mdEscape(firstNonEmpty(im.Name, "image")), mdLinkPath(path))
		}
	}
}

// store hands the bytes to file under a name made of their hash, once per
// content: a name from the file or the database could hold a path.
func (m *mdImages) store(mime string, data []byte) (string, error) {
	sum := sha256.Sum256(data)
	name := hex.EncodeToString(sum[:8]) + mdImageExt(mime)
	if p, ok := m.paths[name]; ok {
		return p, nil
	}
	p, err := m.file(name, data)
	if err != nil {
		return "", err
	}
	m.paths[name] = p
	return p, nil
}

// mdImageNote names an image for a reader: "Image: cat.png (640×480,
// 120 KB)", leaving out what is not known.
func mdImageNote(im llm.Image) string {
	note := "Image"
	if im.Name != "" {
		note += ": " + mdEscape(im.Name)
	}
	var about []string
	if im.Width > 0 && im.Height > 0 {
		about = append(about, fmt.Sprintf("%d×%d", im.Width, im.Height))
	}
	if im.Size > 0 {
		about = append(about, mdSize(im.Size))
	}
	if len(about) > 0 {
		note += " (" + strings.Join(about, ", ") + ")"
	}
	return note
}

// mdSize is a size in bytes as a person reads it.
func mdSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// mdImageExt is the file extension of an image type.
func mdImageExt(mime string) string {
	switch mime {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/webp":
		return ".webp"
	case "image/gif":
		return ".gif"
	}
	return ".bin"
}

// mdLinkPath is a relative path as a link's destination: each segment
// escaped, so spaces and parentheses in a folder's name do not end it.
func mdLinkPath(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
