package archtest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestArchitectureDoc holds docs/architecture.md to the tree: every
// package folder it names exists, and it names every package under
// internal/.
func TestArchitectureDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	missing, unnamed, err := DocGaps("../..", string(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range missing {
		t.Errorf("docs/architecture.md names %s, which is not a folder of the repository", p)
	}
	for _, p := range unnamed {
		t.Errorf("%s is a package, and docs/architecture.md does not name it", p)
	}
}

// TestDocGapsCases proves DocGaps can fail: on a small tree, a doc with a
// wrong path in its tree, among a folder's children or in its text, or
// without a package, is caught.
func TestDocGapsCases(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{
		"cmd/dbgauge/main.go", "internal/cli/cli.go", "internal/server/launch.go",
		"internal/workload/workload.go", "internal/workload/nms/nms.go", "internal/workload/kv/kv.go",
		"internal/archtest/testdata/bad/internal/x/x.go", // testdata: no package of the tree
		"internal/workload/nms/README",                   // no Go file of its own: still nms's folder
		"internal/docsonly/notes.md",                     // no Go file: not a package
	} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const tree = "```\ncmd/dbgauge/          main\ninternal/cli/         the commands\n" +
		"internal/workload/    contract\n    nms/ kv/   one folder per workload\n                      (a continuation: tpcb/ is not a child)\n" +
		"internal/archtest/    rules\n```\n"
	cases := []struct {
		name             string
		doc              string
		missing, unnamed []string
	}{
		{"true", tree + "`internal/server` starts servers (internal/server/launch.go).\n", nil, nil},
		{"tree=wrong", tree + "```\ninternal/sever/       a typo\n```\ninternal/server too.\n", []string{"internal/sever"}, nil},
		{"child=wrong", tree + "```\ninternal/workload/\n    nms/ tpcc/   a typo\n```\ninternal/server\n", []string{"internal/workload/tpcc"}, nil},
		{"text=wrong", tree + "`internal/servers` starts them; internal/server.\n", []string{"internal/servers"}, nil},
		{"file=wrong", tree + "internal/server/launch.go and internal/serve/launch.go.\n", []string{"internal/serve"}, nil},
		{"package=unnamed", tree, nil, []string{"internal/server"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			missing, unnamed, err := DocGaps(root, c.doc)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(missing, c.missing) || !slices.Equal(unnamed, c.unnamed) {
				t.Errorf("missing %q, unnamed %q; want %q, %q", missing, unnamed, c.missing, c.unnamed)
			}
		})
	}
}
