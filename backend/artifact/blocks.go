package artifact

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// Blocks reads an answer's ```html and ```svg fenced blocks as artifacts,
// in the order they appear: Source block, Key the kind (so a page in each
// answer of a session is a new version of one artifact), Title the
// content's <title> or the kind's default. A block that is not closed, is
// empty, or fails Check (an SVG that does not parse) is not an artifact:
// the answer shows it as code.
func Blocks(answer string) []turn.ArtifactData {
	if !strings.Contains(answer, "```") && !strings.Contains(answer, "~~~") {
		return nil
	}
	src := []byte(answer)
	doc := blockParser().Parse(text.NewReader(src))
	var out []turn.ArtifactData
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fc, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		if closed, _ := fc.AttributeString(closedAttr); closed != true {
			return ast.WalkSkipChildren, nil
		}
		kind := strings.ToLower(string(fc.Language(src)))
		if kind != turn.ArtifactHTML && kind != turn.ArtifactSVG {
			return ast.WalkSkipChildren, nil
		}
		var b strings.Builder
		lines := fc.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			b.Write(seg.Value(src))
		}
		content := b.String()
		if Check(kind, content) != nil {
			return ast.WalkSkipChildren, nil
		}
		title := TitleOf(kind, content)
		if title == "" {
			title = DefaultTitle(kind)
		}
		out = append(out, turn.ArtifactData{Key: kind, Title: title, Kind: kind, Content: content, Source: turn.ArtifactFromBlock})
		return ast.WalkSkipChildren, nil
	})
	return out
}

// closedAttr marks a fenced code block that its closing fence ended, not
// the end of the answer or of its container (a list item, a quote).
const closedAttr = "agentdeck-closed"

// blockParser is goldmark's CommonMark block parser with its fenced code
// parser wrapped to mark closed fences; inlines are not needed.
func blockParser() parser.Parser {
	var blocks []util.PrioritizedValue
	for _, v := range parser.DefaultBlockParsers() {
		if fp, ok := v.Value.(parser.BlockParser); ok && isFenceParser(fp) {
			v = util.Prioritized(closingFence{fp}, v.Priority)
		}
		blocks = append(blocks, v)
	}
	return parser.NewParser(parser.WithBlockParsers(blocks...), parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
}

func isFenceParser(p parser.BlockParser) bool {
	t := p.Trigger()
	return len(t) == 2 && t[0] == '~' && t[1] == '`'
}

// closingFence is a fenced code block parser that marks the blocks its
// closing fence ended (Continue returns Close only there).
type closingFence struct{ parser.BlockParser }

func (c closingFence) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	st := c.BlockParser.Continue(node, reader, pc)
	if st == parser.Close {
		node.SetAttributeString(closedAttr, true)
	}
	return st
}
