package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// docxLimits bound what reading one DOCX may inflate: a zip's sizes are
// its own claims, so each part is read through a limit, never trusted.
type docxLimits struct {
	entries   int   // entries in the zip
	partBytes int64 // bytes inflated from one part
}

// defaultDOCXLimits fit any real document: a 1,000-page report's
// document.xml is some tens of MB.
var defaultDOCXLimits = docxLimits{entries: 10_000, partBytes: 256 << 20}

// errTooBig is a part that inflates past the limit.
var errTooBig = errors.New("part inflates past the limit")

// readDOCX reads a Word document: word/document.xml in order, headings
// from paragraph styles (word/styles.xml), lists (word/numbering.xml),
// tables; headers, footers, footnotes and comments are not read.
func readDOCX(ctx context.Context, name string, b []byte) (knowledge.Extracted, error) {
	return readDOCXWith(ctx, name, b, defaultDOCXLimits)
}

func readDOCXWith(ctx context.Context, name string, b []byte, lim docxLimits) (knowledge.Extracted, error) {
	if bytes.HasPrefix(b, []byte{0xD0, 0xCF, 0x11, 0xE0}) {
		return knowledge.Extracted{}, apperr.New(apperr.Invalid, "%s is an old Word (.doc) file or a password-protected document. Save it in Word as .docx without a password and add it again.", name)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return knowledge.Extracted{}, apperr.Wrap(err, apperr.Invalid, "%s is damaged: it is not a readable zip archive, which a .docx is. Open it in Word, save it again, and add it again.", name)
	}
	if len(zr.File) > lim.entries {
		return knowledge.Extracted{}, apperr.New(apperr.Invalid, "%s holds %d files, more than the %d a Word document may have here. Check the file.", name, len(zr.File), lim.entries)
	}
	p := docxParts{zr: zr, lim: lim}
	mainPart := resolve("", p.target("_rels/.rels", "/officeDocument"), "word/document.xml")
	doc, err := p.read(mainPart)
	if errors.Is(err, errNoPart) {
		return knowledge.Extracted{}, apperr.New(apperr.Invalid, "%s is a zip archive but not a Word document (it has no %s). Add a .docx saved by a word processor.", name, mainPart)
	}
	if err != nil {
		return knowledge.Extracted{}, p.refusal(name, mainPart, err)
	}
	rels := path.Join(path.Dir(mainPart), "_rels", path.Base(mainPart)+".rels")
	st := docxStyles{}
	for _, part := range []struct {
		rel, fallback string
		parse         func([]byte) error
	}{
		{"/styles", "word/styles.xml", st.parseStyles},
		{"/numbering", "word/numbering.xml", st.parseNumbering},
	} {
		raw, err := p.read(resolve(path.Dir(mainPart), p.target(rels, part.rel), part.fallback))
		if errors.Is(err, errNoPart) {
			continue // a document may have no styles or no lists
		}
		if err == nil {
			err = part.parse(raw)
		}
		if err != nil {
			return knowledge.Extracted{}, p.refusal(name, part.fallback, err)
		}
	}
	ex, err := readBody(ctx, doc, &st)
	if err != nil {
		return knowledge.Extracted{}, p.refusal(name, mainPart, err)
	}
	if ex.Title == "" {
		ex.Title = p.coreTitle()
	}
	return ex, nil
}

// errNoPart is a part the zip does not hold.
var errNoPart = errors.New("no such part")

// docxParts reads parts of a DOCX's zip within limits.
type docxParts struct {
	zr  *zip.Reader
	lim docxLimits
}

// read inflates one part, at most lim.partBytes of it.
func (p docxParts) read(name string) ([]byte, error) {
	for _, f := range p.zr.File {
		if !strings.EqualFold(strings.TrimPrefix(f.Name, "/"), name) { // OPC names ignore case
			continue
		}
		if f.UncompressedSize64 > uint64(p.lim.partBytes) {
			return nil, errTooBig
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		defer func() { _ = rc.Close() }()
		b, err := io.ReadAll(io.LimitReader(rc, p.lim.partBytes+1))
		if err != nil {
			return nil, err
		}
		if int64(len(b)) > p.lim.partBytes {
			return nil, errTooBig
		}
		return b, nil
	}
	return nil, errNoPart
}

// refusal is the error a person sees for a part that could not be read.
func (p docxParts) refusal(name, part string, err error) error {
	if errors.Is(err, errTooBig) {
		return apperr.Wrap(err, apperr.Invalid, "%s is refused: its %s would inflate past %d MB (a zip bomb, or a document far larger than any real one).", name, part, p.lim.partBytes>>20)
	}
	return apperr.Wrap(err, apperr.Invalid, "%s is damaged: its %s cannot be read. Open it in Word, save it again, and add it again.", name, part)
}

// target is the target of the first relationship in a .rels part whose
// type ends with typ, "" when there is none.
func (p docxParts) target(rels, typ string) string {
	raw, err := p.read(rels)
	if err != nil {
		return ""
	}
	var r struct {
		Rel []struct {
			Type   string `xml:"Type,attr"`
			Target string `xml:"Target,attr"`
			Mode   string `xml:"TargetMode,attr"`
		} `xml:"Relationship"`
	}
	if xml.Unmarshal(raw, &r) != nil {
		return ""
	}
	for _, rel := range r.Rel {
		if strings.HasSuffix(rel.Type, typ) && rel.Mode != "External" {
			return rel.Target
		}
	}
	return ""
}

// resolve is a relationship's target as a zip path: from the package's
// root when it starts with "/", else from dir, the folder of the part
// that names it; fallback when there is no target.
func resolve(dir, target, fallback string) string {
	switch {
	case target == "":
		return fallback
	case strings.HasPrefix(target, "/"):
		return path.Clean(target[1:])
	}
	return path.Clean(path.Join(dir, target))
}

// coreTitle is the title in the document's properties, "" when none.
func (p docxParts) coreTitle() string {
	raw, err := p.read("docProps/core.xml")
	if err != nil {
		return ""
	}
	var core struct {
		Title string `xml:"title"`
	}
	if xml.Unmarshal(raw, &core) != nil {
		return ""
	}
	return strings.Join(strings.Fields(core.Title), " ")
}

// attrVal is the value of the attribute named local (any namespace).
func attrVal(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// xmlErr names where an XML part stopped making sense.
func xmlErr(err error) error {
	return fmt.Errorf("xml: %w", err)
}
