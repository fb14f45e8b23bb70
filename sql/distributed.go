package sql

import (
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// A distributed table (docs/distributed.md) holds no documents: it names
// shards, each a local table of this server or an agent, a table of
// another glintd (one or more mirrors of it), and a search of it asks every
// shard and merges their answers. This file owns its definition: the DDL,
// its checks, and how SHOW shows it; dist_select.go runs its searches.

// Defaults of the distributed table settings, those of the Sphinx family
// except the port: an agent is a glintd MySQL listener.
const (
	defaultAgentPort           = "9306"
	defaultAgentConnectTimeout = time.Second
	defaultAgentQueryTimeout   = 3 * time.Second
	defaultAgentRetryCount     = 0
	maxAgentRetryCount         = 100
	maxAgentTimeout            = 24 * time.Hour
)

// haStrategies are the values of ha_strategy: how one mirror of a shard is
// picked for a search. nodeads and noerrors (the family's latency-weighted
// strategies) pick at random among the mirrors not marked dead.
var haStrategies = []string{"random", "roundrobin", "nodeads", "noerrors"}

// distTable is a distributed table's definition, checked.
type distTable struct {
	name   string
	locals []string   // local tables, in the order given
	agents []distSpec // remote shards, in the order given
	// ha is the ha_strategy; timeouts bound each remote call.
	ha                           string
	connectTimeout, queryTimeout time.Duration
	retryCount                   int
	settings                     []index.Setting // as given: SHOW CREATE TABLE
}

// distSpec is one agent= setting: one shard, served by any of its mirrors.
type distSpec struct {
	text    string // as written
	mirrors []distMirror
}

// distMirror is one copy of a remote shard: a glintd MySQL listener and the
// table there.
type distMirror struct {
	addr  string // host:port
	table string
}

func (m distMirror) String() string { return m.addr + ":" + m.table }

// distSettings are the settings a distributed table takes, with whether
// they may repeat.
var distSettings = map[string]bool{
	"type":                  false,
	"local":                 true,
	"agent":                 true,
	"ha_strategy":           false,
	"agent_connect_timeout": false,
	"agent_query_timeout":   false,
	"agent_retry_count":     false,
	"mirror_retry_count":    false,
}

// isDistributedCreate reports whether a CREATE TABLE makes a distributed
// table: it has type='distributed', or no column list.
func isDistributedCreate(n *ast.CreateTableStmt, settings []dialect.Setting) bool {
	if len(n.Cols) == 1 && n.Cols[0].Name.Name.O == dialect.NoColumns {
		return true
	}
	for _, st := range settings {
		if st.Name == "type" && !isRealTimeType(st) {
			return true
		}
	}
	return false
}

// isRealTimeType reports whether st is type='rt': the family's name of
// the table with documents, which a column list makes anyway (the setting
// is taken and not kept, as the family's SHOW CREATE TABLE leaves it out).
func isRealTimeType(st dialect.Setting) bool {
	v, err := settingValue(st, settingText)
	return st.Name == "type" && err == nil && strings.EqualFold(strings.TrimSpace(v), "rt")
}

// execCreateDistributed runs CREATE TABLE d type='distributed' ....
func (s *Session) execCreateDistributed(n *ast.CreateTableStmt, settings []dialect.Setting) (*Result, error) {
	name := n.Table.Name.O
	noColumns := len(n.Cols) == 1 && n.Cols[0].Name.Name.O == dialect.NoColumns
	var stored []index.Setting
	typ := ""
	for _, st := range settings {
		if _, ok := distSettings[st.Name]; !ok {
			if !noColumns {
				continue // a local table's setting: checked below, with its error
			}
			if _, local := tableSettings[st.Name]; local {
				return nil, Errorf(CodeBadOption, "table setting '%s' is for a table with columns: a distributed table takes type, local, agent, ha_strategy, agent_connect_timeout, agent_query_timeout, agent_retry_count and mirror_retry_count", st.Name)
			}
			switch st.Name {
			case "agent_persistent":
				return nil, Errorf(CodeBadOption, "table setting 'agent_persistent' is not supported: every agent connection is pooled; use agent")
			case "agent_blackhole":
				return nil, Errorf(CodeBadOption, "table setting 'agent_blackhole' is not supported: glint reads every agent's answer (an agent sent the queries, its answers ignored, is not kept); use agent")
			}
			return nil, Errorf(CodeBadOption, "unknown table setting '%s' of a distributed table", st.Name)
		}
		v, err := settingValue(st, settingText)
		if err != nil {
			return nil, err
		}
		if st.Name == "type" {
			typ = v
		}
		stored = append(stored, index.Setting{Name: st.Name, Value: v})
	}
	switch {
	case typ == "" && noColumns:
		return nil, Errorf(CodeSyntax, "CREATE TABLE '%s' has no column list: give one, or type='distributed' with its local and agent tables", name)
	case !strings.EqualFold(typ, "distributed"):
		return nil, Errorf(CodeBadOption, "table setting type='%s': glint knows type='rt' (a table with documents, made by a column list with or without it) and type='distributed' (percolate and template tables are not supported)", typ)
	case !noColumns:
		return nil, Errorf(CodeSyntax, "a distributed table has no columns of its own: write CREATE TABLE %s type='distributed' local='...' agent='...' without a column list", name)
	}
	d, err := parseDistributed(name, stored)
	if err != nil {
		return nil, err
	}
	if err := checkShardsNamedOnce(d); err != nil {
		return nil, err
	}
	if users := s.localShardOf(name); len(users) > 0 {
		// (Its table was dropped: a local shard is a table with documents.)
		return nil, Errorf(CodeBadOption, "table '%s' is a local shard of distributed table %s: a local shard is a table with documents, so '%s' cannot be distributed (create it with columns, or drop %s first)", name, strings.Join(users, ", "), name, strings.Join(users, ", "))
	}
	for _, l := range d.locals {
		if strings.EqualFold(l, name) {
			return nil, Errorf(CodeBadOption, "table setting local='%s': a distributed table cannot name itself", l)
		}
		if _, err := s.table(l); err != nil { // a cluster's table too, as reads find it
			if _, dist := s.engine.db.DistributedTable(l); dist {
				return nil, Errorf(CodeBadOption, "table setting local='%s': '%s' is a distributed table; local names a table with documents", l, l)
			}
			if s.checksReferences() {
				return nil, Errorf(CodeNoSuchTable, "table setting local='%s': unknown table '%s'", l, l)
			}
		}
	}
	err = s.engine.db.CreateDistributed(index.Distributed{Name: name, Settings: stored})
	if errors.Is(err, index.ErrTableExists) {
		if n.IfNotExists {
			return &Result{}, nil
		}
		return nil, Errorf(CodeTableExists, "table '%s' already exists", name)
	}
	if err != nil {
		return nil, asError(err)
	}
	return &Result{}, nil
}

// checkShardsNamedOnce refuses a local table or an agent's mirror named
// twice: each copy would be searched, so its documents would count twice
// in total and total_found while the rows, merged by id, show once. It is
// checked at CREATE TABLE only, so that a definition stored before the
// check still loads (and can be dropped).
func checkShardsNamedOnce(d *distTable) error {
	locals := map[string]bool{}
	for _, l := range d.locals {
		if locals[strings.ToLower(l)] {
			return Errorf(CodeBadOption, "table setting local: '%s' is named twice; a shard is searched once, so name each table once", l)
		}
		locals[strings.ToLower(l)] = true
	}
	mirrors := map[string]string{} // mirror -> the agent= value naming it
	for _, a := range d.agents {
		for _, m := range a.mirrors {
			key := strings.ToLower(m.String())
			if first, ok := mirrors[key]; ok {
				where := "agent='" + first + "' and agent='" + a.text + "'"
				if first == a.text {
					where = "agent='" + a.text + "'"
				}
				return Errorf(CodeBadOption, "table setting agent: mirror '%s' is named twice (%s); a shard is searched once, so name each mirror once", m, where)
			}
			mirrors[key] = a.text
		}
	}
	return nil
}

// parseDistributed checks the settings of a distributed table.
func parseDistributed(name string, settings []index.Setting) (*distTable, error) {
	d := &distTable{name: name, settings: settings, ha: "random",
		connectTimeout: defaultAgentConnectTimeout, queryTimeout: defaultAgentQueryTimeout, retryCount: defaultAgentRetryCount}
	seen := map[string]bool{}
	for _, st := range settings {
		if !distSettings[st.Name] && seen[st.Name] {
			return nil, Errorf(CodeBadOption, "table setting '%s' is given twice", st.Name)
		}
		seen[st.Name] = true
		switch st.Name {
		case "local":
			for _, l := range strings.Split(st.Value, ",") {
				l = strings.TrimSpace(l)
				if l == "" {
					return nil, Errorf(CodeBadOption, "table setting local='%s': a table name is empty", st.Value)
				}
				d.locals = append(d.locals, l)
			}
		case "agent":
			a, err := parseAgent(name, st.Value)
			if err != nil {
				return nil, err
			}
			d.agents = append(d.agents, a)
		case "ha_strategy":
			v := strings.ToLower(strings.TrimSpace(st.Value))
			if !containsString(haStrategies, v) {
				return nil, Errorf(CodeBadOption, "table setting ha_strategy='%s': glint knows %s", st.Value, strings.Join(haStrategies, ", "))
			}
			d.ha = v
		case "agent_connect_timeout", "agent_query_timeout":
			ms, err := strconv.ParseUint(strings.TrimSpace(st.Value), 10, 63)
			if err != nil || ms == 0 || time.Duration(ms)*time.Millisecond > maxAgentTimeout {
				return nil, Errorf(CodeBadOption, "table setting %s='%s': milliseconds, an integer from 1 to %d", st.Name, st.Value, maxAgentTimeout.Milliseconds())
			}
			if st.Name == "agent_connect_timeout" {
				d.connectTimeout = time.Duration(ms) * time.Millisecond
			} else {
				d.queryTimeout = time.Duration(ms) * time.Millisecond
			}
		case "agent_retry_count", "mirror_retry_count":
			n, err := strconv.ParseUint(strings.TrimSpace(st.Value), 10, 31)
			if err != nil || n > maxAgentRetryCount {
				return nil, Errorf(CodeBadOption, "table setting %s='%s': an integer from 0 to %d", st.Name, st.Value, maxAgentRetryCount)
			}
			if seen["agent_retry_count"] && seen["mirror_retry_count"] {
				return nil, Errorf(CodeBadOption, "table settings agent_retry_count and mirror_retry_count are one setting (synonyms): give one")
			}
			d.retryCount = int(n)
		}
	}
	if len(d.locals) == 0 && len(d.agents) == 0 {
		return nil, Errorf(CodeBadOption, "distributed table '%s' needs at least one local='table' or agent='host:port:table'", name)
	}
	return d, nil
}

// parseAgent reads one agent= value: mirrors separated by '|', each
// host[:port][:table]. A mirror without a table takes the next mirror's
// table (host1|host2:9306:t: both serve t), and the last one without a
// table the distributed table's own name, as in the Sphinx family.
func parseAgent(dist, value string) (distSpec, error) {
	a := distSpec{text: value}
	bad := func(format string, args ...any) error {
		return Errorf(CodeBadOption, "table setting agent='%s': %s", value, fmt.Sprintf(format, args...))
	}
	parts := strings.Split(value, "|")
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return a, bad("a mirror is empty (mirrors are host:port:table separated by '|')")
		}
		if strings.HasPrefix(p, "/") {
			return a, bad("'%s': glint reaches agents over TCP only, not a unix socket", p)
		}
		if i := strings.IndexByte(p, '['); i > 0 && strings.HasSuffix(p, "]") {
			return a, bad("'%s': agent options in brackets (%s) are not supported: agent connections are always pooled, and ha_strategy and agent_retry_count are settings of the table", p, p[i:])
		}
		f := strings.Split(p, ":")
		if strings.Contains(p, "[") || len(f) > 3 && strings.Contains(p, "::") {
			return a, bad("'%s': IPv6 addresses are not supported; use a host name or an IPv4 address", p)
		}
		if len(f) > 3 {
			return a, bad("'%s' has more than host:port:table", p)
		}
		m := distMirror{}
		host, port := f[0], defaultAgentPort
		switch len(f) {
		case 2:
			if isDigits(f[1]) {
				port = f[1]
			} else {
				m.table = f[1]
			}
		case 3:
			port, m.table = f[1], f[2]
		}
		if host == "" {
			return a, bad("'%s' has no host", p)
		}
		n, err := strconv.Atoi(port)
		if !isDigits(port) {
			err = strconv.ErrSyntax // (a sign is no part of a port: +9306)
		}
		if err != nil || n < 1 || n > 65535 {
			return a, bad("port '%s' of '%s' is not a number from 1 to 65535", port, p)
		}
		if strings.Contains(m.table, ",") {
			return a, bad("'%s' names several tables; glint asks one table per agent (give one agent= per table)", p)
		}
		if len(f) == 3 && m.table == "" {
			return a, bad("'%s' has an empty table name", p)
		}
		if m.table != "" {
			if err := checkTableName(m.table); err != nil {
				return a, bad("'%s': %v", p, err)
			}
		}
		if i := strings.IndexFunc(host, blankOrControl); i >= 0 {
			return a, bad("host '%s' of '%s' has a blank or a control character at byte %d", host, p, i)
		}
		m.addr = net.JoinHostPort(host, strconv.Itoa(n)) // (019306 is port 19306: one mirror)
		a.mirrors = append(a.mirrors, m)
	}
	table := dist
	for i := len(a.mirrors) - 1; i >= 0; i-- {
		if a.mirrors[i].table == "" {
			a.mirrors[i].table = table
		}
		table = a.mirrors[i].table
	}
	return a, nil
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// distributed returns the checked definition of a distributed table, or
// false when name is none.
func (s *Session) distributed(name string) (*distTable, bool, error) {
	def, ok := s.engine.db.DistributedTable(name)
	if !ok {
		return nil, false, nil
	}
	d, err := parseDistributed(def.Name, def.Settings)
	if err != nil {
		return nil, true, err
	}
	return d, true, nil
}

// shardsText names a distributed table's shards, for errors that send the
// user to them.
func (d *distTable) shardsText() string {
	var parts []string
	for _, l := range d.locals {
		parts = append(parts, "local '"+l+"'")
	}
	for _, a := range d.agents {
		parts = append(parts, "agent '"+a.text+"'")
	}
	return strings.Join(parts, ", ")
}

// writeError is the error of a statement that needs a table with
// documents (a write, TRUNCATE, OPTIMIZE, CALL SNIPPETS) naming a
// distributed table: it names the shards to run it on.
func (d *distTable) writeError() error {
	return Errorf(CodeUnsupported, "table '%s' is distributed and holds no documents: write to (or run this on) its shards: %s", d.name, d.shardsText())
}

// createText renders the statement that re-creates a distributed table.
func (d *distTable) createText(quote bool) string {
	name := d.name
	if quote {
		name = quoteName(name)
	}
	return "CREATE TABLE " + name + " " + d.optionsText()
}

// optionsText is a distributed table's settings as CREATE TABLE writes
// them (information_schema.TABLES.CREATE_OPTIONS).
func (d *distTable) optionsText() string {
	var b strings.Builder
	for i, st := range d.settings {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s='%s'", st.Name, strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(st.Value))
	}
	return b.String()
}

// describe answers DESC of a distributed table: one row per shard copy,
// Agent and Type (local; remote; or mirror i/n of a shard with mirrors).
func (d *distTable) describe(keep func(string) bool) *Result {
	r := &Result{Columns: []Column{{"Agent", ColString}, {"Type", ColString}}, Rows: [][]any{}}
	for _, l := range d.locals {
		if keep(l) {
			r.Rows = append(r.Rows, []any{l, "local"})
		}
	}
	for i, a := range d.agents {
		for j, m := range a.mirrors {
			typ := "remote"
			if len(a.mirrors) > 1 {
				typ = fmt.Sprintf("remote_%d_mirror_%d", i+1, j+1)
			}
			if keep(m.String()) {
				r.Rows = append(r.Rows, []any{m.String(), typ})
			}
		}
	}
	return r
}

// addDistributedTables adds the distributed tables to SHOW TABLES, in name
// order among the others, with type distributed.
func (s *Session) addDistributedTables(r *Result, keep func(string) bool) {
	names := s.engine.db.DistributedNames()
	if len(names) == 0 {
		return
	}
	for _, name := range names {
		if keep(name) {
			r.Rows = append(r.Rows, []any{name, "distributed"})
		}
	}
	sort.SliceStable(r.Rows, func(i, j int) bool { return r.Rows[i][0].(string) < r.Rows[j][0].(string) })
}
