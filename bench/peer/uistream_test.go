package peer

import (
	"strconv"
	"strings"
	"testing"
)

// uiToken is the i-th token of figure 7's streamed answer: "tokI " inside
// markdown a model writes, a cycle of uiCycle tokens in five blocks, so a
// 50,000-token answer is 2,500 blocks (about 400 kB): a heading of 6
// tokens, a paragraph of 50 with a bold run, a list of 4 items of 5, a
// fenced code block of 3 lines of 6, and a paragraph of 6. (A 50,000-token
// answer in one paragraph is not what a model writes, and a browser lays
// out a paragraph whole, so its cost per update grows with it whatever the
// page does.) bench/ui/stream.mjs counts the tokens by their numbers.
func uiToken(i int) string {
	n := "tok" + strconv.Itoa(i)
	switch c := i % uiCycle; {
	case c == 0:
		return "## " + n + " "
	case c == 5, c == 99:
		return n + "\n\n"
	case c == 26:
		return "**" + n + " "
	case c == 28:
		return n + "** "
	case c == 55:
		return n + " \n\n"
	case c >= 56 && c < 76 && (c-56)%5 == 0:
		return "- " + n + " "
	case c >= 56 && c < 76 && (c-56)%5 == 4:
		if c == 75 {
			return n + "\n\n"
		}
		return n + "\n"
	case c == 76:
		return "```\n" + n + " "
	case c >= 77 && c < 94 && (c-76)%6 == 5:
		if c == 93 {
			return n + "\n```\n\n"
		}
		return n + "\n"
	}
	return n + " "
}

const uiCycle = 100

func TestUITokens(t *testing.T) {
	var sb strings.Builder
	for i := range 2 * uiCycle {
		sb.WriteString(uiToken(i))
	}
	text := sb.String()
	for _, want := range []string{
		"## tok0 tok1 tok2 tok3 tok4 tok5\n\ntok6 ",
		"**tok26 tok27 tok28** ",
		"tok55 \n\n- tok56 tok57 tok58 tok59 tok60\n- tok61 ",
		"tok75\n\n```\ntok76 tok77 tok78 tok79 tok80 tok81\ntok82 ",
		"tok93\n```\n\ntok94 ",
		"tok99\n\n## tok100 ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the streamed answer lacks %q:\n%s", want, text)
		}
	}
}
