package main

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gzuidhof/tygo/tygo"
)

// generator collects the declarations to generate and writes them.
type generator struct {
	config
	l        *loader
	selected map[*decl]bool
	api      []method
	consts   map[string][]constDecl // by package path
}

func newGenerator(root string, c config) (*generator, error) {
	g := &generator{config: c, l: &loader{root: root, pkgs: map[string]*pkg{}}, selected: map[*decl]bool{}, consts: map[string][]constDecl{}}
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

// generate writes the file.
func (g *generator) generate(version string) ([]byte, error) {
	var decls []*decl
	for d := range g.selected {
		decls = append(decls, d)
	}
	byPkg := map[string][]*decl{}
	owner := map[string]*decl{}
	mappings := map[string]string{}
	for k, v := range g.external {
		mappings[k] = v
	}
	// Aliases last: an alias of a type already written (workflow.Problem
	// = yamlcheck.Problem) is that type, not a second one of its name.
	slices.SortStableFunc(decls, func(a, b *decl) int {
		return cmp.Compare(boolInt(a.spec.Assign.IsValid()), boolInt(b.spec.Assign.IsValid()))
	})
	for _, d := range decls {
		name := d.spec.Name.Name
		if o := owner[name]; o != nil && aliasOf(d, o) {
			mappings[d.pkg.name+"."+name] = name
			continue
		}
		if o := owner[name]; o != nil {
			return nil, fmt.Errorf("two types are called %s: in %s and %s; the file has one namespace", name, o.pkg.path, d.pkg.path)
		}
		owner[name] = d
		mappings[d.pkg.name+"."+name] = name
		byPkg[d.pkg.path] = append(byPkg[d.pkg.path], d)
	}
	for _, reserved := range []string{"API", "APIMethods"} {
		if d := owner[reserved]; d != nil {
			return nil, fmt.Errorf("%s.%s clashes with the generated %s", d.pkg.path, reserved, reserved)
		}
	}
	conv := converter{mappings: mappings, overrides: g.overrides}
	for path := range g.consts {
		if _, ok := byPkg[path]; !ok {
			byPkg[path] = nil
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by frontend/typegen from the Go types, with tygo %s. DO NOT EDIT.\n", version)
	b.WriteString("// Regenerate with `make types`; `make types-check` (run by `make fe-check`) fails\n")
	b.WriteString("// while this file is not what the Go types give.\n")
	for _, path := range g.pkgOrder(byPkg) {
		fmt.Fprintf(&b, "\n// ---- %s ----\n\n", path)
		for _, d := range sorted(byPkg[path]) {
			var err error
			if vals := d.pkg.enums[d.spec.Name.Name]; len(vals) > 0 && isString(d.spec.Type) {
				writeEnum(&b, d, vals, g.withZero[d.pkg.path+"."+d.spec.Name.Name])
			} else {
				err = conv.decl(&b, d)
			}
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", d.pkg.path, d.spec.Name.Name, err)
			}
		}
		for _, c := range g.consts[path] {
			if err := writeConst(&b, c); err != nil {
				return nil, fmt.Errorf("%s.%s: %w", path, c.name, err)
			}
		}
	}
	if err := g.writeAPI(&b, conv); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

func (g *generator) pkgOrder(byPkg map[string][]*decl) []string {
	var out []string
	for _, p := range g.packageOrder {
		if _, ok := byPkg[p]; ok {
			out = append(out, p)
		}
	}
	var rest []string
	for p := range byPkg {
		if !slices.Contains(g.packageOrder, p) {
			rest = append(rest, p)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func isString(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "string"
}

// writeEnum writes a string type with constants as the array of their
// values and the union of them.
func writeEnum(b *strings.Builder, d *decl, vals []enumValue, zero bool) {
	name := d.spec.Name.Name
	writeDoc(b, d.doc.Text(), "")
	fmt.Fprintf(b, "export const %sValues = [\n", name)
	if zero {
		b.WriteString("  \"\", // none yet\n")
	}
	for _, v := range vals {
		fmt.Fprintf(b, "  %s,", strconv.Quote(v.value))
		if v.comment != "" {
			b.WriteString(" // " + v.comment)
		}
		b.WriteString("\n")
	}
	b.WriteString("] as const;\n")
	fmt.Fprintf(b, "export type %s = (typeof %sValues)[number];\n", name, name)
}

// writeConst writes a numeric or string constant as its value, with the
// Go expression it was written as when that differs.
func writeConst(b *strings.Builder, c constDecl) error {
	v, err := constValue(c.value)
	if err != nil {
		return err
	}
	if k := v.Kind(); k != constant.Int && k != constant.Float && k != constant.String {
		return fmt.Errorf("only numbers and strings are generated as constants; %s is a %s", types.ExprString(c.value), k)
	}
	writeDoc(b, c.doc.Text(), "")
	fmt.Fprintf(b, "export const %s = %s;", c.name, v.ExactString())
	if src := types.ExprString(c.value); src != v.ExactString() {
		b.WriteString(" // " + src)
	}
	b.WriteString("\n")
	return nil
}

// constValue works out a constant written with literals and + - * << >>.
func constValue(e ast.Expr) (constant.Value, error) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if v := constant.MakeFromLiteral(e.Value, e.Kind, 0); v.Kind() != constant.Unknown {
			return v, nil
		}
	case *ast.ParenExpr:
		return constValue(e.X)
	case *ast.BinaryExpr:
		x, err := constValue(e.X)
		if err != nil {
			return nil, err
		}
		y, err := constValue(e.Y)
		if err != nil {
			return nil, err
		}
		switch e.Op {
		case token.SHL, token.SHR:
			if n, ok := constant.Uint64Val(y); ok {
				return constant.Shift(x, e.Op, uint(n)), nil
			}
		case token.ADD, token.SUB, token.MUL:
			return constant.BinaryOp(x, e.Op, y), nil
		}
	}
	return nil, fmt.Errorf("cannot work out %s: write the constant with literals and + - * << >>", types.ExprString(e))
}

func writeDoc(b *strings.Builder, text, indent string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	b.WriteString(indent + "/**\n")
	for line := range strings.SplitSeq(text, "\n") {
		b.WriteString(strings.TrimRight(indent+" * "+line, " ") + "\n")
	}
	b.WriteString(indent + " */\n")
}

// writeAPI writes the API's methods with their arguments and results.
func (g *generator) writeAPI(b *strings.Builder, conv converter) error {
	fmt.Fprintf(b, "\n// ---- %s.%s ----\n\n", g.facadePkg, g.facade)
	writeDoc(b, "The methods the UI may call (app.API): their arguments, in order, and\nwhat they answer. A call fails with {code, message} (apperr.Error).", "")
	b.WriteString("export interface API {\n")
	var names []string
	for _, m := range g.api {
		names = append(names, strconv.Quote(m.fn.Name.Name))
		var args []string
		for _, f := range m.fn.Type.Params.List {
			ts, err := conv.expr(f.Type)
			if err != nil {
				return err
			}
			for _, n := range f.Names {
				args = append(args, n.Name+": "+ts)
			}
		}
		res := m.fn.Type.Results.List[0].Type
		ts, err := conv.expr(deref(res))
		if err != nil {
			return err
		}
		if nullable(res) {
			ts += " | null"
		}
		writeDoc(b, m.fn.Doc.Text(), "  ")
		fmt.Fprintf(b, "  %s: { args: [%s]; result: %s };\n", m.fn.Name.Name, strings.Join(args, ", "), ts)
	}
	b.WriteString("}\n\n")
	b.WriteString("/** Every method of API. */\n")
	fmt.Fprintf(b, "export const APIMethods = [\n  %s,\n] as const satisfies readonly (keyof API)[];\n", strings.Join(names, ",\n  "))
	return nil
}

// nullable reports whether a value of the type is null in JSON when nil.
func nullable(e ast.Expr) bool {
	switch e.(type) {
	case *ast.ArrayType, *ast.MapType, *ast.StarExpr:
		return true
	}
	return false
}

func deref(e ast.Expr) ast.Expr {
	if s, ok := e.(*ast.StarExpr); ok {
		return s.X
	}
	return e
}

// converter hands Go declarations to tygo.
type converter struct{ mappings, overrides map[string]string }

func (c converter) config() tygo.PackageConfig {
	return tygo.PackageConfig{TypeMappings: c.mappings, Indent: "  ", PreserveComments: "types"}
}

// decl converts one type declaration, its fields adjusted to what
// encoding/json does: embedded structs extended, nil values null.
func (c converter) decl(b *strings.Builder, d *decl) error {
	fset, src := d.pkg.fset, d.src
	start := fset.Position(d.spec.Pos()).Offset
	end := fset.Position(d.spec.End()).Offset
	if d.spec.Comment != nil {
		end = fset.Position(d.spec.Comment.End()).Offset
	}
	type edit struct {
		at, to int
		text   string
	}
	var edits []edit
	if o, ok := c.overrides[d.pkg.path+"."+d.spec.Name.Name]; ok {
		edits = append(edits, edit{fset.Position(d.spec.Type.Pos()).Offset, fset.Position(d.spec.Type.End()).Offset, o})
	} else if st, ok := d.spec.Type.(*ast.StructType); ok {
		for _, f := range st.Fields.List {
			if skipped(f) || tag(f).Get("tstype") != "" {
				continue
			}
			var add string
			switch {
			case len(f.Names) == 0 && jsonTag(f) == "":
				add = `tstype:",extends"`
			case nullable(f.Type) && !omitted(f):
				ts, err := c.expr(deref(f.Type))
				if err != nil {
					return err
				}
				add = `tstype:"` + ts + ` | null,required"`
			default:
				continue
			}
			if f.Tag == nil {
				at := fset.Position(f.Type.End()).Offset
				edits = append(edits, edit{at, at, " `" + add + "`"})
			} else {
				at, to := fset.Position(f.Tag.Pos()).Offset, fset.Position(f.Tag.End()).Offset
				edits = append(edits, edit{at, to, "`" + string(tag(f)) + " " + add + "`"})
			}
		}
	}
	var out []byte
	last := start
	for _, e := range edits {
		out = append(append(out, src[last:e.at]...), e.text...)
		last = e.to
	}
	out = append(out, src[last:end]...)

	var goSrc strings.Builder
	if d.doc != nil {
		goSrc.Write(src[fset.Position(d.doc.Pos()).Offset:fset.Position(d.doc.End()).Offset])
		goSrc.WriteString("\n")
	}
	goSrc.WriteString("type ")
	goSrc.Write(out)
	goSrc.WriteString("\n")
	ts, err := tygo.ConvertGoToTypescript(goSrc.String(), c.config())
	if err != nil {
		return err
	}
	if m := unmapped.FindString(ts); m != "" {
		return fmt.Errorf("tygo fell back to %s", m)
	}
	b.WriteString(ts)
	return nil
}

var (
	unmapped  = regexp.MustCompile(`any /\* [^*]* \*/`)
	aliasLine = regexp.MustCompile(`(?s)export type T__ = (.*);\n$`)
)

// expr converts a type expression to TypeScript.
func (c converter) expr(e ast.Expr) (string, error) {
	goSrc := "type T__ = " + types.ExprString(e)
	ts, err := tygo.ConvertGoToTypescript(goSrc, c.config())
	if err != nil {
		return "", err
	}
	got := aliasLine.FindStringSubmatch(ts)
	if got == nil {
		return "", fmt.Errorf("tygo gave %q for %s", ts, goSrc)
	}
	if m := unmapped.FindString(got[1]); m != "" {
		return "", fmt.Errorf("tygo fell back to %s", m)
	}
	return got[1], nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// aliasOf reports whether d is an alias of o: type Name = opkg.Name.
func aliasOf(d, o *decl) bool {
	if !d.spec.Assign.IsValid() || o.spec.Assign.IsValid() {
		return false
	}
	sel, ok := d.spec.Type.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == o.pkg.name && sel.Sel.Name == o.spec.Name.Name
}
