#!/usr/bin/env bash
# The benchmark peer: Debian's Sphinx 2.2.11 (package sphinxsearch).
#
#   scripts/sphinx.sh install          install sphinxsearch if searchd is missing
#   scripts/sphinx.sh start DIR PORT   write DIR/sphinx.conf, start searchd on
#                                      127.0.0.1:PORT (MySQL protocol), wait until it
#                                      answers, print its pid
#   scripts/sphinx.sh stop DIR         stop the searchd whose pid is in DIR/searchd.pid
#
# DIR holds everything of one instance: config, indexes, binlog, pid file, logs.
# Two RT indexes: "t" (title and content full-text, not stored) and "t_stored" (the
# same, plus content as a string attribute, which Sphinx 2.2 needs for SNIPPET()).
# Both need the attribute gid: an RT index without an attribute is refused, and
# INSERT must name ids explicitly.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

install() {
	if command -v searchd >/dev/null 2>&1; then
		return 0
	fi
	"$here/apt-install.sh" sphinxsearch
}

write_config() {
	local dir="$1" port="$2"
	mkdir -p "$dir/binlog" "$dir/t" "$dir/t_stored"
	cat >"$dir/sphinx.conf" <<CONF
index t
{
	type         = rt
	path         = $dir/t/t
	rt_field     = title
	rt_field     = content
	rt_attr_uint = gid
}

index t_stored
{
	type           = rt
	path           = $dir/t_stored/t_stored
	rt_field       = title
	rt_field       = content
	rt_attr_uint   = gid
	rt_attr_string = content
}

searchd
{
	listen          = 127.0.0.1:$port:mysql41
	workers         = threads
	binlog_path     = $dir/binlog
	pid_file        = $dir/searchd.pid
	log             = $dir/searchd.log
	query_log       = $dir/query.log
	max_packet_size = 128M
}
CONF
}

start() {
	local dir port
	dir="$(realpath -m "$1")" port="$2"
	install
	write_config "$dir" "$port"
	# searchd forks into the background once its listener is up and writes pid_file.
	searchd --config "$dir/sphinx.conf" >"$dir/start.log" 2>&1 || {
		cat "$dir/start.log" >&2
		exit 1
	}
	local i
	for i in $(seq 1 100); do
		if [[ -s "$dir/searchd.pid" ]] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			cat "$dir/searchd.pid"
			return 0
		fi
		sleep 0.1
	done
	echo "sphinx.sh: searchd did not start; see $dir/searchd.log" >&2
	exit 1
}

stop() {
	local dir="$1" pid i
	[[ -s "$dir/searchd.pid" ]] || return 0
	pid="$(cat "$dir/searchd.pid")"
	kill -TERM "$pid" 2>/dev/null || return 0
	for i in $(seq 1 300); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	echo "sphinx.sh: searchd $pid still running after 30 s; killing it" >&2
	kill -KILL "$pid" 2>/dev/null || true
}

case "${1:-}" in
install) install ;;
start) [[ $# -eq 3 ]] || { echo "usage: $0 start DIR PORT" >&2; exit 2; }; start "$2" "$3" ;;
stop) [[ $# -eq 2 ]] || { echo "usage: $0 stop DIR" >&2; exit 2; }; stop "$2" ;;
*) echo "usage: $0 install | start DIR PORT | stop DIR" >&2; exit 2 ;;
esac
