#!/usr/bin/env bash
# install-test-deps.sh: what the end-to-end tests need beyond Go: a MySQL
# command-line client (mariadb or mysql). Idempotent: installs nothing, and asks
# apt nothing, when a client is already there.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if command -v mariadb >/dev/null 2>&1 || command -v mysql >/dev/null 2>&1; then
	exit 0
fi
echo "install-test-deps.sh: installing mariadb-client" >&2
"$here/apt-install.sh" mariadb-client
