#!/usr/bin/env bash
# apt-install.sh PKG...: install Debian packages noninteractively, as root or
# through sudo. Runs apt-get update first (installs are only asked for when
# something is missing, so the update is never wasted).
set -euo pipefail

[[ $# -gt 0 ]] || { echo "usage: $0 PACKAGE..." >&2; exit 2; }

as_root=()
if [[ "$(id -u)" -ne 0 ]]; then
	if command -v sudo >/dev/null 2>&1; then
		as_root=(sudo -n)
	else
		echo "apt-install.sh: need root or sudo to install: $*" >&2
		exit 1
	fi
fi

export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" </dev/null
