#!/usr/bin/env bash
# install-bench-deps.sh: what the race (make bench, make bench-quick) needs
# beyond Go: the peers' servers, Sphinx 2.2.11 (Debian's sphinxsearch) and
# PostgreSQL (Debian's postgresql, whose programs live under
# /usr/lib/postgresql/VERSION/bin), and a C compiler for cgo, which builds
# SQLite into bench/peers's peer-bench (mattn/go-sqlite3). npm, for the Brown
# corpus, is the corpus preparation's own business (bench/cmd/corpus).
# Idempotent: installs nothing, and asks apt nothing, when all are there.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

missing=()
if ! command -v searchd >/dev/null 2>&1; then
	missing+=(sphinxsearch)
fi
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
	missing+=(postgresql)
fi
if ! command -v "$(go env CC 2>/dev/null || echo gcc)" >/dev/null 2>&1; then
	missing+=(gcc libc6-dev)
fi
if [[ ${#missing[@]} -eq 0 ]]; then
	exit 0
fi
echo "install-bench-deps.sh: installing ${missing[*]}" >&2
"$here/apt-install.sh" "${missing[@]}"
