#!/usr/bin/env bash
# A benchmark peer: Debian's PostgreSQL (package postgresql) and its full-text
# search, in a private cluster that lives and dies with one race.
#
#   scripts/postgres.sh install          install postgresql if initdb is missing
#   scripts/postgres.sh start DIR PORT   initdb a cluster in DIR/data, start it on
#                                        127.0.0.1:PORT (its unix socket in DIR),
#                                        wait until it answers, print the
#                                        postmaster's pid
#   scripts/postgres.sh stop DIR         stop the cluster of DIR (fast shutdown)
#
# DIR holds everything of one instance: the cluster, its socket and its log.
# The superuser is "glint", trusted on loopback and the socket (no password):
# nothing but the race can reach a cluster bound to 127.0.0.1 for minutes.
#
# PostgreSQL refuses to run as root. Run as root (as CI does), the script runs
# initdb, pg_ctl and so the server as the unprivileged "postgres" user that
# Debian's package creates (or, if it is missing, a system user "glintbench"
# it creates once), through runuser, and gives DIR to that user.
#
# Settings beyond the defaults, and why (bench/README.md):
#   synchronous_commit = off   a commit is not flushed to disk before it is
#                              acknowledged, as glintd's (sync_writes = false)
#   shared_buffers = 256MB     the Debian corpus, its tsvectors and GIN index fit
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# bindir prints the directory of the newest installed server's programs
# (Debian keeps them out of PATH, under /usr/lib/postgresql/VERSION/bin).
bindir() {
	local d
	d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
	if [[ -n "$d" && -x "$d/initdb" ]]; then
		echo "$d"
		return 0
	fi
	if command -v initdb >/dev/null 2>&1; then
		dirname "$(command -v initdb)"
		return 0
	fi
	return 1
}

install() {
	if bindir >/dev/null; then
		return 0
	fi
	"$here/apt-install.sh" postgresql
}

# run_user prints the user the server runs as when this script runs as root.
run_user() {
	if id -u postgres >/dev/null 2>&1; then
		echo postgres
		return 0
	fi
	if ! id -u glintbench >/dev/null 2>&1; then
		useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin glintbench
	fi
	echo glintbench
}

# as_server runs a command as the server's user (as is when not root).
as_server() {
	if [[ "$(id -u)" -eq 0 ]]; then
		runuser -u "$(run_user)" -- "$@"
	else
		"$@"
	fi
}

start() {
	local dir port bin
	dir="$(realpath -m "$1")" port="$2"
	install
	bin="$(bindir)"
	mkdir -p "$dir"
	if [[ "$(id -u)" -eq 0 ]]; then
		chown -R "$(run_user)" "$dir"
	fi
	as_server "$bin/initdb" -D "$dir/data" -U glint --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
		--no-sync >"$dir/initdb.log" 2>&1 || {
		cat "$dir/initdb.log" >&2
		exit 1
	}
	cat >>"$dir/data/postgresql.conf" <<CONF

# scripts/postgres.sh
listen_addresses        = '127.0.0.1'
port                    = $port
unix_socket_directories = '$dir'
synchronous_commit      = off
shared_buffers          = 256MB
CONF
	as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 start >"$dir/start.log" 2>&1 || {
		cat "$dir/start.log" "$dir/postgres.log" >&2 2>/dev/null || true
		exit 1
	}
	head -n 1 "$dir/data/postmaster.pid"
}

stop() {
	local dir bin pid i
	dir="$(realpath -m "$1")"
	[[ -s "$dir/data/postmaster.pid" ]] || return 0
	pid="$(head -n 1 "$dir/data/postmaster.pid")"
	if bin="$(bindir)" && as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1; then
		return 0
	fi
	kill -INT "$pid" 2>/dev/null || return 0
	for i in $(seq 1 300); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	echo "postgres.sh: postmaster $pid still running after 30 s; killing it" >&2
	kill -KILL "$pid" 2>/dev/null || true
}

case "${1:-}" in
install) install ;;
start) [[ $# -eq 3 ]] || { echo "usage: $0 start DIR PORT" >&2; exit 2; }; start "$2" "$3" ;;
stop) [[ $# -eq 2 ]] || { echo "usage: $0 stop DIR" >&2; exit 2; }; stop "$2" ;;
*) echo "usage: $0 install | start DIR PORT | stop DIR" >&2; exit 2 ;;
esac
