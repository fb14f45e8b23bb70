package dialect

import (
	"strconv"
	"strings"
)

// ClusterAction is what a cluster statement asks for.
type ClusterAction uint8

// The cluster statements. The TiDB parser knows none of them: the dialect
// reads them itself (parseCluster) into a ClusterStmt.
const (
	ClusterCreate      ClusterAction = iota + 1 // CREATE CLUSTER c ['dir' AS path] [, 'h:p,h:p' AS nodes]
	ClusterJoin                                 // JOIN CLUSTER c AT 'h:p' [...] or JOIN CLUSTER c 'h:p;h:p' AS nodes [...]
	ClusterAddTable                             // ALTER CLUSTER c ADD t
	ClusterDropTable                            // ALTER CLUSTER c DROP t
	ClusterUpdateNodes                          // ALTER CLUSTER c UPDATE nodes
	ClusterDelete                               // DELETE CLUSTER c
	ClusterBootstrap                            // SET CLUSTER c GLOBAL 'pc.bootstrap' = 1
)

var clusterActionNames = [...]string{
	ClusterCreate:      "CREATE CLUSTER",
	ClusterJoin:        "JOIN CLUSTER",
	ClusterAddTable:    "ALTER CLUSTER ADD",
	ClusterDropTable:   "ALTER CLUSTER DROP",
	ClusterUpdateNodes: "ALTER CLUSTER UPDATE nodes",
	ClusterDelete:      "DELETE CLUSTER",
	ClusterBootstrap:   "SET CLUSTER GLOBAL 'pc.bootstrap'",
}

func (a ClusterAction) String() string {
	if int(a) < len(clusterActionNames) && clusterActionNames[a] != "" {
		return clusterActionNames[a]
	}
	return "cluster action " + strconv.Itoa(int(a))
}

// ClusterStmt is one statement that manages a replication cluster.
type ClusterStmt struct {
	Action ClusterAction
	Name   string // the cluster
	// Table is the table of ClusterAddTable and ClusterDropTable.
	Table string
	// At is the member JOIN CLUSTER ... AT 'host:port' asks to join through.
	At string
	// Path is the 'dir' AS path of CREATE and JOIN, "" when not given.
	Path string
	// Nodes is the 'host:port,...' AS nodes of CREATE and JOIN, in the order
	// written; nil when not given.
	Nodes []string
}

// ClusterTableSep joins a cluster and a table in a table name: a write to
// c:t reaches table t of cluster c. The rewrite hands TiDB c:t as the one
// quoted identifier `c:t`; SplitClusterTable takes it apart again.
const ClusterTableSep = ":"

// SplitClusterTable splits a table name of the form cluster:table. ok is
// false for a name without the separator.
func SplitClusterTable(name string) (cluster, table string, ok bool) {
	return strings.Cut(name, ClusterTableSep)
}

// isClusterStatement reports whether the significant tokens s start a
// cluster statement: CREATE, JOIN, ALTER, DELETE or SET, then CLUSTER and a
// name (SET cluster = 1 sets a variable).
func isClusterStatement(src string, s []token) bool {
	r := &rewriter{src: src, s: s}
	if !r.word(1, "CLUSTER") {
		return false
	}
	switch {
	case r.word(0, "CREATE"), r.word(0, "JOIN"), r.word(0, "ALTER"), r.word(0, "DELETE"):
		return true
	case r.word(0, "SET"):
		_, named := r.name(2)
		return named
	}
	return false
}

// parseCluster reads the cluster statement in the significant tokens s of
// src (isClusterStatement holds).
func parseCluster(src string, s []token) (*ClusterStmt, error) {
	p := &clusterParser{rewriter: rewriter{src: src, s: s}, i: 2}
	name, err := p.ident("cluster name")
	if err != nil {
		return nil, err
	}
	st := &ClusterStmt{Name: name}
	switch {
	case p.word(0, "CREATE"):
		st.Action = ClusterCreate
		err = p.options(st)
	case p.word(0, "JOIN"):
		st.Action = ClusterJoin
		if p.word(p.i, "AT") {
			p.i++
			if st.At, err = p.address("AT"); err != nil {
				return nil, err
			}
		}
		err = p.options(st)
		switch {
		case err != nil:
		case st.At == "" && st.Nodes == nil:
			err = p.errorAtToken(3, len(p.s), "JOIN CLUSTER %s needs AT 'host:port' or 'host:port,...' AS nodes: where to join", name)
		case st.At != "" && st.Nodes != nil:
			err = p.errorAtToken(3, len(p.s), "JOIN CLUSTER %s: AT '%s' and AS nodes both say where to join: give one", name, st.At)
		}
	case p.word(0, "ALTER"):
		err = p.alter(st)
	case p.word(0, "DELETE"):
		st.Action = ClusterDelete
	case p.word(0, "SET"):
		st.Action = ClusterBootstrap
		err = p.bootstrap()
	}
	if err != nil {
		return nil, err
	}
	if p.i < len(p.s) {
		words := make([]string, p.i)
		for k := range words {
			words[k] = p.text(p.s[k])
		}
		return nil, p.errorAtToken(p.i, len(p.s), "unexpected '%s' after %s", p.text(p.s[p.i]), strings.Join(words, " "))
	}
	return st, nil
}

// clusterParser reads a cluster statement token by token; i is the next
// token.
type clusterParser struct {
	rewriter
	i int
}

// ident reads a name (a word or a quoted identifier); what names what is
// expected, for the error.
func (p *clusterParser) ident(what string) (string, error) {
	name, ok := p.name(p.i)
	switch {
	case ok:
	case p.i >= len(p.s):
		return "", p.errorAtToken(p.i, len(p.s), "expected the %s", what)
	case p.s[p.i].kind == tokString:
		return "", p.errorAtToken(p.i, len(p.s), "the %s is a name, not a string: write it bare or in backquotes", what)
	default:
		return "", p.errorAtToken(p.i, len(p.s), "'%s' is not a valid %s: ASCII letters, digits and _, starting with a letter or _", p.text(p.s[p.i]), what)
	}
	if name == "" || strings.Contains(name, ClusterTableSep) {
		return "", p.errorAtToken(p.i, len(p.s), "'%s' is not a valid %s: it must be non-empty, without '%s'", name, what, ClusterTableSep)
	}
	p.i++
	return name, nil
}

// str reads a string literal.
func (p *clusterParser) str(what string) (string, error) {
	if p.i >= len(p.s) || p.s[p.i].kind != tokString {
		return "", p.errorAtToken(p.i, len(p.s), "expected a string: %s", what)
	}
	p.i++
	return p.s[p.i-1].value, nil
}

// address reads one 'host:port' string.
func (p *clusterParser) address(what string) (string, error) {
	at := p.i
	v, err := p.str(what + " 'host:port'")
	if err != nil {
		return "", err
	}
	addr := strings.TrimSpace(v)
	if err := checkAddress(addr); err != "" {
		return "", p.errorAtToken(at, len(p.s), "%s '%s': %s", what, v, err)
	}
	return addr, nil
}

// options reads "'value' AS name" options, each name at most once, with or
// without commas between them: path and nodes.
func (p *clusterParser) options(st *ClusterStmt) error {
	seen := map[string]bool{}
	for p.i < len(p.s) {
		if len(seen) > 0 && p.punct(p.i, ',') {
			p.i++
		}
		at := p.i
		v, err := p.str("an option 'value' AS name (path or nodes)")
		if err != nil {
			return err
		}
		if !p.word(p.i, "AS") {
			return p.errorAtToken(p.i, len(p.s), "expected AS path or AS nodes after '%s'", v)
		}
		p.i++
		name, ok := p.name(p.i)
		if !ok {
			return p.errorAtToken(p.i, len(p.s), "expected an option name after AS: path or nodes")
		}
		name = strings.ToLower(name)
		if seen[name] {
			return p.errorAtToken(p.i, len(p.s), "option '%s' given twice", name)
		}
		seen[name] = true
		switch name {
		case "path":
			if strings.TrimSpace(v) == "" {
				return p.errorAtToken(at, len(p.s), "path: an empty directory name")
			}
			st.Path = v
		case "nodes":
			var msg string
			if st.Nodes, msg = splitNodes(v); msg != "" {
				return p.errorAtToken(at, len(p.s), "nodes: %s", msg)
			}
		default:
			return p.errorAtToken(p.i, len(p.s), "unknown cluster option '%s' (the options are path and nodes)", name)
		}
		p.i++
	}
	return nil
}

// alter reads what follows ALTER CLUSTER c.
func (p *clusterParser) alter(st *ClusterStmt) error {
	var err error
	switch {
	case p.word(p.i, "ADD"), p.word(p.i, "DROP"):
		st.Action = ClusterAddTable
		if p.word(p.i, "DROP") {
			st.Action = ClusterDropTable
		}
		p.i++
		if p.word(p.i, "TABLE") && p.i+1 < len(p.s) {
			p.i++ // ALTER CLUSTER c ADD TABLE t reads like ADD t
		}
		st.Table, err = p.ident("table name")
	case p.word(p.i, "UPDATE"):
		st.Action = ClusterUpdateNodes
		p.i++
		if !p.word(p.i, "NODES") {
			return p.errorAtToken(p.i, len(p.s), "expected nodes after ALTER CLUSTER %s UPDATE", st.Name)
		}
		p.i++
	default:
		return p.errorAtToken(p.i, len(p.s), "expected ADD table, DROP table or UPDATE nodes after ALTER CLUSTER %s", st.Name)
	}
	return err
}

// bootstrap reads GLOBAL 'pc.bootstrap' = 1 after SET CLUSTER c: the one
// setting there is, which makes the node a new cluster of its own after it
// lost its quorum.
func (p *clusterParser) bootstrap() error {
	if !p.word(p.i, "GLOBAL") {
		return p.errorAtToken(p.i, len(p.s), "expected GLOBAL 'pc.bootstrap' = 1 after SET CLUSTER")
	}
	p.i++
	at := p.i
	name, err := p.str("the setting's name 'pc.bootstrap'")
	if err != nil {
		return err
	}
	if name != "pc.bootstrap" {
		return p.errorAtToken(at, len(p.s), "unknown cluster setting '%s' (the one there is: 'pc.bootstrap', to recover from a lost quorum)", name)
	}
	if !p.punct(p.i, '=') {
		return p.errorAtToken(p.i, len(p.s), "expected = 1 after 'pc.bootstrap'")
	}
	p.i++
	if p.i >= len(p.s) || p.s[p.i].kind != tokNumber || p.text(p.s[p.i]) != "1" {
		return p.errorAtToken(p.i, len(p.s), "'pc.bootstrap' takes 1 (it is an action, not a setting to turn off)")
	}
	p.i++
	return nil
}

// splitNodes splits a nodes list, "host:port" items separated by ',' or ';',
// blanks around them allowed. It returns a message on a bad list.
func splitNodes(v string) ([]string, string) {
	var nodes []string
	seen := map[string]bool{}
	for item := range strings.FieldsFuncSeq(v, func(r rune) bool { return r == ',' || r == ';' }) {
		addr := strings.TrimSpace(item)
		if addr == "" {
			continue
		}
		if msg := checkAddress(addr); msg != "" {
			return nil, "'" + addr + "': " + msg
		}
		if !seen[addr] {
			nodes = append(nodes, addr)
			seen[addr] = true
		}
	}
	if len(nodes) == 0 {
		return nil, "no node in the list"
	}
	return nodes, ""
}

// checkAddress checks a host:port; it returns what is wrong, or "".
func checkAddress(addr string) string {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return "expected host:port"
	}
	host, port := addr[:i], addr[i+1:]
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1] // [::1]:9306
	} else if strings.Contains(host, ":") {
		return "an IPv6 address goes in brackets: [addr]:port"
	}
	if host == "" || strings.ContainsAny(host, " \t/") {
		return "no host before the port"
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "the port must be a number from 1 to 65535"
	}
	return ""
}

// clusterTables rewrites every cluster:table name in the tokens (a word or
// quoted identifier, ':', and another, with nothing between them) into the
// one quoted identifier `cluster:table`.
func (r *rewriter) clusterTables() {
	for i := 0; i+2 < len(r.s); i++ {
		if !r.punct(i+1, ':') {
			continue
		}
		a, b, c := &r.s[i], &r.s[i+1], &r.s[i+2]
		if a.end != b.start || b.end != c.start {
			continue
		}
		cluster, ok1 := r.name(i)
		table, ok2 := r.name(i + 2)
		if !ok1 || !ok2 || r.punct(i-1, '.') {
			continue
		}
		name := cluster + ClusterTableSep + table
		r.edits = append(r.edits, edit{start: a.start, end: c.end, text: "`" + strings.ReplaceAll(name, "`", "``") + "`"})
		i += 2
	}
}
