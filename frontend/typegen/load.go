package main

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// pkg is one Go package of the module, parsed.
type pkg struct {
	path  string // in the module: "app", "backend/turn"
	name  string
	fset  *token.FileSet
	types map[string]*decl
	// enums holds the constants of each string type, in source order.
	enums map[string][]enumValue
	// consts holds every exported constant declared alone (one name, one value).
	consts map[string]constDecl
	// marshals lists the types with a MarshalJSON method.
	marshals map[string]bool
	// methods holds the methods of each type, in source order.
	methods map[string][]method
	files   map[*ast.File]fileInfo
}

// decl is one type declaration.
type decl struct {
	pkg  *pkg
	spec *ast.TypeSpec
	doc  *ast.CommentGroup
	file *ast.File
	src  []byte // the file's text
	// order sorts declarations as they appear: file name, then offset.
	order string
}

type fileInfo struct {
	name    string
	src     []byte
	imports map[string]string // local name to import path
}

type method struct {
	fn   *ast.FuncDecl
	file *ast.File
}

// constDecl is one constant, its value as written.
type constDecl struct {
	name  string
	value ast.Expr
	doc   *ast.CommentGroup
}

type enumValue struct {
	value   string
	comment string
}

// loader parses the module's packages on demand.
type loader struct {
	root string
	pkgs map[string]*pkg
}

func (l *loader) load(path string) (*pkg, error) {
	if p, ok := l.pkgs[path]; ok {
		return p, nil
	}
	dir := filepath.Join(l.root, filepath.FromSlash(path))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	p := &pkg{path: path, fset: token.NewFileSet(), types: map[string]*decl{}, enums: map[string][]enumValue{}, consts: map[string]constDecl{},
		marshals: map[string]bool{}, methods: map[string][]method{}, files: map[*ast.File]fileInfo{}}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		// The files a build on this machine compiles, as go build picks them.
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(p.fset, filepath.Join(dir, name), src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		p.name = f.Name.Name
		p.add(f, fileInfo{name: name, src: src, imports: imports(f)})
	}
	if p.name == "" {
		return nil, fmt.Errorf("%s: no Go files", path)
	}
	l.pkgs[path] = p
	return p, nil
}

func imports(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		local := path[strings.LastIndexByte(path, '/')+1:]
		if im.Name != nil {
			local = im.Name.Name
		}
		out[local] = path
	}
	return out
}

// add records a file's type declarations, string constants and methods.
func (p *pkg) add(f *ast.File, fi fileInfo) {
	p.files[f] = fi
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					doc := s.Doc
					if doc == nil && len(d.Specs) == 1 {
						doc = d.Doc
					}
					p.types[s.Name.Name] = &decl{pkg: p, spec: s, doc: doc, file: f, src: fi.src,
						order: fmt.Sprintf("%s:%08d", fi.name, p.fset.Position(s.Pos()).Offset)}
				case *ast.ValueSpec:
					doc := s.Doc
					if doc == nil && len(d.Specs) == 1 {
						doc = d.Doc
					}
					p.addConst(d.Tok, s, doc)
				}
			}
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) != 1 {
				continue
			}
			recv := d.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			if id, ok := recv.(*ast.Ident); ok {
				p.methods[id.Name] = append(p.methods[id.Name], method{fn: d, file: f})
				if d.Name.Name == "MarshalJSON" {
					p.marshals[id.Name] = true
				}
			}
		}
	}
}

// addConst records constants: every one declared alone, and the values of
// `Name Type = "value"` constants by type.
func (p *pkg) addConst(tok token.Token, s *ast.ValueSpec, doc *ast.CommentGroup) {
	if tok != token.CONST || len(s.Names) != 1 || len(s.Values) != 1 || !s.Names[0].IsExported() {
		return
	}
	p.consts[s.Names[0].Name] = constDecl{name: s.Names[0].Name, value: s.Values[0], doc: doc}
	typ, ok := s.Type.(*ast.Ident)
	if !ok {
		return
	}
	lit, ok := s.Values[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return
	}
	v, err := strconv.Unquote(lit.Value)
	if err != nil {
		return
	}
	comment := ""
	if s.Comment != nil {
		comment = strings.TrimSpace(s.Comment.Text())
	}
	p.enums[typ.Name] = append(p.enums[typ.Name], enumValue{value: v, comment: comment})
}

// sorted returns decls in source order.
func sorted(ds []*decl) []*decl {
	slices.SortFunc(ds, func(a, b *decl) int { return strings.Compare(a.order, b.order) })
	return ds
}
