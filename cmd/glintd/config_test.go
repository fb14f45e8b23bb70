package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/sql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "glint.conf")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	return p
}

func TestOptionsDefaults(t *testing.T) {
	o, err := parseOptions(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "./data", o.data)
	assert.Equal(t, "127.0.0.1:9306", o.mysqlListen)
	assert.Equal(t, "127.0.0.1:9308", o.httpListen)
	assert.Equal(t, packetSize(64<<20), o.maxAllowedPacket)
	assert.Equal(t, 8*time.Hour, o.idleTimeout)
	assert.Nil(t, o.users)
	assert.Equal(t, index.DefaultMergeFactor, o.mergeFactor.indexFactor())
	assert.Equal(t, memoryLimit(index.DefaultMemoryLimit), o.memoryLimit)
	assert.Equal(t, parseCache(sql.DefaultParseCache), o.parseCache)
	assert.Equal(t, int64(120<<20), o.replicationRate.bytes())
	assert.Equal(t, snapshotEntries(sql.DefaultSnapshotEntries), o.snapshotEntries)
	assert.Equal(t, 1000, o.maxConnections)
	assert.Equal(t, 1024, o.maxPreparedStmts)
	assert.Equal(t, time.Minute, o.maxQueryTime)
	assert.Equal(t, 30*time.Second, o.shutdownTimeout)
}

func TestZeroDurations(t *testing.T) {
	o, err := parseOptions([]string{"--max-query-time", "0", "--shutdown-timeout=0s", "--max-connections", "5"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, time.Duration(0), o.maxQueryTime, "0: no limit")
	assert.Equal(t, time.Duration(0), o.shutdownTimeout, "0: stopped at once")
	assert.Equal(t, 5, o.maxConnections)
}

func TestConfigFile(t *testing.T) {
	p := writeConfig(t, `
# comment
data = /srv/glint
mysql_listen = 0.0.0.0:3306
http-listen = "127.0.0.1:0"
max_allowed_packet = 16M
idle_timeout = 1h
sync_writes = true
merge_factor = 0
memory_limit = 2G
parse_cache = 0
replication_listen = 127.0.0.1:0
replication_stream_rate = 0
replication_snapshot_entries = 500
snippets_file_prefix = /srv/files
user = alice:se:cret#1
user = bob:
`)
	o, err := parseOptions([]string{"--config", p, "--data", "/override", "--max-allowed-packet=1024"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "/override", o.data, "flags win over the file")
	assert.Equal(t, packetSize(1024), o.maxAllowedPacket)
	assert.Equal(t, "0.0.0.0:3306", o.mysqlListen)
	assert.Equal(t, "127.0.0.1:0", o.httpListen)
	assert.Equal(t, time.Hour, o.idleTimeout)
	assert.True(t, o.syncWrites)
	assert.Equal(t, -1, o.mergeFactor.indexFactor(), "0 turns background merges off")
	assert.Equal(t, "/srv/files", o.snippetsFilePrefix)
	assert.Equal(t, parseCache(0), o.parseCache)
	assert.Equal(t, memoryLimit(2<<30), o.memoryLimit)
	assert.Equal(t, int64(0), o.replicationRate.bytes(), "0: no bound")
	assert.Equal(t, snapshotEntries(500), o.snapshotEntries)
	assert.Equal(t, map[string]string{"alice": "se:cret#1", "bob": ""}, o.users)
}

func TestConfigFileErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"unknown key", "data = x\n\ncolour = blue\n", `:3: unknown key "colour"`},
		{"flag-only key", "config = other.conf\n", `:1: unknown key "config"`},
		{"no equals sign", "data\n", `:1: expected key = value, got "data"`},
		{"bad size", "max_allowed_packet = lots\n", `:1: max_allowed_packet: expected a positive size`},
		{"bad duration", "idle_timeout = soon\n", `:1: idle_timeout: expected a positive duration such as 30s, 5m or 8h`},
		{"duration without a unit", "read_timeout = 5\n", `:1: read_timeout: expected a positive duration`},
		{"zero timeout", "idle_timeout = 0\n", `:1: idle_timeout: expected a positive duration`},
		{"negative timeout", "handshake_timeout = -1s\n", `:1: handshake_timeout: expected a positive duration`},
		{"negative query time", "max_query_time = -5s\n", `:1: max_query_time: expected a duration such as 30s, 5m or 8h, or 0 (no limit)`},
		{"packet under 1K", "max_allowed_packet = 100\n", `:1: max_allowed_packet: 100 is below 1K, the least a MySQL packet limit may be`},
		{"zero connections", "max_connections = 0\n", `:1: max_connections: expected a number from 1 to 1048576`},
		{"negative connections", "max_connections = -1\n", `:1: max_connections: expected a number from 1`},
		{"negative prepared statements", "max_prepared_statements = -1\n", `:1: max_prepared_statements: expected a number from 1`},
		{"twice", "data = a\ndata = b\n", `:2: key "data" is set twice (first on line 1)`},
		{"bad user", "user = alice\n", `:1: user: expected name:password`},
		{"user twice", "user = a:1\nuser = a:2\n", `:2: user "a" is listed twice`},
		{"bad quotes", "data = \"x\n", `:1: bad quoted value`},
		{"merge factor 1", "merge_factor = 1\n", `:1: merge_factor: expected 0 (no background merges) or a number of segments from 2`},
		{"negative merge factor", "merge_factor = -3\n", `:1: merge_factor: expected 0`},
		{"memory limit too small", "memory_limit = 64M\n", `:1: memory_limit: 64M is below the least glintd works in, 128M`},
		{"negative parse cache", "parse_cache = -1\n", `:1: parse_cache: expected 0 (off) or a number of statements up to 1048576`},
		{"parse cache too large", "parse_cache = 2000000\n", `:1: parse_cache: expected 0 (off)`},
		{"parse cache not a number", "parse_cache = big\n", `:1: parse_cache: expected 0 (off)`},
		{"negative stream rate", "replication_stream_rate = -5\n", `:1: replication_stream_rate: expected 0 (no bound) or a rate in MB/s`},
		{"stream rate with a unit", "replication_stream_rate = 100M\n", `:1: replication_stream_rate: expected 0 (no bound)`},
		{"snapshot entries 0", "replication_snapshot_entries = 0\n", `:1: replication_snapshot_entries: expected a number of raft entries from 1`},
		{"memory limit not a size", "memory_limit = half\n", `:1: memory_limit: expected a positive size`},
		{"agent user without a name", "agent_user = :s3cret\n", `:1: agent_user: expected name[:password] with a name, got ":s3cret"`},
		{"empty agent user", "agent_user =\n", `:1: agent_user: expected name[:password] with a name, got ""`},
		{"not a boolean", "sync_writes = yes\n", `:1: sync_writes: expected true or false, got "yes"`},
		{"empty listen address", "mysql_listen =\n", `:1: mysql_listen: expected an address host:port such as 127.0.0.1:9306, got ""`},
		{"listen address without a port", "http_listen = 127.0.0.1\n", `:1: http_listen: expected an address host:port such as 127.0.0.1:9306, got "127.0.0.1"`},
		{"empty data directory", "data = \"\"\n", `:1: data: expected a directory, got an empty value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeConfig(t, tt.text)
			_, err := parseOptions([]string{"--config", p}, io.Discard)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "config "+p+tt.want)
		})
	}
}

func TestByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1048576", 1 << 20, true},
		{"512K", 512 << 10, true},
		{"64M", 64 << 20, true},
		{"64mb", 64 << 20, true},
		{"1G", 1 << 30, true},
		{"0", 0, false},
		{"-1", 0, false},
		{"M", 0, false},
		{"99999999999G", 0, false},
	}
	for _, tt := range tests {
		var b byteSize
		err := b.Set(tt.in)
		if !tt.ok {
			assert.Error(t, err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, int64(b), tt.in)
	}
}

func TestVersionFlag(t *testing.T) {
	var out stringWriter
	assert.Equal(t, 0, run([]string{"--version"}, &out, io.Discard))
	assert.Contains(t, string(out), "glintd ")
}

func TestBadFlagExits2(t *testing.T) {
	assert.Equal(t, 2, run([]string{"--nope"}, io.Discard, io.Discard))
}

func TestReplicationSettingsNeedListen(t *testing.T) {
	p := writeConfig(t, "replication_via = a:1=b:2\nreplication_stream_rate = 10\n")
	_, err := parseOptions([]string{"--config", p}, io.Discard)
	require.EqualError(t, err, "replication_stream_rate, replication_via are set, but replication_listen is not: "+
		"this server is in no cluster, so they would do nothing")
	_, err = parseOptions([]string{"--replication-advertise", "10.0.0.1:9312"}, io.Discard)
	require.EqualError(t, err, "replication_advertise is set, but replication_listen is not: "+
		"this server is in no cluster, so it would do nothing")
	o, err := parseOptions([]string{"--config", p, "--replication-listen", "127.0.0.1:0"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "a:1=b:2", o.replicationVia)
}

func TestReplicationAddressReachable(t *testing.T) {
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"--replication-listen", "0.0.0.0:9312"}, `replication_listen "0.0.0.0:9312" is a wildcard address, which the other members cannot reach this server at: set replication_advertise to the address they can`},
		{[]string{"--replication-listen", ":9312"}, `replication_listen ":9312" is a wildcard address, which the other members cannot reach this server at: set replication_advertise to the address they can`},
		{[]string{"--replication-listen", "[::]:9312"}, `replication_listen "[::]:9312" is a wildcard address, which the other members cannot reach this server at: set replication_advertise to the address they can`},
		{[]string{"--replication-listen", "127.0.0.1:9312", "--replication-advertise", "db1"}, `replication_advertise "db1": address db1: missing port in address`},
		{[]string{"--replication-listen", "127.0.0.1:9312", "--replication-advertise", "0.0.0.0:9312"}, `replication_advertise "0.0.0.0:9312" is a wildcard address: give the address the other members reach this server at`},
		{[]string{"--replication-listen", "127.0.0.1:9312", "--replication-advertise", "db1:0"}, `replication_advertise "db1:0": port "0" is not a number from 1 to 65535`},
		{[]string{"--replication-listen", "127.0.0.1:9312", "--replication-advertise", "db1:http"}, `replication_advertise "db1:http": port "http" is not a number from 1 to 65535`},
		{[]string{"--replication-listen", "0.0.0.0:9312", "--replication-advertise", "db1:9312"}, ""},
		{[]string{"--replication-listen", "127.0.0.1:0"}, ""},
	} {
		_, err := parseOptions(tt.args, io.Discard)
		if tt.err == "" {
			assert.NoError(t, err, tt.args)
			continue
		}
		assert.EqualError(t, err, tt.err, tt.args)
	}
	var stderr stringWriter
	assert.Equal(t, 2, run([]string{"--data", t.TempDir(), "--replication-listen", "0.0.0.0:0"}, io.Discard, &stderr))
	assert.Contains(t, string(stderr), `replication_listen "0.0.0.0:0" is a wildcard address`)
}

func TestConfigByteOrderMark(t *testing.T) {
	o, err := parseOptions([]string{"--config", writeConfig(t, "\ufeffdata = /srv/glint\n")}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "/srv/glint", o.data)
}

func TestBooleanFlags(t *testing.T) {
	o, err := parseOptions([]string{"--sync-writes", "--allow-plain-passwords=false"}, io.Discard)
	require.NoError(t, err)
	assert.True(t, o.syncWrites, "the flag alone is true")
	assert.False(t, o.allowPlainPassword)
	_, err = parseOptions([]string{"--sync-writes=on"}, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `invalid boolean value "on" for -sync-writes: expected true or false, got "on"`)
}

func TestEmptyListenFlag(t *testing.T) {
	_, err := parseOptions([]string{"--mysql-listen", ""}, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `invalid value "" for flag -mysql-listen: expected an address host:port`)
	_, err = parseOptions([]string{"--data="}, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `expected a directory, got an empty value`)
}

type stringWriter []byte

func (w *stringWriter) Write(p []byte) (int, error) { *w = append(*w, p...); return len(p), nil }

// TestDocumentedConfigs reads the config files the README and the package
// comment show: each parses, and no value keeps a comment written after it
// (comments are whole lines only).
func TestDocumentedConfigs(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	pkg, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	var blocks []string
	for _, b := range strings.Split(string(readme), "```ini\n")[1:] {
		blocks = append(blocks, strings.SplitN(b, "```", 2)[0])
	}
	var fromPkg []string
	in := false
	for _, line := range strings.Split(string(pkg), "\n") {
		if strings.HasPrefix(line, "//\t# /etc/glint.conf") {
			in = true
		}
		if in && !strings.HasPrefix(line, "//\t") {
			break
		}
		if in {
			fromPkg = append(fromPkg, strings.TrimPrefix(line, "//\t"))
		}
	}
	require.NotEmpty(t, fromPkg)
	blocks = append(blocks, strings.Join(fromPkg, "\n"))
	for i, b := range blocks {
		o, err := parseOptions([]string{"--config", writeConfig(t, b)}, io.Discard)
		require.NoError(t, err, "block %d:\n%s", i, b)
		values := []string{o.data, o.mysqlListen, o.sslCert, o.sslKey}
		for name, password := range o.users {
			values = append(values, name, password)
		}
		for _, v := range values {
			assert.NotContains(t, v, "#", "block %d: a value keeps a comment", i)
			assert.NotContains(t, v, `"`, "block %d: a value keeps its quotes", i)
		}
	}
}
