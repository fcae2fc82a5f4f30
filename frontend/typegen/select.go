package main

import (
	"fmt"
	"go/ast"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// generator collects the declarations to generate and writes them.
type generator struct {
	config
	l        *loader
	selected map[*decl]bool
	api      []method
	consts   map[string][]constDecl // by package path
	unions   map[*decl]*resolved    // by envelope
}

func newGenerator(root string, c config) (*generator, error) {
	g := &generator{config: c, l: &loader{root: root, pkgs: map[string]*pkg{}}, selected: map[*decl]bool{}, consts: map[string][]constDecl{}, unions: map[*decl]*resolved{}}
	// The unions first: an envelope's data field is walked as its variants,
	// never as the type it has in Go.
	for _, u := range c.unions {
		d, r, err := g.resolve(u)
		if err != nil {
			return nil, err
		}
		g.unions[d] = r
	}
	app, err := g.l.load(c.facadePkg)
	if err != nil {
		return nil, err
	}
	for _, m := range app.methods[c.facade] {
		if !m.fn.Name.IsExported() {
			continue
		}
		g.api = append(g.api, m)
		for _, f := range m.fn.Type.Params.List {
			if err := g.walk(app, m.file, f.Type); err != nil {
				return nil, fmt.Errorf("%s.%s: %w", c.facade, m.fn.Name.Name, err)
			}
		}
		if res := m.fn.Type.Results; res != nil && len(res.List) > 0 {
			if err := g.walk(app, m.file, res.List[0].Type); err != nil {
				return nil, fmt.Errorf("%s.%s: %w", c.facade, m.fn.Name.Name, err)
			}
		}
	}
	for _, r := range c.roots {
		p, err := g.l.load(r.pkg)
		if err != nil {
			return nil, err
		}
		names := slices.Clone(r.names)
		for name, d := range p.types {
			if r.file != "" && p.files[d.file].name == r.file && ast.IsExported(name) {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		for _, name := range names {
			if err := g.use(p, name); err != nil {
				return nil, err
			}
		}
		for _, name := range r.consts {
			c, ok := p.consts[name]
			if !ok {
				return nil, fmt.Errorf("%s has no constant %s declared alone", p.path, name)
			}
			g.consts[p.path] = append(g.consts[p.path], c)
		}
	}
	return g, nil
}

var builtin = map[string]bool{
	"bool": true, "string": true, "any": true, "byte": true, "rune": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"float32": true, "float64": true,
}

// use selects a type of p and, through it, every type it refers to.
func (g *generator) use(p *pkg, name string) error {
	d := p.types[name]
	if d == nil {
		return fmt.Errorf("%s has no type %s", p.path, name)
	}
	if g.selected[d] {
		return nil
	}
	g.selected[d] = true
	key := p.path + "." + name
	if _, ok := g.overrides[key]; ok {
		return nil
	}
	if p.marshals[name] {
		return fmt.Errorf("%s marshals itself: give its JSON type in overrides", key)
	}
	if err := g.walk(p, d.file, d.spec.Type); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// walk selects the types an expression of p's file f refers to.
func (g *generator) walk(p *pkg, f *ast.File, e ast.Expr) error {
	switch e := e.(type) {
	case *ast.Ident:
		if builtin[e.Name] {
			return nil
		}
		return g.use(p, e.Name)
	case *ast.SelectorExpr:
		x, _ := e.X.(*ast.Ident)
		if x == nil {
			return fmt.Errorf("unexpected type %T", e.X)
		}
		key := x.Name + "." + e.Sel.Name
		path := p.files[f].imports[x.Name]
		if rel, ok := strings.CutPrefix(path, module+"/"); ok {
			q, err := g.l.load(rel)
			if err != nil {
				return err
			}
			return g.use(q, e.Sel.Name)
		}
		if _, ok := g.external[key]; ok {
			return nil
		}
		return fmt.Errorf("%s (%s) is of another module: map it in external", key, path)
	case *ast.StarExpr:
		return g.walk(p, f, e.X)
	case *ast.ArrayType:
		return g.walk(p, f, e.Elt)
	case *ast.MapType:
		if err := g.walk(p, f, e.Key); err != nil {
			return err
		}
		return g.walk(p, f, e.Value)
	case *ast.StructType:
		for _, field := range e.Fields.List {
			if skipped(field) {
				continue
			}
			if err := g.walk(p, f, field.Type); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%T cannot cross to the UI as JSON", e)
}

// skipped reports whether encoding/json leaves a field out.
func skipped(f *ast.Field) bool {
	if jsonTag(f) == "-" {
		return true
	}
	if len(f.Names) == 0 {
		return !ast.IsExported(typeName(f.Type))
	}
	for _, n := range f.Names {
		if n.IsExported() {
			return false
		}
	}
	return true
}

func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.StarExpr:
		return typeName(e.X)
	}
	return ""
}

func tag(f *ast.Field) reflect.StructTag {
	if f.Tag == nil {
		return ""
	}
	s, _ := strconv.Unquote(f.Tag.Value)
	return reflect.StructTag(s)
}

func jsonTag(f *ast.Field) string {
	v, _, _ := strings.Cut(tag(f).Get("json"), ",")
	return v
}

func omitted(f *ast.Field) bool {
	_, opts, _ := strings.Cut(tag(f).Get("json"), ",")
	for o := range strings.SplitSeq(opts, ",") {
		if o == "omitempty" || o == "omitzero" {
			return true
		}
	}
	return false
}
