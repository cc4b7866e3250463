// Package archtest enforces the import rules of docs/architecture.md:
//
//  1. a workload never imports a backend package, and a backend never imports
//     a workload (they meet only in catalog, through the contracts);
//  2. siblings never import siblings (shared code moves up into the contract
//     or a leaf), except the *test helper packages, from test files;
//  3. only cli and cmd print or exit: no package below cli imports the
//     process (os.Exit is checked by the linters' forbidigo rule);
//  4. internal/server, what every managed server shares, imports no database
//     driver and no engine: an engine's managed server lives in its folder;
//  5. cmd/dbgauge imports only cli (and the standard library), its tests
//     aside: everything the process does, the children it starts of itself
//     too, is cli's;
//  6. no environment variable of dbgauge's own (EnvNames) carries part of a
//     command line: a child is told what to do by its spec (internal/child);
//  7. only test files import internal/testenv, whose CI=true is the tests'
//     switch, never the product's;
//  8. an engine starts its managed server only through the kit (a
//     server.Instance: New, Reopened, Beside, then Launch): no engine's code
//     outside its tests calls the kit's lower steps (KitBypasses), so that
//     every server gets the same account, folders, port, cgroup, readiness
//     and clean-up; and an engine reaches another engine's server only
//     through the kit too, never by importing it (rule 2);
//  9. no code of dbgauge's, tests included, reaches beneath another
//     module's public API or the runtime's (Tricks): no unexported field
//     through reflect and unsafe, no linkname directive. A library that must
//     change is patched as its authors would (third_party/, with its
//     DBGAUGE.md).
//
// It also holds docs/architecture.md to the tree (DocGaps): every package
// folder the page names exists, and it names every package under internal/.
package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Violation is one import that breaks a rule.
type Violation struct {
	File, Importer, Imported, Rule string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s: %s imports %s: %s", v.File, v.Importer, v.Imported, v.Rule)
}

// Check walks the Go files under root (a module whose path is module) and
// returns every import that breaks a rule.
func Check(root, module string) ([]Violation, error) {
	var out []Violation
	fset := token.NewFileSet()
	err := goFiles(root, func(p string) error {
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := path.Join(module, filepath.ToSlash(rel))
		test := strings.HasSuffix(p, "_test.go")
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			if rule := broken(module, pkg, ip, test); rule != "" {
				out = append(out, Violation{File: p, Importer: pkg, Imported: ip, Rule: rule})
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, err
}

// goFiles calls fn with the path of every Go file under root, tests
// included; testdata, hidden folders and third_party (other authors' code,
// DBGAUGE.md in each) not.
func goFiles(root string, fn func(path string) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "third_party") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		return fn(p)
	})
}

// family returns the contract a package belongs to ("workload" or "backend")
// and its child folder ("nms"), or "" for packages outside both families.
func family(module, pkg string) (string, string) {
	rest, ok := strings.CutPrefix(pkg, module+"/internal/")
	if !ok {
		return "", ""
	}
	parts := strings.Split(rest, "/")
	if parts[0] != "workload" && parts[0] != "backend" {
		return "", ""
	}
	if len(parts) == 1 {
		return parts[0], ""
	}
	return parts[0], parts[1]
}

// drivers are the database drivers (and database/sql) dbgauge's engines use.
var drivers = []string{"database/sql", "github.com/jackc/pgx", "github.com/go-sql-driver/mysql", "github.com/nakagami/firebirdsql",
	"github.com/mattn/go-sqlite3", "go.etcd.io/bbolt", "github.com/cockroachdb/pebble"}

// serverRule is rule 4.
func serverRule(module, importer, imported string) string {
	if importer != module+"/internal/server" {
		return ""
	}
	if strings.HasPrefix(imported, module+"/internal/backend") {
		return "the server package imports no engine; an engine's managed server lives in its folder"
	}
	for _, d := range drivers {
		if imported == d || strings.HasPrefix(imported, d+"/") {
			return "the server package imports no database driver; an engine's managed server lives in its folder"
		}
	}
	return ""
}

// mainRule is rule 5: a command imports no package of the module but cli
// (its tests, which run the built binary, may read its results).
func mainRule(module, importer, imported string, test bool) string {
	if test || !strings.HasPrefix(importer, module+"/cmd/") || !strings.HasPrefix(imported, module+"/") || imported == module+"/internal/cli" {
		return ""
	}
	return "cmd/dbgauge imports only cli; what the process does is cli's"
}

// testenvRule is rule 7.
func testenvRule(module, imported string, test bool) string {
	if test || imported != module+"/internal/testenv" {
		return ""
	}
	return "only test files import testenv: what a test needs of the machine is no switch of the product's"
}

func broken(module, importer, imported string, test bool) string {
	if r := testenvRule(module, imported, test); r != "" {
		return r
	}
	if r := serverRule(module, importer, imported); r != "" {
		return r
	}
	if r := mainRule(module, importer, imported, test); r != "" {
		return r
	}
	fa, ca := family(module, importer)
	fb, cb := family(module, imported)
	if fa == "" || fb == "" {
		return ""
	}
	switch {
	case fa == "workload" && fb == "backend" && cb != "":
		return "a workload never imports a backend package; they meet in catalog"
	case fa == "backend" && fb == "workload":
		return "a backend never imports a workload"
	case fa == fb && ca != "" && cb != "" && ca != cb:
		if test && strings.HasSuffix(cb, "test") {
			return "" // shared test helpers (backendtest, workloadtest)
		}
		return "siblings never import siblings; move shared code up into the contract or a leaf"
	}
	return ""
}

// envPrefix begins the names of dbgauge's own environment variables, once a
// second command line for its children; spelt in two so that this file
// holds none.
const envPrefix = "DBGAUGE" + "_"

// EnvNames returns, as file:line, every line of a Go file under root (tests
// included, testdata not) that names an environment variable of dbgauge's
// own (rule 6).
func EnvNames(root string) ([]string, error) {
	return matchingLines(root, func(line string) []string {
		if strings.Contains(line, envPrefix) {
			return []string{""}
		}
		return nil
	})
}

// forbidden are the tricks that reach beneath another module's public API
// or the runtime's (rule 9): reading or writing an unexported field through
// reflect and unsafe, and binding to a private symbol. Spelt in two so that
// this file holds none.
var forbidden = []string{"reflect." + "NewAt", ".Unsafe" + "Addr()", "go:" + "linkname"}

// Tricks returns, as file:line: TRICK, every line of a Go file under root
// (tests included) that uses one of the forbidden tricks (rule 9).
func Tricks(root string) ([]string, error) {
	return matchingLines(root, func(line string) []string {
		var found []string
		for _, f := range forbidden {
			if strings.Contains(line, f) {
				found = append(found, ": "+f)
			}
		}
		return found
	})
}

// matchingLines returns file:line followed by each of what match says of
// that line, for every line of a Go file under root (goFiles) it says
// something of.
func matchingLines(root string, match func(line string) []string) ([]string, error) {
	var out []string
	err := goFiles(root, func(p string) error {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range match(line) {
				out = append(out, fmt.Sprintf("%s:%d%s", p, i+1, m))
			}
		}
		return nil
	})
	return out, err
}

// kitSteps are the kit's lower steps, which only the kit itself and tests
// call (rule 8): an engine's server is an Instance.
var kitSteps = []string{"Start", "StartOn", "StartEnv", "Launch", "MakeFolders", "AccountFor"}

// KitBypasses returns, as file:line: CALL, every call of one of the kit's
// lower steps (server.Start, …) in the non-test Go files of the engine
// folders under root (rule 8).
func KitBypasses(root string) ([]string, error) {
	var out []string
	err := goFiles(root, func(p string) error {
		if strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		name := ""
		for _, im := range f.Imports {
			if v, _ := strconv.Unquote(im.Path.Value); strings.HasSuffix(v, "/internal/server") {
				name = "server"
				if im.Name != nil {
					name = im.Name.Name
				}
			}
		}
		if name == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && slices.Contains(kitSteps, sel.Sel.Name) {
				out = append(out, fmt.Sprintf("%s:%d: %s.%s", p, fset.Position(sel.Pos()).Line, name, sel.Sel.Name))
			}
			return true
		})
		return nil
	})
	return out, err
}
