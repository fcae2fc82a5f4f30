package extract

import (
	"context"
	"slices"
	"testing"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"paragraphs", "One line\nand its next.  \n\n\n  Second paragraph.\n", []string{"p1 [] One line\nand its next.", "p1 []   Second paragraph."}},
		{"a byte order mark and Windows line ends", "\xEF\xBB\xBFFirst\r\n\r\nSecond\r\n", []string{"p1 [] First", "p1 [] Second"}},
		{"form feeds are pages", "page one\fpage two\n\fpage three\f", []string{"p1 [] page one", "p2 [] page two", "p3 [] page three"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := Read(context.Background(), "notes.txt", []byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if got := blocks(ex); !slices.Equal(got, tc.want) {
				t.Errorf("blocks %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTextRefusesOtherEncodings(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		words      []string
	}{
		{"utf16.txt", "\xFF\xFEh\x00i\x00", []string{"UTF-16", "Save it as UTF-8"}},
		{"utf16be.md", "\xFE\xFF\x00h\x00i", []string{"UTF-16"}},
		{"latin1.txt", "caf\xE9 cr\xE8me", []string{"not UTF-8", "Latin-1"}},
		{"nul.txt", "h\x00i\x00", []string{"NUL"}},
		{"latin1.md", "# Caf\xE9", []string{"not UTF-8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(context.Background(), tc.name, []byte(tc.body))
			refused(t, err, tc.name, tc.words...)
		})
	}
}
