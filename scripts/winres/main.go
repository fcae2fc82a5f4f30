// Command winres gives the Windows build of Agentdeck its resources (the
// icon, the application manifest and the version information) the way
// `wails build` does, from the same files in build/windows, without the
// rest of Wails' build: it renders Wails' templates (wails.exe.manifest,
// info.json) with wails.json's info and the version from git, and writes a
// COFF object that `go build` links into the .exe. It also reads an .exe
// back and says whether the resources are in it, for make package's check.
//
//	go run ./scripts/winres syso  -version V -numeric X.Y.Z -out rsrc_windows_amd64.syso
//	go run ./scripts/winres check -version V agentdeck.exe
//
// It runs from the repository's root.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/tc-hib/winres"
	"github.com/tc-hib/winres/version"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "winres:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: winres syso or check, then its flags")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	ver := fs.String("version", "", "the app's version (scripts/version.sh)")
	numeric := fs.String("numeric", "", "its X.Y.Z (scripts/version.sh --numeric)")
	dst := fs.String("out", "rsrc_windows_amd64.syso", "the object file to write")
	root := fs.String("root", ".", "the repository's root")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *ver == "" {
		return errors.New("-version is required")
	}
	switch args[0] {
	case "syso":
		rs, err := resources(*root, *ver, *numeric)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := rs.WriteObject(&buf, winres.ArchAMD64); err != nil {
			return fmt.Errorf("writing the resources: %w", err)
		}
		return os.WriteFile(*dst, buf.Bytes(), 0o644)
	case "check":
		if fs.NArg() != 1 {
			return errors.New("usage: winres check -version V FILE.exe")
		}
		summary, err := check(fs.Arg(0), *ver)
		if err != nil {
			return err
		}
		fmt.Fprintln(out, summary)
		return nil
	}
	return fmt.Errorf("unknown command %q (syso or check)", args[0])
}

// projectData is what Wails' templates in build/windows are rendered with
// (the fields of its ProjectData they use).
type projectData struct {
	Name string `json:"name"`
	Info struct {
		CompanyName    string `json:"companyName"`
		ProductName    string `json:"productName"`
		ProductVersion string `json:"productVersion"`
		Copyright      string `json:"copyright"`
		Comments       string `json:"comments"`
	} `json:"info"`
}

// resources is the icon, the manifest and the version information for
// version ver (numeric is its X.Y.Z, for the fields Windows wants as
// numbers; the full version goes in the ProductVersion string).
func resources(root, ver, numeric string) (*winres.ResourceSet, error) {
	if numeric == "" {
		numeric = "0.0.0"
	}
	raw, err := os.ReadFile(filepath.Join(root, "wails.json"))
	if err != nil {
		return nil, err
	}
	var pd projectData
	if err := json.Unmarshal(raw, &pd); err != nil {
		return nil, fmt.Errorf("wails.json: %w", err)
	}
	pd.Info.ProductVersion = numeric

	rs := &winres.ResourceSet{}
	f, err := os.Open(filepath.Join(root, "build", "windows", "icon.ico"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ico, err := winres.LoadICO(f)
	if err != nil {
		return nil, fmt.Errorf("build/windows/icon.ico: %w", err)
	}
	if err := rs.SetIcon(winres.RT_ICON, ico); err != nil {
		return nil, err
	}

	manifest, err := render(root, "wails.exe.manifest", pd)
	if err != nil {
		return nil, err
	}
	m, err := winres.AppManifestFromXML(manifest)
	if err != nil {
		return nil, fmt.Errorf("build/windows/wails.exe.manifest: %w", err)
	}
	rs.SetManifest(m)

	info, err := render(root, "info.json", pd)
	if err != nil {
		return nil, err
	}
	var vi version.Info
	if err := vi.UnmarshalJSON(info); err != nil {
		return nil, fmt.Errorf("build/windows/info.json: %w", err)
	}
	vi.SetProductVersion(numeric)
	if err := vi.Set(0, version.ProductVersion, ver); err != nil {
		return nil, err
	}
	if err := vi.Set(0, version.OriginalFilename, "agentdeck.exe"); err != nil {
		return nil, err
	}
	rs.SetVersionInfo(vi)
	return rs, nil
}

// render fills build/windows/name, one of Wails' templates.
func render(root, name string, pd projectData) ([]byte, error) {
	src, err := os.ReadFile(filepath.Join(root, "build", "windows", name))
	if err != nil {
		return nil, err
	}
	t, err := template.New(name).Option("missingkey=error").Parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("build/windows/%s: %w", name, err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, pd); err != nil {
		return nil, fmt.Errorf("build/windows/%s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// check reads exe's resources and says what it found, or what is missing:
// an icon with a 256 px image, a manifest, and version information whose
// ProductVersion is ver.
func check(exe, ver string) (string, error) {
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	rs, err := winres.LoadFromEXE(f)
	if err != nil && strings.Contains(err.Error(), "doesn't have a resource directory") {
		// winres says so with an unexported error's text.
		return "", fmt.Errorf("%s: it has no resources: no icon, no application manifest, no version information", exe)
	}
	if err != nil {
		return "", fmt.Errorf("%s: reading its resources: %w", exe, err)
	}
	var problems []string
	var iconSizes []string
	var groups int
	rs.WalkType(winres.RT_GROUP_ICON, func(id winres.Identifier, _ uint16, _ []byte) bool {
		groups++
		sizes, err := iconSizesOf(rs, id)
		if err != nil {
			problems = append(problems, "its icon cannot be read: "+err.Error())
		}
		iconSizes = sizes
		return false
	})
	switch {
	case groups == 0:
		problems = append(problems, "it has no icon")
	case !contains(iconSizes, "256") || !contains(iconSizes, "16"):
		problems = append(problems, "its icon lacks the 16 or 256 px image: "+strings.Join(iconSizes, ","))
	}
	if !has(rs, winres.RT_MANIFEST) {
		problems = append(problems, "it has no application manifest")
	}
	var product string
	rs.WalkType(winres.RT_VERSION, func(_ winres.Identifier, _ uint16, data []byte) bool {
		vi, err := version.FromBytes(data)
		if err != nil {
			problems = append(problems, "its version information cannot be read: "+err.Error())
			return false
		}
		raw, err := vi.MarshalJSON()
		if err != nil {
			problems = append(problems, "its version information cannot be read: "+err.Error())
			return false
		}
		var parsed struct {
			Info map[string]map[string]string `json:"info"`
		}
		if err := json.Unmarshal(raw, &parsed); err != nil {
			problems = append(problems, "its version information cannot be read: "+err.Error())
		}
		for _, table := range parsed.Info {
			product = table[version.ProductVersion]
		}
		return false
	})
	if product != ver {
		problems = append(problems, fmt.Sprintf("its ProductVersion is %q, not %q", product, ver))
	}
	if len(problems) > 0 {
		return "", fmt.Errorf("%s: %s", exe, strings.Join(problems, "; "))
	}
	return fmt.Sprintf("%s: icon (%s px), manifest, ProductVersion %s", exe, strings.Join(iconSizes, ", "), product), nil
}

// iconSizesOf is the widths of the images in icon group id, read from
// the .ico the group makes (winres keeps the images to itself).
func iconSizesOf(rs *winres.ResourceSet, id winres.Identifier) ([]string, error) {
	icon, err := rs.GetIcon(id)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := icon.SaveICO(&buf); err != nil {
		return nil, err
	}
	ico := buf.Bytes()
	if len(ico) < 6 {
		return nil, errors.New("an empty icon")
	}
	n := int(ico[4]) | int(ico[5])<<8
	var sizes []string
	for i := range n {
		at := 6 + 16*i
		if at >= len(ico) {
			return nil, errors.New("a truncated icon directory")
		}
		w := int(ico[at])
		if w == 0 { // 0 means 256 in an icon directory
			w = 256
		}
		sizes = append(sizes, fmt.Sprint(w))
	}
	return sizes, nil
}

func has(rs *winres.ResourceSet, typ winres.Identifier) bool {
	found := false
	rs.WalkType(typ, func(winres.Identifier, uint16, []byte) bool { found = true; return false })
	return found
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
