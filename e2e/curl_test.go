package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glint-search/glint/internal/golden"
	"github.com/stretchr/testify/require"
)

// TestCurlScript runs testdata/curl/*.sh, scripts that drive a new server
// with curl as a user would, and compares their output with the .out file
// beside each (-rewrite writes it).
func TestCurlScript(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (scripts/install-test-deps.sh installs it)")
	}
	scripts, err := filepath.Glob("testdata/curl/*.sh")
	require.NoError(t, err)
	require.NotEmpty(t, scripts)
	for _, script := range scripts {
		t.Run(filepath.Base(script), func(t *testing.T) {
			s := StartServer(t)
			cmd := exec.Command("bash", script)
			cmd.Env = append(os.Environ(), "GLINT_HTTP="+s.HTTPAddr)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			golden.File(t, strings.TrimSuffix(script, ".sh")+".out", out)
		})
	}
}
