// Command glintd is the glint server: it opens the data directory, serves the
// MySQL protocol and HTTP, and on SIGINT or SIGTERM lets running statements
// finish (up to --shutdown-timeout), closes storage and exits 0.
//
//	glintd --data ./data --mysql-listen 127.0.0.1:9306 --http-listen 127.0.0.1:9308
//	glintd --config /etc/glint.conf --mysql-listen 127.0.0.1:0
//
// Once both listeners accept connections it prints exactly one line for each,
// with the bound address (so port 0 works), and a third for --debug-listen:
//
//	glintd: mysql listening on 127.0.0.1:9306
//	glintd: http listening on 127.0.0.1:9308
//
// The config file (--config) holds "key = value" lines with the flag names as
// keys ('_' or '-'); whole-line # comments; values optionally double-quoted (Go
// syntax); flags given on the command line win over it; an unknown key, a key
// set twice or a bad value is an error naming the file and line. Users exist
// only in the file: with none, anyone may connect without a password.
//
//	# /etc/glint.conf
//	data = /var/lib/glint
//	mysql_listen = 0.0.0.0:9306
//	max_allowed_packet = 64M
//	idle_timeout = 8h
//	user = alice:secret
//	user = "reporting:pass with spaces"
//
// Keys (every flag but --config and --version, whose -h text says what each
// does; the README's Configuration table gives the defaults): data,
// mysql_listen, http_listen, memory_limit, max_allowed_packet, max_http_body,
// max_prepared_statements, max_connections, max_query_time,
// highlight_work_budget, handshake_timeout, idle_timeout, read_timeout,
// write_timeout, http_header_timeout, http_read_timeout, http_idle_timeout,
// shutdown_timeout, sync_writes, merge_factor, snippets_file_prefix,
// debug_listen, ssl_cert, ssl_key, allow_plain_passwords, agent_user, and
// user (file only, repeatable).
package main
