package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// union registers an envelope whose data's type depends on its tag: a Go
// struct with a tag field (a string type with constants) and a data field
// (json.RawMessage, any), and the variant types of its data, each of which
// says its tag by a method that returns one of the tag type's constants
// (func (TokenData) EventType() EventType { return EventToken }).
//
// It is written as the envelope's other fields (<Name>Base) intersected
// with one {tag; data} pair per variant, so TypeScript narrows the data
// by the tag:
//
//	export type Event = EventBase & (
//	  | { type: "token"; data: TokenData }
//	  | ...
//	);
//	export type EventOf<T extends Event["type"]> = Extract<Event, { type: T }>;
//
// Every constant of the tag type needs exactly one variant, and each
// variant's method must return a constant: anything else is an error.
type union struct {
	pkg      string // the envelope's package, in the module; its variants are declared there too
	envelope string // the Go struct, whose name the union takes
	tag      string // the JSON name of the tag field
	data     string // the JSON name of the data field
	method   string // the method each variant type says its tag with
}

// variant is one tag value and the type of its data.
type variant struct{ tag, typ string }

// resolved is a union with its variants, in the order of the tag
// type's constants.
type resolved struct {
	union
	variants []variant
}

// resolve selects the envelope and the variant types of u and finds
// each variant's tag.
func (g *generator) resolve(u union) (*decl, *resolved, error) {
	p, err := g.l.load(u.pkg)
	if err != nil {
		return nil, nil, err
	}
	d := p.types[u.envelope]
	if d == nil {
		return nil, nil, fmt.Errorf("union %s: %s has no type %s", u.envelope, p.path, u.envelope)
	}
	st, ok := d.spec.Type.(*ast.StructType)
	if !ok {
		return nil, nil, fmt.Errorf("union %s: the envelope is no struct", u.envelope)
	}
	// The envelope's fields come along but its data's: that is the
	// variants' (in Go, json.RawMessage, any or an interface of theirs).
	g.selected[d] = true
	tagType, hasData := "", false
	for _, f := range st.Fields.List {
		switch jsonName(f) {
		case u.tag:
			tagType = typeName(f.Type)
		case u.data:
			hasData = true
			continue
		}
		if skipped(f) {
			continue
		}
		if err := g.walk(p, d.file, f.Type); err != nil {
			return nil, nil, fmt.Errorf("%s.%s: %w", p.path, u.envelope, err)
		}
	}
	if tagType == "" || !hasData {
		return nil, nil, fmt.Errorf("union %s: the envelope needs fields %q and %q (JSON names)", u.envelope, u.tag, u.data)
	}
	r := &resolved{union: u}
	owner := map[string]string{}
	for typ, ms := range p.methods {
		for _, m := range ms {
			if m.fn.Name.Name != u.method {
				continue
			}
			tag, err := returnedConst(p, m.fn)
			if err != nil {
				return nil, nil, fmt.Errorf("union %s: %s.%s: %w", u.envelope, typ, u.method, err)
			}
			if o, ok := owner[tag]; ok {
				return nil, nil, fmt.Errorf("union %s: %s %q is the tag of both %s and %s", u.envelope, tagType, tag, min(o, typ), max(o, typ))
			}
			owner[tag] = typ
			r.variants = append(r.variants, variant{tag: tag, typ: typ})
			if err := g.use(p, typ); err != nil {
				return nil, nil, err
			}
		}
	}
	if err := r.order(p.enums[tagType], tagType); err != nil {
		return nil, nil, err
	}
	return d, r, nil
}

// order sorts the variants as the tag type's constants are declared and
// checks that each constant has one.
func (r *resolved) order(values []enumValue, tagType string) error {
	rank := map[string]int{}
	for i, v := range values {
		rank[v.value] = i
	}
	for _, v := range r.variants {
		if _, ok := rank[v.tag]; !ok {
			return fmt.Errorf("union %s: %s says %q, which is no %s constant", r.envelope, v.typ, v.tag, tagType)
		}
	}
	if len(r.variants) < len(values) {
		var missing []string
		for _, v := range values {
			if !slices.ContainsFunc(r.variants, func(x variant) bool { return x.tag == v.value }) {
				missing = append(missing, strconv.Quote(v.value))
			}
		}
		return fmt.Errorf("union %s: no type's %s method returns %s %s", r.envelope, r.method, tagType, strings.Join(missing, ", "))
	}
	slices.SortFunc(r.variants, func(a, b variant) int { return rank[a.tag] - rank[b.tag] })
	return nil
}

// returnedConst is the value of the string constant fn returns, when its
// body is only `return Const`.
func returnedConst(p *pkg, fn *ast.FuncDecl) (string, error) {
	if fn.Body != nil && len(fn.Body.List) == 1 {
		if ret, ok := fn.Body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
			if id, ok := ret.Results[0].(*ast.Ident); ok {
				if c, ok := p.consts[id.Name]; ok {
					if lit, ok := c.value.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						return strconv.Unquote(lit.Value)
					}
				}
			}
		}
	}
	return "", fmt.Errorf("must be only `return Constant`, a string constant of its package")
}

// jsonName is the name encoding/json gives a field.
func jsonName(f *ast.Field) string {
	if n := jsonTag(f); n != "" {
		return n
	}
	if len(f.Names) > 0 {
		return f.Names[0].Name
	}
	return typeName(f.Type)
}

// union writes a union: its base, then the union of its variants.
func (c converter) union(b *strings.Builder, d *decl, r *resolved) error {
	name := d.spec.Name.Name
	head := "("
	if hasBase(d, r) {
		base := name + "Base"
		doc := fmt.Sprintf("%s is what every %s has besides its %s and its %s, whose\ntype depends on the %s: see %s.", base, name, r.tag, r.data, r.tag, name)
		if err := c.declAs(b, d, declAs{name: base, doc: doc, drop: []string{r.tag, r.data}}); err != nil {
			return err
		}
		head = base + " & ("
	}
	writeDoc(b, strings.TrimSpace(d.doc.Text())+"\n\nIts "+r.data+" is the type its "+r.tag+" says: narrow by "+r.tag+".", "")
	fmt.Fprintf(b, "export type %s = %s\n", name, head)
	for _, v := range r.variants {
		ts, err := c.expr(ast.NewIdent(v.typ))
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "  | { %s: %s; %s: %s }\n", r.tag, strconv.Quote(v.tag), r.data, ts)
	}
	b.WriteString(");\n")
	fmt.Fprintf(b, "/** The %s of one %s, its %s narrowed. */\n", name, r.tag, r.data)
	fmt.Fprintf(b, "export type %sOf<T extends %s[%q]> = Extract<%s, { %s: T }>;\n", name, name, r.tag, name, r.tag)
	return nil
}

// hasBase reports whether the envelope has fields besides its tag and
// data, which its Base interface holds.
func hasBase(d *decl, r *resolved) bool {
	for _, f := range d.spec.Type.(*ast.StructType).Fields.List {
		if n := jsonName(f); !skipped(f) && n != r.tag && n != r.data {
			return true
		}
	}
	return false
}
