package main

import (
	"fmt"
	"go/ast"
	"go/types"
	"regexp"
	"slices"
	"strings"

	"github.com/gzuidhof/tygo/tygo"
)

// converter hands Go declarations to tygo.
type converter struct {
	mappings, overrides map[string]string
	// unions holds the TypeScript names of the unions (see union.go): a
	// struct that embeds one is written as an intersection with it, for
	// an interface cannot extend a union.
	unions map[string]bool
}

func (c converter) config() tygo.PackageConfig {
	return tygo.PackageConfig{TypeMappings: c.mappings, Indent: "  ", PreserveComments: "types"}
}

// declAs says how to write a declaration other than as it is: under
// another name, with another doc, without some fields (by JSON name).
type declAs struct {
	name, doc string
	drop      []string
}

// decl converts one type declaration, its fields adjusted to what
// encoding/json does: embedded structs extended, nil values null.
func (c converter) decl(b *strings.Builder, d *decl) error {
	return c.declAs(b, d, declAs{})
}

func (c converter) declAs(b *strings.Builder, d *decl, as declAs) error {
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
	if as.name != "" {
		edits = append(edits, edit{fset.Position(d.spec.Name.Pos()).Offset, fset.Position(d.spec.Name.End()).Offset, as.name})
	}
	var intersect []string // the unions it embeds
	if o, ok := c.overrides[d.pkg.path+"."+d.spec.Name.Name]; ok {
		edits = append(edits, edit{fset.Position(d.spec.Type.Pos()).Offset, fset.Position(d.spec.Type.End()).Offset, o})
	} else if st, ok := d.spec.Type.(*ast.StructType); ok {
		for _, f := range st.Fields.List {
			if skipped(f) {
				continue
			}
			if slices.Contains(as.drop, jsonName(f)) {
				at, to := f.Pos(), f.End()
				if f.Doc != nil {
					at = f.Doc.Pos()
				}
				if f.Comment != nil {
					to = f.Comment.End()
				}
				edits = append(edits, edit{fset.Position(at).Offset, fset.Position(to).Offset, ""})
				continue
			}
			if tag(f).Get("tstype") != "" {
				continue
			}
			var add string
			switch {
			case len(f.Names) == 0 && jsonTag(f) == "":
				ts, err := c.expr(deref(f.Type))
				if err != nil {
					return err
				}
				if c.unions[ts] {
					intersect = append(intersect, ts)
					edits = append(edits, edit{fset.Position(f.Pos()).Offset, fset.Position(f.End()).Offset, ""})
					continue
				}
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
	switch {
	case as.doc != "":
		for line := range strings.SplitSeq(as.doc, "\n") {
			goSrc.WriteString("// " + line + "\n")
		}
	case d.doc != nil:
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
	if len(intersect) > 0 {
		if ts, err = intersection(ts, intersect); err != nil {
			return err
		}
	}
	b.WriteString(ts)
	return nil
}

var interfaceLine = regexp.MustCompile(`(?m)^export interface (\w+)(?: extends ([^{]*?))? \{$`)

// intersection rewrites an interface tygo wrote as a type that intersects
// the unions it embeds with what it extends and its own fields:
// `export type Delivered = Event & { first_seq: number; };`.
func intersection(ts string, unions []string) (string, error) {
	m := interfaceLine.FindStringSubmatchIndex(ts)
	last := strings.LastIndex(ts, "}")
	if m == nil || last < m[1] {
		return "", fmt.Errorf("tygo gave no interface to intersect with %s: %q", strings.Join(unions, ", "), ts)
	}
	parts := slices.Clone(unions)
	if m[4] >= 0 {
		for ext := range strings.SplitSeq(ts[m[4]:m[5]], ",") {
			parts = append(parts, strings.TrimSpace(ext))
		}
	}
	head := "export type " + ts[m[2]:m[3]] + " = " + strings.Join(parts, " & ") + " & {"
	return ts[:m[0]] + head + ts[m[1]:last] + "};" + ts[last+1:], nil
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
