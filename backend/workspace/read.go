package workspace

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// sniffLen is how much of a file is checked for being text.
const sniffLen = 8 << 10

// errTooLarge reports that the requested lines exceed the read limit.
var errTooLarge = errors.New("too large")

type readArgs struct {
	Path      string `json:"path"`
	StartLine *int   `json:"start_line"`
	EndLine   *int   `json:"end_line"`
}

// lineRange is the part of a file asked for; end 0 means to the last line.
type lineRange struct {
	start, end int
	given      bool
}

func (w *Workspace) readFile(ctx context.Context, raw json.RawMessage) (string, error) {
	var in readArgs
	if err := decode(raw, &in); err != nil {
		return "", err
	}
	lr := lineRange{start: 1, given: in.StartLine != nil || in.EndLine != nil}
	if in.StartLine != nil {
		lr.start = *in.StartLine
	}
	if in.EndLine != nil {
		lr.end = *in.EndLine
	}
	switch {
	case lr.start < 1:
		return "", fmt.Errorf("start_line is %d; lines are numbered from 1", lr.start)
	case in.EndLine != nil && lr.end < lr.start:
		return "", fmt.Errorf("end_line %d is before start_line %d", lr.end, lr.start)
	}
	t, err := w.check(in.Path)
	if err != nil {
		return "", err
	}
	return w.read(ctx, in.Path, t, lr)
}

func (w *Workspace) read(ctx context.Context, rel string, t target, lr lineRange) (string, error) {
	root, err := w.open(ctx)
	if err != nil {
		return "", err
	}
	defer root.Close()
	f, err := root.Open(t.name)
	if err != nil {
		return "", opError(rel, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", opError(rel, err)
	}
	switch {
	case fi.IsDir():
		return "", fmt.Errorf("%q is a folder; use list_files to see what is in it", rel)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("%q is not a regular file", rel)
	}
	return w.readText(ctx, rel, f, fi.Size(), lr)
}

// readText reads the lines in lr from f, a regular file of size bytes.
func (w *Workspace) readText(ctx context.Context, rel string, f io.Reader, size int64, lr lineRange) (string, error) {
	br := bufio.NewReaderSize(f, 64<<10)
	head, err := br.Peek(sniffLen)
	if err != nil && err != io.EOF {
		return "", opError(rel, err)
	}
	if why := binaryReason(head, len(head) == sniffLen); why != "" {
		return "", fmt.Errorf("%q looks like a binary file (%s); read_file only reads text", rel, why)
	}
	limit := w.lim.MaxReadBytes
	if !lr.given && size > limit {
		n, err := countLines(ctx, br)
		if err != nil {
			return "", readError(ctx, rel, err)
		}
		return "", fmt.Errorf("%q is %s (%s), more than the %s read_file returns at once; read it in parts with start_line and end_line",
			rel, byteSize(size), count(n, "line"), byteSize(limit))
	}

	lines, total, err := scanLines(ctx, br, lr, limit)
	switch {
	case errors.Is(err, errTooLarge):
		return "", fmt.Errorf("%s of %q (%s) are more than the %s read_file returns at once; ask for fewer lines",
			lr.describe(total), rel, count(total, "line"), byteSize(limit))
	case err != nil:
		return "", readError(ctx, rel, err)
	case total == 0:
		return fmt.Sprintf("%q is empty (0 lines).", rel), nil
	case lr.start > total:
		return "", fmt.Errorf("start_line %d is past the end of %q, which has %s", lr.start, rel, count(total, "line"))
	}
	for i, l := range lines {
		if !utf8.Valid(l) {
			return "", fmt.Errorf("%q looks like a binary file (line %d is not valid UTF-8 text); read_file only reads text", rel, lr.start+i)
		}
	}
	return render(rel, lines, lr.start, total), nil
}

// describe names the range for a message.
func (lr lineRange) describe(total int) string {
	if lr.end == 0 || lr.end > total {
		return fmt.Sprintf("lines %d to the end", lr.start)
	}
	return fmt.Sprintf("lines %d-%d", lr.start, lr.end)
}

func render(rel string, lines [][]byte, first, total int) string {
	last := first + len(lines) - 1
	var b strings.Builder
	if first == 1 && last == total {
		fmt.Fprintf(&b, "%q, %s:\n", rel, count(total, "line"))
	} else {
		fmt.Fprintf(&b, "%q, lines %d-%d of %d:\n", rel, first, last, total)
	}
	width := len(fmt.Sprint(last))
	for i, l := range lines {
		fmt.Fprintf(&b, "%*d | %s\n", width, first+i, l)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// binaryReason says why head is not text, or "" if it is. When the file
// goes on past head, a rune cut at the end of head is not held against it.
func binaryReason(head []byte, cut bool) string {
	if bytes.IndexByte(head, 0) >= 0 {
		return "it contains NUL bytes"
	}
	if cut {
		for i := len(head) - 1; i >= 0 && i >= len(head)-utf8.UTFMax; i-- {
			if utf8.RuneStart(head[i]) {
				if !utf8.FullRune(head[i:]) {
					head = head[:i]
				}
				break
			}
		}
	}
	if !utf8.Valid(head) {
		return "it is not valid UTF-8 text"
	}
	return ""
}

// scanLines returns the lines in lr, without their line endings, and the
// number of lines in the file. Lines outside lr are counted, not kept, so
// memory stays within limit however large the file. When the lines in lr
// pass limit bytes it keeps counting and returns errTooLarge with the total.
func scanLines(ctx context.Context, br *bufio.Reader, lr lineRange, limit int64) ([][]byte, int, error) {
	var (
		lines   [][]byte
		cur     []byte
		kept    int64
		total   int
		pending bool // bytes of an unfinished line were read
		over    bool
	)
	for {
		chunk, err := br.ReadSlice('\n')
		n := total + 1 // the number of the line this chunk belongs to
		keep := !over && n >= lr.start && (lr.end == 0 || n <= lr.end)
		if len(chunk) > 0 {
			pending = true
			if keep {
				kept += int64(len(chunk))
				if kept > limit {
					over, cur, lines = true, nil, nil
				} else {
					cur = append(cur, chunk...)
				}
			}
		}
		ended := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if ended || (err == io.EOF && pending) {
			if keep && !over {
				lines = append(lines, trimEOL(cur))
			}
			cur, pending = nil, false
			total++
			if total%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, 0, err
				}
			}
		}
		switch {
		case err == nil || err == bufio.ErrBufferFull:
		case err == io.EOF:
			if over {
				return nil, total, errTooLarge
			}
			return lines, total, nil
		default:
			return nil, 0, err
		}
	}
}

func trimEOL(l []byte) []byte {
	l = bytes.TrimSuffix(l, []byte("\n"))
	l = bytes.TrimSuffix(l, []byte("\r"))
	if l == nil {
		return []byte{}
	}
	return l
}

// countLines counts the lines left in br.
func countLines(ctx context.Context, br *bufio.Reader) (int, error) {
	buf := make([]byte, 64<<10)
	n, last := 0, byte('\n')
	for i := 0; ; i++ {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		m, err := br.Read(buf)
		if m > 0 {
			n += bytes.Count(buf[:m], []byte("\n"))
			last = buf[m-1]
		}
		if err == io.EOF {
			if last != '\n' {
				n++ // a last line without a newline
			}
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

func readError(ctx context.Context, rel string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return opError(rel, err)
}
