#!/usr/bin/env bash
# conformance.sh: run the highlighting conformance suite (the reference's own
# answers, in ../shared/conformance beside the checkout) against a fresh
# glintd on free loopback ports with a temporary data directory, print the
# suite's last line, and fail when fewer cases pass than scripts/conformance.min
# records. Raise that number as passes come; never lower it.
#
#   scripts/conformance.sh [run.py arguments, e.g. -v or --filter t100-]
#
# GLINT_CONFORMANCE_DIR overrides where the suite is.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
suite="${GLINT_CONFORMANCE_DIR:-$root/../shared/conformance}"
if [[ ! -f "$suite/run.py" ]]; then
	echo "conformance: no suite at $suite (set GLINT_CONFORMANCE_DIR)" >&2
	exit 1
fi
for tool in python3 go; do
	command -v "$tool" >/dev/null 2>&1 || { echo "conformance: $tool is needed" >&2; exit 1; }
done
if ! command -v mysql >/dev/null 2>&1 && ! command -v mariadb >/dev/null 2>&1; then
	"$root/scripts/install-test-deps.sh"
fi

cd "$root"
go build -o bin/glintd ./cmd/glintd

work="$(mktemp -d)"
pid=""
cleanup() {
	if [[ -n "$pid" ]]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/files/snippets"

# Port 0: the kernel picks free ports; glintd prints the addresses it got.
# The output files exist before glintd starts: the background job opens them
# itself, maybe after the first look below.
: >"$work/glintd.out"
: >"$work/glintd.err"
bin/glintd --data "$work/data" --mysql-listen 127.0.0.1:0 --http-listen 127.0.0.1:0 \
	--snippets-file-prefix "$work/files/snippets/" >"$work/glintd.out" 2>"$work/glintd.err" &
pid=$!
mysql_port="" http_port=""
for _ in $(seq 1 300); do
	mysql_port="$(sed -n 's/^glintd: mysql listening on .*:\([0-9]*\)$/\1/p' "$work/glintd.out")"
	http_port="$(sed -n 's/^glintd: http listening on .*:\([0-9]*\)$/\1/p' "$work/glintd.out")"
	[[ -n "$mysql_port" && -n "$http_port" ]] && break
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "conformance: glintd stopped:" >&2
		cat "$work/glintd.err" >&2
		exit 1
	fi
	sleep 0.1
done
if [[ -z "$mysql_port" || -z "$http_port" ]]; then
	echo "conformance: glintd did not start listening within 30 s" >&2
	exit 1
fi

python3 "$suite/run.py" --mysql-port "$mysql_port" --http-port "$http_port" \
	--files-dir "$work/files" --skip-needs aot,icu "$@" >"$work/run.out" 2>&1 || true
if [[ " $* " == *" -v "* || " $* " == *" --verbose "* ]]; then
	cat "$work/run.out"
fi
last="$(tail -n 1 "$work/run.out")"
passed="$(sed -n 's/^\([0-9]*\) passed, .*/\1/p' <<<"$last")"
if [[ -z "$passed" ]]; then
	echo "conformance: the suite did not finish:" >&2
	tail -n 20 "$work/run.out" >&2
	exit 1
fi
echo "conformance: $last"
if [[ $# -eq 0 || "$*" == "-v" || "$*" == "--verbose" ]]; then
	min="$(tr -dc '0-9' <"$root/scripts/conformance.min")"
	if ((passed < min)); then
		echo "conformance: $passed cases pass, fewer than the $min that scripts/conformance.min records" >&2
		exit 1
	fi
fi
