package docs_test

// The layers test: the map at the top of ARCHITECTURE.md is the rule. Its
// "may import" column is read from the file and checked against the imports
// of every Go package in the repository (its nested modules too), so the
// map cannot drift from the code without this test failing.

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// modulePath prefixes every package of the repository; nested modules
// (scale, frontend/typegen, bench/peer) live at their folder's path too.
const modulePath = "github.com/agentdeck/agentdeck"

func TestLayers(t *testing.T) {
	problems, err := checkLayers("..", "docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if len(problems) > 0 {
		t.Log("fix the import, or change the map in docs/ARCHITECTURE.md if the rule itself should change")
	}
}

// checkLayers reads the map from mapFile (relative to root) and the
// packages under root, and says every import the map forbids, every
// package it has no row for, and every row that names nothing.
func checkLayers(root, mapFile string) ([]string, error) {
	rows, err := readMap(root, mapFile)
	if err != nil {
		return nil, err
	}
	pkgs, err := readPackages(root)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, r := range rows {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(r.dir))); err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: the row %s names no folder of the repository", mapFile, r.line, r.key))
		}
		for _, name := range r.names {
			if _, err := resolve(rows, name); err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: %v", mapFile, r.line, err))
			}
		}
	}
	for _, p := range pkgs {
		own := rowOf(rows, p.dir)
		if own == nil {
			problems = append(problems, fmt.Sprintf("%s: the package %s has no row in %s", p.file, p.dir, mapFile))
			continue
		}
		for _, imp := range p.imports {
			to := rowOf(rows, imp.dir)
			if to == nil || to == own || own.allows(rows, to) {
				continue
			}
			problems = append(problems, fmt.Sprintf("%s: %s imports %s, which its row (%s, %s:%d) does not allow; it may import: %s",
				imp.pos, p.dir, imp.dir, own.key, mapFile, own.line, own.mayImport()))
		}
	}
	return problems, nil
}

// row is one line of the map: the packages it names and what they may import.
type row struct {
	key     string // the first cell's name, as written
	dir     string // the folder it names, slash-separated
	subtree bool   // a key ending in /... also covers the folders below
	names   []string
	line    int
}

func (r *row) covers(dir string) bool {
	return dir == r.dir || r.subtree && (r.dir == "." || strings.HasPrefix(dir, r.dir+"/"))
}

func (r *row) allows(rows []*row, to *row) bool {
	for _, name := range r.names {
		if target, err := resolve(rows, name); err == nil && target == to {
			return true
		}
	}
	return false
}

func (r *row) mayImport() string {
	if len(r.names) == 0 {
		return "nothing of the module"
	}
	return strings.Join(r.names, ", ")
}

// rowOf is the row that covers dir most closely, or nil.
func rowOf(rows []*row, dir string) *row {
	var best *row
	for _, r := range rows {
		if r.covers(dir) && (best == nil || len(r.dir) > len(best.dir)) {
			best = r
		}
	}
	return best
}

// resolve finds the row a name of the last column means: the row of that
// key, or of backend/ and that key, with or without /....
func resolve(rows []*row, name string) (*row, error) {
	for _, key := range []string{name, name + "/...", "backend/" + name, "backend/" + name + "/..."} {
		for _, r := range rows {
			if r.key == key {
				return r, nil
			}
		}
	}
	return nil, fmt.Errorf("%q in the last column is no row of the map", name)
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// readMap reads the first table of mapFile whose header starts "| package".
func readMap(root, mapFile string) ([]*row, error) {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(mapFile)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []*row
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case !in && strings.HasPrefix(line, "| package"):
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "|"):
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if len(cells) != 3 {
				return nil, fmt.Errorf("%s:%d: a row of the map has %d cells, not 3", mapFile, n, len(cells))
			}
			var names []string
			for _, m := range codeSpan.FindAllStringSubmatch(cells[2], -1) {
				names = append(names, m[1])
			}
			for _, m := range codeSpan.FindAllStringSubmatch(cells[0], -1) {
				rows = append(rows, newRow(m[1], names, n))
			}
		case in:
			return rows, sc.Err()
		}
	}
	if !in {
		return nil, fmt.Errorf("%s: no table whose header starts \"| package\"", mapFile)
	}
	return rows, sc.Err()
}

func newRow(key string, names []string, line int) *row {
	r := &row{key: key, names: names, line: line}
	dir, sub := strings.CutSuffix(key, "/...")
	if strings.HasSuffix(dir, ".go") {
		dir = path.Dir(dir) // main.go names the package of its folder
	}
	r.dir, r.subtree = path.Clean(dir), sub
	return r
}

// pkg is one folder's non-test Go files and the imports of this
// repository's packages they make.
type pkg struct {
	dir     string
	file    string // its first file, for a package with no row
	imports []edge
}

type edge struct {
	dir string         // the imported package's folder
	pos token.Position // where the import is written
}

// readPackages parses the imports of every non-test Go file under root,
// whatever its build tags: a file built only for the window or for Windows
// obeys the map too.
func readPackages(root string) ([]pkg, error) {
	byDir := map[string]*pkg{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := path.Dir(rel)
		pk := byDir[dir]
		if pk == nil {
			pk = &pkg{dir: dir, file: rel}
			byDir[dir] = pk
		}
		for _, spec := range f.Imports {
			ip, _ := strconv.Unquote(spec.Path.Value)
			to, ok := repoDir(ip)
			if !ok {
				continue
			}
			pos := fset.Position(spec.Pos())
			pos.Filename = rel
			pk.imports = append(pk.imports, edge{dir: to, pos: pos})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var pkgs []pkg
	for _, p := range byDir {
		pkgs = append(pkgs, *p)
	}
	slices.SortFunc(pkgs, func(a, b pkg) int { return strings.Compare(a.dir, b.dir) })
	return pkgs, nil
}

// repoDir is the folder of an import path of this repository.
func repoDir(importPath string) (string, bool) {
	if importPath == modulePath {
		return ".", true
	}
	rest, ok := strings.CutPrefix(importPath, modulePath+"/")
	return rest, ok
}
