package session

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hookChecks says, for each hook method, whether a value implements its
// hook interface: a method of that name with another signature is a hook
// the session never calls.
var hookChecks = map[string]func(any) bool{
	"opened":      func(e any) bool { _, ok := e.(openedHook); return ok },
	"beforeLoad":  func(e any) bool { _, ok := e.(beforeLoadHook); return ok },
	"loaded":      func(e any) bool { _, ok := e.(loadedHook); return ok },
	"beforeRun":   func(e any) bool { _, ok := e.(beforeRunHook); return ok },
	"phaseBegins": func(e any) bool { _, ok := e.(phaseHook); return ok },
	"second":      func(e any) bool { _, ok := e.(secondHook); return ok },
	"point":       func(e any) bool { _, ok := e.(pointHook); return ok },
	"runEnded":    func(e any) bool { _, ok := e.(runEndedHook); return ok },
	"check":       func(e any) bool { _, ok := e.(checkHook); return ok },
	"completed":   func(e any) bool { _, ok := e.(completedHook); return ok },
	"judge":       func(e any) bool { _, ok := e.(judgeHook); return ok },
	"closing":     func(e any) bool { _, ok := e.(closingHook); return ok },
	"closed":      func(e any) bool { _, ok := e.(closedHook); return ok },
}

// TestExtensionHooks holds the extensions to the hooks the session calls:
// every hook interface of extension.go is in hookChecks and called by the
// session (hooks[XHook]); every extension implements at least one; and
// every method an extension declares under a hook's name implements that
// hook (a changed signature would leave it silently uncalled).
func TestExtensionHooks(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string][]string{} // receiver type → method names
	var called strings.Builder
	interfaces := map[string]string{} // hook interface → its method
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		called.Write(src)
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch d := n.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					methods[receiver(d.Recv.List[0].Type)] = append(methods[receiver(d.Recv.List[0].Type)], d.Name.Name)
				}
			case *ast.TypeSpec:
				if it, ok := d.Type.(*ast.InterfaceType); ok && strings.HasSuffix(d.Name.Name, "Hook") && len(it.Methods.List) == 1 {
					interfaces[d.Name.Name] = it.Methods.List[0].Names[0].Name
				}
			}
			return true
		})
	}
	for iface, method := range interfaces {
		if hookChecks[method] == nil {
			t.Errorf("hook %s (%s) is not in hookChecks", iface, method)
		}
		if !strings.Contains(called.String(), "hooks["+iface+"]") {
			t.Errorf("hook %s is declared but the session never calls it (hooks[%s])", iface, iface)
		}
	}
	if len(interfaces) != len(hookChecks) {
		t.Errorf("%d hook interfaces, %d in hookChecks", len(interfaces), len(hookChecks))
	}
	// A plan with a shard: newSharding gives none without one.
	for _, e := range newExtensions(&Plan{shard: &shardPlan{}}) {
		typ := strings.TrimPrefix(fmt.Sprintf("%T", e), "*session.")
		typ = strings.TrimPrefix(typ, "session.")
		var implements bool
		for _, m := range methods[typ] {
			check, isHook := hookChecks[m]
			switch {
			case !isHook:
			case !check(e):
				t.Errorf("%s.%s is named as a hook but does not implement it: the session never calls it", typ, m)
			default:
				implements = true
			}
		}
		if !implements {
			t.Errorf("extension %s implements no hook", typ)
		}
	}
}

// receiver names a method's receiver type, without its pointer.
func receiver(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
