package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An HTTP golden file is a sequence of cases separated by lines "====". A
// case is a request line "METHOD /path?query", the body (any number of
// lines, sent as written; /bulk bodies are several lines), a line "----",
// and the expected answer: the status code on its own line, then the JSON
// body indented (member order kept) with "took" masked as 0. Lines starting
// with "#" before the request line are comments. All cases of a file run in
// order against one new server, with Go's HTTP client.
type httpCase struct {
	comments []string
	request  string
	body     string
	expected string
}

// RunHTTPGolden runs the HTTP golden file at path against a new server;
// with -rewrite it writes the answers got into the file instead.
func RunHTTPGolden(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	cases, err := parseHTTPGolden(string(raw))
	require.NoError(t, err, path)
	s := StartServer(t)
	for i := range cases {
		c := &cases[i]
		got := s.HTTPAnswer(t, c.request, c.body)
		if *rewrite {
			c.expected = got
			continue
		}
		assert.Equal(t, c.expected, got, "%s: case %d: %s", path, i+1, c.request)
	}
	if *rewrite {
		require.NoError(t, os.WriteFile(path, []byte(formatHTTPGolden(cases)), 0o644))
	}
}

var tookRE = regexp.MustCompile(`^\{"took":\d+,`)

// HTTPAnswer sends "METHOD /path" with body and returns the status and the
// indented JSON answer ("took" masked), as the golden files hold them.
func (s *Server) HTTPAnswer(t testing.TB, request, body string) string {
	t.Helper()
	method, path, ok := strings.Cut(request, " ")
	require.True(t, ok, "request line %q", request)
	req, err := http.NewRequest(method, "http://"+s.HTTPAddr+path, strings.NewReader(body))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	raw = tookRE.ReplaceAll(bytes.TrimSpace(raw), []byte(`{"took":0,`))
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return fmt.Sprintf("%d\nnot JSON: %s", resp.StatusCode, raw)
	}
	return fmt.Sprintf("%d\n%s", resp.StatusCode, out.String())
}

func parseHTTPGolden(text string) ([]httpCase, error) {
	var cases []httpCase
	for n, block := range strings.Split(strings.TrimSuffix(text, "\n"), "\n====\n") {
		head, expected, _ := strings.Cut(block, "\n----\n")
		head, _ = strings.CutSuffix(head, "\n----")
		c := httpCase{expected: strings.TrimRight(expected, "\n")}
		lines := strings.Split(head, "\n")
		for len(lines) > 0 && (strings.HasPrefix(lines[0], "#") || strings.TrimSpace(lines[0]) == "") {
			if strings.TrimSpace(lines[0]) != "" {
				c.comments = append(c.comments, lines[0])
			}
			lines = lines[1:]
		}
		if len(lines) == 0 {
			return nil, fmt.Errorf("case %d has no request line", n+1)
		}
		c.request = lines[0]
		c.body = strings.Join(lines[1:], "\n")
		cases = append(cases, c)
	}
	return cases, nil
}

func formatHTTPGolden(cases []httpCase) string {
	var b strings.Builder
	for i, c := range cases {
		if i > 0 {
			b.WriteString("====\n")
		}
		for _, l := range c.comments {
			b.WriteString(l + "\n")
		}
		b.WriteString(c.request + "\n")
		if c.body != "" {
			b.WriteString(c.body + "\n")
		}
		b.WriteString("----\n")
		if c.expected != "" {
			b.WriteString(c.expected + "\n")
		}
	}
	return b.String()
}
