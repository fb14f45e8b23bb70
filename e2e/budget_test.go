package e2e

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWorkBudget drives the highlighting work budget as a user would: the
// server's highlight_work_budget, the mysql client (SHOW WARNINGS, SHOW
// META) and curl (the JSON flags). A row past the budget shows its
// beginning, unmarked; the rows that fit are highlighted.
func TestWorkBudget(t *testing.T) {
	s := StartServer(t, WithArgs("--highlight-work-budget", "2K"))
	db := s.DB(t)
	MustExec(t, db, "CREATE TABLE docs (body text)")
	big := strings.Repeat("lorem ipsum dolor ", 150) + "needle at the end" // 2,717 bytes
	MustExec(t, db, "INSERT INTO docs (id, body) VALUES (1, 'a needle here'), (2, ?), (3, 'one more needle')", big)

	res := s.CLI(t, "", "--batch", "-e",
		"SELECT id, HIGHLIGHT({limit=40}) FROM docs WHERE MATCH('needle') ORDER BY id ASC; SHOW WARNINGS; SHOW META LIKE 'highlight%'")
	require.Zero(t, res.ExitCode, res.Stderr)
	require.Equal(t, "id\thighlight({limit=40})\n"+
		"1\ta <b>needle</b> here\n"+
		"2\tlorem ipsum dolor lorem ipsum dolor  ... \n"+
		"3\tone more <b>needle</b>\n"+
		"Level\tCode\tMessage\n"+
		"Warning\t1265\t1 row is past the highlighting work budget of 2048 bytes (work_budget, or the server's highlight_work_budget) and is shown from the beginning, unhighlighted\n"+
		"Variable_name\tValue\n"+
		"highlight_truncated\t1\n", res.Stdout)

	// The request's own budget wins; 0 is none.
	res = s.CLI(t, "", "--batch", "--skip-column-names", "-e",
		"SELECT id, HIGHLIGHT({limit=40, work_budget=0}) FROM docs WHERE id = 2 AND MATCH('needle'); SHOW META LIKE 'highlight%'")
	require.Equal(t, "2\t ...  lorem ipsum dolor <b>needle</b> at the end\n", res.Stdout)

	curl, err := exec.LookPath("curl")
	if err != nil {
		requireTool(t, "curl")
	}
	out, err := exec.Command(curl, "-sS", "http://"+s.HTTPAddr+"/search", "-d",
		`{"table":"docs","query":{"match":{"*":"needle"}},"sort":[{"id":"asc"}],"highlight":{"limit":40,"work_budget":100}}`).CombinedOutput()
	require.NoError(t, err, "%s", out)
	got := string(out)
	require.Contains(t, got, `"highlight":{"body":["a <b>needle</b> here"]}}`)
	require.Contains(t, got, `"highlight":{"body":["lorem ipsum dolor lorem ipsum dolor  ... "]},"highlight_truncated":true}`)
	require.Contains(t, got, `"highlight":{"body":["one more <b>needle</b>"]}}`)
	require.Contains(t, got, `"highlight_truncated":1,"warning":"1 row is past the highlighting work budget of 100 bytes`)
}

// TestHighlightResultBound: a highlight that would be over
// max_allowed_packet (long markers around many marks) is refused before it
// is rendered, in SQL and in JSON alike, naming the cause.
func TestHighlightResultBound(t *testing.T) {
	s := StartServer(t, WithArgs("--max-allowed-packet", "4K"))
	db := s.DB(t)
	MustExec(t, db, "CREATE TABLE docs (body text)")
	MustExec(t, db, "INSERT INTO docs (id, body) VALUES (1, ?)", strings.Repeat("a cat and a dog ", 40))
	long := strings.Repeat("x", 100)
	_, err := db.Exec("SELECT HIGHLIGHT({limit=0, before_match='" + long + "'}) FROM docs WHERE MATCH('cat')")
	require.ErrorContains(t, err, "HIGHLIGHT(): the result would be about 4")
	require.ErrorContains(t, err, "over max_allowed_packet (4096)")
	got := s.HTTPAnswer(t, "POST /search", `{"table":"docs","query":{"match":{"*":"cat"}},"highlight":{"limit":0,"pre_tags":"`+long+`"}}`)
	require.True(t, strings.HasPrefix(got, "400\n"), got)
	require.Contains(t, got, "highlight: the result would be about 4")
	require.Contains(t, s.HTTPAnswer(t, "POST /search", `{"table":"docs","query":{"match":{"*":"cat"}},"highlight":{"limit":0}}`), "<b>cat</b>")
}
