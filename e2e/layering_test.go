package e2e

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/glint-search/glint/e2e/daemon"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// layers ranks the product's packages (the README's Layout table): a package
// may import only packages of a lower rank. Packages of one rank (index,
// highlight and cluster; tokenize's html stripper and docstore) do not import
// each other.
var layers = map[string]int{
	"docstore":                 0,
	"internal/lend":            0,
	"internal/durable":         0,
	"index/tokenize/htmlstrip": 0,
	"index/tokenize":           1,
	"index/query":              2,
	"sql/dialect":              2,
	"sql/catalog":              2,
	"index":                    3,
	"highlight":                3,
	"cluster":                  3,
	"sql":                      4,
	"server":                   5,
	"agent":                    5,
	"cmd/glintd":               6,
}

// tools are the packages outside the product: tests, benchmarks and their
// commands, the golden-file harness of the tests, and the benchmarks' texts. They may import
// anything; the product imports none of them (its _test files may).
var tools = []string{"e2e", "bench", "cmd/glint-load", "cmd/glint-jepsen", "internal/golden", "internal/jepsen", "internal/zipftext"}

// TestLayering fails when an import points the wrong way, when a product
// package imports a test or benchmark package, or when a package is in
// neither list (a new package takes its place in one of them, and in the
// README's Layout table).
func TestLayering(t *testing.T) {
	root, err := daemon.FindRepoRoot(".")
	require.NoError(t, err)
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err)
	const module = "github.com/glint-search/glint/"
	isTool := func(pkg string) bool {
		for _, tool := range tools {
			if pkg == tool || strings.HasPrefix(pkg, tool+"/") {
				return true
			}
		}
		return false
	}
	seen := 0
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		if isTool(pkg) {
			continue
		}
		rank, ok := layers[pkg]
		if !assert.True(t, ok, "package %s is in no layer: add it to layers (and the README's Layout table)", pkg) {
			continue
		}
		seen++
		for _, imp := range fields[1:] {
			dep, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			assert.False(t, isTool(dep), "%s imports %s, a test or benchmark package", pkg, dep)
			if depRank, ok := layers[dep]; ok {
				assert.Less(t, depRank, rank, "%s (layer %d) imports %s (layer %d): imports point down only", pkg, rank, dep, depRank)
			}
		}
	}
	assert.Equal(t, len(layers), seen, "every layer's package exists")
}
