package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
)

// How Import stores a file's images (export.Document.Images): each with
// the turn that owns it, after that turn's messages, under its id or a new
// one when the file is stored as a copy; messages name them by the id they
// are stored under.

// groupImages sorts the file's images by the turn that owns them. An image
// owned by no turn of the file is damage: nothing would own its row. An
// image marked gone (export.Image.Gone) has no row to store: the messages
// that name it lose the name (withImageRefs).
func (im *importer) groupImages() error {
	turns := map[string]bool{}
	for _, t := range im.doc.Turns {
		turns[t.ID] = true
	}
	im.images, im.imageIDs, im.goneIDs = map[string][]*export.Image{}, map[string]bool{}, map[string]bool{}
	for i := range im.doc.Images {
		x := &im.doc.Images[i]
		if !turns[x.TurnID] {
			return apperr.New(apperr.Invalid, "This file is damaged: image %s belongs to no turn in the file. Nothing was imported.", firstOf(x.Name, x.ID, "(with no id)"))
		}
		if x.Gone {
			im.goneIDs[x.ID] = true
			continue
		}
		im.images[x.TurnID] = append(im.images[x.TurnID], x)
		im.imageIDs[x.ID] = true
	}
	return im.checkImageRefs()
}

// checkImageRefs refuses a file whose messages and images do not match:
// a message naming an image the file neither holds nor marks gone, or an
// image no message names. No export writes either (the images are those
// the messages name), so the file was changed or damaged, and importing
// it would lose the image without a word. The refusal names the place in
// the file, as the decoder does (turns[0].messages[0].images[0]).
//
// A file older than export.Version 5 does not mark a gone image: a name
// it lacks may have been gone when it was written, and is dropped as it
// always was. What no export of its version holds is still refused: a
// version 4 file was written only with images, so one with none lost them.
func (im *importer) checkImageRefs() error {
	named := map[string]bool{}
	marks := export.MarksGoneImages(im.doc.Version)
	noneHeld := im.doc.Version == 4 && len(im.doc.Images) == 0
	for i, t := range im.doc.Turns {
		for j, m := range t.Messages {
			for k, ref := range m.Images {
				named[ref.ID] = true
				if im.imageIDs[ref.ID] || im.goneIDs[ref.ID] || (!marks && !noneHeld) {
					continue
				}
				return apperr.New(apperr.Invalid, "This file cannot be imported: turns[%d].messages[%d].images[%d] names image %s, which is not in the file's images: "+
					"the file was changed or damaged after it was exported. Export the session again. Nothing was imported.", i, j, k, imageLabel(ref))
			}
		}
	}
	if im.doc.Version < 4 {
		return nil
	}
	for i, x := range im.doc.Images {
		if !named[x.ID] {
			return apperr.New(apperr.Invalid, "This file cannot be imported: images[%d] (%s) is named by no message: "+
				"the file was changed or damaged after it was exported. Export the session again. Nothing was imported.", i, firstOf(x.Name, x.ID, "with no id"))
		}
	}
	return nil
}

// imageLabel names an image reference for a person: its id, and its file
// name if it has one.
func imageLabel(ref llm.Image) string {
	id := firstOf(ref.ID, "(with no id)")
	if ref.Name != "" {
		return fmt.Sprintf("%s (%s)", id, ref.Name)
	}
	return id
}

// withImageRefs are msgs with their images named by the ids they are
// stored under. A name the file holds no bytes for loses the name (one
// marked gone, or one an older file lacks, checkImageRefs): with no
// bytes, it could not be sent to a model again, and a history naming a
// missing image could not be sent at all.
func (im *importer) withImageRefs(msgs []llm.Message) []llm.Message {
	out := slices.Clone(msgs)
	for i := range out {
		if len(out[i].Images) == 0 {
			continue
		}
		var refs []llm.Image
		for _, ref := range out[i].Images {
			if im.imageIDs[ref.ID] {
				ref.ID, ref.Data = im.id(ref.ID), nil
				refs = append(refs, ref)
			}
		}
		out[i].Images = refs
	}
	return out
}

// storeImages stores the images turn t owns, checked first: a type a model
// reads, at most MaxImageBytes, and bytes that match the size and SHA-256
// the file gives for them, so a file changed or damaged on the way is
// refused rather than sending a model other bytes than the turn did.
func (im *importer) storeImages(tid string, t *export.Turn) error {
	for _, x := range im.images[t.ID] {
		name := firstOf(x.Name, x.ID)
		sum := sha256.Sum256(x.Data)
		hash := hex.EncodeToString(sum[:])
		switch {
		case x.ID == "":
			return broken("has an image with no id")
		case len(x.Data) == 0:
			return broken("has an image (%s) with no bytes", name)
		case !slices.Contains(llm.ImageMIMEs, x.MIME):
			return broken("has an image (%s) of type %q, not one a model can be sent (PNG, JPEG, WebP or GIF)", name, x.MIME)
		case len(x.Data) > MaxImageBytes:
			return broken("has an image (%s) of %d MB; an image may be at most %d MB", name, len(x.Data)>>20, MaxImageBytes>>20)
		case hash != strings.ToLower(x.SHA256) || len(x.Data) != x.Size:
			return broken("has an image (%s) whose bytes do not match the size and SHA-256 the file gives for them: the file was changed or damaged", name)
		}
		created := x.CreatedAt
		if created.IsZero() {
			created = time.Now()
		}
		if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO images (id, session_id, turn_id, mime, name, width, height, size, sha256, data, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			im.id(x.ID), im.sid, tid, x.MIME, x.Name, x.Width, x.Height, len(x.Data), hash, x.Data, fmtTime(created)); err != nil {
			return err
		}
	}
	return nil
}
