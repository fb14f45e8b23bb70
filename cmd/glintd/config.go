package main

import (
	"bufio"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/sql"
)

// options are glintd's settings, from flags and the config file.
type options struct {
	data               string
	mysqlListen        string
	httpListen         string
	configFile         string
	maxAllowedPacket   packetSize
	maxHTTPBody        byteSize
	memoryLimit        memoryLimit
	maxPreparedStmts   int
	parseCache         parseCache
	maxConnections     int
	maxQueryTime       time.Duration
	highlightBudget    optionalSize
	httpHeaderTimeout  time.Duration
	httpReadTimeout    time.Duration
	httpIdleTimeout    time.Duration
	handshakeTimeout   time.Duration
	idleTimeout        time.Duration
	readTimeout        time.Duration
	writeTimeout       time.Duration
	shutdownTimeout    time.Duration
	syncWrites         bool
	mergeFactor        mergeFactor
	snippetsFilePrefix string
	debugListen        string
	agentUser          string // name[:password] this server logs in to its agents with
	replicationListen  string // address the members of this server's clusters connect to; "": replication off
	replicationAddr    string // address the other members reach this server at
	replicationVia     string // member=address pairs: dial that member at that address
	replicationRate    streamRate
	snapshotEntries    snapshotEntries
	sslCert, sslKey    string
	allowPlainPassword bool
	users              map[string]string // config file only: user = name:password
	version            bool
}

// flagOnly are the flags that are not config file keys.
var flagOnly = map[string]bool{"config": true, "version": true}

// newFlagSet declares every flag (the config file keys are the same names,
// with '_' or '-').
func newFlagSet(o *options, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("glintd", flag.ContinueOnError)
	fs.SetOutput(out)
	o.maxAllowedPacket = 64 << 20
	o.maxHTTPBody = 32 << 20
	o.mergeFactor = index.DefaultMergeFactor
	o.parseCache = sql.DefaultParseCache
	o.memoryLimit = index.DefaultMemoryLimit
	o.highlightBudget = optionalSize{64 << 20}
	o.replicationRate = defaultStreamRate
	o.snapshotEntries = sql.DefaultSnapshotEntries
	o.data, o.mysqlListen, o.httpListen = "./data", "127.0.0.1:9306", "127.0.0.1:9308"
	fs.Var(directory(&o.data), "data", "data `directory`")
	fs.Var(address(&o.mysqlListen), "mysql-listen", "MySQL protocol listener `address` (host:port)")
	fs.Var(address(&o.httpListen), "http-listen", "HTTP listener `address` (host:port)")
	fs.StringVar(&o.configFile, "config", "", "config `file` of key = value lines (flags win over it)")
	fs.Var(&o.maxAllowedPacket, "max-allowed-packet", "largest MySQL packet a client may send (`size`: bytes, or with K, M, G)")
	fs.Var(&o.maxHTTPBody, "max-http-body", "largest HTTP request body (`size`)")
	fs.Var(&o.memoryLimit, "memory-limit", "memory the server sizes its caches and buffers for, and the Go runtime's soft limit (`size`, at least 128M)")
	o.maxPreparedStmts = 1024
	fs.Var(count{&o.maxPreparedStmts, maxCount}, "max-prepared-statements", "prepared statements open per MySQL connection (a `number` from 1)")
	fs.Var(&o.parseCache, "parse-cache", "`number` of parsed statements kept, SELECTs (of up to 4 KB) by their text and CALLs by their shape (texts cut out), for when they come again (0: off)")
	o.maxConnections = 1000
	fs.Var(count{&o.maxConnections, maxCount}, "max-connections", "MySQL connections open at once; the one past it gets error 1040 (Too many connections) (a `number` from 1)")
	durationVar(fs, &o.maxQueryTime, time.Minute, "no limit", "max-query-time", "stop a SELECT, CALL SNIPPETS or JSON search running this long, with error 3024 (0: no limit)", "")
	fs.Var(&o.highlightBudget, "highlight-work-budget", "bytes of text one request may highlight (`size`); the rows past it show their beginning, unmarked, and the answer says so (0: no budget; a request's work_budget option wins)")
	durationVar(fs, &o.httpHeaderTimeout, 10*time.Second, "", "http-header-timeout", "time allowed to read an HTTP request's headers", "")
	durationVar(fs, &o.httpReadTimeout, time.Minute, "", "http-read-timeout", "time allowed to read a whole HTTP request, body included", "")
	durationVar(fs, &o.httpIdleTimeout, 5*time.Minute, "", "http-idle-timeout", "close a kept-alive HTTP connection idle this long", "")
	durationVar(fs, &o.handshakeTimeout, 10*time.Second, "", "handshake-timeout", "time allowed for the MySQL handshake", "")
	durationVar(fs, &o.idleTimeout, 8*time.Hour, "", "idle-timeout", "close a MySQL connection idle this long (wait_timeout)", "")
	durationVar(fs, &o.readTimeout, 30*time.Second, "", "read-timeout", "time allowed for each read inside a MySQL packet", "")
	durationVar(fs, &o.writeTimeout, 60*time.Second, "", "write-timeout", "time allowed for each write to a client", "")
	durationVar(fs, &o.shutdownTimeout, 30*time.Second, "running statements are stopped at once", "shutdown-timeout", "on SIGINT/SIGTERM, how long running statements may finish", "0: they are stopped at once")
	fs.Var(boolean{&o.syncWrites}, "sync-writes", "fsync every commit (survives power loss, not just a crash)")
	fs.Var(&o.mergeFactor, "merge-factor", "merge this many neighbouring segments of about the same size in the background (0: never; OPTIMIZE TABLE merges all)")
	fs.StringVar(&o.snippetsFilePrefix, "snippets-file-prefix", "", "directory CALL SNIPPETS(..., 1 AS load_files) reads files from")
	fs.StringVar(&o.sslCert, "ssl-cert", "", "PEM `file` of the TLS certificate (chain): TLS on the MySQL listener, HTTPS on the HTTP one (with ssl_key)")
	fs.StringVar(&o.sslKey, "ssl-key", "", "PEM `file` of the TLS certificate's private key")
	fs.Var(boolean{&o.allowPlainPassword}, "allow-plain-passwords", "let users' passwords cross connections without TLS (needed to have users without ssl_cert)")
	fs.StringVar(&o.debugListen, "debug-listen", "", "`address` serving Go's profiles at /debug/pprof/ (off when empty; keep it on loopback)")
	o.agentUser = "root"
	fs.Var(agentUser(&o.agentUser), "agent-user", "`name[:password]` this server logs in to the agents of its distributed tables with")
	fs.StringVar(&o.replicationListen, "replication-listen", "", "`address` the other members of this server's replication clusters connect to (off when empty: no CREATE or JOIN CLUSTER)")
	fs.StringVar(&o.replicationAddr, "replication-advertise", "", "`address` the other members reach this server at (default: replication_listen's)")
	fs.StringVar(&o.replicationVia, "replication-via", "", "`member=address,...`: reach those members (by the address they advertise) at these addresses instead (a tunnel, a NAT, a test's fault proxy)")
	fs.Var(&o.replicationRate, "replication-stream-rate", "`MB/s` (of 1048576 bytes) each snapshot this server sends to a member of its clusters may take, so that a joining member leaves the leader room for its writes (0: no bound)")
	fs.Var(&o.snapshotEntries, "replication-snapshot-entries", "`entries` a cluster applies between two snapshots of its tables; its raft log is compacted at each (a member further behind catches up from a snapshot)")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	return fs
}

// parseOptions reads the flags, then the config file if one is given; a flag
// given on the command line wins over the file.
func parseOptions(args []string, out io.Writer) (*options, error) {
	o := &options{}
	fs := newFlagSet(o, out)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.configFile != "" {
		f, err := os.Open(o.configFile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		onCommandLine := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { onCommandLine[f.Name] = true })
		users, err := readConfig(f, o.configFile, fs, onCommandLine)
		if err != nil {
			return nil, err
		}
		o.users = users
	}
	if err := replicationUnused(fs, o); err != nil {
		return nil, err
	}
	if err := replicationReachable(o); err != nil {
		return nil, err
	}
	return o, nil
}

// replicationReachable refuses an address the other members could not
// reach this server at, which its clusters would record as its own: an
// advertised address that is not host:port, or a wildcard one (advertised,
// or replication_listen's, advertised when replication_advertise is not
// set), which every member would take for itself.
func replicationReachable(o *options) error {
	if o.replicationListen == "" {
		return nil
	}
	key, addr := "replication_advertise", o.replicationAddr
	if addr == "" {
		key, addr = "replication_listen", o.replicationListen
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s %q: %v", key, addr, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		if key == "replication_listen" {
			return fmt.Errorf("replication_listen %q is a wildcard address, which the other members cannot reach this server at: set replication_advertise to the address they can", addr)
		}
		return fmt.Errorf("replication_advertise %q is a wildcard address: give the address the other members reach this server at", addr)
	}
	if n, err := strconv.Atoi(port); key == "replication_advertise" && (err != nil || n < 1 || n > 65535) {
		return fmt.Errorf("replication_advertise %q: port %q is not a number from 1 to 65535", addr, port)
	}
	return nil
}

// replicationUnused refuses a replication setting given (as a flag or in
// the file: both mark it set) to a server without replication_listen,
// which is in no cluster and would read the setting for nothing.
func replicationUnused(fs *flag.FlagSet, o *options) error {
	if o.replicationListen != "" {
		return nil
	}
	var set []string
	fs.Visit(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "replication-") && f.Name != "replication-listen" {
			set = append(set, strings.ReplaceAll(f.Name, "-", "_"))
		}
	})
	switch len(set) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s is set, but replication_listen is not: this server is in no cluster, so it would do nothing", set[0])
	}
	return fmt.Errorf("%s are set, but replication_listen is not: this server is in no cluster, so they would do nothing", strings.Join(set, ", "))
}

// readConfig applies a config file to fs and returns its users. The format:
//
//	# a comment (whole lines only: values may hold '#')
//	data = /var/lib/glint
//	mysql_listen = 0.0.0.0:9306
//	max_allowed_packet = 64M
//	user = alice:secret       # repeatable: name:password (the first ':' splits)
//
// Keys are the flag names, with '_' or '-'; a value may be double-quoted (Go
// syntax). Keys on the command line are skipped. An unknown key, a key given
// twice or a bad value is an error naming the file and line.
func readConfig(r io.Reader, name string, fs *flag.FlagSet, skip map[string]bool) (map[string]string, error) {
	seen := map[string]int{}
	var users map[string]string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if line == 1 {
			// A byte order mark, which some editors put first in UTF-8 files,
			// would otherwise start the first key.
			text = strings.TrimPrefix(text, "\ufeff")
		}
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		where := fmt.Sprintf("config %s:%d", name, line)
		k, v, ok := strings.Cut(text, "=")
		if !ok {
			return nil, fmt.Errorf("%s: expected key = value, got %q", where, text)
		}
		key := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), "_", "-")
		value := strings.TrimSpace(v)
		if strings.HasPrefix(value, `"`) {
			uq, err := strconv.Unquote(value)
			if err != nil {
				return nil, fmt.Errorf("%s: bad quoted value %s", where, value)
			}
			value = uq
		}
		if key == "user" {
			user, password, ok := strings.Cut(value, ":")
			if !ok || user == "" {
				return nil, fmt.Errorf("%s: user: expected name:password, got %q", where, value)
			}
			if users == nil {
				users = map[string]string{}
			}
			if _, dup := users[user]; dup {
				return nil, fmt.Errorf("%s: user %q is listed twice", where, user)
			}
			users[user] = password
			continue
		}
		if fs.Lookup(key) == nil || flagOnly[key] {
			return nil, fmt.Errorf("%s: unknown key %q", where, strings.TrimSpace(k))
		}
		if first, dup := seen[key]; dup {
			return nil, fmt.Errorf("%s: key %q is set twice (first on line %d)", where, strings.TrimSpace(k), first)
		}
		seen[key] = line
		if skip[key] {
			continue
		}
		if err := fs.Set(key, value); err != nil {
			return nil, fmt.Errorf("%s: %s: %v", where, strings.TrimSpace(k), err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("config %s: %w", name, err)
	}
	return users, nil
}

// text is a setting that is a string its check takes (and perhaps
// tidies): address, agentUser, directory.
type text struct {
	p     *string
	check func(string) (string, error)
}

func (t text) String() string {
	if t.p == nil {
		return ""
	}
	return *t.p
}

func (t text) Set(s string) error {
	v, err := t.check(s)
	if err != nil {
		return err
	}
	*t.p = v
	return nil
}

// address is a listener's address, host:port (port 0: a free one). An
// empty one would listen on every interface at a port of the system's
// choosing, without a word.
func address(p *string) text {
	return text{p, func(s string) (string, error) {
		s = strings.TrimSpace(s)
		if _, _, err := net.SplitHostPort(s); err != nil {
			return "", fmt.Errorf("expected an address host:port such as 127.0.0.1:9306, got %q", s)
		}
		return s, nil
	}}
}

// agentUser is the agent_user setting, name[:password]: a name is needed
// (an empty one would log in to every agent as no user).
func agentUser(p *string) text {
	return text{p, func(s string) (string, error) {
		if name, _, _ := strings.Cut(s, ":"); strings.TrimSpace(name) == "" {
			return "", fmt.Errorf("expected name[:password] with a name, got %q", s)
		}
		return s, nil
	}}
}

// directory is the data setting: an empty one is refused (it would be
// taken for a directory named "").
func directory(p *string) text {
	return text{p, func(s string) (string, error) {
		if strings.TrimSpace(s) == "" {
			return "", errors.New("expected a directory, got an empty value")
		}
		return s, nil
	}}
}

// boolean is a true/false setting; --name alone is true. The flag
// package's own says only "parse error" of another value.
type boolean struct{ p *bool }

func (b boolean) IsBoolFlag() bool { return true }

func (b boolean) String() string { return strconv.FormatBool(b.p != nil && *b.p) }

func (b boolean) Set(s string) error {
	v, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("expected true or false, got %q", s)
	}
	*b.p = v
	return nil
}

// maxCount is the largest count setting (max_connections,
// max_prepared_statements).
const maxCount = 1 << 20

// count is a setting that is a number from 1 to max: the server would put
// its default in the place of 0 or less without a word.
type count struct {
	p   *int
	max int
}

func (c count) String() string {
	if c.p == nil {
		return "0"
	}
	return strconv.Itoa(*c.p)
}

func (c count) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > c.max {
		return fmt.Errorf("expected a number from 1 to %d", c.max)
	}
	*c.p = n
	return nil
}

// durationVar defines the time setting name (see duration), of default
// def, its usage followed by the form it takes and, when not "", more (what
// 0 does, say).
func durationVar(fs *flag.FlagSet, p *time.Duration, def time.Duration, zero, name, usage, more string) {
	*p = def
	form := "a `duration`: 30s, 5m, 8h"
	if more != "" {
		form += "; " + more
	}
	fs.Var(duration{p, zero}, name, usage+" ("+form+")")
}

// duration is a time setting, a Go duration (30s, 5m, 8h). zero says what
// 0 means; "" refuses 0, which the server would replace by its default
// without a word. A negative duration is refused.
type duration struct {
	p    *time.Duration
	zero string
}

func (d duration) String() string {
	if d.p == nil {
		return "0s"
	}
	return d.p.String()
}

func (d duration) Set(s string) error {
	v, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil, v < 0:
	case v == 0 && d.zero == "":
	default:
		*d.p = v
		return nil
	}
	if d.zero == "" {
		return errors.New("expected a positive duration such as 30s, 5m or 8h")
	}
	return fmt.Errorf("expected a duration such as 30s, 5m or 8h, or 0 (%s)", d.zero)
}

// parseCache is the parse_cache setting: 0 (off) to sql.MaxParseCache
// statements.
type parseCache int

func (c *parseCache) String() string { return strconv.Itoa(int(*c)) }

func (c *parseCache) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n > sql.MaxParseCache {
		return fmt.Errorf("expected 0 (off) or a number of statements up to %d", sql.MaxParseCache)
	}
	*c = parseCache(n)
	return nil
}

// mergeFactor is the merge_factor setting: 0 (no background merges) or 2 or more.
type mergeFactor int

func (m *mergeFactor) String() string { return strconv.Itoa(int(*m)) }

func (m *mergeFactor) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n == 1 || n > 1<<20 {
		return errors.New("expected 0 (no background merges) or a number of segments from 2 to 1048576")
	}
	*m = mergeFactor(n)
	return nil
}

// indexFactor is the setting as index.Options.MergeFactor has it.
func (m mergeFactor) indexFactor() int {
	if m == 0 {
		return -1
	}
	return int(m)
}

// streamRate is the replication_stream_rate setting: MB/s (of 2^20 bytes,
// as the sizes), 0 for no bound.
type streamRate int64

const defaultStreamRate streamRate = 120

func (r *streamRate) String() string { return strconv.FormatInt(int64(*r), 10) }

func (r *streamRate) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 || n > 1<<20 {
		return errors.New("expected 0 (no bound) or a rate in MB/s up to 1048576")
	}
	*r = streamRate(n)
	return nil
}

// bytes is the rate in bytes a second.
func (r streamRate) bytes() int64 { return int64(r) << 20 }

// snapshotEntries is the replication_snapshot_entries setting: 1 or more.
type snapshotEntries uint64

func (e *snapshotEntries) String() string { return strconv.FormatUint(uint64(*e), 10) }

func (e *snapshotEntries) Set(s string) error {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil || n == 0 || n > 1<<32 {
		return errors.New("expected a number of raft entries from 1 to 4294967296")
	}
	*e = snapshotEntries(n)
	return nil
}

// byteSize is a size flag: bytes, or a number with K, M or G (powers of 1024),
// optionally followed by B.
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Set(s string) error {
	t := strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult, t = 1<<10, t[:n-1]
		case 'M':
			mult, t = 1<<20, t[:n-1]
		case 'G':
			mult, t = 1<<30, t[:n-1]
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return errors.New("expected a positive size such as 1048576, 512K, 64M or 1G")
	}
	*b = byteSize(n * mult)
	return nil
}

// optionalSize is a byteSize that may be 0: off.
type optionalSize struct{ byteSize }

func (b *optionalSize) Set(s string) error {
	if strings.TrimSpace(s) == "0" {
		b.byteSize = 0
		return nil
	}
	if err := b.byteSize.Set(s); err != nil {
		return errors.New("expected 0 (off) or a positive size such as 1048576, 512K, 64M or 1G")
	}
	return nil
}

// sizeAtLeast reads the size s, which must be at least least bytes
// (below is why, for the error).
func sizeAtLeast(s string, least int64, below string) (int64, error) {
	var b byteSize
	if err := b.Set(s); err != nil {
		return 0, err
	}
	if int64(b) < least {
		return 0, fmt.Errorf("%s is below %s", s, below)
	}
	return int64(b), nil
}

// packetSize is max_allowed_packet: a size of at least 1K, MySQL's least
// (the server would raise a smaller one to it without a word).
type packetSize int64

func (p *packetSize) String() string { return strconv.FormatInt(int64(*p), 10) }

func (p *packetSize) Set(s string) error {
	n, err := sizeAtLeast(s, 1024, "1K, the least a MySQL packet limit may be")
	if err == nil {
		*p = packetSize(n)
	}
	return err
}

// memoryLimit is a size of at least index.MinMemoryLimit.
type memoryLimit int64

func (m *memoryLimit) String() string { return strconv.FormatInt(int64(*m), 10) }

func (m *memoryLimit) Set(s string) error {
	n, err := sizeAtLeast(s, index.MinMemoryLimit, "the least glintd works in, 128M")
	if err == nil {
		*m = memoryLimit(n)
	}
	return err
}

// tlsConfig loads the certificate and key, and checks that users' passwords
// cross only TLS connections unless the owner allows otherwise. It returns
// nil when TLS is off, and whether plain connections must be refused
// passwords.
func (o *options) tlsConfig() (cfg *tls.Config, requireTLS bool, err error) {
	switch {
	case o.sslCert == "" && o.sslKey == "":
		if len(o.users) > 0 && !o.allowPlainPassword {
			return nil, false, errors.New("users are configured but TLS is not (ssl_cert and ssl_key): " +
				"their passwords would cross plain connections; configure TLS, or set allow_plain_passwords = true")
		}
		return nil, false, nil
	case o.sslCert == "":
		return nil, false, errors.New("ssl_key is set but ssl_cert is not: TLS needs both")
	case o.sslKey == "":
		return nil, false, errors.New("ssl_cert is set but ssl_key is not: TLS needs both")
	}
	cert, err := tls.LoadX509KeyPair(o.sslCert, o.sslKey)
	if err != nil {
		return nil, false, fmt.Errorf("ssl_cert %s, ssl_key %s: %w", o.sslCert, o.sslKey, err)
	}
	cfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	return cfg, len(o.users) > 0 && !o.allowPlainPassword, nil
}
