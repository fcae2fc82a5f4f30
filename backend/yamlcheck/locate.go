package yamlcheck

import (
	"strconv"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// locator finds the line and column of a path in a YAML document.
type locator struct {
	body    ast.Node
	anchors map[string]ast.Node
}

func newLocator(body ast.Node) *locator {
	l := &locator{body: body, anchors: map[string]ast.Node{}}
	for _, n := range ast.Filter(ast.AnchorType, body) {
		if a, ok := n.(*ast.AnchorNode); ok && a.Name != nil {
			l.anchors[a.Name.GetToken().Value] = a.Value
		}
	}
	return l
}

// pos returns where path is written: the deepest node found along it, or
// its key when key is set and the whole path was found.
func (l *locator) pos(path []string, key bool) (line, col int) {
	node := l.body
	var lastKey ast.Node
	for _, tok := range path {
		next, k := l.child(node, tok)
		if next == nil {
			return nodePos(node)
		}
		node, lastKey = next, k
	}
	if key && lastKey != nil {
		return nodePos(lastKey)
	}
	return nodePos(node)
}

// child returns node's value at tok and, in a mapping, the key.
func (l *locator) child(node ast.Node, tok string) (value, key ast.Node) {
	node = l.deref(node)
	switch n := node.(type) {
	case *ast.MappingNode:
		return l.lookup(n.Values, tok, 0)
	case *ast.MappingValueNode:
		return l.lookup([]*ast.MappingValueNode{n}, tok, 0)
	case *ast.SequenceNode:
		if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.Values) {
			return n.Values[i], nil
		}
	}
	return nil, nil
}

// lookup finds tok among a mapping's values, then in its merged (<<)
// mappings.
func (l *locator) lookup(values []*ast.MappingValueNode, tok string, depth int) (value, key ast.Node) {
	for _, mv := range values {
		if mv.Key != nil && !mv.Key.IsMergeKey() && keyText(mv.Key) == tok {
			return mv.Value, mv.Key
		}
	}
	if depth > 8 {
		return nil, nil
	}
	for _, mv := range values {
		if mv.Key == nil || !mv.Key.IsMergeKey() {
			continue
		}
		merged := []ast.Node{l.deref(mv.Value)}
		if seq, ok := merged[0].(*ast.SequenceNode); ok {
			merged = seq.Values
		}
		for _, m := range merged {
			switch mn := l.deref(m).(type) {
			case *ast.MappingNode:
				if v, k := l.lookup(mn.Values, tok, depth+1); v != nil {
					return v, k
				}
			case *ast.MappingValueNode:
				if v, k := l.lookup([]*ast.MappingValueNode{mn}, tok, depth+1); v != nil {
					return v, k
				}
			}
		}
	}
	return nil, nil
}

// deref follows anchors, tags and aliases to the node that holds the value.
func (l *locator) deref(node ast.Node) ast.Node {
	for range 16 {
		switch n := node.(type) {
		case *ast.AnchorNode:
			node = n.Value
		case *ast.TagNode:
			node = n.Value
		case *ast.AliasNode:
			if n.Value == nil {
				return node
			}
			target, ok := l.anchors[n.Value.GetToken().Value]
			if !ok {
				return node
			}
			node = target
		default:
			return node
		}
	}
	return node
}

func keyText(k ast.MapKeyNode) string {
	var n ast.Node = k
	if mk, ok := k.(*ast.MappingKeyNode); ok {
		n = mk.Value
	}
	if s, ok := n.(*ast.StringNode); ok {
		return s.Value
	}
	if n == nil || n.GetToken() == nil {
		return ""
	}
	return n.GetToken().Value
}

func nodePos(n ast.Node) (line, col int) {
	if n == nil {
		return 0, 0
	}
	var tk *token.Token
	switch v := n.(type) {
	case *ast.MappingNode:
		// A block mapping's own token is its first key's; a flow
		// mapping's is its "{".
		tk = v.GetToken()
		if len(v.Values) > 0 && !v.IsFlowStyle && v.Values[0].Key != nil {
			tk = v.Values[0].Key.GetToken()
		}
	case *ast.MappingValueNode:
		if v.Key != nil {
			tk = v.Key.GetToken()
		}
	default:
		tk = n.GetToken()
	}
	if tk == nil || tk.Position == nil {
		return 0, 0
	}
	return tk.Position.Line, tk.Position.Column
}
