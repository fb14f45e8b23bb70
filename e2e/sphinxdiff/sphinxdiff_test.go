package sphinxdiff

import (
	"bufio"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/glint-search/glint/e2e"
	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"
)

var only = flag.String("query", "", "run only the queries that contain this text")

func TestMain(m *testing.M) { e2e.Main(m) }

// setup is one table with its settings, created alike in both servers.
type setup struct {
	name   string
	sphinx []string // index settings lines
	glint  string   // CREATE TABLE settings
	html   bool     // documents are HTML
}

const charset = "0..9, A..Z->a..z, _, a..z"

func setups(dir string) []setup {
	stop := filepath.Join(dir, "stopwords.txt")
	return []setup{
		{name: "plain", sphinx: []string{"charset_table = " + charset}, glint: "charset_table='" + charset + "'"},
		{name: "stem", sphinx: []string{"charset_table = " + charset, "morphology = stem_en", "index_exact_words = 1"},
			glint: "charset_table='" + charset + "' morphology='stem_en' index_exact_words='1'"},
		{name: "prefix", sphinx: []string{"charset_table = " + charset, "dict = keywords", "min_prefix_len = 2"},
			glint: "charset_table='" + charset + "' min_prefix_len='2'"},
		{name: "infix", sphinx: []string{"charset_table = " + charset, "dict = keywords", "min_infix_len = 3"},
			glint: "charset_table='" + charset + "' min_infix_len='3'"},
		{name: "stop", sphinx: []string{"charset_table = " + charset, "stopwords = " + stop, "min_word_len = 3"},
			glint: "charset_table='" + charset + "' stopwords='" + stop + "' min_word_len='3'"},
		{name: "html", html: true,
			sphinx: []string{"charset_table = " + charset, "html_strip = 1", "index_sp = 1", "index_zones = h1, b"},
			glint:  "charset_table='" + charset + "' html_strip='1' index_sp='1' index_zones='h1, b'"},
	}
}

// vocabulary is small, so that queries overlap a lot.
var vocabulary = strings.Fields(`cat cats dog dogs run runs running runner walk walked walking
	park river tree trees house green red blue quick slow old new big small light dark
	night day morning sun moon star stone water fire city road`)

var stopwords = []string{"the", "and", "of", "a"}

// corpus makes n documents: titles of 2-4 words, contents of 3-6 sentences
// of 4-9 words, starting with capitals, some stopwords; HTML documents wrap
// sentences in paragraphs and some words in <b> and a heading in <h1>.
func corpus(n int, html bool) [][2]string {
	r := rand.New(rand.NewPCG(7, 11))
	word := func() string {
		if r.IntN(6) == 0 {
			return stopwords[r.IntN(len(stopwords))]
		}
		return vocabulary[r.IntN(len(vocabulary))]
	}
	sentence := func() string {
		ws := make([]string, 4+r.IntN(6))
		for i := range ws {
			ws[i] = word()
		}
		ws[0] = strings.ToUpper(ws[0][:1]) + ws[0][1:]
		return strings.Join(ws, " ") + "."
	}
	docs := make([][2]string, n)
	for i := range docs {
		title := make([]string, 2+r.IntN(3))
		for j := range title {
			title[j] = vocabulary[r.IntN(len(vocabulary))]
		}
		var body []string
		for range 3 + r.IntN(4) {
			s := sentence()
			if html {
				if r.IntN(3) == 0 {
					w := strings.Fields(s)
					k := r.IntN(len(w))
					w[k] = "<b>" + strings.TrimSuffix(w[k], ".") + "</b>" + map[bool]string{true: ".", false: ""}[strings.HasSuffix(w[k], ".")]
					s = strings.Join(w, " ")
				}
				s = "<p>" + s + "</p>"
			}
			body = append(body, s)
		}
		content := strings.Join(body, " ")
		if html {
			content = "<h1>" + strings.Join(title, " ") + "</h1>" + content
		}
		docs[i] = [2]string{strings.Join(title, " "), content}
	}
	return docs
}

type query struct {
	setup, text string
	line        int
}

func readQueries(t *testing.T) []query {
	f, err := os.Open("testdata/queries.txt")
	require.NoError(t, err)
	defer f.Close()
	var out []query
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, text, ok := strings.Cut(line, "\t")
		require.True(t, ok, "queries.txt:%d: setup<TAB>query", n)
		out = append(out, query{s, text, n})
	}
	return out
}

// difference is a query whose glint answer differs from Sphinx on purpose.
type difference struct {
	want   string // sorted ids joined by ',', "error", or "answered" (no error: a feature Sphinx lacks)
	reason string
}

func readDifferences(t *testing.T) map[string]difference {
	data, err := os.ReadFile("testdata/differences.txt")
	require.NoError(t, err)
	out := map[string]difference{}
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		require.Len(t, f, 4, "differences.txt:%d: setup<TAB>query<TAB>ids or error<TAB>reason", i+1)
		out[f[0]+"\t"+f[1]] = difference{f[2], f[3]}
	}
	return out
}

func TestSphinxDiff(t *testing.T) {
	searchd, err := exec.LookPath("searchd")
	if err != nil {
		if os.Getenv("GLINT_REQUIRE_SPHINX") == "1" {
			t.Fatal("searchd (Debian package sphinxsearch) is not installed; scripts/install-test-deps.sh installs it")
		}
		t.Skip("searchd is not installed (GLINT_REQUIRE_SPHINX=1 makes this a failure)")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stopwords.txt"), []byte(strings.Join(stopwords, "\n")+"\n"), 0o644))
	ss := setups(dir)
	sphinx := startSphinx(t, searchd, dir, ss)
	glint := e2e.StartServer(t).DB(t)

	for _, s := range ss {
		docs := corpus(200, s.html)
		require.NoError(t, exec1(glint, fmt.Sprintf("CREATE TABLE %s (title text, content text, gid uint) %s", s.name, s.glint)))
		for lo := 0; lo < len(docs); lo += 50 {
			var vals []string
			for i := lo; i < min(lo+50, len(docs)); i++ {
				vals = append(vals, fmt.Sprintf("(%d, %s, %s, %d)", i+1, quote(docs[i][0]), quote(docs[i][1]), i%5))
			}
			stmt := fmt.Sprintf("INSERT INTO %s (id, title, content, gid) VALUES %s", s.name, strings.Join(vals, ", "))
			require.NoError(t, exec1(sphinx, stmt), "sphinx")
			require.NoError(t, exec1(glint, stmt), "glint")
		}
	}

	diffs := readDifferences(t)
	bySetup := map[string][]query{}
	for _, q := range readQueries(t) {
		if *only == "" || strings.Contains(q.text, *only) {
			bySetup[q.setup] = append(bySetup[q.setup], q)
		}
	}
	for _, s := range ss {
		t.Run(s.name, func(t *testing.T) {
			failed := 0
			for _, q := range bySetup[s.name] {
				stmt := fmt.Sprintf("SELECT id FROM %s WHERE MATCH(%s) LIMIT 1000 OPTION max_matches=1000", s.name, quote(q.text))
				got := answer(glint, stmt)
				want := answer(sphinx, stmt)
				if d, ok := diffs[s.name+"\t"+q.text]; ok {
					if d.want == "answered" && got.err == nil {
						continue // a feature Sphinx 2.2.11 lacks; its answers are checked in sql/testdata
					}
					if got.text() != d.want {
						t.Errorf("queries.txt:%d %s %q: glint %s, differences.txt expects %s (%s)", q.line, s.name, q.text, got.text(), d.want, d.reason)
					}
					continue
				}
				if got.text() != want.text() {
					failed++
					if failed <= 40 {
						t.Errorf("queries.txt:%d %s %q:\n  sphinx: %s\n  glint:  %s", q.line, s.name, q.text, want.long(), got.long())
					}
				}
			}
			if failed > 40 {
				t.Errorf("%d more queries differ", failed-40)
			}
			t.Logf("%s: %d queries, %d differ", s.name, len(bySetup[s.name]), failed)
		})
	}
}

// result is the answer of one server: the sorted ids, or an error.
type result struct {
	ids []int
	err error
}

func (r result) text() string {
	if r.err != nil {
		return "error"
	}
	s := make([]string, len(r.ids))
	for i, id := range r.ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ",")
}

func (r result) long() string {
	if r.err != nil {
		return "error: " + r.err.Error()
	}
	t := r.text()
	if len(t) > 200 {
		t = t[:200] + "..."
	}
	return fmt.Sprintf("%d ids: %s", len(r.ids), t)
}

func answer(db *sql.DB, stmt string) result {
	rows, err := db.QueryContext(context.Background(), stmt)
	if err != nil {
		return result{err: err}
	}
	defer rows.Close()
	var ids []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			return result{err: err}
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return result{err: err}
	}
	slices.Sort(ids)
	return result{ids: ids}
}

func exec1(db *sql.DB, stmt string) error {
	_, err := db.ExecContext(context.Background(), stmt)
	return err
}

// quote makes a SQL string literal.
func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// startSphinx writes a config with one RT index per setup, starts searchd on
// a free port and stops it (by the pid in its pid file) when the test ends.
func startSphinx(t *testing.T, searchd, dir string, ss []setup) *sql.DB {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var conf strings.Builder
	for _, s := range ss {
		path := filepath.Join(dir, s.name)
		require.NoError(t, os.MkdirAll(path, 0o755))
		fmt.Fprintf(&conf, "index %s\n{\n\ttype = rt\n\tpath = %s/%s\n\trt_field = title\n\trt_field = content\n\trt_attr_uint = gid\n", s.name, path, s.name)
		for _, line := range s.sphinx {
			fmt.Fprintf(&conf, "\t%s\n", line)
		}
		conf.WriteString("}\n\n")
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "binlog"), 0o755))
	fmt.Fprintf(&conf, "searchd\n{\n\tlisten = 127.0.0.1:%d:mysql41\n\tworkers = threads\n\tbinlog_path = %s/binlog\n\tpid_file = %s/searchd.pid\n\tlog = %s/searchd.log\n\tquery_log = %s/query.log\n\tmax_packet_size = 32M\n}\n",
		port, dir, dir, dir, dir)
	cfg := filepath.Join(dir, "sphinx.conf")
	require.NoError(t, os.WriteFile(cfg, []byte(conf.String()), 0o644))
	out, err := exec.Command(searchd, "--config", cfg).CombinedOutput()
	require.NoError(t, err, "searchd: %s", out)
	t.Cleanup(func() {
		data, err := os.ReadFile(filepath.Join(dir, "searchd.pid"))
		if err != nil {
			return
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			return
		}
		_ = syscall.Kill(pid, syscall.SIGTERM)
		for range 100 {
			if syscall.Kill(pid, 0) != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	})
	c := mysql.NewConfig()
	c.Net, c.Addr, c.InterpolateParams = "tcp", fmt.Sprintf("127.0.0.1:%d", port), true
	connector, err := mysql.NewConnector(c)
	require.NoError(t, err)
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	for i := 0; ; i++ {
		if err = db.Ping(); err == nil {
			break
		}
		require.Less(t, i, 100, "searchd does not answer: %v", err)
		time.Sleep(100 * time.Millisecond)
	}
	return db
}
