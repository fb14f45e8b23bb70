#!/usr/bin/env bash
# install-test-deps.sh: what the tests need beyond Go: a MySQL command-line
# client (mariadb or mysql) for the end-to-end tests, and Sphinx 2.2.11
# (Debian's sphinxsearch, whose searchd is the peer of the differential test
# in e2e/sphinxdiff), curl for the HTTP script test, and PyMySQL, a JDBC
# driver (MariaDB Connector/J) and a Java runtime for the TLS test; and the
# BI tools' own client libraries for the BI tests (e2e/bi_test.go):
# SQLAlchemy and pandas, the MariaDB ODBC driver with unixODBC and pyodbc, and
# mysqldump (with the client); and mariadb-server, which the BI tests start
# on a temp dir to run the same tools against (e2e/mariadb.go; the package's
# service is never started: Debian images deny it through policy-rc.d).
# Idempotent: installs nothing, and asks apt nothing, when all are there.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

missing=()
if ! command -v mariadb >/dev/null 2>&1 && ! command -v mysql >/dev/null 2>&1; then
	missing+=(mariadb-client)
fi
if ! command -v searchd >/dev/null 2>&1; then
	missing+=(sphinxsearch)
fi
if ! command -v curl >/dev/null 2>&1; then
	missing+=(curl)
fi
# The TLS test (e2e/tls_test.go) connects with PyMySQL and a JDBC driver too.
if ! { command -v python3 >/dev/null 2>&1 && python3 -c 'import pymysql' 2>/dev/null; } &&
	! { [[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c 'import pymysql' 2>/dev/null; }; then
	missing+=(python3-pymysql)
fi
if [[ ! -f /usr/share/java/mariadb-java-client.jar ]]; then
	missing+=(libmariadb-java)
fi
if ! command -v java >/dev/null 2>&1; then
	missing+=(default-jre-headless)
fi
python_has() { /usr/bin/python3 -c "import $1" 2>/dev/null; }
python_has sqlalchemy || missing+=(python3-sqlalchemy)
python_has pandas || missing+=(python3-pandas)
python_has pyodbc || missing+=(python3-pyodbc)
if ! command -v odbcinst >/dev/null 2>&1; then
	missing+=(unixodbc)
fi
if ! ls /usr/lib/*/odbc/libmaodbc.so >/dev/null 2>&1; then
	missing+=(odbc-mariadb)
fi
if ! command -v mariadb-install-db >/dev/null 2>&1 || ! [[ -x /usr/sbin/mariadbd ]]; then
	missing+=(mariadb-server)
fi
if [[ ${#missing[@]} -eq 0 ]]; then
	exit 0
fi
echo "install-test-deps.sh: installing ${missing[*]}" >&2
"$here/apt-install.sh" "${missing[@]}"
