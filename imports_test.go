package lettershop_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/lettershop/lettershop"

// listedPackage is what TestImports reads of go list's description of a
// package.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

// listPackages lists the module's packages with go list.
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to read the import graph: %v", err)
	}
	cmd := exec.Command(goTool, "list", "-json=ImportPath,Dir,GoFiles,Imports", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	return pkgs
}

// importRule is one line of the table of allowed imports.
type importRule struct {
	allowed []string // module packages, relative to the module ("lettershop" is the root)
	any     bool     // (any): every package of the module
	stdOnly bool     // (std only): no package outside the standard library either
}

// importTable is where the table of allowed imports is written.
const importTable = "docs/architecture.md"

// readImportRules reads the table of allowed imports from importTable: the
// lines "package -> allowed, allowed" of the code block of its section
// "The allowed imports". A package ending in /... covers every package
// under it.
func readImportRules(t *testing.T) map[string]importRule {
	t.Helper()
	f, err := os.Open(importTable)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules := map[string]importRule{}
	sc := bufio.NewScanner(f)
	section, block := false, false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			section = line == "## The allowed imports"
			continue
		}
		if section && strings.HasPrefix(line, "```") {
			block = !block
			continue
		}
		if !section || !block {
			continue
		}
		pkg, allowed, ok := strings.Cut(line, "->")
		if !ok {
			continue
		}
		pkg = strings.Fields(pkg)[0]
		var r importRule
		switch allowed = strings.TrimSpace(allowed); allowed {
		case "(any)":
			r.any = true
		case "(std only)":
			r.stdOnly = true
		case "(none)":
		default:
			for _, a := range strings.Split(allowed, ",") {
				r.allowed = append(r.allowed, strings.TrimSpace(a))
			}
		}
		if _, dup := rules[pkg]; dup {
			t.Errorf("%s: two rules for %s", importTable, pkg)
		}
		rules[pkg] = r
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rules) == 0 {
		t.Fatalf("%s has no table of allowed imports", importTable)
	}
	return rules
}

// relative is a package's path in the module: "lettershop" for the root.
func relative(path string) string {
	if path == module {
		return "lettershop"
	}
	return strings.TrimPrefix(path, module+"/")
}

// ruleFor is the rule covering rel.
func ruleFor(rules map[string]importRule, rel string) (importRule, bool) {
	if r, ok := rules[rel]; ok {
		return r, true
	}
	for pkg, r := range rules {
		if prefix, ok := strings.CutSuffix(pkg, "/..."); ok && (rel == prefix || strings.HasPrefix(rel, prefix+"/")) {
			return r, true
		}
	}
	return importRule{}, false
}

// TestImports checks the module's import graph against the allowed
// imports the table lists, so the layering cannot rot: the root above storage,
// usps and the simulations; the simulations and the stores never above the
// root; a concrete store only in lettershoptest and the commands. Tests may
// import what they need.
func TestImports(t *testing.T) {
	rules := readImportRules(t)
	for _, p := range listPackages(t) {
		rel := relative(p.ImportPath)
		r, ok := ruleFor(rules, rel)
		if !ok {
			t.Errorf("%s has no rule in the table of allowed imports (%s): add one", rel, importTable)
			continue
		}
		for _, imp := range p.Imports {
			inModule := imp == module || strings.HasPrefix(imp, module+"/")
			switch {
			case !inModule && r.stdOnly && strings.Contains(strings.Split(imp, "/")[0], "."):
				t.Errorf("%s imports %s: it may import the standard library only", rel, imp)
			case !inModule, r.any:
			case !slices.Contains(r.allowed, relative(imp)):
				t.Errorf("%s imports %s: %s allows it only %s", rel, relative(imp), importTable, allowedList(r))
			}
		}
	}
}

// layers are arrows that must never point back, whatever the table says:
// a package on the left never reaches, directly or through others, a
// package on the right. The domain is below the wire and the delivery
// engine, which are below the adapter; the stores are below the domain.
var layers = []struct {
	pkg   string
	never []string
}{
	{"lettershop", []string{"wire", "delivery", "await", "httpadapter", "inbox", "lettershoptest", "client", "memstore", "pgstore"}},
	{"await", []string{"httpadapter", "inbox", "lettershoptest", "memstore", "pgstore"}},
	{"wire", []string{"delivery", "httpadapter", "inbox", "lettershoptest", "memstore", "pgstore"}},
	{"delivery", []string{"httpadapter", "inbox", "lettershoptest", "memstore", "pgstore"}},
	{"storage", []string{"lettershop"}},
	{"memstore", []string{"lettershop"}},
	{"pgstore", []string{"lettershop"}},
	{"internal/idem", []string{"lettershop"}},
	{"internal/pairjson", []string{"lettershop"}},
}

// TestLayering checks the arrows of layers on the module's import graph,
// followed through every package between.
func TestLayering(t *testing.T) {
	imports := map[string][]string{}
	for _, p := range listPackages(t) {
		for _, imp := range p.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				imports[relative(p.ImportPath)] = append(imports[relative(p.ImportPath)], relative(imp))
			}
		}
	}
	for _, l := range layers {
		// via[p] is a package through which l.pkg reaches p.
		via := map[string]string{l.pkg: ""}
		queue := []string{l.pkg}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, imp := range imports[p] {
				if _, seen := via[imp]; !seen {
					via[imp] = p
					queue = append(queue, imp)
				}
			}
		}
		for _, above := range l.never {
			if _, reached := via[above]; !reached {
				continue
			}
			path := []string{above}
			for p := via[above]; p != ""; p = via[p] {
				path = append([]string{p}, path...)
			}
			t.Errorf("%s reaches %s (%s): it must never", l.pkg, above, strings.Join(path, " -> "))
		}
	}
}

func allowedList(r importRule) string {
	if len(r.allowed) == 0 {
		return "no package of this module"
	}
	return strings.Join(r.allowed, ", ")
}

// pure are the packages that read no clock: time comes in as an argument.
var pure = []string{"usps", "postal", "cass", "ncoa"}

// clockReads are the functions of package time that read the clock or
// wait on it.
var clockReads = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTicker", "NewTimer"}

// TestPurePackagesReadNoClock checks that the simulations and usps take
// time as an argument and never read it.
func TestPurePackagesReadNoClock(t *testing.T) {
	for _, p := range listPackages(t) {
		if !slices.Contains(pure, relative(p.ImportPath)) {
			continue
		}
		for _, name := range p.GoFiles {
			path := filepath.Join(p.Dir, name)
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			timeName := ""
			for _, imp := range f.Imports {
				if imp.Path.Value == `"time"` {
					timeName = "time"
					if imp.Name != nil {
						timeName = imp.Name.Name
					}
				}
			}
			if timeName == "" {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == timeName && slices.Contains(clockReads, sel.Sel.Name) {
					t.Errorf("%s: %s.%s reads the clock; %s is pure and takes time as an argument",
						filepath.Join(relative(p.ImportPath), name), timeName, sel.Sel.Name, relative(p.ImportPath))
				}
				return true
			})
		}
	}
}

// ownRequestsExempt are the packages that may make HTTP requests and dial
// without package egress: egress itself, the client of lettershop's API
// (its requests are its user's, to lettershop), the commands, the test
// helpers.
var ownRequestsExempt = []string{"egress", "client", "lettershoptest", "cmd/...", "internal/..."}

// TestOwnRequestsGoThroughEgress checks that no other package makes an
// HTTP client, a transport or a dialer of its own, or uses net/http's
// defaults: every request lettershop makes itself goes through package
// egress, so its policy holds for all of them (docs/egress.md).
func TestOwnRequestsGoThroughEgress(t *testing.T) {
	made := map[string][]string{
		"net/http": {"Client", "Transport"},
		"net":      {"Dialer"},
	}
	used := map[string][]string{
		"net/http": {"DefaultClient", "DefaultTransport", "Get", "Head", "Post", "PostForm"},
		"net":      {"Dial", "DialTimeout", "DialTCP", "DialUDP", "DialIP", "DialUnix"},
	}
	for _, p := range listPackages(t) {
		rel := relative(p.ImportPath)
		exempt := false
		for _, e := range ownRequestsExempt {
			if prefix, ok := strings.CutSuffix(e, "/..."); ok && (rel == prefix || strings.HasPrefix(rel, prefix+"/")) || rel == e {
				exempt = true
			}
		}
		if exempt {
			continue
		}
		for _, name := range p.GoFiles {
			path := filepath.Join(p.Dir, name)
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]string{} // local name -> import path
			for _, imp := range f.Imports {
				ip := strings.Trim(imp.Path.Value, `"`)
				if _, ok := made[ip]; !ok {
					continue
				}
				local := filepath.Base(ip)
				if imp.Name != nil {
					local = imp.Name.Name
				}
				names[local] = ip
			}
			if len(names) == 0 {
				continue
			}
			is := func(e ast.Expr, in map[string][]string) (string, bool) {
				sel, ok := e.(*ast.SelectorExpr)
				if !ok {
					return "", false
				}
				id, ok := sel.X.(*ast.Ident)
				if !ok || names[id.Name] == "" {
					return "", false
				}
				return names[id.Name] + "." + sel.Sel.Name, slices.Contains(in[names[id.Name]], sel.Sel.Name)
			}
			where := filepath.Join(rel, name)
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CompositeLit:
					if what, ok := is(n.Type, made); ok {
						t.Errorf("%s makes a %s: lettershop's own requests go through package egress", where, what)
					}
				case *ast.CallExpr:
					if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "new" && len(n.Args) == 1 {
						if what, ok := is(n.Args[0], made); ok {
							t.Errorf("%s makes a %s: lettershop's own requests go through package egress", where, what)
						}
					}
				case *ast.SelectorExpr:
					if what, ok := is(n, used); ok {
						t.Errorf("%s uses %s: lettershop's own requests go through package egress", where, what)
					}
				}
				return true
			})
		}
	}
}

// A constant of a named type is declared with its type (X T = "x"), not as
// a conversion (X = T("x")): go doc lists a constant under its type only
// when the declaration names the type, and a reader looking up the type
// should find its values there.
func TestConstantsNameTheirType(t *testing.T) {
	for _, p := range listPackages(t) {
		fset := token.NewFileSet()
		types := map[string]bool{}
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
					for _, s := range g.Specs {
						types[s.(*ast.TypeSpec).Name.Name] = true
					}
				}
			}
		}
		for _, f := range files {
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				for _, s := range g.Specs {
					v := s.(*ast.ValueSpec)
					if v.Type != nil || len(v.Values) != 1 || !v.Names[0].IsExported() {
						continue
					}
					call, ok := v.Values[0].(*ast.CallExpr)
					if !ok {
						continue
					}
					if fn, ok := call.Fun.(*ast.Ident); ok && types[fn.Name] {
						t.Errorf("%s: %s = %s(...): write %s %s = ..., so go doc lists it under %s",
							fset.Position(v.Pos()), v.Names[0].Name, fn.Name, v.Names[0].Name, fn.Name, fn.Name)
					}
				}
			}
		}
	}
}

// TestHelperCarriesNoDriverNorMetrics checks that a test binary that
// imports lettershoptest (and the client it returns) links neither the
// PostgreSQL driver nor the Prometheus client: lettershoptest/pgtest and
// prom are apart so that only a binary that asks for them carries them.
// The handler, whose users embed it, is held to the same.
func TestHelperCarriesNoDriverNorMetrics(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to read the import graph: %v", err)
	}
	for _, pkg := range []string{"./lettershoptest", "./httpadapter", "./client"} {
		out, err := exec.Command(goTool, "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for dep := range strings.FieldsSeq(string(out)) {
			for _, heavy := range []string{"github.com/prometheus/", "github.com/jackc/pgx"} {
				if strings.HasPrefix(dep, heavy) {
					t.Errorf("%s imports %s", pkg, dep)
				}
			}
		}
	}
}

// TestNoTablesBuiltAtInit checks that go-runewidth, which pdfcpu's form
// package brings into every binary that renders, is a version that builds
// its width tables when first asked: v0.0.27 filled 2.2 MB of them in its
// init, 30 to 70 ms of every start of the server and of every test binary
// that imports lettershoptest, a PDF's text being the only thing here that
// measures a width.
func TestNoTablesBuiltAtInit(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to read the module graph: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-m", "-f", "{{if .Replace}}{{.Replace.Version}}{{else}}{{.Version}}{{end}}", "github.com/mattn/go-runewidth").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/mattn/go-runewidth: %v", err)
	}
	version := strings.TrimSpace(string(out))
	var patch int
	if _, err := fmt.Sscanf(version, "v0.0.%d", &patch); err == nil && patch < 28 {
		t.Errorf("github.com/mattn/go-runewidth %s builds its tables at init; v0.0.28 builds them on first use", version)
	}
}
