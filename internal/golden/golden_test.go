package golden

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

const sample = `# A comment.
parse tok=stem quoted
"  x  "
----
x

cli --batch
SELECT 1;

SELECT 2;
----
----
1

2
----
----
`

func TestCases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sample.txt")
	require.NoError(t, os.WriteFile(path, []byte(sample), 0o644))
	cases := Cases(t, path)
	require.Len(t, cases, 2)
	require.Equal(t, "parse tok=stem quoted", cases[0].FullCmd())
	require.Equal(t, `"  x  "`, cases[0].Input)
	require.Equal(t, "x\n", cases[0].Expected)
	require.Equal(t, "cli --batch", cases[1].FullCmd())
	require.Equal(t, "SELECT 1;\n\nSELECT 2;", cases[1].Input)
	require.Equal(t, "1\n\n2\n", cases[1].Expected)
}

func TestRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sample.txt")
	require.NoError(t, os.WriteFile(path, []byte(sample), 0o644))
	n := 0
	Run(t, path, func(t *testing.T, d *TestData) string {
		n++
		if d.Cmd == "parse" {
			return "x"
		}
		return "1\n\n2"
	})
	require.Equal(t, 2, n)
}

func TestFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.svg")
	require.NoError(t, os.WriteFile(path, []byte("<svg/>\n"), 0o644))
	File(t, path, []byte("<svg/>\n"))
}
