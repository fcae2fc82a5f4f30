package main

import (
	"fmt"
	"go/ast"
	"go/types"
	"regexp"
	"strings"

	"github.com/gzuidhof/tygo/tygo"
)

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
