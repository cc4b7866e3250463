package archtest

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// docPath is a package path named in a document's text: internal/… or
// cmd/…, not inside another path.
var docPath = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])((?:internal|cmd)(?:/[A-Za-z0-9_.-]+)+)`)

// DocPaths returns the package folders doc (docs/architecture.md) names,
// sorted: in its package tree (the first code block: a line
// "internal/NAME/  what it is", its children below it indented by four
// spaces, "a/ b/  what they are"), and anywhere as internal/… or cmd/… (a
// file named that way names its folder).
func DocPaths(doc string) []string {
	seen := map[string]bool{}
	inBlock, parent := false, ""
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock {
			fields := strings.Fields(line)
			switch {
			case len(fields) == 0:
			case !strings.HasPrefix(line, " "):
				if f := fields[0]; strings.HasSuffix(f, "/") && (strings.HasPrefix(f, "internal/") || strings.HasPrefix(f, "cmd/")) {
					parent = strings.TrimSuffix(f, "/")
					seen[parent] = true
				}
			case strings.HasPrefix(line, "    ") && line[4] != ' ' && parent != "":
				for _, f := range fields {
					if !strings.HasSuffix(f, "/") {
						break
					}
					seen[parent+"/"+strings.TrimSuffix(f, "/")] = true
				}
			}
		}
		for _, m := range docPath.FindAllStringSubmatch(line, -1) {
			p := strings.TrimRight(m[1], "./")
			if i := strings.LastIndex(p, "/"); strings.Contains(p[i+1:], ".") {
				p = p[:i] // a file: its folder
			}
			seen[p] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// DocGaps holds doc to the tree under root: the folders doc names that are
// not there (missing), and the package folders under root/internal (Go
// files, testdata aside) that doc does not name (unnamed). Both sorted.
func DocGaps(root, doc string) (missing, unnamed []string, err error) {
	named := map[string]bool{}
	for _, p := range DocPaths(doc) {
		named[p] = true
		if st, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil || !st.IsDir() {
			missing = append(missing, p)
		}
	}
	pkgs := map[string]bool{}
	err = goFiles(filepath.Join(root, "internal"), func(p string) error {
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err == nil {
			pkgs[filepath.ToSlash(rel)] = true
		}
		return err
	})
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		if !named[p] {
			unnamed = append(unnamed, p)
		}
	}
	return missing, unnamed, err
}
